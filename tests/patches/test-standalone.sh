#!/bin/bash
# The series stands alone on a plain linux-source tree: the prepared
# source tree (scripts/prepare-tree.sh) is the pristine tarball plus one
# git am commit per patch of kbuild-patches/KVER/series, in order, and nothing
# else.  No file is copied in beside the patches (the ephemeral key
# template comes in its own patch), and the builds and tests, all in
# object trees of their own (O=), write nothing into it.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
: "${KSRC:?KSRC must point at the patched source tree}"

patches=${MODSIGN_PATCHES:-$here/../../kbuild-patches/$(kernel_series "$KSRC")}
base=$(git -C "$KSRC" rev-list --max-parents=0 HEAD)

# The subject of each patch file, unfolded as git am reads it
mapfile -t want < <(series_patches "$patches" |
	while read -r p; do
		git mailinfo /dev/null /dev/null <"$p" | sed -n 's/^Subject: //p'
	done)
mapfile -t have < <(git -C "$KSRC" log --reverse --format=%s "$base..HEAD")
check "standalone: one commit per patch of the series" "${#want[@]}" "${#have[@]}"
check "standalone: the commits are the series, in order" \
	"$(printf '%s\n' "${want[@]}")" "$(printf '%s\n' "${have[@]}")"

# Ignored files count too (the tarball's .gitignore hides most of the
# tree's top level), but for checkpatch's own cache of the tree's
# identifiers, which test-checkpatch.sh leaves there.
changed=$(git -C "$KSRC" status --porcelain --ignored --untracked-files=all |
	awk '!/^!! \.checkpatch-camelcase\.git\.[0-9a-f]+$/' | sed -n 1,5p)
check "standalone: the source tree holds the series and nothing else" "" "$changed"
check "standalone: the ephemeral key template comes with the series" \
	"certs/modsign.genkey" "$(git -C "$KSRC" log --format= --name-only --diff-filter=A \
		"$base..HEAD" -- certs/modsign.genkey)"
finish
