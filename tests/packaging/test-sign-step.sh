#!/bin/bash
# The recipes' shared module steps (packaging/modsign-pkg.sh) on the
# modules of the built tree KDIR, without a package build: unsigned
# modules in, debug info split by build-id, signed and verified last; a
# module that does not verify fails the step; the build's own secret keys
# (the ephemeral OpenPGP key, the X.509 key the kernel build generated)
# are gone afterwards, also when signing fails; and stripping after signing,
# the order the recipes avoid, leaves a module the verifier calls unsigned.
# Signing off the build host: the unsigned build's step writes the manifest
# and signs nothing, the signed build's attaches what was signed elsewhere,
# and refuses a secret key, a missing signature or a manifest that is not
# the modules'.
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
cp "$KDIR/scripts/modsign/pgp-sign" "$KDIR/scripts/modsign/pgp-verify" \
	"$KDIR/scripts/modsign/pgp-attach" "$obj/scripts/modsign/"
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

# compress: nothing to do for the small config (no module compression);
# with xz chosen (6.12 also needs MODULE_COMPRESS_ALL), each signed module
# becomes foo.ko.xz, the module it was byte for byte, and still verifies.
check "compress leaves modules alone without CONFIG_MODULE_COMPRESS_*" "0 $nmods 0" \
	"$(MODPUBKEY=$dir/a.pub run bash "$helper" compress "$obj" "$root") $(find "$root" -name '*.ko' | wc -l) $(find "$root" -name '*.ko.*' | wc -l)"
cp -a "$root" "$dir/signed-copy"
cp "$obj/.config" "$dir/config.plain"
sed -i '/MODULE_COMPRESS/d' "$obj/.config"
printf '%s\n' CONFIG_MODULE_COMPRESS=y CONFIG_MODULE_COMPRESS_XZ=y CONFIG_MODULE_COMPRESS_ALL=y >>"$obj/.config"
check "compress compresses and verifies every signed module (xz)" "0 0 $nmods" \
	"$(MODPUBKEY=$dir/a.pub run bash "$helper" compress "$obj" "$root") $(find "$root" -name '*.ko' | wc -l) $(find "$root" -name '*.ko.xz' | wc -l)"
same=0
while read -r xzko; do
	rel=${xzko#"$root"/}
	xz -dc "$xzko" | cmp -s - "$dir/signed-copy/${rel%.xz}" && same=$((same + 1))
done < <(find "$root" -name '*.ko.xz')
check "each .ko.xz decompresses to the signed module" "$nmods" "$same"
check "xz with CRC32, as the kernel's decompressor needs" "$nmods" \
	"$(find "$root" -name '*.ko.xz' -exec xz --robot -lvv {} \; | awk -F'\t' '$1 == "stream" && $9 == "CRC32"' | wc -l)"
mkdir -p "$root-nc" "$root-b2"
cp -a "$dir/signed-copy/." "$root-nc/"
sed -i 's/^CONFIG_MODULE_COMPRESS_ALL=y$/# CONFIG_MODULE_COMPRESS_ALL is not set/' "$obj/.config"
check "no compression on 6.12 without CONFIG_MODULE_COMPRESS_ALL" "0 0" \
	"$(MODPUBKEY=$dir/a.pub run bash "$helper" compress "$obj" "$root-nc") $(find "$root-nc" -name '*.ko.*' | wc -l)"
sed -i '/^# CONFIG_MODULE_COMPRESS_ALL/d' "$obj/.config"
cp -a "$dir/signed-copy/." "$root-b2/"
check "compress fails when a module does not verify against MODPUBKEY" "1" \
	"$(MODPUBKEY=$dir/b.pub run bash "$helper" compress "$obj" "$root-b2")"
cp "$dir/config.plain" "$obj/.config"

root=$dir/root-b/lib/modules/x
bash "$helper" install-modules "$obj" "$root" >/dev/null
plant_x509
check "sign fails when a module does not verify against MODPUBKEY" "1" \
	"$(MODSECKEY=$dir/a.sec MODPUBKEY=$dir/b.pub run bash "$helper" sign "$obj" "$root")"
check "the build's X.509 secret key is deleted when signing fails too" absent "$(x509_state)"

# Signing off the build host.
root=$dir/root-d/lib/modules/x
bash "$helper" install-modules "$obj" "$root" >/dev/null
bash "$helper" split-debug "$root" "$dir/debug-d" >/dev/null
cp -a "$root" "$dir/unsigned-d"
plant_x509
check "unsigned build: sign writes the manifest, signs nothing" "0 $nmods 0" \
	"$(MODPUBKEY=$dir/a.pub MODSIGN_PKG_MANIFEST=$dir/d.manifest run bash "$helper" sign "$obj" "$root") $(awk 'NR > 4' "$dir/d.manifest" | wc -l) $(diff -r "$dir/unsigned-d" "$root" | wc -l)"
check "unsigned build: the manifest names the modules below MODDIR" \
	"$(cd "$root" && find kernel -name '*.ko' | LC_ALL=C sort)" "$(awk 'NR > 4 { print $3 }' "$dir/d.manifest")"
check "unsigned build: the build's X.509 secret key is deleted too" absent "$(x509_state)"
check "unsigned build: compress leaves the unsigned modules alone" "0 0" \
	"$(MODPUBKEY=$dir/a.pub MODSIGN_PKG_MANIFEST=$dir/d.manifest run bash "$helper" compress "$obj" "$root") $(diff -r "$dir/unsigned-d" "$root" | wc -l)"
check "unsigned build: a secret key given is refused" "1 yes" \
	"$(MODSECKEY=$dir/a.sec MODPUBKEY=$dir/a.pub MODSIGN_PKG_MANIFEST=$dir/d2.manifest run bash "$helper" sign "$obj" "$root") $(grep -q 'takes no secret key' "$dir/out" && [ ! -e "$dir/d2.manifest" ] && echo yes)"
"$obj/scripts/modsign/pgp-sign" -k "$dir/a.sec" --sign-manifest "$dir/d.manifest" --output "$dir/d.sigs"
cp -a "$dir/d.sigs" "$dir/d.sigs-short"
rm "$(find "$dir/d.sigs-short" -name '*.sig' | LC_ALL=C sort | sed -n 1p)"
check "signed build: a missing signature fails the step, no module changed" "1 0" \
	"$(MODPUBKEY=$dir/a.pub MODSIGN_PKG_MANIFEST=$dir/d.manifest MODSIGN_PKG_SIGNATURES=$dir/d.sigs-short run bash "$helper" sign "$obj" "$root") $(diff -r "$dir/unsigned-d" "$root" | wc -l)"
check "signed build: signatures checked against another keyring fail, no module changed" "1 0" \
	"$(MODPUBKEY=$dir/b.pub MODSIGN_PKG_MANIFEST=$dir/d.manifest MODSIGN_PKG_SIGNATURES=$dir/d.sigs run bash "$helper" sign "$obj" "$root") $(diff -r "$dir/unsigned-d" "$root" | wc -l)"
check "signed build: sign attaches and verifies every module" "0 $nmods" \
	"$(MODPUBKEY=$dir/a.pub MODSIGN_PKG_MANIFEST=$dir/d.manifest MODSIGN_PKG_SIGNATURES=$dir/d.sigs run bash "$helper" sign "$obj" "$root") $(grep -c ': valid: ' "$dir/out")"
check "signatures without their manifest are refused" "1" \
	"$(MODPUBKEY=$dir/a.pub MODSIGN_PKG_SIGNATURES=$dir/d.sigs run bash "$helper" sign "$obj" "$root")"

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
