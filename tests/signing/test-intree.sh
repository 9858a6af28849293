#!/bin/bash
# Every module of the in-tree build is signed: it ends with the trailer,
# pgp-verify says valid against the keyring built into the kernel, gpgv
# accepts the signature that extract-module-sig.pl takes out of it, and
# modinfo shows a PGP signature by the right key and hash.  The signed
# module is the stripped one; foo.ko.unsigned keeps the debug info.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

dir=$(scratch intree)
hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$KDIR/.config")
signer=$(gpg --homedir "$dir" --batch --with-colons --import-options show-only \
	--import "$KPUB" 2>/dev/null | awk -F: '$1 == "uid" { if (!n++) print $10 }')
keyids=$(gpg --homedir "$dir" --batch --with-colons --import-options show-only \
	--import "$KPUB" 2>/dev/null | awk -F: '$1 == "pub" || $1 == "sub" { print $5 }')
gpgconf --homedir "$dir" --kill all >/dev/null 2>&1 || :

check "modules were built" yes "$([ -s "$KDIR/modules.order" ] && echo yes || echo no)"
check "the public keyring was built into vmlinux" yes \
	"$(grep -q '^CONFIG_SYSTEM_PGP_KEYRING=y' "$KDIR/.config" && echo yes || echo no)"

n=0
while read -r m; do
	ko=$KDIR/$m
	name=${m%.ko}
	n=$((n + 1))
	check "$name: has the signature trailer" yes "$(has_trailer "$ko" && echo yes || echo no)"
	check "$name: pgp-verify" valid "$(verify_outcome "$KPUB" "$ko")"
	check "$name: gpgv accepts the extracted signature" yes \
		"$(gpgv_ok "$KPUB" "$ko" "$dir" && echo yes || echo no)"
	check "$name: extracted body is the stripped module" yes \
		"$(cmp -s "$dir/$(basename "$ko").body" "$ko.stripped" && echo yes || echo no)"
	check "$name: modinfo sig_id" PGP "$(modinfo_field "$ko" sig_id)"
	check "$name: modinfo signer" "$signer" "$(modinfo_field "$ko" signer)"
	kid=$(modinfo_field "$ko" sig_key | tr -d ':')
	check "$name: modinfo sig_key is a key of MODPUBKEY" yes \
		"$(grep -qx "$kid" <<<"$keyids" && echo yes || echo no)"
	check "$name: modinfo sig_hashalgo" "$hash" "$(modinfo_field "$ko" sig_hashalgo)"
	check "$name: no .debug_* section in the signed module" 0 \
		"$(perl "$EXTRACT" -0 "$ko" 2>/dev/null >"$dir/body.o"; readelf -S -W "$dir/body.o" | grep -c '\.debug_' || :)"
	check "$name: foo.ko.unsigned keeps .debug_info" yes \
		"$(readelf -S -W "$ko.unsigned" | grep '\.debug_info' >/dev/null && echo yes || echo no)"
	check "$name: foo.ko.unsigned is unsigned" no \
		"$(has_trailer "$ko.unsigned" && echo yes || echo no)"
done < <(modules_ko "$KDIR")
check "in-tree modules checked" yes "$([ "$n" -gt 0 ] && echo yes || echo no)"

finish
