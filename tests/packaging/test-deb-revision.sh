#!/bin/bash
# The deb's kernel release is VERSION-REVISION-modsign (debian/rules says
# why), with a binNMU's +bN left out; a revision that cannot be part of a
# package name stops debian/rules before any target runs.  build-package.sh
# takes the release from the same rules (print-krel), so this is the one
# place the rule lives.  Needs no package: only the rules and a changelog.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

dir=$(scratch deb-revision)

# krel VERSION: what the rules make of a changelog at VERSION, and status
krel() {
	local rc=0 out
	printf 'linux-modsign (%s) unstable; urgency=medium\n\n  * Test.\n\n -- Test <test@modsign.invalid>  Fri, 04 Dec 2026 00:00:00 +0000\n' \
		"$1" >"$dir/changelog"
	out=$(rules_krel "$dir" "$dir/changelog" 2>&1) || rc=$?
	printf '%s|%s' "$rc" "$out"
}

check "deb revision: 6.1.192-1 gives release 6.1.192-1-modsign" \
	"0|6.1.192-1-modsign" "$(krel 6.1.192-1)"
check "deb revision: a binNMU (-3+b2) keeps the release of -3" \
	"0|6.1.192-3-modsign" "$(krel 6.1.192-3+b2)"
check "deb revision: a dotted revision (-2.1) is kept whole" \
	"0|6.1.192-2.1-modsign" "$(krel 6.1.192-2.1)"
check "deb revision: a backport's ~ is refused, naming the changelog" \
	"2|debian/rules:$(grep -n -F 'error debian/changelog' "$pkg_top/packaging/deb/debian/rules" | cut -d: -f1): *** debian/changelog: revision '1~bpo12+1' cannot be part of a package name (0-9 a-z . +).  Stop." \
	"$(krel 6.1.192-1~bpo12+1)"
check "deb revision: capitals are refused" 2 "$(krel 6.1.192-A1 | cut -d'|' -f1)"
finish
