#!/bin/bash
# The kernel packages hold what a kernel package must: the image, its
# System.map and config, every module the build made (as many as the
# main build's modules.order lists, for the same config) and a
# modules.dep, written after signing, that names every one of them.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

ensure_packages
want=$(grep -c . "$KDIR/modules.order")

# check_contents KIND PACKAGE
check_contents() {
	local kind=$1 dir rel f n listed
	local -a rels
	dir=$(scratch "contents-$kind")
	unpack "$2" "$dir"
	mapfile -t rels < <(find "$dir/lib/modules" -mindepth 1 -maxdepth 1 -type d -printf '%f\n')
	check "$kind: one kernel release under /lib/modules" 1 "${#rels[@]}"
	rel=${rels[0]:-none}
	for f in "vmlinuz-$rel" "System.map-$rel" "config-$rel"; do
		check "$kind: /boot/$f" yes "$([ -s "$dir/boot/$f" ] && echo yes || echo no)"
	done
	n=$(find "$dir/lib/modules/$rel" -name '*.ko' | wc -l)
	check "$kind: every module of the build ($want)" "$want" "$n"
	if [ -s "$dir/lib/modules/$rel/modules.dep" ]; then
		listed=$(cut -d: -f1 "$dir/lib/modules/$rel/modules.dep" | LC_ALL=C sort)
		check "$kind: modules.dep names every packaged module" \
			"$(cd "$dir/lib/modules/$rel" && find . -name '*.ko' | sed 's,^\./,,' | LC_ALL=C sort | tr '\n' ' ')" \
			"$(echo "$listed" | tr '\n' ' ')"
	else
		fail "$kind: modules.dep" "missing or empty in $dir/lib/modules/$rel"
	fi
}

check_contents rpm "$(kernel_rpm)"
check_contents deb "$(image_deb)"
finish
