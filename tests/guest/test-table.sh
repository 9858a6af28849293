#!/bin/bash
# The behaviour table, in QEMU: every variant of one in-tree module
# (crc7) is loaded with finit_module in permissive mode, with
# module.sig_enforce=1, and on a kernel built with CONFIG_MODULE_SIG_FORCE,
# and the errno, the taint mask and the kernel's log line are checked.
# The guest kernels embed test keys the trust rules refuse (module-signing.rst
# of issue 13, tests/testkeys.sh): the boot log must name each refused key
# with its reason.  And for every row, pgp-verify on the host, given the
# same keyring, must stand for the errno the kernel gave (pgp_verify_map).
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=guestlib.sh
. "$here/guestlib.sh"
# shellcheck source=../signlib.sh
. "$here/../signlib.sh"

work=$(guest_workdir guest-table)
mods="$work/payload/modules"

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
ring=$(guest_keyring)

cp "$src" "$mods/valid.ko"
cp "$body" "$mods/unsigned.ko"
sign_copy "$body" "$mods/subkey.ko" "$sub/sec" --key-name "$subkey_fpr!"
sign_copy "$body" "$mods/unknown.ko" "$out/sec"
sign_copy "$body" "$mods/revoked.ko" "$rev/sec"
sign_copy "$body" "$mods/subkey-revoked.ko" "$subrev/sec" --key-name "$subrev_fpr!"
sign_copy "$body" "$mods/sha512.ko" "$KDIR/modsign.sec" --hash sha512
# Made while the key was valid; pgp-sign refuses an expired key whatever
# SOURCE_DATE_EPOCH says, so the independent signer makes it.
"$here/../resign-module.py" --created "$(date -d 2020-01-01T06:00Z +%s)" \
	"$body" "$exp/sec" "$mods/expired.ko"
cp "$body" "$mods/pkcs7.ko"
"$KDIR/scripts/sign-file" sha256 "$KDIR/certs/signing_key.pem" \
	"$KDIR/certs/signing_key.x509" "$mods/pkcs7.ko"
modsig=$here/../modsig.py
"$modsig" edit "$mods/valid.ko" "$mods/body-flip.ko" --flip body:200
# The last byte of the signature packet: the low byte of the RSA MPI.
"$modsig" edit "$mods/valid.ko" "$mods/sig-flip.ko" --flip sig:-1
"$modsig" edit "$mods/valid.ko" "$mods/siglen-past.ko" \
	--set sig_len=$(($(stat -c %s "$mods/valid.ko") + 1000))
# 16 octets cut from inside the signature packet, just before its last 8,
# and sig_len to match: a self-consistent trailer whose packet is shorter
# than its own header says.
"$modsig" edit "$mods/valid.ko" "$mods/truncated.ko" --cut sig:-24:-8 --refit
strip -g -o "$mods/stripped.ko" "$mods/valid.ko"
cp "$src" "$mods/valid-again.ko"
# Signatures pgp-sign never makes (tests/resign-module.py): the issuer
# named by its 8-byte key ID alone, so the kernel must find the key by
# key ID; a signature that expired a second after it was made; one that
# expires in ten years; SHA-1 and SHA-224 (in the packet and the
# trailer), which the kernel cannot check; and signatures by the keys the
# trust rules refuse (the subkey where the refused part is the subkey),
# and by the key whose forged revocation they ignore.
resign="$here/../resign-module.py"
"$resign" --no-issuer-fpr "$src" "$KDIR/modsign.sec" "$mods/keyid-only.ko"
"$resign" --created $(($(date +%s) - 2)) --expires 1 "$src" "$KDIR/modsign.sec" \
	"$mods/sig-expired.ko"
"$resign" --expires 315360000 "$src" "$KDIR/modsign.sec" "$mods/sig-unexpired.ko"
"$resign" --hash sha1 "$src" "$KDIR/modsign.sec" "$mods/sha1.ko"
"$resign" --hash sha224 "$src" "$KDIR/modsign.sec" "$mods/sha224.ko"
for k in rsa1024 critself eddsaself badselfsig sha1self forgedrev; do
	"$resign" "$body" "$(testkey "$k")/sec" "$mods/$k.ko"
