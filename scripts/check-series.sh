#!/bin/bash
# Build the kernel after each patch of the series, so that every patch
# builds on its own and the series can be bisected.
#
#   check-series.sh SRC CONFIG OUT [KEYDIR]
#
# SRC is the prepared tree (scripts/prepare-tree.sh: a git repository whose
# first commit is the pristine tarball and whose later commits are the
# patches).  It is cloned into OUT/src, which is moved from commit to
# commit, and built in one object tree, OUT/obj, from CONFIG each time
# (options a patch does not have yet are dropped by olddefconfig), so
# only what a patch changes is rebuilt.  KEYDIR holds the modsign.sec and
# modsign.pub the patches that build in or sign with a key are given
# (default: CONFIG's directory).  Prints one line per patch and ends with
# "N of M patches build"; exits non-zero if one does not.
set -euo pipefail

if [ "$#" -lt 3 ] || [ "$#" -gt 4 ]; then
	echo "usage: $0 SRC CONFIG OUT [KEYDIR]" >&2
	exit 2
fi
src=$(realpath "$1")
config=$(realpath "$2")
out=$3
keydir=$(realpath "${4:-$(dirname "$config")}")
jobs=${JOBS:-$(nproc)}

for f in "$keydir/modsign.sec" "$keydir/modsign.pub"; do
	[ -r "$f" ] || {
		echo "check-series: $f: not readable (build the kernel first)" >&2
		exit 1
	}
done

base=$(git -C "$src" rev-list --max-parents=0 HEAD)
mkdir -p "$out"
work=$out/src
obj=$out/obj
if [ ! -d "$work/.git" ]; then
	rm -rf "$work"
	git clone -q --no-checkout "$src" "$work"
fi
git -C "$work" fetch -q "$src" HEAD
mkdir -p "$obj"

mapfile -t commits < <(git -C "$work" rev-list --reverse "$base..FETCH_HEAD")
n=0
ok=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	subject=$(git -C "$work" log -1 --format=%s "$c")
	git -C "$work" checkout -q --detach "$c"
	log=$out/$(printf '%04d' "$n").log
	cp "$config" "$obj/.config"
	if make -C "$work" O="$obj" olddefconfig >"$log" 2>&1 &&
		make -C "$work" O="$obj" -j"$jobs" \
			MODSECKEY="$keydir/modsign.sec" MODPUBKEY="$keydir/modsign.pub" \
			bzImage modules >>"$log" 2>&1; then
		ok=$((ok + 1))
		echo "builds: $(printf '%04d' "$n") $subject"
	else
		echo "FAILS:  $(printf '%04d' "$n") $subject (log: $log)"
		grep -E 'error|Error' "$log" | sed -n 1,5p | sed 's/^/    /'
	fi
done
echo "$ok of $n patches build"
[ "$ok" -eq "$n" ]
