#!/bin/sh
# Load each module of /cases.list in turn and report, per case, what
# finit_module answered, the taint mask right after, and the kernel log
# lines the attempt produced.  A module that loaded is removed again so
# the next variant of it can load.
#
# /cases.list lines: CASE-NAME FILE MODULE-NAME
mode=$1
dmesg -c >/dev/null
while read -r name file modname; do
	case "$name" in '' | '#'*) continue ;; esac
	# A compressed file is the kernel's to decompress.
	case "$file" in
	*.xz | *.zst | *.gz) result=$(/loader -c "/modules/$file" 2>&1) ;;
	*) result=$(/loader "/modules/$file" 2>&1) ;;
	esac
	tainted=$(cat /proc/sys/kernel/tainted)
	echo "CASE $name $mode $result $tainted"
	dmesg -c | sed "s/^/KLOG $name: /"
	if [ "$result" = OK ]; then
		rmmod "$modname" || echo "CASE-ERROR $name: rmmod $modname failed"
	fi
done </cases.list
