#!/bin/bash
# Each hash of the CONFIG_MODULE_SIG_SHA* choice: the signature packet
# and the trailer name it, pgp-verify, gpgv and modinfo agree.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

dir=$(scratch hashes)
src=$(sample_module)

# hash  OpenPGP id  kernel hash_info id
while read -r hash pgp kernel; do
	m=$dir/$hash.ko
	cp "$src" "$m"
	"$SIGN" -k "$KEYS/main.sec" -a "$hash" "$m"
	check "$hash: pgp-verify" valid "$(verify_outcome "$KEYS/main.pub" "$m")"
	check "$hash: gpgv accepts" yes "$(gpgv_ok "$KEYS/main.pub" "$m" "$dir" && echo yes || echo no)"
	check "$hash: modinfo sig_hashalgo" "$hash" "$(modinfo_field "$m" sig_hashalgo)"
	check "$hash: trailer hash field" "$kernel" \
		"$(perl "$EXTRACT" -d "$m" 2>/dev/null | awk '{ print $2 }')"
	check "$hash: packet hash algorithm" "$pgp" \
		"$(gpg --batch --list-packets "$dir/$hash.ko.sig" 2>/dev/null |
			sed -n 's/.*digest algo \([0-9]*\),.*/\1/p')"
done <<'EOF_CASES'
sha1 2 2
sha224 11 7
sha256 8 4
sha384 9 5
sha512 10 6
EOF_CASES

cp "$src" "$dir/md5.ko"
rc=0
"$SIGN" -k "$KEYS/main.sec" -a md5 "$dir/md5.ko" 2>/dev/null || rc=$?
check "md5: refused" 2 "$rc"

finish
