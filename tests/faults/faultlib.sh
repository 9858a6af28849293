# shellcheck shell=bash
# Helpers for the build-fault tests: an external-module build (the
# extmod pair of tests/modules) against KDIR, and the checks every fault
# must pass afterwards.

verifier="$KDIR/scripts/modsign/pgp-verify"
kring="$KDIR/modsign.pub"
extmod_src="$(dirname "${BASH_SOURCE[0]}")/../modules/extmod"

# extmod_copy DIR: a fresh copy of the external modules in DIR
extmod_copy() {
	rm -rf "$1"
	mkdir -p "$1"
	cp "$extmod_src"/* "$1/"
}

# build_errors LOG: a failed build's first error lines, pgp-sign's own
# among them, on one line, for a FAIL message
build_errors() {
	grep -i -E 'error|pgp-sign' "$1" | sed -n 1,3p | tr '\n' '|'
}

# ext_build DIR LOG [MAKE-ARGS...]: build and sign; the status is make's
ext_build() {
	local dir=$1 log=$2
	shift 2
	make -C "$KDIR" M="$dir" -j"${JOBS:-2}" "$@" modules >"$log" 2>&1
}

# bad_modules DIR: every .ko that is neither validly signed nor plainly
# unsigned (a trailer that does not verify is the one thing a failed build
# must never leave), one "FILE: OUTCOME" a line; empty when all is well.
bad_modules() {
	local ko out rc
	for ko in "$1"/*.ko; do
		[ -e "$ko" ] || continue
		rc=0
		out=$("$verifier" --keyring "$kring" "$ko" 2>&1) || rc=$?
		case "$rc:$out" in
		"0:$ko: valid"* | "10:$ko: unsigned"*) ;;
		*) echo "$out (exit $rc)" ;;
		esac
	done
}

# signed_count DIR: how many .ko in DIR pgp-verify calls valid
signed_count() {
	local ko n=0
	for ko in "$1"/*.ko; do
		[ -e "$ko" ] || continue
		if "$verifier" --keyring "$kring" "$ko" >/dev/null 2>&1; then
			n=$((n + 1))
		fi
	done
	echo "$n"
}

# unsigned_sums DIR: checksums of the linked, unsigned modules
unsigned_sums() {
	(cd "$1" && sha256sum ./*.ko.unsigned)
}

# after_fault NAME DIR LOG RC SUMS PATTERN...: the common assertions on a
# build that met a fault: it failed, its message matches every PATTERN
# (each an extended regex, e.g. the key file and the reason), no module
# looks signed but is not, and no .ko.unsigned changed.
after_fault() {
	local name=$1 dir=$2 log=$3 rc=$4 sums=$5 pat missing=""
	shift 5
	if [ "$rc" -ne 0 ]; then
		pass "$name: build fails (make exit $rc)"
	else
		fail "$name: build fails" "make succeeded"
	fi
	for pat in "$@"; do
		grep -qE -- "$pat" "$log" || missing="$missing '$pat'"
	done
	if [ -z "$missing" ]; then
		pass "$name: message: $(grep -m1 -E -- "$1" "$log" | cut -c1-200)"
	else
		fail "$name: clear message" "no line matches$missing in: $(grep -iE 'error|sign' "$log" | sed -n 1,3p | tr '\n' '|')"
	fi
	check "$name: no module that looks signed but is not" "" "$(bad_modules "$dir" | tr '\n' '|')"
	check "$name: .ko.unsigned files unchanged" "$sums" "$(unsigned_sums "$dir")"
	check "$name: no temporary files left" "" "$(find "$dir" -name '.tmp_*.ko.??????' | tr '\n' ' ')"
}

# rerun_ok NAME DIR LOG N [MAKE-ARGS...]: with the fault fixed, a plain
# rebuild (no make clean) succeeds and all N modules are validly signed.
rerun_ok() {
	local name=$1 dir=$2 log=$3 n=$4
	shift 4
	if ext_build "$dir" "$log" "$@"; then
		check "$name: rerun after the fix, without make clean, signs all $n modules" "$n" "$(signed_count "$dir")"
	else
		fail "$name: rerun after the fix succeeds" "$(grep -iE 'error' "$log" | sed -n 1,3p | tr '\n' '|')"
	fi
}
