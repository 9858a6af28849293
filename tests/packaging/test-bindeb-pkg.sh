#!/bin/bash
# The kernel's own `make bindeb-pkg`, on the patched tree as built: its
# builddeb strips the installed modules for the -dbg package and then
# re-signs them with modules_sign, which cuts the OpenPGP signature off
# and signs nothing (the series signs at build time).  With the series'
# builddeb patch the image package holds the build's signed modules,
# byte for byte, and the -dbg package takes each module's debug info from
# foo.ko.unsigned, found by the build-id the two share.
#
# It runs in a copy of the built tree (bindeb-pkg relinks the kernel for
# its build number and writes debian/ there); the modules are up to date,
# so nothing is signed again.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
: "${KSRC:?KSRC must point at the patched source tree}"

dir=$(scratch bindeb-pkg)
# builddeb writes its packages next to the object tree: $dir.
obj=$dir/obj
copy_objtree "$KDIR" "$obj"
verify=$obj/scripts/modsign/pgp-verify
keyring=$obj/certs/pgp_pubkeys.gpg
rc=0
make -C "$KSRC" O="$obj" -j"${JOBS:-$(nproc)}" KDEB_COMPRESS=none bindeb-pkg >"$dir/build.log" 2>&1 || rc=$?
check "bindeb-pkg: exit status" 0 "$rc"
[ "$rc" -eq 0 ] || tail -n 20 "$dir/build.log" | sed 's/^/    /'
check "bindeb-pkg: no module is built or signed again" "" \
	"$(grep -E '^  (SIGN|STRIP|LD \[M\]) ' "$dir/build.log" | sed -n 1,3p)"

image=$(find "$dir" -maxdepth 1 -name 'linux-image-*.deb' ! -name '*-dbg_*' | sed -n 1p)
dbg=$(find "$dir" -maxdepth 1 -name 'linux-image-*-dbg_*.deb' | sed -n 1p)
check "bindeb-pkg: an image and a -dbg package" "yes yes" \
	"$([ -n "$image" ] && echo yes || echo no) $([ -n "$dbg" ] && echo yes || echo no)"
if [ -z "$image" ] || [ -z "$dbg" ]; then
	finish
fi
krel=$(dpkg-deb -f "$image" Package | sed 's/^linux-image-//')
dpkg-deb -x "$image" "$dir/image"
dpkg-deb -x "$dbg" "$dir/dbg"

mapfile -t mods < <(modules_ko "$KDIR")
n=${#mods[@]}
same=0 valid=0 debug=0 ids=0 links=0
for m in "${mods[@]}"; do
	ko=$dir/image/lib/modules/$krel/kernel/$m
	d=$dir/dbg/usr/lib/debug/lib/modules/$krel/kernel/$m
	cmp -s "$ko" "$KDIR/$m" && same=$((same + 1))
	"$verify" --keyring "$keyring" "$ko" >/dev/null 2>&1 && valid=$((valid + 1))
	eu-readelf -S "$d" 2>/dev/null | awk '/\.debug_info/ { f = 1 } END { exit !f }' && debug=$((debug + 1))
	id=$(eu-readelf -n "$ko" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
	[ -n "$id" ] && [ "$(eu-readelf -n "$d" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')" = "$id" ] &&
		ids=$((ids + 1))
	link=$dir/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	[ -n "$id" ] && [ -L "$link" ] && [ "$(realpath "$link")" = "$(realpath "$d")" ] && links=$((links + 1))
done
check "image: every module is the build's signed module, byte for byte ($n)" "$n" "$same"
check "image: every module verifies with the kernel's keyring" "$n" "$valid"
check "-dbg: every module's debug file has DWARF" "$n" "$debug"
check "-dbg: ... and the installed module's build-id" "$n" "$ids"
check "-dbg: .build-id/xx/yyyy.debug leads to it" "$n" "$links"
check "-dbg: vmlinux with its debug info" yes \
	"$(eu-readelf -S "$dir/dbg/usr/lib/debug/lib/modules/$krel/vmlinux" 2>/dev/null | awk '/\.debug_info/ { f = 1 } END { exit !f }' && echo yes || echo no)"
finish
