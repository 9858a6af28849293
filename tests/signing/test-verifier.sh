#!/bin/bash
# pgp-verify gives each kind of module its own outcome and exit status
# (Documentation/admin-guide/module-signing.rst): valid, unsigned,
# unknown-key, bad-signature, expired-key, unsupported, corrupt, pkcs7; and
# it accepts signatures made by gpg.  It reads the keyring by the kernel's
# trust rules (Documentation/admin-guide/module-signing.rst): a key the kernel would not load (revoked,
# RSA-1024, no valid self-signature or binding, ...) is reported on stderr
# in the kernel's words and what it signed is signed by an unknown key;
# only SHA-256/384/512 are accepted.  --check-pubring refuses anything but
# a public keyring.
#
# PGP_VERIFY=path runs the cases against another pgp-verify (an older one,
# to see them fail).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"
# shellcheck source=../signlib.sh
. "$(dirname "$0")/../signlib.sh"

VERIFY=${PGP_VERIFY:-$VERIFY}

# skip_reason KEYRING KEYID: why pgp-verify says the kernel would not load
# the key KEYID (16 lower-case hex digits) of KEYRING; empty if it would.
skip_reason() {
	"$VERIFY" --keyring "$1" "$src" 2>&1 >/dev/null |
		sed -n "s/^pgp-verify: .*: Skipped OpenPGP key $2: //p"
}

dir=$(scratch verifier)
usekey other
usekey expired

src=$(sample_module)
cp "$src" "$dir/unsigned.ko"
cp "$src" "$dir/valid.ko"
"$SIGN" -k "$KEYS/main/sec" "$dir/valid.ko"

# The trailer's parts and fields by name (tests/modsig.py).
modsig=$tests_dir/modsig.py
"$modsig" edit "$dir/valid.ko" "$dir/body.ko" --flip body:200
"$modsig" edit "$dir/valid.ko" "$dir/sig.ko" --flip sig:-1
"$modsig" edit "$dir/valid.ko" "$dir/truncated-end.ko" --truncate 10
"$modsig" edit "$dir/valid.ko" "$dir/truncated-sig.ko" --cut sig:-50:-40
"$modsig" edit "$dir/valid.ko" "$dir/siglen.ko" \
	--set sig_len=$(($(stat -c %s "$dir/valid.ko") + 1))
# hash algorithm 1 (MD5) in the packet: octet 3 of its body, after a
# new-format header of 3 octets
"$modsig" edit "$dir/valid.ko" "$dir/md5.ko" --put sig:6=1
"$modsig" edit "$dir/valid.ko" "$dir/keyid.ko" --flip key_id:-1

# sigmut IN OUT PYTHON: OUT is IN with its signature packet rewritten.
# PYTHON may change b (the packet body), s (the modsig.Signed module:
# s.hash, s.id_type, ...) and hdr (None: a new-format header for the new
# body; else these octets); sig_len follows the packet.  Body offsets of
# the packets pgp-sign makes (module-signing.rst, "Signature format"):
# 0 version, 4 hashed area length, 6 creation time subpacket, 12 issuer
# fingerprint subpacket, 35 unhashed area length, 37 issuer key ID
# subpacket (38 its type, 39 the key ID), 47 quick check, 49 the MPI.
sigmut() {
	python3 - "$tests_dir" "$1" "$2" "$3" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import modsig
s = modsig.Signed.read(sys.argv[2])
b = bytearray(s.sig_packet()[1])
hdr = None
exec(sys.argv[4])
s.set_sig_packet(bytes(b), hdr)
s.write(sys.argv[3])
PY
}

