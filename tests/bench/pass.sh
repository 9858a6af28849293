#!/bin/bash
# Part 2, cross-check as kbuild signs: the whole sample in one pgp-sign run
# into a fresh directory (nothing deleted before or during it), against
# the floor over the same modules in one loop, RSA-4096, SHA-256, one
# job, BENCH_PASS_RUNS (default 2) times each, alternating.  The chunked
# runs of sign.sh delete and re-create thousands of files a minute, which
# on a file system without a journal (ext4 then skips recently deleted
# inodes when it allocates one) makes creating files dearer than a build
# finds it; this pass shows the signer as a build runs it.
#
# Results: results/pass.tsv, lines as bin/btime writes them.
set -euo pipefail
set -o errtrace
trap 'echo "pass: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

: "${BENCH_DIR:?}" "${KOBJ:?}"
runs=${BENCH_PASS_RUNS:-2}
res=$BENCH_DIR/results
corpus=$BENCH_DIR/corpus
w=$BENCH_DIR/work/pass
out=$res/pass.tsv
kd=$("$(dirname "$0")/keys.sh" "$BENCH_DIR/keys" 4096)

rm -rf "$w"
mkdir -p "$w" "$res"
: >"$out"
cp "$KOBJ/scripts/modsign/pgp-sign" "$w/pgp-sign"
total=$(wc -l <"$corpus/list")
sample=${BENCH_SAMPLE:-$total}
if [ "$sample" -gt "$total" ] || [ "$sample" -lt 1 ]; then
	sample=$total
fi
awk -v n="$sample" -v t="$total" 'BEGIN { k = 0 }
	NR - 1 == int(k * t / n) { print; k++ }' "$corpus/list" >"$w/list"
mapfile -t paths < <(sed "s,^,$corpus/bodies/," "$w/list")
(cd "$corpus/bodies" && xargs -d '\n' cat) <"$w/list" >/dev/null

for ((r = 1; r <= runs; r++)); do
	d=$w/out-$r
	mkdir -p "$d"
	while read -r m; do
		ln -s "$corpus/bodies/$m" "$d/$m.stripped"
		echo "$d/$m.stripped"
	done <"$w/list" >"$w/files-$r"
	"$BENCH_DIR/bin/floor" -o "$out" -l floor -k "$kd/key.pem" "${paths[@]}" >/dev/null
	"$BENCH_DIR/bin/btime" -o "$out" -l signer -n "$sample" -- "$w/pgp-sign" \
		--secret-key "$kd/sec" --hash sha256 --suffix .stripped \
		--files-from "$w/files-$r"
	echo "pass: run $r: $(tail -n 2 "$out" | awk '{ printf "%s %.2f ms/module wall, %.2f CPU; ", $1, 1000 * $3 / $2, 1000 * ($4 + $5) / $2 }')load $(cut -d' ' -f1 /proc/loadavg)"
done
rm -rf "$w"
