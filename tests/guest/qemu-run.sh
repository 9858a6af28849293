#!/bin/bash
# Boot KERNEL with INITRD under QEMU and copy the serial console to LOG.
# TCG by default: KVM hangs on this project's machines with every CPU
# model tried, so it is opt-in with MODSIGN_QEMU_KVM=1.
set -euo pipefail

if [ "$#" -lt 3 ]; then
	echo "usage: $0 KERNEL INITRD LOG [KERNEL-ARGS...]" >&2
	exit 2
fi
kernel=$1
initrd=$2
log=$3
shift 3

accel=(-accel tcg)
if [ "${MODSIGN_QEMU_KVM:-0}" = 1 ]; then
	accel=(-accel kvm -cpu host)
fi

timeout "${MODSIGN_QEMU_TIMEOUT:-240}" qemu-system-x86_64 "${accel[@]}" \
	-m "${MODSIGN_QEMU_MEM:-512}" -smp 1 -display none -no-reboot \
	-monitor none -serial stdio ${MODSIGN_QEMU_EXTRA:+$MODSIGN_QEMU_EXTRA} \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 loglevel=7 $*" </dev/null >"$log" 2>&1 || {
	rc=$?
	echo "qemu-run: QEMU exited with status $rc; log in $log" >&2
	exit "$rc"
}
if ! grep -q '^GUEST-END' "$log"; then
	echo "qemu-run: guest did not finish; log in $log" >&2
	exit 1
fi
