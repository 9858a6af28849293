#!/bin/sh
# shellcheck shell=dash
# /cases.sh of the hostile-module guest (it replaces tests/guest/cases.sh
# in the initramfs): load every mutant in one process, then look for
# splats in the whole kernel log (the console is kept at loglevel 3 so
# that a thousand rejection notices do not crawl over the serial line
# under TCG; log_buf_len makes room for all of them), then load the valid
# module once more.
#
# If a load kills the loader (an oops in finit_module), the mutant that
# did it is reported as "M <id> DIED <taint>" and the loader goes on with
# the next one, so that one run shows every mutant that brings the kernel
# down, not only the first.  A load that hangs (after an oops that left a
# module of the same name half-loaded: every later load waits for it) is
# "M <id> HUNG <taint>"; after two in a row the rest cannot load, and the
# guest stops there.
mode=$1
dmesg -c >/dev/null
echo "HOSTILE-START mode=$mode tainted=$(cat /proc/sys/kernel/tainted)"
list=/mutants.list
deaths=0
hung=0
while :; do
	rm -f /tmp/progress
	rc=0
	/massload "$list" crc7 /tmp/progress || rc=$?
	[ "$rc" -eq 0 ] && break
	last=$(cat /tmp/progress 2>/dev/null)
	deaths=$((deaths + 1))
	# 142: SIGALRM, the load did not return
	if [ "$rc" -eq 142 ]; then
		echo "M $last HUNG $(cat /proc/sys/kernel/tainted)"
		hung=$((hung + 1))
	else
		echo "M $last DIED $(cat /proc/sys/kernel/tainted)"
		hung=0
	fi
	if [ -z "$last" ] || [ "$deaths" -ge 100 ] || [ "$hung" -ge 2 ]; then
		echo "MASSLOAD-GAVE-UP after $deaths deaths"
		break
	fi
	awk -v id="$last" 'go; $1 == id { go = 1 }' "$list" >"/tmp/rest.$deaths"
	list=/tmp/rest.$deaths
done
echo "MASSLOAD-DEATHS $deaths"
dmesg >/tmp/klog
echo "KLOG-LINES $(wc -l </tmp/klog)"
grep -E 'Oops|BUG:|WARNING:|Call Trace|general protection|page fault|Kernel panic|KASAN|UBSAN|refcount_t|list_add corruption' /tmp/klog |
	head -n 40 | sed 's/^/SPLAT /'
if [ "$hung" -ge 2 ]; then
	echo "VALID-AFTER HUNG $(cat /proc/sys/kernel/tainted)"
else
	echo "VALID-AFTER $(/loader /modules/valid.ko 2>&1) $(cat /proc/sys/kernel/tainted)"
fi
echo "HOSTILE-END tainted=$(cat /proc/sys/kernel/tainted)"
