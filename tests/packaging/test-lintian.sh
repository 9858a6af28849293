#!/bin/bash
# lintian finds no errors in the debs (overrides, each explained, live in
# packaging/deb/debian/*.lintian-overrides).
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

ensure_packages
for deb in "$(image_deb)" "$(dbg_deb)"; do
	name=${deb##*/}
	log=$BUILD/test-scratch/lintian-$name.log
	mkdir -p "${log%/*}"
	# -I shows the informational tags too, unused-override among them.
	lintian --no-cfg -I --fail-on none "$deb" >"$log" 2>&1
	sed "s/^/lintian $name: /" "$log"
	check "lintian: $name has no errors" "" "$(grep '^E: ' "$log" | tr '\n' ';')"
	# An override that no longer matches is a stale explanation.
	check "lintian: $name has no unused overrides" "" \
		"$(grep 'unused-override' "$log" | tr '\n' ';')"
done
finish
