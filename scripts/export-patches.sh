#!/bin/bash
# Regenerate kbuild-patches/KVER/ from a development branch of the kernel
# tree: one `git format-patch` file per commit since BASE, and the series
# file listing them in order.  Used by maintainers; the build only reads
# the result.
#
# A patch of another version that changes the code exactly as the 6.1
# patch of the same name does (the same diff, wherever its hunks land) is
# not kept twice: its series names ../6.1/NAME, so that the code has one
# source of truth.
set -euo pipefail

if [ "$#" -ne 4 ]; then
	echo "usage: $0 GIT-DIR BASE BRANCH KVER" >&2
	exit 2
fi
gitdir=$1
base=$2
branch=$3
kver=$4
top=$(dirname "$(realpath "$0")")/../kbuild-patches
out=$top/$kver
ref=$top/6.1

if git -C "$gitdir" log --format=%s "$base..$branch" | grep '^\(DROPME\|fixup!\|squash!\)' >/dev/null; then
	echo "export-patches: $branch still has DROPME/fixup!/squash! commits" >&2
	exit 1
fi
mkdir -p "$out"
rm -f "$out"/*.patch
# A fixed abbreviation keeps the index lines stable whichever clone
# exports the series.
git -C "$gitdir" -c core.abbrev=9 format-patch -q --no-signature --zero-commit -o "$out" "$base..$branch"

# The change itself: what the patch adds and removes, and the commit
# message, without the blob names, line numbers and hunk headers that differ between
# kernel versions.
patch_change() {
	sed -e '/^index [0-9a-f]*\.\.[0-9a-f]*/d' \
		-e 's/^@@ .*/@@/' "$1"
}

(
	echo "# Applied in this order by scripts/prepare-tree.sh (git am)."
	cd "$out"
	for p in [0-9]*.patch; do
		if [ "$kver" != 6.1 ] && [ -f "$ref/$p" ] &&
			cmp -s <(patch_change "$p") <(patch_change "$ref/$p"); then
			rm "$p"
			echo "../6.1/$p"
		else
			echo "$p"
		fi
	done
) >"$out/series"
shared=$(grep -c '^\.\./6\.1/' "$out/series" || :)
echo "export-patches: $(grep -c '\.patch$' "$out/series") patches for $kver, $shared of them shared with 6.1"
