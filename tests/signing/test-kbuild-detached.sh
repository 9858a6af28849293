#!/bin/bash
# Kbuild with the signing key elsewhere, on a copy of the build's object
# tree that holds no secret key: make MODSIGN_DETACHED=1 strips the
# modules, signs none and writes modules.manifest for MODPUBKEY's key;
# pgp-sign --sign-manifest signs it with the key; make
# MODSIGN_SIGNATURES=DIR attaches the signatures (ATTACH per module), and
# the modules are those pgp-sign makes in place, byte for byte.  Running
# make again attaches nothing, or only the module whose signature
# changed.  A missing signature or manifest, another module's signature,
# or both variables at once stop the build with a message naming it, and
# no module is left that is not validly signed.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

dir=$(scratch kbuild-detached)
obj=$dir/obj
pub=$KDIR/modsign.pub
sec=$KDIR/modsign.sec
# After the key was made, so that the signatures carry it unchanged.
SOURCE_DATE_EPOCH=$(date +%s)
export SOURCE_DATE_EPOCH
mapfile -t mods < <(modules_ko "$KDIR")
n=${#mods[@]}

copy_objtree "$KDIR" "$obj"
check "the copied tree holds no secret key" "no 0" \
	"$([ -e "$obj/modsign.sec" ] && echo yes || echo no) $("$tests_dir/faults/seckey-scan.pl" "$sec" "$obj" | wc -l)"

# kmake NAME ARGS...: make modules in the copy, output in $dir/NAME.log
kmake() {
	local name=$1
	shift
	make -C "$KSRC" O="$obj" -j"${JOBS:-2}" MODPUBKEY="$pub" "$@" modules \
		>"$dir/$name.log" 2>&1
}

# count_signed: modules of the copy that pgp-verify finds valid
count_valid() {
	local m k=0
	for m in "${mods[@]}"; do
		[ -e "$obj/$m" ] && "$VERIFY" --keyring "$pub" "$obj/$m" >/dev/null 2>&1 && k=$((k + 1))
	done
	echo "$k"
}

count_present() {
	local m k=0
	for m in "${mods[@]}"; do
		[ -e "$obj/$m" ] && k=$((k + 1))
	done
	echo "$k"
}

rc=0
kmake detached MODSIGN_DETACHED=1 || rc=$?
check "MODSIGN_DETACHED=1: make succeeds" 0 "$rc"
check "MODSIGN_DETACHED=1: MANIFEST line" 1 "$(grep -c '^  MANIFEST modules.manifest$' "$dir/detached.log")"
check "MODSIGN_DETACHED=1: no module signed, none left from before" "0 0" \
	"$(grep -c '^  SIGN ' "$dir/detached.log") $(count_present)"
check "MODSIGN_DETACHED=1: no key made" no "$([ -e "$obj/modsign.sec" ] && echo yes || echo no)"
check "MODSIGN_DETACHED=1: the manifest is for MODPUBKEY's key, at SOURCE_DATE_EPOCH" \
	"created $SOURCE_DATE_EPOCH|issuer $(gpg --show-keys --with-colons "$pub" | awk -F: '$1 == "fpr" { print $10; exit }')" \
	"$(sed -n 3,4p "$obj/modules.manifest" | paste -sd'|')"
check "MODSIGN_DETACHED=1: the manifest lists every module, by its path" \
	"$(printf '%s\n' "${mods[@]}" | LC_ALL=C sort)" "$(awk 'NR > 4 { print $3 }' "$obj/modules.manifest")"

sigs=$dir/sigs
"$SIGN" -k "$sec" --sign-manifest "$obj/modules.manifest" --output "$sigs"
rc=0
kmake attach MODSIGN_SIGNATURES="$sigs" || rc=$?
check "MODSIGN_SIGNATURES: make succeeds" 0 "$rc"
check "MODSIGN_SIGNATURES: one ATTACH line per module" \
	"$(printf '  ATTACH  %s\n' "${mods[@]}" | LC_ALL=C sort)" \
	"$(grep '^  ATTACH ' "$dir/attach.log" | LC_ALL=C sort)"
check "MODSIGN_SIGNATURES: every module valid" "$n" "$(count_valid)"
# The same bodies signed in place, at the same time, with the same key.
ref=$dir/ref
same=0
for m in "${mods[@]}"; do
	mkdir -p "$(dirname "$ref/$m")"
	cp "$obj/$m.stripped" "$ref/$m.stripped"
	"$SIGN" -k "$sec" --suffix .stripped "$ref/$m.stripped"
	cmp -s "$ref/$m" "$obj/$m" && same=$((same + 1))
done
check "MODSIGN_SIGNATURES: modules as pgp-sign signs them in place, byte for byte" "$n" "$same"

rc=0
kmake again MODSIGN_SIGNATURES="$sigs" || rc=$?
check "MODSIGN_SIGNATURES again: nothing to attach" "0 0" "$rc $(grep -c '^  ATTACH ' "$dir/again.log")"
touch "$sigs/${mods[0]}.sig"
rc=0
kmake touched MODSIGN_SIGNATURES="$sigs" || rc=$?
check "MODSIGN_SIGNATURES, one signature newer: that module only" "0 ${mods[0]}" \
	"$rc $(sed -n 's/^  ATTACH  //p' "$dir/touched.log" | paste -sd' ')"

victim=${mods[$((n - 1))]}
cp "$sigs/$victim.sig" "$dir/victim.sig"
cp "$sigs/${mods[0]}.sig" "$sigs/$victim.sig"
rc=0
kmake swapped MODSIGN_SIGNATURES="$sigs" || rc=$?
check "another module's signature: make fails" yes "$([ "$rc" -ne 0 ] && echo yes)"
check "another module's signature: pgp-attach says why" 1 \
	"$(grep -c "^pgp-attach: $victim.stripped: with $sigs/$victim.sig it would be bad-signature" "$dir/swapped.log")"
check "another module's signature: that module is not left signed" "no $((n - 1))" \
	"$([ -e "$obj/$victim" ] && echo yes || echo no) $(count_valid)"

rm "$sigs/$victim.sig"
rc=0
kmake missing MODSIGN_SIGNATURES="$sigs" || rc=$?
check "a missing signature: make fails, naming it" "yes 1" \
	"$([ "$rc" -ne 0 ] && echo yes) $(grep -c "^error: $sigs/$victim.sig is missing" "$dir/missing.log")"
cp "$dir/victim.sig" "$sigs/$victim.sig"

mv "$obj/modules.manifest" "$dir/manifest.saved"
rm -f "$obj/$victim"
rc=0
kmake nomanifest MODSIGN_SIGNATURES="$sigs" || rc=$?
check "no manifest: make fails, saying so" "yes 1" \
	"$([ "$rc" -ne 0 ] && echo yes) $(grep -c '^error: modules.manifest is missing: make it with MODSIGN_DETACHED=1' "$dir/nomanifest.log")"
mv "$dir/manifest.saved" "$obj/modules.manifest"

rc=0
kmake both MODSIGN_DETACHED=1 MODSIGN_SIGNATURES="$sigs" || rc=$?
check "both variables: make stops, saying why" "yes 1" \
	"$([ "$rc" -ne 0 ] && echo yes) $(grep -c 'MODSIGN_DETACHED and MODSIGN_SIGNATURES go in two makes' "$dir/both.log")"

rc=0
kmake restored MODSIGN_SIGNATURES="$sigs" || rc=$?
check "signatures back: every module valid again" "0 $n" "$rc $(count_valid)"
finish