# The kernel's verdicts (crypto/asymmetric_keys/pgp_library.c,
# kernel/module/signing.c), which pgp-verify must give too.
# MPI bit count not exact (the value is unchanged): EBADMSG
sigmut "$dir/valid.ko" "$dir/mpi-bits.ko" "
bits = int.from_bytes(b[49:51], 'big')
top = (bits - 1) % 8
b[49:51] = (bits - top + (top + 1) % 8).to_bytes(2, 'big')"
# first MPI octet zero, bit count kept: EBADMSG
sigmut "$dir/valid.ko" "$dir/mpi-zero.ko" 'b[51] = 0'
# a leading zero octet, counted in the bit count: EBADMSG
sigmut "$dir/valid.ko" "$dir/mpi-pad.ko" "
bits = int.from_bytes(b[49:51], 'big')
b[49:51] = (bits + 8).to_bytes(2, 'big')
b[51:51] = b'\0'"
# issuer fingerprint (hashed) and issuer key ID (unhashed) disagree: EBADMSG
sigmut "$dir/valid.ko" "$dir/issuer-disagree.ko" 'b[46] ^= 1'
# time subpackets in the unhashed area are not looked at: valid
for t in 2 3 9; do
	sigmut "$dir/valid.ko" "$dir/unhashed-time$t.ko" "b[38] = $t"
done
# signature versions 2, 3, 5, 6: ENOPKG; any other but 4: EBADMSG
for v in 0 1 2 3 5 6 17 99 255; do
	sigmut "$dir/valid.ko" "$dir/version$v.ko" "b[0] = $v"
done
# old-format header of indeterminate length (tag octet 0x8b): EBADMSG
sigmut "$dir/valid.ko" "$dir/indeterminate.ko" 'hdr = bytes([0x8b])'
# the same packet with an old-format two-octet length is fine
sigmut "$dir/valid.ko" "$dir/oldformat.ko" 'hdr = bytes([0x89]) + len(b).to_bytes(2, "big")'
# unknown id_type in struct module_signature: mod_check_sig(), ENOPKG
for t in 3 255; do
	"$modsig" edit "$dir/valid.ko" "$dir/idtype$t.ko" --set id_type=$t
done
# ... even when signer_len and key_id_len, which only OpenPGP uses, would
# run past the start of the file
info_at=$("$modsig" show "$dir/valid.ko" | awk '$1 == "info_at" { print $2 }')
"$modsig" edit "$dir/valid.ko" "$dir/idtype3-lens.ko" --set id_type=3 \
	--set signer_len=255 --set key_id_len=255 --set sig_len=$((info_at - 300))
