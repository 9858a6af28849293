#!/bin/bash
# pgp-sign checks the key before it signs anything: each bad key fails
# with its own exit status and a message naming the key file and the
# reason, and the module is left untouched.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

dir=$(scratch keys)
usekey expired selfrevoked encrypt ed25519 dsa rsa1024

# RSA-8192 takes minutes to generate: done once and cached in $KEYS.
# MODSIGN_TEST_RSA8192=0 skips it.
if [ "${MODSIGN_TEST_RSA8192:-1}" = 1 ]; then
	usekey rsa8192
fi

# Fixed garbage, so the case fails or passes the same way on every run:
# random bytes could parse as packets the reader skips.  Its first octet
# has the packet-tag bit clear.
python3 -c "
import hashlib, sys
out, block = b'', b'modsign garbage'
while len(out) < 3000:
    block = hashlib.sha256(block).digest()
    out += block
sys.stdout.buffer.write(b'\\x17' + out[:2999])" >"$dir/garbage.sec"
# A detached signature passed as the key file: packets, but no key first.
printf 'x' | gpg --homedir "$KEYS/main/home" --batch --detach-sign \
	>"$dir/detached.sec"
: >"$dir/empty.sec"
gpg --homedir "$KEYS/main/home" --batch --armor --export-secret-keys \
	>"$dir/armored.sec"
python3 -c "
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[600] ^= 0x55      # inside the secret MPIs: the checksum fails
open(sys.argv[2], 'wb').write(d)" "$KEYS/main/sec" "$dir/flipped.sec"
cp "$KEYS/main/pub" "$dir/public.sec"

src=$(sample_module)

# key expected-status message-fragment
while IFS='|' read -r key status reason; do
	case $key in
	/*) file=$key ;;
	*.sec) file=$dir/$key ;;
	*) file=$KEYS/$key.sec ;;
	esac
	[ -e "$file" ] || [ "$key" = /nonexistent.sec ] || {
		echo "# skipping $key (no key)"
		continue
	}
	cp "$src" "$dir/m.ko"
	before=$(sha256sum <"$dir/m.ko")
	rc=0
	msg=$("$SIGN" -k "$file" "$dir/m.ko" 2>&1) || rc=$?
	check "$key: exit status" "$status" "$rc"
	check "$key: message names the key file" yes \
		"$(grep -qF "$file" <<<"$msg" && echo yes || echo no)"
	check "$key: message gives the reason" yes \
		"$(grep -qF "$reason" <<<"$msg" && echo yes || echo no)"
	check "$key: module untouched" "$before" "$(sha256sum <"$dir/m.ko")"
done <<'EOF_CASES'
/nonexistent.sec|3|No such file or directory
garbage.sec|4|corrupt packet at offset 0
detached.sec|4|corrupt keyring: packet at offset 0 (tag 2) comes before any key
empty.sec|4|no OpenPGP key
armored.sec|4|gpg --dearmor
flipped.sec|4|checksum
expired|5|key has expired
selfrevoked|6|key is revoked
encrypt|7|not signing-capable
ed25519|8|EdDSA (ed25519)
dsa|8|DSA 2048
rsa1024|8|RSA 1024
rsa8192|8|RSA 8192
public.sec|9|secret key not available
EOF_CASES

# Expiry is judged by the real clock, even when SOURCE_DATE_EPOCH dates
# the signature before the key expired: the kernel would refuse it.
created=$(gpg --homedir "$KEYS/expired/home" --batch --with-colons --list-keys |
	awk -F: '$1 == "pub" { if (!n++) print $6 }')
cp "$src" "$dir/m.ko"
rc=0
SOURCE_DATE_EPOCH=$created "$SIGN" -k "$KEYS/expired/sec" "$dir/m.ko" 2>/dev/null || rc=$?
check "expired key, SOURCE_DATE_EPOCH before expiry: refused" 5 "$rc"
check "expired key, SOURCE_DATE_EPOCH before expiry: module left unsigned" same \
	"$(cmp -s "$src" "$dir/m.ko" && echo same || echo changed)"

# MODKEYNAME: the key among several, by fingerprint, key ID or user ID.
usekey second
cat "$KEYS/main/sec" "$KEYS/second/sec" >"$dir/two.sec"
for name in "$(fpr second)" "$(keyid second)" "0x$(keyid second)" "Test second"; do
	cp "$src" "$dir/m.ko"
	"$SIGN" -k "$dir/two.sec" -n "$name" "$dir/m.ko"
	check "MODKEYNAME '$name' picks that key" "$(keyid second | sed 's/../&:/g; s/:$//')" \
		"$(modinfo_field "$dir/m.ko" sig_key)"
done
# Which of the two is newer depends on which test made its key first
# (the keys are made on demand, and the package build runs beside the
# tests): the expectation comes from their creation times.
created() {
	gpg --homedir "$KEYS/$1/home" --batch --with-colons --list-keys 2>/dev/null |
		awk -F: '$1 == "pub" { print $6; exit }'
}
newest=none
if [ "$(created second)" -gt "$(created main)" ]; then
	newest=$(keyid second | sed 's/../&:/g; s/:$//')
elif [ "$(created main)" -gt "$(created second)" ]; then
	newest=$(keyid main | sed 's/../&:/g; s/:$//')
fi
cp "$src" "$dir/m.ko"
"$SIGN" -k "$dir/two.sec" "$dir/m.ko"
check "no MODKEYNAME: the newest signing key (keys made $(created main) and $(created second))" "$newest" \
	"$(modinfo_field "$dir/m.ko" sig_key)"
cp "$src" "$dir/m.ko"
rc=0
"$SIGN" -k "$dir/two.sec" -n "nobody" "$dir/m.ko" 2>/dev/null || rc=$?
check "MODKEYNAME matching nothing" 9 "$rc"

# A module is signed once only.
cp "$src" "$dir/m.ko"
"$SIGN" -k "$KEYS/main/sec" "$dir/m.ko"
signed=$(sha256sum <"$dir/m.ko")
rc=0
msg=$("$SIGN" -k "$KEYS/main/sec" "$dir/m.ko" 2>&1) || rc=$?
check "already signed: exit status" 12 "$rc"
check "already signed: message" yes "$(grep -q 'already signed' <<<"$msg" && echo yes || echo no)"
check "already signed: module untouched" "$signed" "$(sha256sum <"$dir/m.ko")"
cp "$src" "$dir/m.ko.unsigned"
rc=0
"$SIGN" -k "$KEYS/main/sec" "$dir/m.ko.unsigned" 2>/dev/null || rc=$?
check "never writes foo.ko.unsigned" 1 "$rc"

finish
