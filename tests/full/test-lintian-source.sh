#!/bin/bash
# lintian finds no errors in the deb's source package (the .dsc: Debian's
# linux-source tarball as the orig tarball, debian/ with the series as
# debian/patches), and no overridden tag (make check-full only: lintian
# reads the whole kernel source, minutes of CPU).
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
	check "lintian: ${dsc##*/} has no overridden tags" "" \
		"$(grep -E '^O: |unused-override' "$log" | tr '\n' ';')"
else
	fail "the deb build leaves its source package"
fi
finish
