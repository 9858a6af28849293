#!/bin/sh
# shellcheck shell=dash
# init of the installed-boot guest, a Debian bookworm root on the first
# partition of a virtio disk (/dev/vda1), run twice (modsign_stage= on
# the kernel command line):
#  install  booted from the kernel taken out of the package, no initramfs:
#           install GRUB in the disk's boot sector and make its menu (no
#           kernel yet), then the linux-image deb with dpkg, whose
#           postinst runs the /etc/kernel/postinst.d hooks
#           (initramfs-tools makes /boot/initrd.img-*, GRUB's remakes the
#           menu, linux-update-symlinks makes the links), then shut down
#           with the disk clean;
#  boot     booted by the BIOS and GRUB from that disk: the installed
#           kernel and the initramfs its hooks made, which mounted this
#           root and ran this script: modprobe every module under
#           module.sig_enforce=1.
# Facts go to ttyS1 as "R key value" lines between GUEST-START and
# GUEST-END (see tests/guest/qemu-run.sh); the host judges them.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys 2>/dev/null
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec >/dev/ttyS1 2>&1

stage=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^modsign_stage=//p')

echo "GUEST-START"
echo "R stage $stage"
echo "R kernel $(uname -r)"
# "/" as the kernel sees it: device and file system type.
echo "R root $(awk '$2 == "/" && $1 != "rootfs" { print $1, $3 }' /proc/mounts | tail -n 1)"
case "$stage" in
install)
	mount -t tmpfs tmpfs /run
	# The bootloader first, as a system has one before its next kernel;
	# its settings (/etc/default/grub.d) come with the disk.
	grub-install --target=i386-pc /dev/vda >/tmp/grub.log 2>&1
	echo "R grub-install $?"
	update-grub >>/tmp/grub.log 2>&1
	echo "R update-grub $?"
	sed 's/^/GRUB-LOG /' /tmp/grub.log
	dpkg -i /pkg/*.deb >/tmp/install.log 2>&1
	echo "R install $?"
	sed 's/^/INSTALL-LOG /' /tmp/install.log
	# what the menu boots: the kernel and initramfs of each entry
	echo "R grub-linux $(awk '$1 == "linux" { print $2 }' /boot/grub/grub.cfg | tr '\n' ' ')"
	echo "R grub-initrd $(awk '$1 == "initrd" { print $2 }' /boot/grub/grub.cfg | tr '\n' ' ')"
	echo "R boot $(find /boot -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | tr '\n' ' ')"
	echo "R initrd-link $(readlink /initrd.img)"
	umount /run
	sync
	mount -o remount,ro /
	;;
boot)
	# GRUB names the image it loaded in BOOT_IMAGE=.
	echo "R boot-image $(tr ' ' '\n' </proc/cmdline | sed -n 's/^BOOT_IMAGE=//p')"
	echo "R sig_enforce $(cat /sys/module/module/parameters/sig_enforce)"
	# initramfs-tools' init makes /run/initramfs and moves its /run onto
	# the root it mounted: this directory here says that it ran.
	echo "R initramfs-run $(test -d /run/initramfs && echo yes)"
	while read -r name; do
		out=$(modprobe "$name" 2>&1)
		echo "R modprobe $name $? $out"
	done </pkg/modules.list
	cut -d' ' -f1 /proc/modules | sed 's/^/R loaded /'
	echo "R tainted $(cat /proc/sys/kernel/tainted)"
	;;
esac
echo "GUEST-END"
# No init system: busybox's reboot -f, which -no-reboot turns into QEMU
# exiting.
/pkg/busybox reboot -f
