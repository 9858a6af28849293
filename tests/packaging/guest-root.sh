#!/bin/bash
# Make (once) the Debian guest root the package tests boot: bookworm minbase
# with kmod, rpm and linux-base, packed as a gzipped newc initramfs.  It is cached as
# OUT and rebuilt only when missing, because mmdebstrap needs the network
# and half a minute; the per-boot payload is appended as a second archive.
set -euo pipefail

if [ "$#" -ne 1 ]; then
	echo "usage: $0 OUT.cpio.gz" >&2
	exit 2
fi
out=$1
# What the root holds: a change here makes a new one.  linux-base:
# linux-update-symlinks, which the kernel deb's scripts run.
include=kmod,rpm,linux-base
[ -s "$out" ] && [ "$(cat "$out.include" 2>/dev/null)" = "$include" ] && exit 0

if ! command -v mmdebstrap >/dev/null; then
	echo "guest-root: mmdebstrap missing (scripts/install-deps.sh test installs it)" >&2
	exit 1
fi
mkdir -p "$(dirname "$out")"
root=$(mktemp -d "$out.root.XXXXXX")
trap 'rm -rf "$root"' EXIT

# The tarball form lets mmdebstrap work without extra privileges; the
# documentation and locales are dropped because only dpkg, rpm and kmod run.
mmdebstrap --quiet --variant=minbase --include="$include" \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	bookworm "$root/root.tar"
mkdir "$root/tree"
tar -xf "$root/root.tar" -C "$root/tree"
(cd "$root/tree" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "$include" >"$out.include"
