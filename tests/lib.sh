# shellcheck shell=bash
# Helpers shared by the test scripts.  A test script sources this file,
# calls pass/fail once per case, and ends with `finish`.  The runner
# (tests/run-all.sh) adds up the "PASS"/"FAIL" lines every script prints.
#
# Environment given by the runner:
#   KDIR      the built, patched kernel tree (signed modules inside)
#   BUILD     the project's build directory (scratch space under it)

set -euo pipefail

: "${KDIR:?KDIR must point at the built kernel tree}"
: "${BUILD:?BUILD must point at the build directory}"

tests_passed=0
tests_failed=0

pass() {
	echo "PASS $1"
	tests_passed=$((tests_passed + 1))
}

fail() {
	echo "FAIL $1${2:+: $2}"
	tests_failed=$((tests_failed + 1))
}

# check NAME EXPECTED ACTUAL: pass when the two strings are equal.
check() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', got '$3'"
	fi
}

# scratch NAME: a fresh, empty directory for one test.
scratch() {
	local dir="$BUILD/test-scratch/$1"
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "$dir"
}

# kernel_series DIR: the version the kernel tree in DIR is, as the series
# directories name it (6.1, 6.12).
kernel_series() {
	awk '/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 }
		END { if (v == "" || p == "") exit 1; print v "." p }' "$1/Makefile"
}

# modules_ko DIR: the modules of the object tree DIR, one path (relative
# to DIR, ending in .ko) a line, from modules.order, which names the .ko
# files on 6.1 and the objects (.o) on 6.12.
modules_ko() {
	sed 's/\.o$/.ko/' "$1/modules.order"
}

# series_patches DIR: the patch files of DIR/series, in order.
series_patches() {
	awk -v d="$1" '!/^[[:space:]]*(#|$)/ { print d "/" $0 }' "$1/series"
}

# copy_objtree SRC DST: make DST a copy of the object tree SRC, which make
# (-C $KSRC O=DST) then rebuilds incrementally: minutes instead of a whole
# kernel.  The copy leaves out SRC's secret keys (their modes say which).
# objtool's own build records absolute paths, so it is rebuilt in DST; its
# files then get SRC's objtool's time back, or every object, being older
# than the new objtool, would be rebuilt too.
copy_objtree() {
	local src=$1 obj=$2
	: "${KSRC:?KSRC must point at the patched source tree}"
	rm -rf "$obj"
	mkdir -p "$obj"
	(cd "$src" && find . -type f -perm -0400 ! -perm -0044 -print0) >"$obj.secrets"
	cp -a "$src/." "$obj/"
	(cd "$obj" && xargs -0 -r rm -f <"$obj.secrets")
	rm -f "$obj.secrets"
	if [ -e "$src/tools/objtool/objtool" ]; then
		make -s -C "$KSRC" O="$obj" -j"${JOBS:-2}" tools/objtool >&2
		find "$obj/tools" -exec touch -h -r "$src/tools/objtool/objtool" {} +
	fi
}

# verify_outcome KEYRING FILE: the outcome pgp-verify (the built tree's,
# or $VERIFY) gives, its first word: valid, unsigned, unknown-key...
# (stdout only: stderr has the keys the keyring holds but the kernel
# would not load).  pgp-verify's exit status is the outcome's, so it is
# not a failure here.
verify_outcome() {
	local out
	out=$("${VERIFY:-$KDIR/scripts/modsign/pgp-verify}" --keyring "$1" "$2" 2>/dev/null) || :
	out=${out#"$2": }
	echo "${out%%:*}"
}

finish() {
	echo "# $(basename "$0"): $tests_passed passed, $tests_failed failed"
	[ "$tests_failed" -eq 0 ]
}
