#!/bin/bash
# pgp-verify gives each kind of module its own outcome and exit status
# (FORMAT.md): valid, unsigned, unknown-key, bad-signature, expired-key,
# unsupported, corrupt, pkcs7; and it accepts signatures made by gpg.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

dir=$(scratch verifier)
mkkey other rsa2048 sign never
mkkey expired rsa2048 sign seconds=1
sleep 1

src=$(sample_module)
cp "$src" "$dir/unsigned.ko"
cp "$src" "$dir/valid.ko"
"$SIGN" -k "$KEYS/main.sec" "$dir/valid.ko"

# mutate IN OUT PYTHON: OUT is IN with the bytes d changed by PYTHON.
mutate() {
	python3 -c "
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
$3
open(sys.argv[2], 'wb').write(d)" "$1" "$2"
}

# The trailer: [sig packet][12-byte info][28-byte magic].
info=-40
mutate "$dir/valid.ko" "$dir/body.ko" 'd[200] ^= 1'
mutate "$dir/valid.ko" "$dir/sig.ko" "d[$info - 1] ^= 1"
mutate "$dir/valid.ko" "$dir/truncated-end.ko" 'd = d[:-10]'
mutate "$dir/valid.ko" "$dir/truncated-sig.ko" "d[$info - 50:$info - 40] = b''"
mutate "$dir/valid.ko" "$dir/siglen.ko" "d[$info + 8:$info + 12] = (len(d) + 1).to_bytes(4, 'big')"
# hash algorithm 1 (MD5) in the packet: new-format header of 3 octets
mutate "$dir/valid.ko" "$dir/md5.ko" "
sl = int.from_bytes(d[$info + 8:$info + 12], 'big')
d[$info - sl + 3 + 3] = 1"
mutate "$dir/valid.ko" "$dir/keyid.ko" "
sl = int.from_bytes(d[$info + 8:$info + 12], 'big')
d[$info - sl - 1] ^= 1"

cp "$src" "$dir/expired.ko"
created=$(gpg --homedir "$KEYS/expired.home" --batch --with-colons --list-keys |
	awk -F: '$1 == "pub" { print $6; exit }')
SOURCE_DATE_EPOCH=$created "$SIGN" -k "$KEYS/expired.sec" "$dir/expired.ko"

# PKCS#7, as scripts/sign-file makes it.
openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
	-subj /CN=modsign-test -outform PEM -out "$dir/x509.pem" \
	-keyout "$dir/x509.pem" >/dev/null 2>&1
cp "$src" "$dir/pkcs7.ko"
"$KDIR/scripts/sign-file" sha256 "$dir/x509.pem" "$dir/x509.pem" "$dir/pkcs7.ko"

# A signature packet made by gpg itself: old-format header, more subpackets.
gpg --homedir "$KEYS/main.home" --batch --digest-algo sha512 \
	-o "$dir/gpg.sig" --detach-sign "$src" 2>/dev/null
python3 - "$src" "$dir/gpg.sig" "$dir/gpg.ko" "$(keyid main)" <<'PY'
import struct, sys
body = open(sys.argv[1], 'rb').read()
sig = open(sys.argv[2], 'rb').read()
name = b'Test main'
kid = bytes.fromhex(sys.argv[4])
info = struct.pack('>BBBBBxxxI', 1, 6, 0, len(name), 8, len(sig))
open(sys.argv[3], 'wb').write(body + name + kid + sig + info +
			      b'~Module signature appended~\n')
PY
check "gpg wrote an old-format signature packet" 89 "$(head -c1 "$dir/gpg.sig" | xxd -p)"

# name expected-outcome expected-status [keyring]
while read -r name outcome status ring; do
	ring=$KEYS/${ring:-main}.pub
	check "$name: outcome" "$outcome" "$(verify_outcome "$ring" "$dir/$name.ko")"
	check "$name: exit status" "$status" "$(verify_status "$ring" "$dir/$name.ko")"
done <<'EOF_CASES'
valid valid 0
gpg valid 0
unsigned unsigned 10
valid unknown-key 11 other
body bad-signature 12
sig bad-signature 12
expired expired-key 13 expired
md5 unsupported 14
truncated-end unsigned 10
truncated-sig corrupt 15
siglen corrupt 15
keyid corrupt 15
pkcs7 pkcs7 16
EOF_CASES

# Several modules: one line each, the status of the first bad one.
rc=0
out=$("$VERIFY" --keyring "$KEYS/main.pub" "$dir/valid.ko" "$dir/body.ko" \
	"$dir/unsigned.ko") || rc=$?
check "several modules: exit status of the first failure" 12 "$rc"
check "several modules: one line each" 3 "$(wc -l <<<"$out")"
check "several modules: line format" "$dir/body.ko: bad-signature" \
	"$(sed -n 2p <<<"$out" | cut -d: -f1-2)"

rc=0
"$VERIFY" --keyring "$dir/nonexistent" "$dir/valid.ko" >/dev/null 2>&1 || rc=$?
check "unreadable keyring: I/O error" 3 "$rc"
rc=0
"$VERIFY" "$dir/valid.ko" >/dev/null 2>&1 || rc=$?
check "no keyring: usage error" 2 "$rc"

finish
