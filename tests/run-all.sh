#!/bin/bash
# Run every test script and add up their results.  Each script prints one
# "PASS name" or "FAIL name: why" line per case; a script that dies before
# finishing, or reports no case, counts as one more failure, so a crash
# can never pass silently.
# The last line is "N passed, N failed".
set -euo pipefail

here=$(dirname "$(realpath "$0")")
# The tests run make themselves and read what it prints (the SIGN progress
# lines, for one): flags of the make that runs them, such as make -s
# check, must not reach those makes.
unset MAKEFLAGS MFLAGS MAKELEVEL
: "${BUILD:?}" "${KDIR:?}"
export BUILD KDIR
logdir="$BUILD/test-logs"
mkdir -p "$logdir"

# Order matters only for speed: the guest kernels built by the guest
# table are reused by the later guest tests.
scripts=()
for dir in patches signing guest hostile faults packaging fuzz; do
	for t in "$here/$dir"/test-*.sh; do
		[ -e "$t" ] && scripts+=("$t")
	done
done
if [ -n "${MODSIGN_TESTS:-}" ]; then
	mapfile -t scripts < <(printf '%s\n' "${scripts[@]}" | grep -E "$MODSIGN_TESTS")
fi

passed=0
failed=0
for t in "${scripts[@]}"; do
	name=$(basename "$(dirname "$t")")/$(basename "$t" .sh)
	log="$logdir/${name//\//-}.log"
	echo "=== $name"
	start=$SECONDS
	if "$t" >"$log" 2>&1; then rc=0; else rc=$?; fi
	# awk, not grep: a log with no case in it is a result to report
	# below, not an error to silence.
	awk '/^(PASS|FAIL) /' "$log"
	p=$(awk '/^PASS / { n++ } END { print n + 0 }' "$log")
	f=$(awk '/^FAIL / { n++ } END { print n + 0 }' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited with status $rc without reporting a failure (log: $log)"
		tail -n 20 "$log" | sed 's/^/    /'
		f=1
	elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: reported no case at all (log: $log)"
		f=1
	fi
	echo "--- $name: $p passed, $f failed in $((SECONDS - start))s (log: $log)"
	passed=$((passed + p))
	failed=$((failed + f))
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
