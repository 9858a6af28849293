#!/bin/bash
# Regenerate kbuild-patches/ from a development branch of the kernel tree:
# one `git format-patch` file per commit since BASE, and the series file
# listing them in order.  Used by maintainers; the build only reads the
# result.
set -euo pipefail

if [ "$#" -ne 3 ]; then
	echo "usage: $0 GIT-DIR BASE BRANCH" >&2
	exit 2
fi
gitdir=$1
base=$2
branch=$3
out=$(dirname "$(realpath "$0")")/../kbuild-patches

if git -C "$gitdir" log --format=%s "$base..$branch" | grep '^\(DROPME\|fixup!\|squash!\)' >/dev/null; then
	echo "export-patches: $branch still has DROPME/fixup!/squash! commits" >&2
	exit 1
fi
rm -f "$out"/*.patch
# A fixed abbreviation keeps the index lines stable whichever clone
# exports the series.
git -C "$gitdir" -c core.abbrev=9 format-patch -q --no-signature --zero-commit -o "$out" "$base..$branch"
(
	echo "# Applied in this order by scripts/prepare-tree.sh (git am)."
	cd "$out" && printf "%s\n" [0-9]*.patch
) >"$out/series"
echo "export-patches: $(grep -c '\.patch$' "$out/series") patches"
