#!/bin/bash
# Every patch of the series passes the tree's own scripts/checkpatch.pl
# --strict with no error and no check.  The one warning allowed is
# "does MAINTAINERS need updating?", which checkpatch gives any patch that
# adds files before the patch that adds their MAINTAINERS entry.
# MODSIGN_PATCHES may name another directory of patches (to see it fail).
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
: "${KSRC:?KSRC must point at the patched source tree}"

patches=${MODSIGN_PATCHES:-$here/../../kbuild-patches/$(kernel_series "$KSRC")}
mapfile -t series < <(series_patches "$patches")
for p in "${series[@]}"; do
	name=$(basename "$p")
	# checkpatch's exit status only says "something was found"; the
	# verdict comes from its summary line and findings below.
	rc=0
	out=$(cd "$KSRC" && scripts/checkpatch.pl --strict --color=never "$p" 2>&1) || rc=$?
	summary=$(echo "$out" | grep '^total: ' || echo "no summary")
	# checkpatch asks "does MAINTAINERS need updating?" of any patch that
	# adds a file and leaves MAINTAINERS alone.  Every file this series
	# adds is covered by an F: pattern (crypto/asymmetric_keys/: ASYMMETRIC
	# KEYS; certs/: CERTIFICATE HANDLING; scripts/modsign/: MODULE SUPPORT,
	# from the last patch), as get_maintainer.pl shows, so that question is not
	# counted.  Nor is "Avoid CamelCase" for the names of the zstd and zlib
	# APIs (ZSTD_isError, inflateEnd), which pgp-verify calls to read
	# compressed modules and cannot rename.  Every other finding counts.
	problems=$(echo "$out" | awk '/^(ERROR|WARNING|CHECK):/ &&
		!/^WARNING: added, moved or deleted file\(s\), does MAINTAINERS need updating\?/ &&
		!/^CHECK: Avoid CamelCase: <(ZSTD_[A-Za-z]+|inflate[A-Z][A-Za-z0-9]*)>$/')
	allowed_checks=$(echo "$out" | grep -c '^CHECK: Avoid CamelCase: <\(ZSTD_[A-Za-z]*\|inflate[A-Z][A-Za-z0-9]*\)>$' || :)
	if [ -z "$problems" ] && [[ "$summary" == "total: 0 errors, "*" $allowed_checks checks, "* ]]; then
		pass "checkpatch --strict $name"
	else
		fail "checkpatch --strict $name" "exit $rc, $summary; $(echo "$problems" | sed -n 1,3p | tr '\n' '|')"
	fi
done
finish
