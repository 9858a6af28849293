#!/bin/bash
# Extract a linux-source tarball (linux-source-6.1 or -6.12) into DEST as a
# git repository whose first commit is the pristine tarball, then apply the
# patch series with `git am` so that each patch is a commit and a broken
# patch stops here, naming itself.
#
# The tree is rebuilt from scratch whenever the series changes: a stamp in
# DEST's git directory (so that the tree itself holds nothing but the
# kernel and the series) records the checksum of the series it was made
# from.
set -euo pipefail

if [ "$#" -ne 3 ]; then
	echo "usage: $0 TARBALL PATCHDIR DEST" >&2
	exit 2
fi
tarball=$1
patchdir=$(realpath "$2")
dest=$3

if [ ! -r "$tarball" ]; then
	echo "prepare-tree: $tarball: not readable (is its linux-source package installed? make deps)" >&2
	exit 1
fi

series_sum() {
	(
		cd "$patchdir"
		cat series
		awk '!/^[[:space:]]*(#|$)/' series | xargs -r cat
	) | sha256sum | cut -d' ' -f1
}

want=$(series_sum)
stamp=.git/modsign-series
if [ -f "$dest/$stamp" ] && [ "$(cat "$dest/$stamp")" = "$want" ]; then
	exit 0
fi

tmp="$dest.tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
echo "  EXTRACT $tarball"
tar -xJf "$tarball" -C "$tmp" --strip-components=1

git_q=(git -C "$tmp" -c user.name=modsign -c user.email=modsign@localhost
	-c commit.gpgsign=false)
"${git_q[@]}" init -q
"${git_q[@]}" add -A -f
"${git_q[@]}" commit -q -m "$(basename "$tarball")"

awk '!/^[[:space:]]*(#|$)/' "$patchdir/series" | while read -r patch; do
	echo "  PATCH   $patch"
	if ! "${git_q[@]}" am -q --whitespace=nowarn "$patchdir/$patch"; then
		echo "prepare-tree: $patchdir/$patch does not apply" >&2
		exit 1
	fi
done

rm -rf "$dest"
mv "$tmp" "$dest"
echo "$want" >"$dest/$stamp"
