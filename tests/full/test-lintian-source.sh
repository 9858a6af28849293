#!/bin/bash
# lintian finds no errors in the deb's source package (the .dsc: Debian's
# linux-source tarball as the orig tarball, debian/ with the series as
# debian/patches), and overrides only what the package declares, each
# with its reason: every tag lintian reports as overridden is one of
# debian/source/lintian-overrides (as the .dsc ships it), every override
# there is used, and a comment comes before each (make check-full only:
# lintian reads the whole kernel source, minutes of CPU).
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=../packaging/common.sh
. "$here/../packaging/common.sh"

ensure_packages
if dsc=$(one_file "$pkg_dir/deb/linux-modsign_*.dsc"); then
	pass "the deb build leaves its source package"
	log=$(scratch lintian-source)/lintian.log
	start=$SECONDS
	lintian --no-cfg -I --show-overrides --fail-on none "$dsc" >"$log" 2>&1
	sed "s/^/lintian ${dsc##*/}: /" "$log"
	echo "lintian ${dsc##*/}: $((SECONDS - start)) s"
	check "lintian: ${dsc##*/} has no errors" "" "$(grep '^E: ' "$log" | tr '\n' ';')"
	declared=$(scratch lintian-source-overrides)/lintian-overrides
	tar -xJOf "$(one_file "${dsc%.dsc}.debian.tar.xz")" debian/source/lintian-overrides \
		>"$declared" 2>/dev/null || : >"$declared"
	check "lintian: ${dsc##*/}: the overridden tags are those debian/source/lintian-overrides declares" \
		"$(awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$declared" | LC_ALL=C sort -u | xargs)" \
		"$(sed -n 's/^O: [^:]*: \([^ ]*\).*/\1/p' "$log" | LC_ALL=C sort -u | xargs)"
	check "lintian: ${dsc##*/}: no declared override is unused" "" \
		"$(grep -E 'unused-override|mismatched-override' "$log" | tr '\n' ';')"
	check "lintian: ${dsc##*/}: each override comes after a comment saying why" "" \
		"$(awk '/^[[:space:]]*#/ { why = 1; next } /^[[:space:]]*$/ { why = 0; next }
			{ if (!why) print "line " NR ": " $0; why = 0 }' "$declared" | tr '\n' ';')"
else
	fail "the deb build leaves its source package"
fi
finish
