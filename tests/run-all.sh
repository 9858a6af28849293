#!/bin/bash
# Run every test script and add up their results.  Each script prints one
# "PASS name" or "FAIL name: why" line per case; a script that dies before
# finishing, or reports no case, counts as one more failure, so a crash
# can never pass silently.
# The last line is "N passed, N failed".
#
#   run-all.sh                    one kernel: BUILD, KSRC and KDIR given
#   run-all.sh KVER=DIR...        each kernel version built in DIR (its
#                                 tree in DIR/src/linux, objects in
#                                 DIR/linux), one after the other
#
# The first version runs every test.  The others run the tests whose
# outcome depends on the kernel (its patches, Kbuild, the guest); the host
# tools are the same source on every version and are tested once.
# MODSIGN_FULL=1 (make check-full) runs every test on every version.
set -euo pipefail

here=$(dirname "$(realpath "$0")")
# The tests run make themselves and read what it prints (the SIGN progress
# lines, for one): flags of the make that runs them, such as make -s
# check, must not reach those makes.
unset MAKEFLAGS MFLAGS MAKELEVEL

# Order matters only for speed: the guest kernels built by the guest
# table are reused by the later guest tests, and the package tests run
# last of all (see below).
all_dirs=(patches signing guest hostile faults packaging fuzz)
# What does not fit make check's time: make check-full only.
if [ -n "${MODSIGN_FULL:-}" ]; then
	all_dirs+=(full)
fi
# What a kernel version changes: the tests of the tools alone are not here.
# (bindeb-pkg's patch differs between versions, but its test costs two
# minutes a version: 6.12's runs in make check-full.)
per_kernel='/(patches|guest|hostile)/|/signing/test-(kbuild|kbuild-detached|intree|hashes|debian-config|ephemeral|pubring|compressed-install)\.sh$'

if [ "$#" -eq 0 ]; then
	: "${BUILD:?}" "${KDIR:?}"
	set -- "=$BUILD"
	suite_kdir=$KDIR
	suite_ksrc=${KSRC:-}
fi

passed=0
failed=0
first=1
# The failures again at the end, where a truncated log still shows them.
recap=()

# use_suite KVER DIR: the environment of the tests of one kernel version
# (KVER empty: the one given by BUILD, KSRC and KDIR)
use_suite() {
	kver=$1
	BUILD=$2
	if [ -n "$kver" ]; then
		KSRC=$BUILD/src/linux
		KDIR=$BUILD/linux
	else
		KDIR=$suite_kdir
		KSRC=$suite_ksrc
	fi
	export BUILD KDIR KSRC
	logdir="$BUILD/test-logs"
	mkdir -p "$logdir"
	# The first version's names stay as they were; the others say theirs.
	prefix=
	if [ "$kver" != "" ] && [ "$kver" != 6.1 ]; then
		prefix="$kver:"
	fi
}

# script_name SCRIPT, script_log SCRIPT: the name it is reported under
# and its log, in the current suite
script_name() { echo "$prefix$(basename "$(dirname "$1")")/$(basename "$1" .sh)"; }
script_log() { echo "$logdir/$(basename "$(dirname "$1")")-$(basename "$1" .sh).log"; }

# exec_script SCRIPT: run one test script of the current suite into its
# log; its status and time go to LOG.status
exec_script() {
	local t=$1 log start rc
	log=$(script_log "$t")
	rm -f "$log.status"
	start=$SECONDS
	if "$t" >"$log" 2>&1; then rc=0; else rc=$?; fi
	echo "$rc $((SECONDS - start))" >"$log.status"
}

