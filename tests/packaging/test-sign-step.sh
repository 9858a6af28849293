#!/bin/bash
# The recipes' shared module steps (packaging/modsign-pkg.sh) on the
# modules of the built tree KDIR, without a package build: unsigned
# modules in, debug info split by build-id, signed and verified last; a
# module that does not verify fails the step; the build's own secret keys
# (the ephemeral OpenPGP key, the X.509 key the kernel build generated)
# are gone afterwards, also when signing fails; and stripping after signing,
# the order the recipes avoid, leaves a module the verifier calls unsigned.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
helper=$(realpath "$here/../../packaging/modsign-pkg.sh")
dir=$(scratch sign-step)

# A copy of what the step reads from the object tree, so that the real
# tree's key is never touched.
obj=$dir/obj
mkdir -p "$obj/scripts/modsign"
cp "$KDIR/modules.order" "$KDIR/modules.builtin" "$KDIR/modules.builtin.modinfo" "$KDIR/.config" "$obj/"
cp "$KDIR/scripts/modsign/pgp-sign" "$KDIR/scripts/modsign/pgp-verify" "$obj/scripts/modsign/"
(cd "$KDIR" && find . -name '*.ko.unsigned' -print0 | cpio -0 -pdm --quiet "$obj")

export GNUPGHOME=$dir/gnupg
mkdir -m 0700 "$GNUPGHOME"
newkey() {
	gpg --batch --quiet --pinentry-mode loopback --passphrase '' \
		--quick-gen-key "$1" rsa2048 sign never 2>/dev/null
	gpg --batch --export-secret-keys "$1" >"$2.sec"
	gpg --batch --export "$1" >"$2.pub"
}
newkey 'step key <step@example.org>' "$dir/a"
newkey 'other key <other@example.org>' "$dir/b"
gpgconf --kill gpg-agent

nmods=$(grep -c . "$KDIR/modules.order")
run() { "$@" >"$dir/out" 2>&1 && echo 0 || echo $?; }

# The X.509 key the kernel build generates for PKCS#7, a stand-in here.
plant_x509() {
	mkdir -p "$obj/certs"
	openssl genpkey -algorithm ed25519 -out "$obj/certs/signing_key.pem" 2>/dev/null
}
x509_state() { [ -e "$obj/certs/signing_key.pem" ] && echo present || echo absent; }

root=$dir/root/lib/modules/x
plant_x509
check "install-modules installs every module unsigned" "0" "$(run bash "$helper" install-modules "$obj" "$root")"
check "split-debug splits every module" "0" "$(run bash "$helper" split-debug "$root" "$dir/debug")"
check "one .debug per module" "$nmods" "$(find "$dir/debug/usr/lib/debug/.build-id" -name '*.debug' | wc -l)"
check "sign signs and verifies every module" "0 $nmods" \
	"$(MODSECKEY=$dir/a.sec MODPUBKEY=$dir/a.pub run bash "$helper" sign "$obj" "$root") $(grep -c ': valid: ' "$dir/out")"
check "the build's X.509 secret key is deleted after signing with MODSECKEY" absent "$(x509_state)"
ko=$(find "$root" -name '*.ko' | sed -n 1p)
check "a signed module verifies against the signing keyring" "0" \
	"$(run "$obj/scripts/modsign/pgp-verify" --keyring "$dir/a.pub" "$ko")"
cp "$ko" "$dir/restripped.ko"
strip -g "$dir/restripped.ko"
check "stripping a signed module unsigns it (why the recipes sign last)" "10" \
	"$(run "$obj/scripts/modsign/pgp-verify" --keyring "$dir/a.pub" "$dir/restripped.ko")"

root=$dir/root-b/lib/modules/x
bash "$helper" install-modules "$obj" "$root" >/dev/null
plant_x509
check "sign fails when a module does not verify against MODPUBKEY" "1" \
	"$(MODSECKEY=$dir/a.sec MODPUBKEY=$dir/b.pub run bash "$helper" sign "$obj" "$root")"
check "the build's X.509 secret key is deleted when signing fails too" absent "$(x509_state)"

# Ephemeral key: the pair in the object tree, as the kernel build leaves it.
root=$dir/root-e/lib/modules/x
bash "$helper" install-modules "$obj" "$root" >/dev/null
cp "$dir/a.sec" "$obj/modsign.sec"
cp "$dir/a.pub" "$obj/modsign.pub"
check "sign with the ephemeral key" "0" "$(run bash "$helper" sign "$obj" "$root")"
check "the ephemeral secret key is deleted after signing" "absent" \
	"$([ -e "$obj/modsign.sec" ] && echo present || echo absent)"
cp "$dir/a.sec" "$obj/modsign.sec"
cp "$dir/b.pub" "$obj/modsign.pub"
check "sign fails with a non-matching ephemeral keyring" "1" "$(run bash "$helper" sign "$obj" "$root-2")"
check "the ephemeral secret key is deleted when signing fails too" "absent" \
	"$([ -e "$obj/modsign.sec" ] && echo present || echo absent)"
finish