done
for k in unbound nobacksig; do
	"$resign" --key "$(testkey_ids "$k" | sed -n 2p)" "$body" "$(testkey "$k")/sec" "$mods/$k.ko"
done

# The behaviour table, one line per module variant and mode, and one for
# the keys a variant needs:
#   CASE  permissive|enforce  RESULT  [LOG]
#   CASE  keys  KEY REASON[; KEY REASON]...
# enforce is module.sig_enforce=1 and the MODULE_SIG_FORCE kernel alike.
# RESULT: "OK:0" loads untainted, "OK:E" loads and sets the
# unsigned-module taint, anything else is the errno ("|" between several
# allowed).  A permissive OK:E case gets a boot of its own (the taint
# would carry over).
# LOG: the kernel's line (after "crc7: ") that must explain a refused or
# tainting load, " | " between several allowed; the errno in it is the
# signature check's own (ENODATA 61, ENOPKG 65, EBADMSG 74, ENOKEY 126,
# EKEYEXPIRED 127, EKEYREJECTED 129).  None for an untainted load.
# KEY REASON: what the boot log must say of a built-in key, KEY being
# NAME:N, the Nth key of test key NAME (1 its primary, 2 its first
# subkey): REASON "loaded" for "PGP: Loaded OpenPGP key '...: <key ID>'"
# (and the key in /proc/keys), else the exact reason of the one line
# "PGP: Skipped OpenPGP key <key ID>: REASON" (module-signing.rst; the key not
# in /proc/keys).
expect() {
	cat <<'TABLE'
valid          permissive OK:0
valid          enforce    OK:0
subkey         permissive OK:0
subkey         enforce    OK:0
subkey         keys       subkeyed:2 loaded
pkcs7          permissive OK:0
pkcs7          enforce    OK:0
body-flip      permissive EKEYREJECTED         Loading of module with a bad signature is rejected (-129)
body-flip      enforce    EKEYREJECTED         Loading of module with a bad signature is rejected (-129)
sig-flip       permissive EKEYREJECTED|EBADMSG Loading of module with a bad signature is rejected (-129) | Loading of module with a corrupt signature is rejected (-74)
sig-flip       enforce    EKEYREJECTED|EBADMSG Loading of module with a bad signature is rejected (-129) | Loading of module with a corrupt signature is rejected (-74)
expired        permissive EKEYEXPIRED          Loading of module signed with an expired key or signature is rejected (-127)
expired        enforce    EKEYEXPIRED          Loading of module signed with an expired key or signature is rejected (-127)
keyid-only     permissive OK:0
keyid-only     enforce    OK:0
sig-expired    permissive EKEYEXPIRED          Loading of module signed with an expired key or signature is rejected (-127)
sig-expired    enforce    EKEYEXPIRED          Loading of module signed with an expired key or signature is rejected (-127)
sig-unexpired  permissive OK:0
sig-unexpired  enforce    OK:0
truncated      permissive EBADMSG              Loading of module with a corrupt signature is rejected (-74)
truncated      enforce    EBADMSG              Loading of module with a corrupt signature is rejected (-74)
siglen-past    permissive EBADMSG              Loading of module with a corrupt signature is rejected (-74)
siglen-past    enforce    EBADMSG              Loading of module with a corrupt signature is rejected (-74)
unsigned       permissive OK:E                 module verification failed: signature and/or required key missing - tainting kernel
unsigned       enforce    EKEYREJECTED         Loading of unsigned module is rejected (-61)
unknown        permissive OK:E                 Loading module with unavailable key (-126)
unknown        enforce    EKEYREJECTED         Loading of module with unavailable key is rejected (-126)
revoked        permissive OK:E                 Loading module with unavailable key (-126)
revoked        enforce    EKEYREJECTED         Loading of module with unavailable key is rejected (-126)
revoked        keys       revoked:1 revoked
subkey-revoked permissive OK:E                 Loading module with unavailable key (-126)
subkey-revoked enforce    EKEYREJECTED         Loading of module with unavailable key is rejected (-126)
subkey-revoked keys       subrevoked:2 revoked; subrevoked:1 loaded
sha512         permissive OK:0
sha512         enforce    OK:0
sha1           permissive ENOPKG               Loading of module with unsupported crypto is rejected (-65)
sha1           enforce    ENOPKG               Loading of module with unsupported crypto is rejected (-65)
sha224         permissive ENOPKG               Loading of module with unsupported crypto is rejected (-65)
sha224         enforce    ENOPKG               Loading of module with unsupported crypto is rejected (-65)
rsa1024        permissive OK:E                 Loading module with unavailable key (-126)
rsa1024        enforce    EKEYREJECTED         Loading of module with unavailable key is rejected (-126)
rsa1024        keys       rsa1024:1 unsupported key
unbound        permissive OK:E                 Loading module with unavailable key (-126)
unbound        enforce    EKEYREJECTED         Loading of module with unavailable key is rejected (-126)
unbound        keys       unbound:2 no valid binding signature; unbound:1 loaded
nobacksig      permissive OK:E                 Loading module with unavailable key (-126)
nobacksig      enforce    EKEYREJECTED         Loading of module with unavailable key is rejected (-126)
nobacksig      keys       nobacksig:2 no valid primary-key binding; nobacksig:1 loaded
critself       permissive OK:E                 Loading module with unavailable key (-126)
critself       enforce    EKEYREJECTED         Loading of module with unavailable key is rejected (-126)
critself       keys       critself:1 self-signature cannot be checked
eddsaself      permissive OK:E                 Loading module with unavailable key (-126)
eddsaself      enforce    EKEYREJECTED         Loading of module with unavailable key is rejected (-126)
eddsaself      keys       eddsaself:1 self-signature cannot be checked
badselfsig     permissive OK:E                 Loading module with unavailable key (-126)
badselfsig     enforce    EKEYREJECTED         Loading of module with unavailable key is rejected (-126)
badselfsig     keys       badselfsig:1 no valid self-signature
sha1self       permissive OK:E                 Loading module with unavailable key (-126)
sha1self       enforce    EKEYREJECTED         Loading of module with unavailable key is rejected (-126)
sha1self       keys       sha1self:1 self-signature cannot be checked
forgedrev      permissive OK:0
forgedrev      enforce    OK:0
forgedrev      keys       forgedrev:1 loaded
stripped       permissive OK:E                 module verification failed: signature and/or required key missing - tainting kernel
stripped       enforce    EKEYREJECTED         Loading of unsigned module is rejected (-61)
valid-again    permissive OK:0
valid-again    enforce    OK:0
TABLE
}

