#!/bin/bash
# Part 2, load-independent cross-check: instructions executed per module
# by the batch signer against the floor, counted by callgrind, RSA-4096,
# SHA-256, one job, on BENCH_INSN_SAMPLE (default 20) modules spread over
# the corpus.  Wall-clock ratios on a shared machine carry its load; an
# instruction count does not (it says nothing about waiting, which the
# wall-clock figures of sign.sh do).
#
#   floor   only inside sign_one() (--toggle-collect): the hash and RSA
#           loop, N + 1 calls (one is the untimed warm-up of sign.sh)
#   signer  the whole pgp-sign process: start-up, key loading, reading,
#           hashing, signing, writing, for N modules
#
# Results: results/insn.tsv, "METHOD N INSTRUCTIONS-PER-MODULE".
set -euo pipefail
set -o errtrace
trap 'echo "insn: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

: "${BENCH_DIR:?}" "${KOBJ:?}"
n=${BENCH_INSN_SAMPLE:-20}
res=$BENCH_DIR/results
corpus=$BENCH_DIR/corpus
w=$BENCH_DIR/work/insn
kd=$("$(dirname "$0")/keys.sh" "$BENCH_DIR/keys" 4096)

if ! command -v valgrind >/dev/null; then
	echo "insn: valgrind is not installed; skipped" >&2
	exit 0
fi
rm -rf "$w"
mkdir -p "$w/out" "$res"
cp "$KOBJ/scripts/modsign/pgp-sign" "$w/pgp-sign"
total=$(wc -l <"$corpus/list")
awk -v n="$n" -v t="$total" 'BEGIN { k = 0 }
	NR - 1 == int(k * t / n) { print; k++ }' "$corpus/list" >"$w/list"
while read -r m; do
	ln -s "$corpus/bodies/$m" "$w/out/$m.body"
	echo "$w/out/$m.body"
done <"$w/list" >"$w/files"
mapfile -t paths < <(sed "s,^,$corpus/bodies/," "$w/list")

# collected LOG: the instruction count callgrind reports
collected() {
	sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$1"
}

valgrind --tool=callgrind --callgrind-out-file="$w/floor.cg" --toggle-collect=sign_one \
	"$BENCH_DIR/bin/floor" -o "$w/floor.tsv" -l insn -k "$kd/key.pem" "${paths[@]}" \
	>/dev/null 2>"$w/floor.log"
valgrind --tool=callgrind --callgrind-out-file="$w/signer.cg" \
	"$w/pgp-sign" --secret-key "$kd/sec" --hash sha256 --suffix .body \
	--files-from "$w/files" >/dev/null 2>"$w/signer.log"
f=$(collected "$w/floor.log")
s=$(collected "$w/signer.log")
if [ -z "$f" ] || [ -z "$s" ]; then
	echo "insn: no instruction counts from callgrind (logs in $w)" >&2
	exit 1
fi
{
	awk -v c="$f" -v n="$n" 'BEGIN { printf "floor %d %.0f\n", n, c / (n + 1) }'
	awk -v c="$s" -v n="$n" 'BEGIN { printf "signer %d %.0f\n", n, c / n }'
} >"$res/insn.tsv"
echo "insn: per module, floor $(awk '$1 == "floor" { print $3 }' "$res/insn.tsv"), signer $(awk '$1 == "signer" { print $3 }' "$res/insn.tsv") instructions"
rm -rf "$w"