# report_script SCRIPT: count the cases of a script exec_script ran
report_script() {
	local t=$1 name log rc secs p f
	name=$(script_name "$t")
	log=$(script_log "$t")
	# No status: the script's shell itself was killed.
	rc=255 secs='?'
	if [ -f "$log.status" ]; then
		read -r rc secs <"$log.status"
		rm -f "$log.status"
	fi
	# awk, not grep: a log with no case in it is a result to report
	# below, not an error to silence.
	awk -v p="$prefix" '/^(PASS|FAIL) / { sub(/ /, " " p); print }' "$log"
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
	echo "--- $name: $p passed, $f failed in ${secs}s (log: $log)"
	if [ "$f" -ne 0 ]; then
		recap+=("$name: $f failed, first: $(awk '/^FAIL / { sub(/^FAIL /, ""); print; exit }' "$log" |
			cut -c1-160)")
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

# run_script SCRIPT: run one test script of the current suite and count
# its cases
run_script() {
	echo "=== $(script_name "$1")"
	exec_script "$1"
	report_script "$1"
}

# The package tests run last, after every version's other tests: the
# packages they test (two kernel builds from source, about half of the
# run's CPU time) are built meanwhile, in the background at the lowest
# priority, so that they use what the other tests leave of the CPUs.
# Their own ensure_packages still judges the build: it waits for this one
# and makes whatever is missing, failing as before.
deferred=()
prebuilds=()
for suite in "$@"; do
	use_suite "${suite%%=*}" "${suite#*=}"

	scripts=()
	for dir in "${all_dirs[@]}"; do
		for t in "$here/$dir"/test-*.sh; do
			[ -e "$t" ] && scripts+=("$t")
		done
	done
	if [ "$first" -eq 0 ] && [ -z "${MODSIGN_FULL:-}" ]; then
		mapfile -t scripts < <(printf '%s\n' "${scripts[@]}" | grep -E "$per_kernel")
	fi
	if [ -n "${MODSIGN_TESTS:-}" ]; then
		mapfile -t scripts < <(printf '%s\n' "${scripts[@]}" | grep -E "$MODSIGN_TESTS")
	fi
	first=0

	later=0
	for t in "${scripts[@]}"; do
		case "$t" in
		*/packaging/*)
			deferred+=("$suite"$'\t'"$t")
			later=1
			;;
		esac
	done
	if [ "$later" -eq 1 ] && [ -z "${MODSIGN_PKG_DIR:-}" ]; then
		"$here/packaging/prebuild.sh" >"$logdir/packaging-prebuild.log" 2>&1 &
		prebuilds+=("$!:$logdir/packaging-prebuild.log")
	fi
	for t in "${scripts[@]}"; do
		case "$t" in
		*/packaging/*) ;;
		*) run_script "$t" ;;
		esac
	done
done

for pb in "${prebuilds[@]}"; do
	echo "=== waiting for the background package build (log: ${pb#*:})"
	start=$SECONDS
	# Its status is the package tests' to judge (see above): they build
	# again what it did not make, and fail if that fails.
	if wait "${pb%%:*}"; then
		echo "--- background package build: done, waited $((SECONDS - start))s"
	else
		echo "--- background package build: failed, waited $((SECONDS - start))s; the package tests build again"
	fi
done
# With the package build done, nothing else runs: the package tests run
# JOBS at a time, as most of them wait on one QEMU, one compressor or
# one linter.  Each has its own scratch directory and reads the packages
# only.  They are reported in order, once all have ended.
start=$SECONDS
for d in "${deferred[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-2}" ]; do
		wait -n || :
	done
	suite=${d%%$'\t'*}
	use_suite "${suite%%=*}" "${suite#*=}"
	echo "=== $(script_name "${d#*$'\t'}") (started)"
	exec_script "${d#*$'\t'}" &
done
wait
if [ "${#deferred[@]}" -ne 0 ]; then
	echo "--- package tests, ${JOBS:-2} at a time: $((SECONDS - start))s"
fi
for d in "${deferred[@]}"; do
	suite=${d%%$'\t'*}
	use_suite "${suite%%=*}" "${suite#*=}"
	report_script "${d#*$'\t'}"
done

if [ "${#recap[@]}" -ne 0 ]; then
	echo "=== failed scripts"
	printf '  %s\n' "${recap[@]}"
fi
# A full disk fails tests far from its cause (the packages, the logs).
echo "=== space left on $BUILD: $(df -h --output=avail "$BUILD" | tail -n 1 | tr -d ' ')"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
