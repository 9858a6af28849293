#!/bin/bash
# The debug packages are real: for every module in the rpm and the deb, the
# debug package has /usr/lib/debug/.build-id/xx/yyyy.debug with the
# module's build-id, DWARF that describes the module's own functions, and
# the packaged module itself carries no debug info but a debuglink.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

ensure_packages

build_id() {
	eu-readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p' | sed -n 1p
}

# check_debug KIND IMAGE-PACKAGE DEBUG-PACKAGE
check_debug() {
	local kind=$1 dir mods ko id dbg funcs dwarf n=0
	local no_id="" no_file="" id_differs="" no_dwarf="" has_debug="" no_link=""
	dir=$(scratch "debuginfo-$kind")
	unpack "$2" "$dir/image"
	unpack "$3" "$dir/debug"
	mapfile -t mods < <(find "$dir/image/lib/modules" -name '*.ko' | LC_ALL=C sort)
	if [ "${#mods[@]}" -eq 0 ]; then
		fail "$kind: package holds modules" "none"
		return
	fi
	for ko in "${mods[@]}"; do
		n=$((n + 1))
		name=${ko##*/}
		id=$(build_id "$ko")
		if [ -z "$id" ]; then
			no_id="$no_id $name"
			continue
		fi
		dbg=$dir/debug/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		if [ ! -e "$dbg" ]; then
			no_file="$no_file $name"
			continue
		fi
		[ "$(build_id "$dbg")" = "$id" ] || id_differs="$id_differs $name"
		# The module's own functions, by its symbol table, must be named
		# by subprogram entries of the debug file.
		funcs=$(eu-readelf -s "$ko" | awk '$4 == "FUNC" && $7 != "UNDEF" { print $8 }' | LC_ALL=C sort -u)
		dwarf=$(eu-readelf --debug-dump=info "$dbg" 2>/dev/null |
			awk 'match($0, /^ *\[ *[0-9a-f]+\] +/) {
				split(substr($0, RLENGTH + 1), w, " "); sub_ = (w[1] == "subprogram") }
			     sub_ && $1 == "name" { gsub(/"/, "", $NF); print $NF }' | LC_ALL=C sort -u)
		if [ -z "$funcs" ] || [ -z "$(LC_ALL=C comm -12 <(echo "$funcs") <(echo "$dwarf"))" ]; then
			no_dwarf="$no_dwarf $name"
		fi
		if eu-readelf -S "$ko" | grep '\.debug_info' >/dev/null; then
			has_debug="$has_debug $name"
		fi
		eu-readelf -S "$ko" | grep '\.gnu_debuglink' >/dev/null || no_link="$no_link $name"
	done
	check "$kind: every module has a build-id ($n)" "" "$no_id"
	check "$kind: every module has .build-id/xx/yyyy.debug in the debug package" "" "$no_file"
	check "$kind: each .debug has its module's build-id" "" "$id_differs"
	check "$kind: each .debug has DWARF for its module's functions" "" "$no_dwarf"
	check "$kind: packaged modules carry no .debug_info" "" "$has_debug"
	check "$kind: packaged modules carry a .gnu_debuglink" "" "$no_link"
}

check_debug rpm "$(kernel_rpm)" "$(debuginfo_rpm)"
check_debug deb "$(image_deb)" "$(dbg_deb)"
finish
