#!/bin/bash
# Make (once) a Debian bookworm minbase root for the package tests: by
# default with kmod, rpm and linux-base, packed as a gzipped newc
# initramfs, the guest root they boot; OUT.tar makes a tarball instead
# (a root to chroot into), and EXTRA adds packages.  It is cached as OUT
# and rebuilt only when missing or when the package list changed, because
# mmdebstrap needs the network and half a minute or more; the per-boot
# payload is appended as a second archive.
set -euo pipefail

if [ "$#" -lt 1 ] || [ "$#" -gt 2 ]; then
	echo "usage: $0 OUT.cpio.gz|OUT.tar [EXTRA,PACKAGES]" >&2
	exit 2
fi
out=$1
# What the root holds: a change here makes a new one.  linux-base:
# linux-update-symlinks, which the kernel deb's scripts run.
include=kmod,rpm,linux-base${2:+,$2}
mkdir -p "$(dirname "$out")"
# Package tests run side by side and may ask for the same root at once:
# one makes it, the others wait for it.
exec 9>"$out.lock"
flock 9
[ -s "$out" ] && [ "$(cat "$out.include" 2>/dev/null)" = "$include" ] && exit 0

if ! command -v mmdebstrap >/dev/null; then
	echo "guest-root: mmdebstrap missing (scripts/install-deps.sh test installs it)" >&2
	exit 1
fi
root=$(mktemp -d "$out.root.XXXXXX")
trap 'rm -rf "$root"' EXIT

# The tarball form lets mmdebstrap work without extra privileges; the
# documentation and locales are dropped because only dpkg, rpm and kmod
# (and, with EXTRA, what the test names) run.  mmdebstrap installs no
# Recommends (dkms's would bring Debian's own kernel headers).
mmdebstrap --quiet --variant=minbase --include="$include" \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	bookworm "$root/root.tar"
if [[ "$out" = *.tar ]]; then
	mv "$root/root.tar" "$out"
	echo "$include" >"$out.include"
	exit 0
fi
mkdir "$root/tree"
tar -xf "$root/root.tar" -C "$root/tree"
(cd "$root/tree" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -1 >"$root/out.cpio.gz"
mv "$root/out.cpio.gz" "$out"
echo "$include" >"$out.include"