# cases: the table's variants, in order
cases() {
	expect | awk '!seen[$1]++ { print $1 }'
}

# result CASE MODE: the RESULT of CASE in MODE
result() {
	expect | awk -v c="$1" -v m="$2" '$1 == c && $2 == m { print $3 }'
}

# reason CASE MODE: the LOG of CASE in MODE
reason() {
	expect | awk -v c="$1" -v m="$2" '$1 == c && $2 == m { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }'
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

# judge LABEL LOG CASE MODE: the PASS/FAIL lines for the case in that
# boot: its outcome, and the log line that explains it.  What the guest
# saw is kept in seen[LABEL CASE] for the comparison with pgp-verify.
declare -A seen
judge() {
	local label=$1 log=$2 name=$3 mode=$4 want line got
	want=$(result "$name" "$mode")
	line=$(awk -v c="CASE $name " 'index($0, c) == 1 { print; exit }' "$log")
	if [ -z "$line" ]; then
		fail "$label $name" "no result in $log"
		return
	fi
	read -r _ _ _ result taint <<<"$line"
	got=$(outcome "$result" "$taint")
	seen["$label $name"]=$got
	if [[ "|$want|" == *"|$got|"* ]]; then
		pass "$label $name ($got)"
	else
		fail "$label $name" "expected $want, got $got"
	fi
	# A refused or tainting load must be explained in the log: the
	# module's name, the reason and the errno of the signature check.
	# (A row that should load untainted has no such line: its outcome
	# above is the failure.)
	local why w found="" lines
	why=$(reason "$name" "$mode")
	if [ "$got" != OK:0 ] && [ -n "$why" ]; then
		lines=$(awk -v k="KLOG $name: " 'index($0, k) == 1' "$log")
		while read -r w; do
			if grep -F -- "crc7: $w" <<<"$lines" >/dev/null; then
				found=$w
			fi
		done <<<"${why// | /$'\n'}"
		if [ -n "$found" ]; then
			pass "$label $name logged: $found"
		else
			fail "$label $name logged why, naming crc7" \
				"expected 'crc7: $why', got: $(sed -n 1,3p <<<"$lines" | tr '\n' '|')"
		fi
	fi
}

# run_boot LABEL KERNEL MODE CASE...: one boot running the named cases
# (several at once, or one per boot where taint would carry over); the
# kernel arguments come from $boot_args
run_boot() {
	local label=$1 kernel=$2 mode=$3 log
	shift 3
	local cases=("$@")
	log="$work/$label.log"
	: >"$work/payload/cases.list"
	local c
	for c in "${cases[@]}"; do
		echo "$c $c.ko crc7" >>"$work/payload/cases.list"
	done
	# shellcheck disable=SC2086 # boot_args: several kernel arguments
	if ! guest_boot "$kernel" "$work/payload" "$log" $boot_args; then
		fail "$label boot" "see $log"
		return
	fi
	for c in "${cases[@]}"; do
		judge "$label" "$log" "$c" "$mode"
	done
	guest_no_splat "$label no oops or warning" "$log"
}

# guest_table_opts: SHA-1 built in (SHA-224 comes with SHA-256 anyway).
kernel=$(guest_kernel table "${guest_table_opts[@]}")
force_kernel=$(guest_kernel force MODULE_SIG_FORCE CRYPTO_SHA1)

# Every row but valid-again (the enforcing boots' last word), the
# permissive OK:E ones each in a boot of their own.
mapfile -t tainting < <(expect | awk '$2 == "permissive" && $3 == "OK:E" { print $1 }')
mapfile -t untainting < <(expect |
	awk '$2 == "permissive" && $3 != "OK:E" && $1 != "valid-again" { print $1 }')

boot_args=""
run_boot permissive "$kernel" permissive "${untainting[@]}"
for c in "${tainting[@]}"; do
	run_boot "permissive-$c" "$kernel" permissive "$c"
done
boot_args="module.sig_enforce=1"
run_boot enforce "$kernel" enforce "${untainting[@]}" "${tainting[@]}" valid-again
boot_args=""
run_boot force "$force_kernel" enforce "${untainting[@]}" "${tainting[@]}" valid-again

# The built-in keyring is visible: the main build's key, by key ID.
keyid=$(key_fingerprints "$KDIR/modsign.pub" | sed -n 1p | tail -c 17 | tr 'A-F' 'a-f')
if grep '^KEYS ' "$work/permissive.log" | grep -i "$keyid" >/dev/null; then
	pass "built-in PGP key $keyid in /proc/keys"
else
	fail "built-in PGP key $keyid in /proc/keys" "$(grep '^KEYS ' "$work/permissive.log" | tr '\n' '|')"
fi

# key_at_boot LABEL KEY REASON: what the boot log of LABEL says of KEY
# (NAME:N, see the table), and whether it is in /proc/keys
key_at_boot() {
	local label=$1 key=$2 reason=$3 log="$work/$1.log" id lines
	id=$(testkey_ids "${key%%:*}" | sed -n "${key#*:}p")
	if [ -z "$id" ]; then
		fail "$label key $key" "test key ${key%%:*} has no key number ${key#*:}"
		return
	fi
	# the kernel's own lines on the console, not the guest's KLOG report
	lines=$(sed -n 's/^\(\[[^]]*\] *\)\{0,1\}\(PGP: .*\)/\2/p' "$log" | awk -v id="$id" 'index(tolower($0), tolower(id))')
	if [ "$reason" = loaded ]; then
		if grep -E "^PGP: Loaded OpenPGP key '.*: $id'\$" <<<"$lines" >/dev/null &&
			! grep -F "Skipped" <<<"$lines" >/dev/null; then
			pass "$label key $key ($id) loaded at boot"
		else
			fail "$label key $key ($id) loaded at boot" "log: $(tr '\n' '|' <<<"$lines")"
		fi
		if grep '^KEYS ' "$log" | grep -i -- "$id" >/dev/null; then
			pass "$label key $key ($id) in /proc/keys"
		else
			fail "$label key $key ($id) in /proc/keys" "not among: $(grep '^KEYS ' "$log" | sed 's/.* asymmetri //' | tr '\n' '|')"
		fi
		return
	fi
	check "$label key $key ($id) skipped at boot: $reason" \
		"PGP: Skipped OpenPGP key $id: $reason" "$(tr '\n' '|' <<<"$lines" | sed 's/|$//')"
	if grep '^KEYS ' "$log" | grep -i -- "$id" >/dev/null; then
		fail "$label key $key ($id) not in /proc/keys" "$(grep '^KEYS ' "$log" | grep -i -- "$id")"
	else
		pass "$label key $key ($id) not in /proc/keys"
	fi
}

# The boot logs of both guest kernels, for each key the table names.
expect | awk '$2 == "keys" { $1 = $2 = ""; sub(/^ +/, ""); print }' |
	tr ';' '\n' | sed 's/^ *//' >"$work/keys"
for label in permissive force; do
	while read -r key reason; do
		key_at_boot "$label" "$key" "$reason"
	done <"$work/keys"
done

# The differential check: pgp-verify, on the host, with the guest's
# keyring, gives each module an outcome; the kernel's result in every
# boot must be the one that outcome stands for (pgp_verify_map).
verify="$KDIR/scripts/modsign/pgp-verify"
pgp_verify_map permissive >"$work/map.permissive"
pgp_verify_map enforce >"$work/map.enforce"
while read -r name; do
	# stdout: the outcome; stderr: notes on the keys the kernel would skip
	# Its exit status is the outcome's own, but for 2 (usage) and 3 (I/O)
	rc=0
	v=$("$verify" --keyring "$ring" "$mods/$name.ko" 2>/dev/null) || rc=$?
	if [ "$rc" = 2 ] || [ "$rc" = 3 ]; then
		fail "$name: pgp-verify runs" "exit status $rc"
		continue
	fi
	v=${v#"$mods/$name.ko: "}
	v=${v%%:*}
	if [ "$v" = pkcs7 ]; then
		echo "# $name: pgp-verify does not verify PKCS#7; not compared"
		continue
	fi
	# pgp-verify judges by the trust rules, not by a kernel config: a
	# kernel without SHA-512 says ENOPKG where the rules accept it.
	if [ "$name" = sha512 ] && ! grep -qx 'CONFIG_CRYPTO_SHA512=y' "$KDIR/.config"; then
		echo "# $name: the guest kernels have no SHA-512 (ENOPKG); not compared"
		continue
	fi
	for label in permissive enforce force; do
		mode=enforce
		[ "$label" = permissive ] && mode=permissive
		if [ "$label" = permissive ] && [ "$(result "$name" permissive)" = OK:E ]; then
			label=permissive-$name
		fi
		if [ "$name" = valid-again ] && [ "$mode" = permissive ]; then
			continue
		fi
		want=$(awk -v o="$v" '$1 == o { print $2 }' "$work/map.$mode")
		got=${seen["$label $name"]:-none}
		if [ -n "$want" ] && [ "$want" = "$got" ]; then
			pass "$label $name: pgp-verify '$v' stands for the kernel's $got"
		else
			fail "$label $name: pgp-verify agrees with the kernel" \
				"pgp-verify says '$v' (${want:-not in the map}), the kernel gave $got"
		fi
	done
done < <(cases)

finish
