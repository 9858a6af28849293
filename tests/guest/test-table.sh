#!/bin/bash
# The behaviour table, in QEMU: every variant of one in-tree module
# (crc7) is loaded with finit_module in permissive mode, with
# module.sig_enforce=1, and on a kernel built with CONFIG_MODULE_SIG_FORCE,
# and the errno, the taint mask and the kernel's log line are checked.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=guestlib.sh
. "$here/guestlib.sh"
# shellcheck source=../signlib.sh
. "$here/../signlib.sh"

work=$(scratch guest-table)
mods="$work/payload/modules"
mkdir -p "$mods"
guest_loader

src="$KDIR/lib/crc7.ko"
body="$work/body.ko"
"$KSRC/scripts/extract-module-sig.pl" -0 "$src" >"$body" 2>/dev/null
sub=$(testkey subkeyed)
exp=$(testkey expired)
out=$(testkey outsider)
rev=$(testkey revoked)
subrev=$(testkey subrevoked)
subkey_fpr=$(key_fingerprints "$sub/pub" | sed -n 2p)
subrev_fpr=$(key_fingerprints "$subrev/pub" | sed -n 2p)

cp "$src" "$mods/valid.ko"
cp "$body" "$mods/unsigned.ko"
sign_copy "$body" "$mods/subkey.ko" "$sub/sec" --key-name "$subkey_fpr!"
sign_copy "$body" "$mods/unknown.ko" "$out/sec"
sign_copy "$body" "$mods/revoked.ko" "$rev/sec"
sign_copy "$body" "$mods/subkey-revoked.ko" "$subrev/sec" --key-name "$subrev_fpr!"
sign_copy "$body" "$mods/sha512.ko" "$KDIR/modsign.sec" --hash sha512
SOURCE_DATE_EPOCH=$(date -d 2020-01-01T06:00Z +%s) \
	sign_copy "$body" "$mods/expired.ko" "$exp/sec"
cp "$body" "$mods/pkcs7.ko"
"$KDIR/scripts/sign-file" sha256 "$KDIR/certs/signing_key.pem" \
	"$KDIR/certs/signing_key.x509" "$mods/pkcs7.ko"
flip_byte "$mods/valid.ko" "$mods/body-flip.ko" 200
size=$(stat -c %s "$src")
# The last byte of the signature packet: the low byte of the RSA MPI.
flip_byte "$mods/valid.ko" "$mods/sig-flip.ko" $((size - 28 - 12 - 1))
set_sig_len "$mods/valid.ko" "$mods/siglen-past.ko" $((size + 1000))
cut_signature "$mods/valid.ko" "$mods/truncated.ko" 16
strip -g -o "$mods/stripped.ko" "$mods/valid.ko"
cp "$src" "$mods/valid-again.ko"
# Signatures pgp-sign never makes (tests/resign-module.py): the issuer
# named by its 8-byte key ID alone, so the kernel must find the key by
# key ID; a signature that expired a second after it was made; one that
# expires in ten years.
resign="$here/../resign-module.py"
"$resign" --no-issuer-fpr "$src" "$KDIR/modsign.sec" "$mods/keyid-only.ko"
"$resign" --created $(($(date +%s) - 2)) --expires 1 "$src" "$KDIR/modsign.sec" \
	"$mods/sig-expired.ko"
"$resign" --expires 315360000 "$src" "$KDIR/modsign.sec" "$mods/sig-unexpired.ko"

# case  permissive  enforce ("OK:0" loads untainted, "OK:E" loads and
# sets the unsigned-module taint, anything else is the errno)
expect() {
	cat <<'TABLE'
valid        OK:0          OK:0
subkey       OK:0          OK:0
pkcs7        OK:0          OK:0
body-flip    EKEYREJECTED  EKEYREJECTED
sig-flip     EKEYREJECTED|EBADMSG EKEYREJECTED|EBADMSG
expired      EKEYEXPIRED   EKEYEXPIRED
keyid-only   OK:0          OK:0
sig-expired  EKEYEXPIRED   EKEYEXPIRED
sig-unexpired OK:0         OK:0
truncated    EBADMSG       EBADMSG
siglen-past  EBADMSG       EBADMSG
unsigned     OK:E          EKEYREJECTED
unknown      OK:E          EKEYREJECTED
revoked      OK:E          EKEYREJECTED
subkey-revoked OK:E        EKEYREJECTED
sha512       ENOPKG        ENOPKG
stripped     OK:E          EKEYREJECTED
valid-again  OK:0          OK:0
TABLE
}

# outcome RESULT TAINT: the table's notation for what the guest saw
outcome() {
	if [ "$1" != OK ]; then
		echo "$1"
	elif [ "$2" = 0 ]; then
		echo OK:0
	elif [ $(($2 & 8192)) -ne 0 ]; then
		echo OK:E
	else
		echo "OK:taint=$2"
	fi
}

# judge LABEL LOG CASE EXPECTED COLUMN: the PASS/FAIL lines for the case
# in that boot: its outcome, and the log line that explains it
judge() {
	local label=$1 log=$2 name=$3 want=$4 col=$5 line got
	line=$(grep "^CASE $name " "$log" | sed -n 1p || true)
	if [ -z "$line" ]; then
		fail "$label $name" "no result in $log"
		return
	fi
	read -r _ _ _ result taint <<<"$line"
	got=$(outcome "$result" "$taint")
	if [[ "|$want|" == *"|$got|"* ]]; then
		pass "$label $name ($got)"
	else
		fail "$label $name" "expected $want, got $got"
	fi
	# A refused or tainting load must be explained in the log: the
	# module's name, the reason and the errno of the signature check.
	local why w found=""
	why=$(why "$name" "$col")
	if [ "$got" != OK:0 ]; then
		IFS='|' read -ra why <<<"$why"
		for w in "${why[@]}"; do
			if grep "^KLOG $name: " "$log" | grep -F -- "$w" >/dev/null; then
				found=$w
			fi
		done
		if [ -n "$found" ]; then
			pass "$label $name logged: $found"
		else
			fail "$label $name logged why, naming crc7" \
				"expected '${why[*]}', got: $(grep "^KLOG $name: " "$log" | sed -n 1,3p | tr '\n' '|')"
		fi
	fi
}