# Order: the information block is checked before the packet is parsed,
# hash 200 (past HASH_ALGO__LAST) before version 5: EBADMSG
sigmut "$dir/valid.ko" "$dir/order-hash-version.ko" 's.hash = 200; b[0] = 5'
# an unknown critical subpacket comes before the checks made once both
# subpacket areas are read (here: issuer key ID and fingerprint disagree):
# ENOPKG ...
sigmut "$dir/valid.ko" "$dir/order-critical.ko" "
b[5] += 2
b[35:35] = bytes([1, 0x80 | 100])
b[41] ^= 0xff"
# ... but both areas are read first: a garbled unhashed area is EBADMSG
sigmut "$dir/valid.ko" "$dir/order-critical-garbled.ko" "
b[5] += 2
b[35:35] = bytes([1, 0x80 | 100])
b[37 + 2:39 + 2] = b'\xff\xff'"
# a signature longer than the modulus: EBADMSG (pgp_sig_pad_mpi), after
# the quick check, which is left alone
sigmut "$dir/valid.ko" "$dir/mpi-long.ko" "
bits = int.from_bytes(b[49:51], 'big')
b[49:51] = (((bits + 7) // 8) * 8 + 1).to_bytes(2, 'big')
b[51:51] = b'\x01'"

cp "$src" "$dir/expired.ko"
created=$(gpg --homedir "$KEYS/expired/home" --batch --with-colons --list-keys |
	awk -F: '$1 == "pub" { if (!n++) print $6 }')
# pgp-sign refuses an expired key, whatever SOURCE_DATE_EPOCH says: the
# independent signer makes the signature the key made while it was valid.
"$(dirname "$0")/../resign-module.py" --created "$created" "$src" \
	"$KEYS/expired/sec" "$dir/expired.ko"

# PKCS#7, as scripts/sign-file makes it.
openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
	-subj /CN=modsign-test -outform PEM -out "$dir/x509.pem" \
	-keyout "$dir/x509.pem" >/dev/null 2>&1
cp "$src" "$dir/pkcs7.ko"
"$KDIR/scripts/sign-file" sha256 "$dir/x509.pem" "$dir/x509.pem" "$dir/pkcs7.ko"

# A signature packet made by gpg itself: old-format header, more subpackets.
gpg --homedir "$KEYS/main/home" --batch --digest-algo sha512 \
	-o "$dir/gpg.sig" --detach-sign "$src" 2>/dev/null
python3 - "$tests_dir" "$src" "$dir/gpg.sig" "$dir/gpg.ko" "$(keyid main)" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import modsig
body = open(sys.argv[2], 'rb').read()
sig = open(sys.argv[3], 'rb').read()
modsig.Signed(body, b'Test main', bytes.fromhex(sys.argv[5]), sig,
              algo=modsig.MODSIG_ALGO_RSA, hash=modsig.HASHES['sha512'][1],
              id_type=modsig.PKEY_ID_PGP).write(sys.argv[4])
PY
check "gpg wrote an old-format signature packet" 89 "$(head -c1 "$dir/gpg.sig" | xxd -p)"

# Signatures made independently of pgp-sign (tests/resign-module.py:
# Python integers, no OpenSSL or gpg), with what pgp-sign never writes:
# an issuer named by key ID only, a signature expiration time.
resign="$(dirname "$0")/../resign-module.py"
# pgp-sign's creation time: packet body offset 8 (module-signing.rst,
# "Signature format")
created=$(python3 - "$tests_dir" "$dir/valid.ko" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import modsig
print(int.from_bytes(modsig.Signed.read(sys.argv[2]).sig_packet()[1][8:12], 'big'))
PY
)
"$resign" --created "$created" "$dir/valid.ko" "$KEYS/main/sec" "$dir/resigned.ko"
if cmp -s "$dir/valid.ko" "$dir/resigned.ko"; then
	pass "an independent signer makes pgp-sign's module byte for byte"
else
	fail "an independent signer makes pgp-sign's module byte for byte" \
		"$(cmp "$dir/valid.ko" "$dir/resigned.ko" 2>&1)"
fi
"$resign" --no-issuer-fpr "$dir/valid.ko" "$KEYS/main/sec" "$dir/keyid-only.ko"
"$resign" --created $(($(date +%s) - 2)) --expires 1 "$dir/valid.ko" "$KEYS/main/sec" \
	"$dir/sig-expired.ko"
"$resign" --expires 315360000 "$dir/valid.ko" "$KEYS/main/sec" "$dir/sig-unexpired.ko"
for name in keyid-only sig-unexpired; do
	if gpgv_ok "$KEYS/main/pub" "$dir/$name.ko" "$dir"; then
		pass "$name: gpgv accepts the signature"
	else
		fail "$name: gpgv accepts the signature"
	fi
done

# name expected-outcome expected-status [keyring]
while read -r name outcome status ring; do
	ring=$KEYS/${ring:-main}/pub
	check "$name: outcome" "$outcome" "$(verify_outcome "$ring" "$dir/$name.ko")"
	check "$name: exit status" "$status" "$(verify_status "$ring" "$dir/$name.ko")"
done <<'EOF_CASES'
valid valid 0
gpg valid 0
keyid-only valid 0
sig-expired expired-key 13
sig-unexpired valid 0
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
mpi-bits corrupt 15
mpi-zero corrupt 15
mpi-pad corrupt 15
mpi-long corrupt 15
issuer-disagree corrupt 15
unhashed-time2 valid 0
unhashed-time3 valid 0
unhashed-time9 valid 0
version0 corrupt 15
version1 corrupt 15
version2 unsupported 14
version3 unsupported 14
version5 unsupported 14
version6 unsupported 14
version17 corrupt 15
version99 corrupt 15
version255 corrupt 15
indeterminate corrupt 15
oldformat valid 0
idtype3 unsupported 14
idtype255 unsupported 14
idtype3-lens unsupported 14
order-hash-version corrupt 15
order-critical unsupported 14
order-critical-garbled corrupt 15
EOF_CASES

# Revoked keys: the kernel does not load them from its keyring, so what
# they signed is signed by an unknown key.  The modules are signed with
# the secret keys as exported before the revocation.
rev=$(testkey revoked)
subrev=$(testkey subrevoked)
cp "$src" "$dir/revoked.ko"
"$SIGN" -k "$rev/sec" "$dir/revoked.ko"
cp "$src" "$dir/subkey-revoked.ko"
"$SIGN" -k "$subrev/sec" --key-name "$(key_fingerprints "$subrev/pub" | sed -n 2p)!" \
	"$dir/subkey-revoked.ko"
for name in revoked subkey-revoked; do
	ring=$([ "$name" = revoked ] && echo "$rev/pub" || echo "$subrev/pub")
	check "$name: outcome" "unknown-key" "$(verify_outcome "$ring" "$dir/$name.ko")"
	check "$name: exit status" "11" "$(verify_status "$ring" "$dir/$name.ko")"
done

# SHA-1 and SHA-224 module signatures: ENOPKG, whether the packet or only
# the trailer's hash field names them.
for h in sha1 sha224; do
	"$resign" --hash "$h" "$dir/valid.ko" "$KEYS/main/sec" "$dir/hash-$h.ko"
	check "$h module signature: outcome" unsupported \
		"$(verify_outcome "$KEYS/main/pub" "$dir/hash-$h.ko")"
	check "$h module signature: exit status" 14 \
		"$(verify_status "$KEYS/main/pub" "$dir/hash-$h.ko")"
done
"$resign" --hash sha512 "$dir/valid.ko" "$KEYS/main/sec" "$dir/hash-sha512.ko"
check "sha512 module signature (independent signer)" valid \
	"$(verify_outcome "$KEYS/main/pub" "$dir/hash-sha512.ko")"
sigmut "$dir/valid.ko" "$dir/trailer-sha1.ko" 's.hash = 2'
check "SHA-1 in the trailer's hash field only: outcome" unsupported \
	"$(verify_outcome "$KEYS/main/pub" "$dir/trailer-sha1.ko")"

# Keys the kernel does not load (tests/testkeys.sh): the reason, in the
# words of its log, and what a module signed with the key comes to.
# trust_case NAME INDEX REASON OUTCOME: key INDEX (0: primary, 1: first
# subkey) of test key NAME signs a module (tests/resign-module.py, which
# signs with any key); pgp-verify must give REASON ("" if the key is
# loaded) and OUTCOME.
trust_case() {
	local name=$1 idx=$2 reason=$3 outcome=$4 kdir id ko
	kdir=$(testkey "$name")
	id=$(testkey_ids "$name" | sed -n "$((idx + 1))p")
	ko=$dir/trust-$name-$idx.ko
	if ! "$resign" --key "$id" "$src" "$kdir/sec" "$ko"; then
		fail "$name key $idx: cannot sign a module with it"
		return
	fi
	check "$name key $idx: skip reason" "$reason" "$(skip_reason "$kdir/pub" "$id")"
	check "$name key $idx: module outcome" "$outcome" \
		"$(verify_outcome "$kdir/pub" "$ko")"
}

while read -r name idx outcome reason; do
	trust_case "$name" "$idx" "$reason" "$outcome"
done <<'EOF_TRUST'
rsa1024 0 unknown-key unsupported key
unbound 0 valid
unbound 1 unknown-key no valid binding signature
nobacksig 0 valid
nobacksig 1 unknown-key no valid primary-key binding
critself 0 unknown-key self-signature cannot be checked
eddsaself 0 unknown-key self-signature cannot be checked
sha1self 0 unknown-key self-signature cannot be checked
badselfsig 0 unknown-key no valid self-signature
forgedrev 0 valid
revoked 0 unknown-key revoked
subrevoked 1 unknown-key revoked
subkeyed 1 valid
EOF_TRUST
check "unknown-key detail names the reason" \
	"key $(testkey_ids rsa1024 | tr a-f A-F) not loaded: unsupported key" \
	"$("$VERIFY" --keyring "$(testkey rsa1024)/pub" "$dir/trust-rsa1024-0.ko" \
		2>/dev/null | sed 's/^[^:]*: unknown-key: //')"

# The same key twice: the second is not loaded, the first still verifies.
cat "$KEYS/main/pub" "$KEYS/main/pub" >"$dir/twice.pub"
check "key ID used twice: skip reason" "key ID already in use" \
	"$(skip_reason "$dir/twice.pub" "$(keyid main | tr A-F a-f)")"
check "key ID used twice: module outcome" valid \
	"$(verify_outcome "$dir/twice.pub" "$dir/valid.ko")"

# A subkey that never expires expires with its primary key.
caphome=$(mktemp -d)
gpg_homes+=("$caphome")
gpg --homedir "$caphome" --batch --passphrase '' --quick-gen-key \
	"Test capped <capped@modsign.test>" rsa2048 cert,sign 2d 2>/dev/null
capfpr=$(gpg --homedir "$caphome" --batch --with-colons --list-keys |
	awk -F: '$1 == "fpr" { print $10; exit }')
gpg --homedir "$caphome" --batch --passphrase '' --quick-add-key "$capfpr" \
	rsa2048 sign never 2>/dev/null
gpg --homedir "$caphome" --batch --export >"$dir/capped.pub" 2>/dev/null
gpg --homedir "$caphome" --batch --passphrase '' --pinentry-mode loopback \
	--export-secret-keys >"$dir/capped.sec" 2>/dev/null
gpgconf --homedir "$caphome" --kill all
rm -rf "$caphome"
capsub=$(python3 "$tests_dir/craft-key.py" keyids "$dir/capped.pub" | sed -n 2p)
"$resign" --key "$capsub" "$src" "$dir/capped.sec" "$dir/capped.ko"
check "subkey without expiry, now: valid" valid \
	"$(verify_outcome "$dir/capped.pub" "$dir/capped.ko")"
rc=0
"$VERIFY" --keyring "$dir/capped.pub" --time $(($(date +%s) + 3 * 86400)) \
	"$dir/capped.ko" >/dev/null 2>&1 || rc=$?
check "subkey without expiry, after its primary expired: expired-key" 13 "$rc"

# --check-pubring: what the build runs on MODPUBKEY before building it in.
pubring_case() {
	local name=$1 file=$2 status=$3 why=$4 rc=0 err
	err=$("$VERIFY" --check-pubring "$file" 2>&1 >/dev/null) || rc=$?
	check "--check-pubring $name: exit status" "$status" "$rc"
	check "--check-pubring $name: message" "$why" "$err"
}
pubring_case "public export" "$KEYS/main/pub" 0 ""
pubring_case "public keyring with subkeys" "$(testkey subkeyed)/pub" 0 ""
pubring_case "secret export" "$KEYS/main/sec" 4 \
	"pgp-verify: $KEYS/main/sec: holds a secret key packet: a public keyring must never hold secret keys"
cat "$KEYS/main/pub" "$KEYS/main/sec" >"$dir/mixed.pub"
pubring_case "public keyring with a secret key appended" "$dir/mixed.pub" 4 \
	"pgp-verify: $dir/mixed.pub: holds a secret key packet: a public keyring must never hold secret keys"
pubring_case "a module" "$dir/valid.ko" 4 \
	"pgp-verify: $dir/valid.ko: not an OpenPGP keyring: corrupt packet at offset 0"
gpg --homedir "$KEYS/main/home" --batch --armor --export >"$dir/armored.pub" 2>/dev/null
pubring_case "armored keyring" "$dir/armored.pub" 4 \
	"pgp-verify: $dir/armored.pub: not an OpenPGP keyring: ASCII-armored; convert it with 'gpg --dearmor'"
: >"$dir/empty.pub"
pubring_case "empty file" "$dir/empty.pub" 4 \
	"pgp-verify: $dir/empty.pub: not an OpenPGP keyring: empty file"
pubring_case "missing file" "$dir/nonexistent" 3 \
	"pgp-verify: $dir/nonexistent: No such file or directory"

# Several modules: one line each, the status of the first bad one.
rc=0
out=$("$VERIFY" --keyring "$KEYS/main/pub" "$dir/valid.ko" "$dir/body.ko" \
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
