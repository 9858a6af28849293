#!/bin/sh
# shellcheck shell=dash
# /init of the package test guest (a Debian bookworm root): install the
# package in /pkg with dpkg or rpm, then, on the kernel booted from that
# package with module.sig_enforce=1, load a copy of one module with one
# byte changed, and modprobe every module the package holds.  Only facts
# go to the report line (ttyS1, apart from the kernel's console: see
# tests/guest/qemu-run.sh), as "R key value" lines between GUEST-START and
# GUEST-END; the host judges them.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec >/dev/ttyS1 2>&1
mkdir -p /tmp /run
mount -t tmpfs tmpfs /run

echo "GUEST-START"
echo "R kernel $(uname -r)"
echo "R sig_enforce $(cat /sys/module/module/parameters/sig_enforce)"
kind=$(cat /pkg/kind)
# A hook in each of the kernel's hook directories records its call: the
# deb's maintainer scripts run them as run-parts does for every Debian
# kernel (initramfs-tools and the bootloaders hook in there).
for d in preinst postinst prerm postrm; do
	mkdir -p "/etc/kernel/$d.d"
	printf '#!/bin/sh\necho "%s.d $*" >>/tmp/hooks.log\n' "$d" >"/etc/kernel/$d.d/zz-record"
	chmod 0755 "/etc/kernel/$d.d/zz-record"
done
case "$kind" in
deb) dpkg -i /pkg/*.deb >/tmp/install.log 2>&1 ;;
# --force-debian: Debian's rpm refuses to install into a dpkg system
# without it; --nodeps: its rpm database knows no package, not even the
# /bin/sh the scriptlets run with.
rpm) rpm -i --force-debian --nodeps /pkg/*.rpm >/tmp/install.log 2>&1 ;;
esac
echo "R install $?"
sed 's/^/INSTALL-LOG /' /tmp/install.log
moddir=/lib/modules/$(uname -r)
sed 's/^/R hook /' /tmp/hooks.log 2>/dev/null
echo "R depmod-at-install $(cut -d: -f1 "$moddir/modules.dep" 2>/dev/null | wc -l)"
echo "R symlink $(readlink /vmlinuz)"

# The changed copy first, while nothing is loaded: the signature check
# comes before any other check of the module.
first=$(head -n 1 /pkg/modules.list)
cp "$moddir/$first" /tmp/changed.ko
size=$(stat -c %s /tmp/changed.ko)
off=$((size / 2))
byte=$(od -An -tu1 -j "$off" -N 1 /tmp/changed.ko | tr -d ' ')
oct=$(printf '%03o' $(((byte + 1) % 256)))
printf '%b' "\\0$oct" | dd of=/tmp/changed.ko bs=1 seek="$off" conv=notrunc status=none
cmp -s "$moddir/$first" /tmp/changed.ko && echo "R changed-copy identical"
msg=$(insmod /tmp/changed.ko 2>&1)
echo "R changed $? $msg"

while read -r rel; do
	name=$(basename "$rel" .ko)
	if [ ! -f "$moddir/$rel" ]; then
		echo "R missing $rel"
		continue
	fi
	out=$(modprobe "$name" 2>&1)
	echo "R modprobe $name $? $out"
	echo "R signer $name $(modinfo -F signer "$moddir/$rel")"
	echo "R sig_key $name $(modinfo -F sig_key "$moddir/$rel")"
done </pkg/modules.list
cut -d' ' -f1 /proc/modules | sed 's/^/R loaded /'
echo "R tainted $(cat /proc/sys/kernel/tainted)"
sed 's/^/R key /' /proc/keys

# Removal: the hooks again, and nothing of the kernel release left behind
# (depmod's output is not the package's file, its scripts delete it).
: >/tmp/hooks.log
case "$kind" in
deb) dpkg -r "$(dpkg-deb -f /pkg/*.deb Package)" >/tmp/remove.log 2>&1 ;;
rpm) rpm -e --nodeps "$(rpm -qp /pkg/*.rpm)" >/tmp/remove.log 2>&1 ;;
esac
echo "R remove $?"
sed 's/^/REMOVE-LOG /' /tmp/remove.log
sed 's/^/R rmhook /' /tmp/hooks.log
echo "R left $(find "$moddir" 2>/dev/null | wc -l) $(readlink /vmlinuz)"
echo "GUEST-END"
# No init system here: busybox's reboot -f, which -no-reboot turns into
# QEMU exiting.
/pkg/busybox reboot -f
