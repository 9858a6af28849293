#!/bin/bash
# Boot the installed kernel as a Debian system would: a bookworm root with
# initramfs-tools and GRUB on an ext2 partition of a disk image (virtio,
# /dev/vda1); boot 1 installs GRUB in the disk's boot sector, then the
# linux-image deb with dpkg (its postinst runs the /etc/kernel/postinst.d
# hooks: initramfs-tools' makes the initramfs, GRUB's the menu entry);
# boot 2 starts from the disk alone, through the BIOS and GRUB, which load
# that kernel and initramfs, which mount the partition as root, with
# module.sig_enforce=1 (GRUB's settings, made with the disk), and
# modprobe every packaged module.
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
# GRUB's settings, read by update-grub in boot 1: boot 2's kernel
# arguments, the serial console, no wait.
mkdir -p "$tree/etc/default/grub.d"
cat >"$tree/etc/default/grub.d/modsign-test.cfg" <<EOF
GRUB_TIMEOUT=0
GRUB_TERMINAL=serial
GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"
GRUB_CMDLINE_LINUX_DEFAULT=""
GRUB_CMDLINE_LINUX="$("$here/../guest/qemu-run.sh" --base-args) init=/pkg/init modsign_stage=boot module.sig_enforce=1"
GRUB_DISABLE_RECOVERY=true
GRUB_DISABLE_OS_PROBER=true
EOF
disk=$dir/disk.img
# One partition from 1 MiB, as partitioning tools leave it: the gap after
# the MBR holds GRUB's core image.  Room for the kernel, its modules and
# the initramfs on top of the root.
part_offset=1048576
size_mb=$(($(du -sm "$tree" | cut -f1) + 384))
rm -f "$disk"
truncate -s "$((size_mb + 1))M" "$disk"
if ! mke2fs -q -t ext2 -L modsign-root -d "$tree" -E offset=$part_offset "$disk" "${size_mb}M" \
	>"$dir/mke2fs.log" 2>&1; then
	fail "ext2 disk image made from the root" "$(cat "$dir/mke2fs.log")"
	finish
	exit
fi
rm -rf "$tree"
# The MBR's partition table: one bootable Linux partition, in sectors.
python3 - "$disk" "$((part_offset / 512))" "$((size_mb * 2048))" <<'EOF'
import struct, sys
path, start, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# CHS fields unused (0xfe 0xff 0xff: "use the LBA fields")
chs = b"\xfe\xff\xff"
entry = struct.pack("<B3sB3sII", 0x80, chs, 0x83, chs, start, count)
with open(path, "r+b") as f:
    f.seek(446)
    f.write(entry + bytes(48) + b"\x55\xaa")
EOF

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

# Boot 1: the packaged kernel mounts the partition itself and installs.
if boot_disk install "$kernel" - root=/dev/vda1 rw rootwait init=/pkg/init modsign_stage=install; then
	r=$(guest_report "$dir/install.log")
	# Mounted by the kernel itself (root=), which names it /dev/root.
	check "install: root is the partition, mounted by the kernel" "/dev/root ext2" \
		"$(sed -n 's/^root //p' <<<"$r")"
	check "install: grub-install and update-grub (exit status)" "0 0" \
		"$(sed -n 's/^grub-install //p' <<<"$r") $(sed -n 's/^update-grub //p' <<<"$r")"
	check "install: dpkg -i of the image (exit status)" "0" "$(sed -n 's/^install //p' <<<"$r")"
	check "install: the hooks made /boot/initrd.img-$krel" "yes" \
		"$(sed -n 's/^boot //p' <<<"$r" | grep -qw "initrd.img-$krel" && echo yes)"
	check "install: /initrd.img links to it" "boot/initrd.img-$krel" \
		"$(sed -n 's/^initrd-link //p' <<<"$r")"
	# (the default entry and its copy under "Advanced options")
	check "install: GRUB's hook put the kernel and its initramfs in the menu" \
		"/boot/vmlinuz-$krel /boot/initrd.img-$krel" \
		"$(for k in grub-linux grub-initrd; do sed -n "s/^$k //p" <<<"$r" | tr ' ' '\n' | sort -u; done | xargs)"
fi

# The image as the disk holds it (debugfs reads the partition at its
# offset).
rm -f "$dir/vmlinuz"
debugfs -R "dump /boot/vmlinuz-$krel $dir/vmlinuz" "$disk?offset=$part_offset" >/dev/null 2>&1
check "the disk's /boot/vmlinuz-$krel is the packaged image" "same" \
	"$(cmp -s "$kernel" "$dir/vmlinuz" && echo same)"

# Boot 2: from the disk alone, as the BIOS finds it: GRUB, then the
# installed kernel and initramfs, the partition as root.
if boot_disk boot - -; then
	guest_report "$dir/boot.log" >"$dir/boot.results"
	r=$(cat "$dir/boot.results")
	check "boot: GRUB loaded the installed image" "/boot/vmlinuz-$krel" \
		"$(sed -n 's/^boot-image //p' <<<"$r")"
	check "boot: runs the installed kernel" "$krel" "$(sed -n 's/^kernel //p' <<<"$r")"
	check "boot: the initramfs mounted the partition as root" "/dev/vda1 ext2" \
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
