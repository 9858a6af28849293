#!/bin/bash
# A short fuzzing run as part of the tests: the kernel's OpenPGP key and
# signature parsers and its reader of an unverified module's name
# (compiled unchanged from KSRC against scripts/modsign/include/) and the userspace verifier,
# under ASan and UBSan.
#
#   - the name reader's source is there (FUZZ_ELFNAME_SRC; a FAIL, never
#     a silent skip, when it is not)
#   - the targets build from the tree as it is
#   - every gpg-made seed gives exactly the result gpg's view predicts
#     (key IDs, issuers, hash algorithms, verifier outcomes)
#   - every regression input (a past crash) runs clean
#   - each target fuzzes FUZZ_TEST_TIME seconds (default 20) without a
#     crash, leak, UB report or broken invariant
#   - and, so that a clean run means something: a copy of the packet
#     reader with an off-by-one planted in its length check is caught
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"

: "${KSRC:?KSRC must point at the patched source tree}"
export KSRC
export MODSIGN_SRC=${MODSIGN_SRC:-$KSRC/scripts/modsign}
export FUZZ_OUT="$BUILD/fuzz"
export KDIR
# The same search on every run: a failure here can be reproduced.  Each
# target's coverage levels off within 20 s here; the long searches are
# make fuzz's (FUZZ_TIME), whose crash inputs every run here replays.
export FUZZ_SEED=${FUZZ_SEED:-1}
secs=${FUZZ_TEST_TIME:-20}
fuzz="$here/fuzz.sh"
work=$(scratch fuzz)
targets=(pgp-key pgp-sig modsig elf-name)

elfsrc=$("$fuzz" elf-name-source)
if [ -f "$elfsrc" ]; then
	pass "fuzz: elf-name harness: source $elfsrc is there"
else
	fail "fuzz: elf-name harness: source $elfsrc missing" \
		"the elf-name target is not built, seeded or run (set FUZZ_ELFNAME_SRC)"
	targets=(pgp-key pgp-sig modsig)
fi
export FUZZ_TARGETS="${targets[*]}"

if "$fuzz" build >"$work/build.log" 2>&1; then
	pass "fuzz: targets build from $KSRC"
else
	fail "fuzz: targets build from $KSRC" "$(grep -E 'error|fuzz:' "$work/build.log" | sed -n 1,3p | tr '\n' '|')"
	finish
fi

if "$fuzz" seeds >"$work/seeds.log" 2>&1 &&
	"$fuzz" check-seeds >"$work/check-seeds.log" 2>&1; then
	pass "fuzz: gpg-made seeds parse as gpg says ($(tail -n 1 "$work/check-seeds.log" | sed 's/^fuzz: seeds: //'))"
else
	fail "fuzz: gpg-made seeds parse as gpg says" \
		"$(cat "$work/seeds.log" "$work/check-seeds.log" | grep -v 'faked system time' | tail -n 4 | tr '\n' '|')"
fi

if "$fuzz" replay >"$work/replay.log" 2>&1; then
	pass "fuzz: regression inputs run clean ($(grep -c 'ran clean' "$work/replay.log") targets with inputs)"
else
	fail "fuzz: regression inputs run clean" "$(grep FAILED "$work/replay.log" | tr '\n' '|')"
fi

for t in "${targets[@]}"; do
	if "$fuzz" run "$secs" "$t" >"$work/run-$t.log" 2>&1; then
		pass "$(head -n 1 "$work/run-$t.log")"
	else
		fail "fuzz: $t for ${secs}s" "$(tr '\n' '|' <"$work/run-$t.log")"
	fi
done

# The planted bug: pgp_next_packet() believing a packet one octet longer
# than what is left.  Only the copy in the scratch directory is changed.
plant="$work/plant"
mkdir -p "$plant/crypto/asymmetric_keys" "$plant/include/linux" "$plant/include/crypto" \
	"$plant/include/uapi/linux" "$plant/lib/crypto"
cp "$KSRC"/crypto/asymmetric_keys/pgp_{library,key_payload,signature}.c \
	"$KSRC/crypto/asymmetric_keys/pgp_parser.h" "$plant/crypto/asymmetric_keys/"
cp "$KSRC"/include/linux/pgp{,lib}.h "$plant/include/linux/"
cp "$KSRC/include/crypto/sha1.h" "$plant/include/crypto/"
cp "$KSRC/include/uapi/linux/hash_info.h" "$plant/include/uapi/linux/"
cp "$KSRC/lib/crypto/sha1.c" "$plant/lib/crypto/"
lib="$plant/crypto/asymmetric_keys/pgp_library.c"
sed -i 's/if (size > datalen - hdrlen)/if (size > datalen - hdrlen + 1)/' "$lib"
if cmp -s "$lib" "$KSRC/crypto/asymmetric_keys/pgp_library.c"; then
	fail "fuzz: a planted off-by-one is found" \
		"the length check 'size > datalen - hdrlen' is not in pgp_library.c any more; update the plant"
else
	mkdir -p "$work/plant-out"
	cp -r "$FUZZ_OUT/seeds" "$work/plant-out/"
	export FUZZ_TARGETS=pgp-key
	if ! KSRC="$plant" FUZZ_OUT="$work/plant-out" "$fuzz" build >"$work/plant-build.log" 2>&1; then
		fail "fuzz: a planted off-by-one is found" "the planted copy does not build"
	elif KSRC="$plant" FUZZ_OUT="$work/plant-out" FUZZ_SAVE_CRASHES=1 \
		FUZZ_REGRESSIONS="$work/plant-regressions" \
		"$fuzz" run 60 pgp-key >"$work/plant-run.log" 2>&1; then
		fail "fuzz: a planted off-by-one is found" "60 s of pgp-key fuzzing did not find it"
	elif grep -q 'AddressSanitizer: heap-buffer-overflow' "$work/plant-out/logs/pgp-key.log"; then
		pass "fuzz: a planted off-by-one is found (heap-buffer-overflow, $(awk '/^stat::number_of_executed_units:/ {print $2}' "$work/plant-out/logs/pgp-key.log") executions)"
		# The crash input became a regression input, and replaying it
		# crashes the planted copy again.
		saved=$(find "$work/plant-regressions/pgp-key" -type f -name 'crash-*' 2>/dev/null | wc -l)
		check "fuzz: the crash input is saved as a regression input" 1 "$saved"
		if KSRC="$plant" FUZZ_OUT="$work/plant-out" FUZZ_REGRESSIONS="$work/plant-regressions" \
			"$fuzz" replay >"$work/plant-replay.log" 2>&1; then
			fail "fuzz: the saved regression input fails the planted copy's replay" "replay ran clean"
		else
			pass "fuzz: the saved regression input fails the planted copy's replay"
		fi
	else
		fail "fuzz: a planted off-by-one is found" "crashed otherwise: $(grep -m1 -E 'ERROR|INVARIANT' "$work/plant-out/logs/pgp-key.log")"
	fi
fi

finish
