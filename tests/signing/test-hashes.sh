#!/bin/bash
# Each hash of the CONFIG_MODULE_SIG_SHA* choice that the kernel accepts
# for OpenPGP signatures: the signature packet and the trailer name it,
# pgp-verify, gpgv and modinfo agree, whether pgp-sign is run by hand or
# by Kbuild.  SHA-1 and SHA-224, which the kernel refuses, are refused by
# pgp-sign and stop a Kbuild build, naming the hash; so do the SHA3 ones.
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
	"$SIGN" -k "$KEYS/main/sec" -a "$hash" "$m"
	check "$hash: pgp-verify" valid "$(verify_outcome "$KEYS/main/pub" "$m")"
	check "$hash: gpgv accepts" yes "$(gpgv_ok "$KEYS/main/pub" "$m" "$dir" && echo yes || echo no)"
	check "$hash: modinfo sig_hashalgo" "$hash" "$(modinfo_field "$m" sig_hashalgo)"
	check "$hash: trailer hash field" "$kernel" \
		"$(perl "$EXTRACT" -d "$m" 2>/dev/null | awk '{ print $2 }')"
	check "$hash: packet hash algorithm" "$pgp" \
		"$(gpg --batch --list-packets "$dir/$hash.ko.sig" 2>/dev/null |
			sed -n 's/.*digest algo \([0-9]*\),.*/\1/p')"
done <<'EOF_CASES'
sha256 8 4
sha384 9 5
sha512 10 6
EOF_CASES

# Through Kbuild: the hash the CONFIG_MODULE_SIG_SHA* choice sets
# (CONFIG_MODULE_SIG_HASH, given on the command line here, as a kernel
# configured with that choice has it) signs the external modules.
for hash in sha256 sha384 sha512; do
	extmod "$dir/ext-$hash" MODSECKEY="$KEYS/main/sec" CONFIG_MODULE_SIG_HASH="$hash"
	check "Kbuild, CONFIG_MODULE_SIG_HASH=$hash: modinfo sig_hashalgo" "$hash $hash" \
		"$(modinfo_field "$dir/ext-$hash/extmod_a.ko" sig_hashalgo) $(modinfo_field "$dir/ext-$hash/extmod_b.ko" sig_hashalgo)"
	check "Kbuild, CONFIG_MODULE_SIG_HASH=$hash: pgp-verify" "valid valid" \
		"$(verify_outcome "$KEYS/main/pub" "$dir/ext-$hash/extmod_a.ko") $(verify_outcome "$KEYS/main/pub" "$dir/ext-$hash/extmod_b.ko")"
done

# Refused: exit status 14 (unsupported), a message naming the hash, the
# module left as it was.
for hash in sha1 sha224; do
	cp "$src" "$dir/$hash-refused.ko"
	rc=0
	err=$("$SIGN" -k "$KEYS/main/sec" -a "$hash" "$dir/$hash-refused.ko" 2>&1) || rc=$?
	check "$hash: pgp-sign refuses it" 14 "$rc"
	check "$hash: the message names the hash" yes \
		"$(grep -qi "$hash" <<<"$err" && echo yes || echo no)"
	check "$hash: module left unsigned" same \
		"$(cmp -s "$src" "$dir/$hash-refused.ko" && echo same || echo changed)"
	rc=0
	extmod "$dir/ext-$hash" MODSECKEY="$KEYS/main/sec" CONFIG_MODULE_SIG_HASH="$hash" || rc=$?
	check "Kbuild, CONFIG_MODULE_SIG_HASH=$hash: the build fails" yes \
		"$([ "$rc" -ne 0 ] && grep -qi "$hash" "$dir/ext-$hash.log" && echo yes || echo no)"
	signed=$(cd "$dir/ext-$hash" && for m in *.ko; do
		if [ -e "$m" ] && perl "$EXTRACT" -d "$m" >/dev/null 2>&1; then
			echo "$m"
		fi
	done)
	check "Kbuild, CONFIG_MODULE_SIG_HASH=$hash: no module looks signed" none \
		"${signed:-none}"
done

# SHA3 (6.12's CONFIG_MODULE_SIG_SHA3_* choices; 6.1 has none, and the
# same refusal holds when it is given by hand): the kernel's OpenPGP code
# maps no SHA3 hash, so Kbuild stops, naming the option, and signs
# nothing.
for hash in sha3-256 sha3-384 sha3-512; do
	opt=CONFIG_MODULE_SIG_SHA3_${hash#sha3-}
	rc=0
	extmod "$dir/ext-$hash" MODSECKEY="$KEYS/main/sec" CONFIG_MODULE_SIG_HASH="$hash" || rc=$?
	check "Kbuild, CONFIG_MODULE_SIG_HASH=$hash: the build stops, naming $opt" yes \
		"$([ "$rc" -ne 0 ] && grep -q "$opt: OpenPGP module signatures" "$dir/ext-$hash.log" && echo yes || echo no)"
	# Stopped before modfinal links anything: nothing signed, nor waiting.
	check "Kbuild, CONFIG_MODULE_SIG_HASH=$hash: no module linked or signed" none \
		"$(cd "$dir/ext-$hash" && ls ./*.ko ./*.ko.unsigned 2>/dev/null || echo none)"
done

cp "$src" "$dir/md5.ko"
rc=0
"$SIGN" -k "$KEYS/main/sec" -a md5 "$dir/md5.ko" 2>/dev/null || rc=$?
check "md5: refused" 2 "$rc"

finish
