#!/bin/bash
# MODPUBKEY is built into vmlinux as it is: a secret key given there by
# mistake must stop the build, naming the file, and change nothing in the
# object tree (the keyring built in before stays, and so does vmlinux).
# The same holds for each file of MODPUBKEY_EXTRA, whose keys are built in
# after MODPUBKEY's.
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

# MODPUBKEY_EXTRA: further keyrings, checked as MODPUBKEY is and named
# as themselves.  The bad file is the second of two, so that the first,
# valid one is seen not to be built in either.  Building certs/ is
# enough: the keyring is made there.
extra_a=$(testkey outsider)/pub
extra_b=$(testkey packager)/pub
printf -- '-----BEGIN PGP PUBLIC KEY BLOCK-----\n' >"$dir/armoured.asc"
for bad in missing secret-only armoured; do
	case "$bad" in
	missing) ring=$dir/no-such-keyring.gpg why='missing' ;;
	secret-only) ring=$dir/secret-only.gpg why='not a public keyring' ;;
	armoured) ring=$dir/armoured.asc why='ASCII-armoured' ;;
	esac
	rc=0
	make -C "$KDIR" MODPUBKEY_EXTRA="$extra_a $ring" certs/ >"$dir/extra-$bad.log" 2>&1 || rc=$?
	check "MODPUBKEY_EXTRA $bad: the build fails" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
	check "MODPUBKEY_EXTRA $bad: the message names the variable, the file and the reason" 1 \
		"$(grep -c "^error: MODPUBKEY_EXTRA file '$ring' .*$why" "$dir/extra-$bad.log" || :)"
	check "MODPUBKEY_EXTRA $bad: the keyring built in is unchanged" same \
		"$(cmp -s "$built" "$dir/built.gpg" && echo same || echo changed)"
done

# Two good ones: built in after MODPUBKEY, in order, and the tree's own
# key pair (the ephemeral key, here) is kept, not made again.  Only
# certs/ is built, and put back as it was afterwards, so that vmlinux is
# neither relinked here nor later.
sha_keys=$(sha256sum "$KDIR/modsign.sec" "$KPUB")
rm -rf "$dir/certs.saved"
cp -a "$KDIR/certs" "$dir/certs.saved"
rc=0
make -C "$KDIR" MODPUBKEY_EXTRA="$extra_a $extra_b" certs/ >"$dir/extra-good.log" 2>&1 || rc=$?
check "MODPUBKEY_EXTRA two keyrings: certs/ builds" 0 "$rc"
check "MODPUBKEY_EXTRA two keyrings: the keyring built in is MODPUBKEY's, then each in order" same \
	"$(cat "$KPUB" "$extra_a" "$extra_b" | cmp -s - "$built" && echo same || echo differs)"
check "MODPUBKEY_EXTRA two keyrings: the tree's key pair is the same" "$sha_keys" \
	"$(sha256sum "$KDIR/modsign.sec" "$KPUB")"
check "MODPUBKEY_EXTRA two keyrings: no key is generated" 0 \
	"$(grep -c 'MODSIGN generated' "$dir/extra-good.log" || :)"
rc=0
make -C "$KDIR" certs/ >"$dir/extra-none.log" 2>&1 || rc=$?
check "MODPUBKEY_EXTRA dropped: the keyring built in is MODPUBKEY again" "0 same" \
	"$rc $(cmp -s "$KPUB" "$built" && echo same || echo differs)"
rm -rf "$KDIR/certs"
cp -a "$dir/certs.saved" "$KDIR/certs"

# The same key, public: the tree is up to date, nothing is rebuilt.
rc=0
make -C "$KDIR" MODPUBKEY="$KPUB" vmlinux >"$dir/public.log" 2>&1 || rc=$?
check "MODPUBKEY public: the build succeeds" 0 "$rc"
check "MODPUBKEY public: vmlinux is unchanged" same \
	"$([ "$(sha256sum <"$KDIR/vmlinux")" = "$sha_vmlinux" ] && echo same || echo changed)"
finish
