#!/bin/bash
# The benchmark corpus: the modules of Debian's newest
# linux-image-6.1.*-amd64-unsigned package, without the PKCS#7 signatures
# Debian's build appended, made once and cached:
#
#   corpus.sh BENCHDIR TOOLDIR
#
# BENCHDIR/corpus/bodies/NAME.ko are the module bodies (module names are
# unique in the package), BENCHDIR/corpus/list names them in the order of
# their paths in the package, BENCHDIR/corpus/source says which package.
# The .deb comes from BENCHDIR/deb/, else from $BENCH_DEB_DIR (default
# /tmp/corpus) if the same file is there, else from "apt-get download".
# $BENCH_PKG overrides the package name.  TOOLDIR holds modbody.
set -euo pipefail
set -o errtrace
trap 'echo "corpus: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

if [ "$#" -ne 2 ]; then
	echo "usage: $0 BENCHDIR TOOLDIR" >&2
	exit 2
fi
bench=$1
tools=$2
corpus=$bench/corpus

pkg=${BENCH_PKG:-}
if [ -z "$pkg" ]; then
	pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' |
		awk '{print $1}' | sort -V | tail -n 1)
fi
if [ -z "$pkg" ]; then
	echo "corpus: no linux-image-6.1.*-amd64-unsigned known to apt (apt-get update?)" >&2
	exit 1
fi
ver=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	echo "corpus: apt has no candidate version of $pkg" >&2
	exit 1
fi

if [ -f "$corpus/source" ] && [ "$(cat "$corpus/source")" = "$pkg $ver" ] &&
	[ -s "$corpus/list" ]; then
	exit 0
fi

deb="${pkg}_${ver//:/%3a}_amd64.deb"
mkdir -p "$bench/deb"
if [ ! -s "$bench/deb/$deb" ]; then
	if [ -s "${BENCH_DEB_DIR:-/tmp/corpus}/$deb" ]; then
		cp "${BENCH_DEB_DIR:-/tmp/corpus}/$deb" "$bench/deb/$deb.tmp"
		mv "$bench/deb/$deb.tmp" "$bench/deb/$deb"
	else
		echo "corpus: apt-get download $pkg=$ver" >&2
		(cd "$bench/deb" && apt-get download "$pkg=$ver")
	fi
fi

echo "corpus: extracting the modules of $deb" >&2
rm -rf "$corpus"
tmp=$(mktemp -d "$bench/.corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$bench/deb/$deb" "$tmp/x"
mkdir -p "$tmp/corpus/bodies"
(cd "$tmp/x" && find . -name '*.ko' -type f | LC_ALL=C sort) >"$tmp/paths"
if [ ! -s "$tmp/paths" ]; then
	echo "corpus: $deb holds no uncompressed .ko" >&2
	exit 1
fi
dups=$(sed 's,.*/,,' "$tmp/paths" | sort | uniq -d | sed -n 1,3p)
if [ -n "$dups" ]; then
	echo "corpus: module names are not unique: $dups" >&2
	exit 1
fi
(cd "$tmp/x" && xargs -d '\n' "$tools/modbody" "$tmp/corpus/bodies") <"$tmp/paths"
sed 's,.*/,,' "$tmp/paths" >"$tmp/corpus/list"
echo "$pkg $ver" >"$tmp/corpus/source"
mv "$tmp/corpus" "$corpus"
echo "corpus: $(wc -l <"$corpus/list") modules, $(du -sh "$corpus/bodies" | cut -f1) of bodies" >&2
