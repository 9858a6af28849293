#!/bin/bash
# lintian finds no errors in the debs, and none is hidden: the recipe has
# no lintian overrides (packaging/deb/debian/*.lintian-overrides), and an
# override that lintian reports at all fails here, so any that is added
# must come with this test's change and a comment saying why.  The source
# package (.dsc) is linted in make check-full
# (tests/full/test-lintian-source.sh): lintian reads the whole kernel
# source, minutes of CPU.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

ensure_packages
for deb in "$(image_deb)" "$(dbg_deb)" "$(headers_deb)" "$(dkms_deb)"; do
	name=${deb##*/}
	log=$BUILD/test-scratch/lintian-$name.log
	mkdir -p "${log%/*}"
	# -I shows the informational tags too; --show-overrides the
	# overridden ones, marked "O:".
	lintian --no-cfg -I --show-overrides --fail-on none "$deb" >"$log" 2>&1
	sed "s/^/lintian $name: /" "$log"
	check "lintian: $name has no errors" "" "$(grep '^E: ' "$log" | tr '\n' ';')"
	check "lintian: $name has no overridden tags" "" \
		"$(grep -E '^O: |unused-override' "$log" | tr '\n' ';')"
done
finish