# why CASE COLUMN: the kernel log line that explains the case (several
# separated by "|" where the table allows several errnos); the errno in
# it is the signature check's own (ENODATA 61, ENOPKG 65, EBADMSG 74,
# ENOKEY 126, EKEYEXPIRED 127, EKEYREJECTED 129).
why() {
	local m=crc7 enforcing=$(($2 == 3))
	case $1 in
	unsigned | stripped)
		if [ "$enforcing" = 1 ]; then
			echo "$m: Loading of unsigned module is rejected (-61)"
		else
			echo "$m: module verification failed: signature and/or required key missing - tainting kernel"
		fi
		;;
	unknown | revoked | subkey-revoked)
		if [ "$enforcing" = 1 ]; then
			echo "$m: Loading of module with unavailable key is rejected (-126)"
		else
			echo "$m: Loading module with unavailable key (-126)"
		fi
		;;
	sha512) echo "$m: Loading of module with unsupported crypto is rejected (-65)" ;;
	body-flip) echo "$m: Loading of module with a bad signature is rejected (-129)" ;;
	sig-flip) echo "$m: Loading of module with a bad signature is rejected (-129)|$m: Loading of module with a corrupt signature is rejected (-74)" ;;
	expired | sig-expired) echo "$m: Loading of module signed with an expired key or signature is rejected (-127)" ;;
	truncated | siglen-past) echo "$m: Loading of module with a corrupt signature is rejected (-74)" ;;
	esac
}

# run_boot LABEL KERNEL COLUMN CASE...: one boot running the named cases
# (several at once, or one per boot where taint would carry over); the
# kernel arguments come from $boot_args
run_boot() {
	local label=$1 kernel=$2 col=$3 log
	shift 3
	local cases=("$@")
	log="$work/$label.log"
	: >"$work/payload/cases.list"
	local c
	for c in "${cases[@]}"; do
		echo "$c $c.ko crc7" >>"$work/payload/cases.list"
	done
	if ! guest_boot "$kernel" "$work/payload" "$log" $boot_args; then
		fail "$label boot" "see $log"
		return
	fi
	for c in "${cases[@]}"; do
		judge "$label" "$log" "$c" "$(expect | awk -v c="$c" -v k="$col" '$1 == c {print $k}')" "$col"
	done
	guest_no_splat "$label no oops or warning" "$log"
}

kernel=$(guest_kernel table)
force_kernel=$(guest_kernel force MODULE_SIG_FORCE)

untainting=(valid subkey pkcs7 body-flip sig-flip expired sha512 truncated siglen-past
	keyid-only sig-expired sig-unexpired)
tainting=(unsigned unknown revoked subkey-revoked stripped)

boot_args=""
run_boot permissive "$kernel" 2 "${untainting[@]}"
for c in "${tainting[@]}"; do
	run_boot "permissive-$c" "$kernel" 2 "$c"
done
boot_args="module.sig_enforce=1"
run_boot enforce "$kernel" 3 "${untainting[@]}" "${tainting[@]}" valid-again
boot_args=""
run_boot force "$force_kernel" 3 "${untainting[@]}" "${tainting[@]}" valid-again

# The built-in keyring is visible: the main build's key, by key ID.
keyid=$(key_fingerprints "$KDIR/modsign.pub" | sed -n 1p | tail -c 17 | tr 'A-F' 'a-f')
if grep '^KEYS ' "$work/permissive.log" | grep -i "$keyid" >/dev/null; then
	pass "built-in PGP key $keyid in /proc/keys"
else
	fail "built-in PGP key $keyid in /proc/keys" "$(grep '^KEYS ' "$work/permissive.log" | tr '\n' '|')"
fi

# Revoked keys are skipped at boot, by key ID, and only they: the primary
# key of the revoked subkey is still loaded.
kid() { key_fingerprints "$1" | sed -n "$2p" | tail -c 17 | tr 'A-F' 'a-f'; }
for k in "revoked primary key:$(kid "$rev/pub" 1)" "revoked subkey:$(kid "$subrev/pub" 2)"; do
	if grep -i "Skipped OpenPGP key ${k#*:}: revoked" "$work/permissive.log" >/dev/null; then
		pass "${k%%:*} ${k#*:} is skipped at boot"
	else
		fail "${k%%:*} ${k#*:} is skipped at boot" "$(grep 'OpenPGP key' "$work/permissive.log" | tr '\n' '|')"
	fi
	if grep '^KEYS ' "$work/permissive.log" | grep -i "${k#*:}" >/dev/null; then
		fail "${k%%:*} ${k#*:} is not in /proc/keys" "$(grep '^KEYS ' "$work/permissive.log" | grep -i "${k#*:}")"
	else
		pass "${k%%:*} ${k#*:} is not in /proc/keys"
	fi
done
k=$(kid "$subrev/pub" 1)
if grep '^KEYS ' "$work/permissive.log" | grep -i "$k" >/dev/null; then
	pass "primary key $k of the revoked subkey is in /proc/keys"
else
	fail "primary key $k of the revoked subkey is in /proc/keys" "$(grep '^KEYS ' "$work/permissive.log" | tr '\n' '|')"
fi

finish
