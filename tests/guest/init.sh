#!/bin/busybox sh
# shellcheck shell=dash
# /init of the test initramfs: mount the pseudo filesystems, run the cases
# the host packed in, and power off.  Everything the host needs to judge
# the run goes to the serial console between GUEST-START and GUEST-END.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# The report goes to the second serial line, away from kernel messages
# (tests/guest/qemu-run.sh).
exec >/dev/ttyS1 2>&1

mode=permissive
if [ "$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)" = Y ]; then
	mode=enforce
fi
echo "GUEST-START mode=$mode tainted=$(cat /proc/sys/kernel/tainted)"
sed "s/^/KEYS /" /proc/keys 2>/dev/null
# A payload's /setup.sh runs before the cases (keyring changes a test
# makes from user space) and reports on the same line.
if [ -x /setup.sh ]; then
	/setup.sh "$mode"
fi
if [ -x /cases.sh ]; then
	/cases.sh "$mode"
fi
echo "GUEST-END"
# -no-reboot turns the reboot into QEMU exiting; there is no ACPI to power off.
reboot -f
