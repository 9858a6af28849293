#!/bin/bash
# Boot the installed kernel as a Debian system would: a bookworm root with
# initramfs-tools on an ext2 disk image (virtio, /dev/vda); boot 1 installs
# the linux-image deb into it with dpkg (its postinst runs the
# /etc/kernel/postinst.d hooks, and initramfs-tools' hook makes the
# initramfs); boot 2 starts the kernel and initramfs read from that disk's
# /boot, which mount the disk as root, with module.sig_enforce=1, and
# modprobes every packaged module.  No bootloader: QEMU is handed the two
# files the install put in /boot.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

ensure_packages
boot_root

if ! pkg=$(image_deb); then
	fail "linux-image deb exists in $pkg_dir/deb"
	finish
	exit
fi
dir=$(scratch installed-boot)
unpack "$pkg" "$dir/unpacked"
if ! kernel=$(one_file "$dir/unpacked/boot/vmlinuz-*"); then
	fail "the deb holds one kernel image"
	finish
	exit
fi
krel=${kernel##*/vmlinuz-}
mods=$(cd "$dir/unpacked/lib/modules/$krel" && find . -name '*.ko' -printf '%f\n' | sed 's/\.ko$//' | LC_ALL=C sort)
nmods=$(echo "$mods" | grep -c .)

# The disk: the root, and /pkg with the deb, this init and busybox (for
# reboot -f; minbase has no init system).
tree=$dir/tree
mkdir "$tree"
tar -xf "$pkg_boot_root" -C "$tree"
check "the root holds no initramfs before the install" "" \
	"$(find "$tree/boot" -name 'initrd.img*' 2>/dev/null)"
mkdir "$tree/pkg"
install -m 0755 "$here/disk-boot-init.sh" "$tree/pkg/init"
install -m 0755 /bin/busybox "$tree/pkg/busybox"
cp "$pkg" "$tree/pkg/"
echo "$mods" >"$tree/pkg/modules.list"
disk=$dir/disk.img
# Room for the kernel, its modules and the initramfs on top of the root.
size_mb=$(($(du -sm "$tree" | cut -f1) + 384))
if ! mke2fs -q -t ext2 -L modsign-root -d "$tree" "$disk" "${size_mb}M" >"$dir/mke2fs.log" 2>&1; then
	fail "ext2 disk image made from the root" "$(cat "$dir/mke2fs.log")"
	finish
	exit
fi
rm -rf "$tree"

# boot_disk NAME KERNEL INITRD ARGS...: boot with the disk, "NAME: guest
# boots and finishes" judged here; the report is in $dir/NAME.log.
boot_disk() {
	local name=$1 kernel=$2 initrd=$3
	shift 3
	if MODSIGN_QEMU_DISK=$disk "$here/../guest/qemu-run.sh" "$kernel" "$initrd" \
		"$dir/$name.log" "$@"; then
		pass "$name: guest boots and finishes"
		return 0
	fi
	fail "$name: guest boots and finishes" "see $dir/$name.log"
	tail -n 30 "$dir/$name.log" | sed 's/^/    /'
	return 1
}

# Boot 1: the packaged kernel mounts the disk itself and installs.
if boot_disk install "$kernel" - root=/dev/vda rw rootwait init=/pkg/init modsign_stage=install; then
	r=$(guest_report "$dir/install.log")
	# Mounted by the kernel itself (root=), which names it /dev/root.
	check "install: root is the disk, mounted by the kernel" "/dev/root ext2" \
		"$(sed -n 's/^root //p' <<<"$r")"
	check "install: dpkg -i of the image (exit status)" "0" "$(sed -n 's/^install //p' <<<"$r")"
	check "install: the hooks made /boot/initrd.img-$krel" "yes" \
		"$(sed -n 's/^boot //p' <<<"$r" | grep -qw "initrd.img-$krel" && echo yes)"
	check "install: /initrd.img links to it" "boot/initrd.img-$krel" \
		"$(sed -n 's/^initrd-link //p' <<<"$r")"
fi

# The two files as a bootloader would read them from the disk.
for f in vmlinuz initrd.img; do
	rm -f "$dir/$f"
	debugfs -R "dump /boot/$f-$krel $dir/$f" "$disk" >/dev/null 2>&1
done
check "the disk's /boot/vmlinuz-$krel is the packaged image" "same" \
	"$(cmp -s "$kernel" "$dir/vmlinuz" && echo same)"
if [ ! -s "$dir/initrd.img" ]; then
	fail "the disk holds the initramfs the hooks made" "no /boot/initrd.img-$krel in $disk"
	finish
	exit
fi
pass "the disk holds the initramfs the hooks made"

# Boot 2: the installed kernel and initramfs, the disk as root.
if boot_disk boot "$dir/vmlinuz" "$dir/initrd.img" root=/dev/vda init=/pkg/init \
	modsign_stage=boot module.sig_enforce=1; then
	guest_report "$dir/boot.log" >"$dir/boot.results"
	r=$(cat "$dir/boot.results")
	check "boot: runs the installed kernel" "$krel" "$(sed -n 's/^kernel //p' <<<"$r")"
	check "boot: the initramfs mounted the disk as root" "/dev/vda ext2" \
		"$(sed -n 's/^root //p' <<<"$r")"
	check "boot: initramfs-tools' init ran (its /run/initramfs was moved to the root)" "yes" \
		"$(sed -n 's/^initramfs-run //p' <<<"$r")"
	check "boot: initramfs-tools' init mounted the root (console)" "yes" \
		"$(grep -q 'Begin: Mounting root file system' "$dir/boot.log" && echo yes)"
	check "boot: module.sig_enforce is on" "Y" "$(sed -n 's/^sig_enforce //p' <<<"$r")"
	check "boot: every packaged module modprobes ($nmods)" "$nmods" \
		"$(count_lines '^modprobe [^ ]+ 0 ?$' <<<"$r")"
	check "boot: every packaged module is in /proc/modules" "$nmods" \
		"$(loaded_count "$dir/boot.results" "$mods")"
	check "boot: kernel stays untainted" "0" "$(sed -n 's/^tainted //p' <<<"$r")"
fi
finish
