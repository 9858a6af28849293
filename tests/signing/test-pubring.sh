#!/bin/bash
# MODPUBKEY is built into vmlinux as it is: a secret key given there by
# mistake must stop the build, naming the file, and change nothing in the
# object tree (the keyring built in before stays, and so does vmlinux).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

dir=$(scratch pubring)
built="$KDIR/certs/pgp_pubkeys.gpg"
cp "$built" "$dir/built.gpg"
sha_vmlinux=$(sha256sum <"$KDIR/vmlinux")

# Each a keyring with a secret key in it: the secret export alone, and
# the public keyring with the secret key after it.
cp "$KDIR/modsign.sec" "$dir/secret-only.gpg"
cat "$KPUB" "$KDIR/modsign.sec" >"$dir/public-then-secret.gpg"
for ring in secret-only public-then-secret; do
	rc=0
	make -C "$KDIR" MODPUBKEY="$dir/$ring.gpg" vmlinux >"$dir/$ring.log" 2>&1 || rc=$?
	check "MODPUBKEY $ring: the build fails" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
	check "MODPUBKEY $ring: the message names the file and the reason" yes \
		"$(grep -F "$dir/$ring.gpg" "$dir/$ring.log" | grep -qi 'secret' && echo yes || echo no)"
	check "MODPUBKEY $ring: the keyring built in is unchanged" same \
		"$(cmp -s "$built" "$dir/built.gpg" && echo same || echo changed)"
	check "MODPUBKEY $ring: vmlinux is unchanged" same \
		"$([ "$(sha256sum <"$KDIR/vmlinux")" = "$sha_vmlinux" ] && echo same || echo changed)"
done

# The same key, public: the tree is up to date, nothing is rebuilt.
rc=0
make -C "$KDIR" MODPUBKEY="$KPUB" vmlinux >"$dir/public.log" 2>&1 || rc=$?
check "MODPUBKEY public: the build succeeds" 0 "$rc"
check "MODPUBKEY public: vmlinux is unchanged" same \
	"$([ "$(sha256sum <"$KDIR/vmlinux")" = "$sha_vmlinux" ] && echo same || echo changed)"
finish
