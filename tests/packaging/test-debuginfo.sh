#!/bin/bash
# The debug packages are real: for every module in the rpm and the deb, the
# debug package has /usr/lib/debug/.build-id/xx/yyyy.debug with the
# module's build-id, DWARF that describes the module's own functions, and
# the packaged module itself carries no debug info but a .gnu_debuglink
# whose file is where gdb looks (/usr/lib/debug plus the module's
# directory) with the CRC it names.  vmlinux is there too, with its debug
# info and the build-id of the kernel in the image package (the build's:
# rpm does not re-seed it), and found by it; with the packages unpacked
# in one root, every link resolves.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

ensure_packages

build_id() {
	eu-readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p' | sed -n 1p
}

# check_debug KIND IMAGE-PACKAGE DEBUG-PACKAGE [PACKAGE...]: the last ones
# are the other packages the debug package has debug info for (the rpm's
# covers kernel-modsign-devel's tools), unpacked beside the two for the
# dangling-link check
check_debug() {
	local kind=$1 dir mods ko id dbg funcs dwarf n=0 extra
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
	check "$kind: each .gnu_debuglink names a file under /usr/lib/debug and the module's directory, CRC matching" \
		"$n" "$(debuglinks_found "$dir/image" "$dir/debug" "${mods[@]}")"

	local rel vmlinux kid vid
	rel=$(find "$dir/image/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' | sed -n 1p)
	vmlinux=$dir/debug/usr/lib/debug/lib/modules/$rel/vmlinux
	check "$kind: vmlinux with its debug info in the debug package" yes \
		"$(eu-readelf -S "$vmlinux" 2>/dev/null | awk '/\.debug_info/ { f = 1 } END { exit !f }' && echo yes || echo no)"
	"$KSRC/scripts/extract-vmlinux" "$dir/image/boot/vmlinuz-$rel" >"$dir/booted" 2>/dev/null || :
	kid=$(build_id "$dir/booted")
	vid=$(build_id "$vmlinux")
	check "$kind: ... with the build-id of the packaged kernel image" "$kid" "${vid:-none}"
	check "$kind: ... found by it, .build-id/xx/yyyy.debug" yes \
		"$([ -n "$vid" ] && [ "$(realpath "$dir/debug/usr/lib/debug/.build-id/${vid:0:2}/${vid:2}.debug" 2>/dev/null)" = "$(realpath "$vmlinux")" ] && echo yes || echo no)"
	mkdir -p "$dir/both"
	cp -a "$dir/image/." "$dir/debug/." "$dir/both/"
	for extra in "${@:4}"; do
		unpack "$extra" "$dir/both"
	done
	check "$kind: with the packages it covers in one root, no link dangles" "" \
		"$(dangling_links "$dir/both" | sed -n 1,3p | xargs)"
}

# dangling_links ROOT: the symbolic links under ROOT whose target is not
# there, an absolute target taken inside ROOT (as on the installed system)
dangling_links() {
	local link target
	while read -r link; do
		target=$(readlink "$link")
		case "$target" in
		/*) target=$1$target ;;
		*) target=$(dirname "$link")/$target ;;
		esac
		[ -e "$target" ] || echo "${link#"$1"/}"
	done < <(find "$1" -type l | LC_ALL=C sort)
}

# debuglinks_found IMAGEROOT DEBUGROOT MODULE...: how many modules' debug
# link names a file, in DEBUGROOT/usr/lib/debug/ plus the module's directory
# under IMAGEROOT, whose CRC-32 is the one the link records.
debuglinks_found() {
	python3 - "$@" <<'PY'
import os, subprocess, sys, tempfile, zlib
image, debug, mods = sys.argv[1], sys.argv[2], sys.argv[3:]
found = 0
with tempfile.TemporaryDirectory() as tmp:
    sec = os.path.join(tmp, "link")
    for ko in mods:
        # --dump-section: -O binary leaves out a section that is not
        # loaded, as .gnu_debuglink is not.
        if subprocess.run(["objcopy", "--dump-section", ".gnu_debuglink=" + sec,
                           ko, os.path.join(tmp, "out")], capture_output=True).returncode != 0:
            continue
        data = open(sec, "rb").read()
        if len(data) < 8 or b"\0" not in data:
            continue
        name = data[:data.index(b"\0")].decode()
        crc = int.from_bytes(data[-4:], "little")
        where = os.path.join(debug, "usr/lib/debug",
                             os.path.relpath(os.path.dirname(ko), image), name)
        if os.path.isfile(where) and zlib.crc32(open(where, "rb").read()) == crc:
            found += 1
print(found)
PY
}

check_debug rpm "$(kernel_rpm)" "$(debuginfo_rpm)" "$(devel_rpm)"
check_debug deb "$(image_deb)" "$(dbg_deb)"
finish
