#!/bin/bash
# Boot KERNEL with INITRD under QEMU and copy the serial console to LOG.
# INITRD "-" boots with none; MODSIGN_QEMU_DISK=IMAGE adds IMAGE as a raw
# virtio disk (/dev/vda).  KERNEL "-" boots that disk through the BIOS
# and its own bootloader, which gives the kernel and its arguments (the
# INITRD and KERNEL-ARGS given must then be "-" and none).
# TCG by default: KVM hangs on this project's machines with every CPU
# model tried, so it is opt-in with MODSIGN_QEMU_KVM=1.
# "qemu-run.sh --base-args" prints the arguments every kernel booted here
# gets first, for a bootloader's settings to give the same.
set -euo pipefail

base_args="console=ttyS0 panic=-1 loglevel=7"
if [ "${1:-}" = --base-args ]; then
	echo "$base_args"
	exit 0
fi
if [ "$#" -lt 3 ]; then
	echo "usage: $0 KERNEL INITRD LOG [KERNEL-ARGS...]" >&2
	exit 2
fi
kernel=$1
initrd=$2
log=$3
shift 3

boot_args=(-kernel "$kernel")
[ "$initrd" = - ] || boot_args+=(-initrd "$initrd")
boot_args+=(-append "$base_args $*")
if [ "$kernel" = - ]; then
	if [ -z "${MODSIGN_QEMU_DISK:-}" ] || [ "$initrd" != - ] || [ "$#" -ne 0 ]; then
		echo "qemu-run: KERNEL - boots MODSIGN_QEMU_DISK, with no INITRD and no KERNEL-ARGS" >&2
		exit 2
	fi
	boot_args=(-boot c)
fi
disk_args=()
if [ -n "${MODSIGN_QEMU_DISK:-}" ]; then
	disk_args=(-drive "file=$MODSIGN_QEMU_DISK,format=raw,if=virtio")
fi

accel=(-accel tcg)
if [ "${MODSIGN_QEMU_KVM:-0}" = 1 ]; then
	accel=(-accel kvm -cpu host)
fi

# Two serial lines: the kernel's console on ttyS0 and the guest's own
# report on ttyS1 (the guest inits write there).  On one line, a kernel
# message printed while the tty still drains a report line lands in the
# middle of it.  The log is the console followed by the report.
report=$log.ttyS1
rm -f "$report"
rc=0
timeout "${MODSIGN_QEMU_TIMEOUT:-240}" qemu-system-x86_64 "${accel[@]}" \
	-m "${MODSIGN_QEMU_MEM:-512}" -smp 1 -display none -no-reboot \
	-monitor none -serial stdio -serial "file:$report" \
	${MODSIGN_QEMU_EXTRA:+$MODSIGN_QEMU_EXTRA} \
	"${disk_args[@]}" "${boot_args[@]}" </dev/null >"$log" 2>&1 || rc=$?
if [ -f "$report" ]; then
	cat "$report" >>"$log"
	rm -f "$report"
fi
if [ "$rc" -ne 0 ]; then
	echo "qemu-run: QEMU exited with status $rc; log in $log" >&2
	exit "$rc"
fi
if ! grep -q '^GUEST-END' "$log"; then
	echo "qemu-run: guest did not finish; log in $log" >&2
	exit 1
fi
