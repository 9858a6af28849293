#!/bin/sh
# shellcheck shell=dash
# /cases.sh of the hostile-module guest (it replaces tests/guest/cases.sh
# in the initramfs): load every mutant in one process, then look for
# splats in the whole kernel log (the console is kept at loglevel 3 so
# that a thousand rejection notices do not crawl over the serial line
# under TCG; log_buf_len makes room for all of them), then load the valid
# module once more.
mode=$1
dmesg -c >/dev/null
echo "HOSTILE-START mode=$mode tainted=$(cat /proc/sys/kernel/tainted)"
/massload /mutants.list crc7
dmesg >/tmp/klog
echo "KLOG-LINES $(wc -l </tmp/klog)"
grep -E 'Oops|BUG:|WARNING:|Call Trace|general protection|Kernel panic|KASAN|UBSAN|refcount_t|list_add corruption' /tmp/klog |
	head -n 20 | sed 's/^/SPLAT /'
echo "VALID-AFTER $(/loader /modules/valid.ko 2>&1) $(cat /proc/sys/kernel/tainted)"
echo "HOSTILE-END tainted=$(cat /proc/sys/kernel/tainted)"
