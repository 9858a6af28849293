#!/bin/bash
# Pack a gzipped newc initramfs: static busybox, the static module loader,
# the /init and /cases.sh scripts, and every file under PAYLOAD-DIR
# (modules/, cases.list, ...) copied to the root.
set -euo pipefail

if [ "$#" -ne 3 ]; then
	echo "usage: $0 OUT.cpio.gz LOADER PAYLOAD-DIR" >&2
	exit 2
fi
out=$1
loader=$2
payload=$3
here=$(dirname "$(realpath "$0")")
busybox=/bin/busybox

if ! file -L "$busybox" | grep 'statically linked' >/dev/null; then
	echo "mkinitramfs: $busybox is not static (install busybox-static)" >&2
	exit 1
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp,modules}
cp "$busybox" "$root/bin/busybox"
cp "$loader" "$root/loader"
cp "$here/init.sh" "$root/init"
cp "$here/cases.sh" "$root/cases.sh"
chmod 0755 "$root/init" "$root/cases.sh" "$root/loader"
cp -a "$payload"/. "$root"/

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
