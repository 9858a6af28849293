#!/bin/bash
# The benchmark (issue 6), run by "make bench":
#
#   1. corpus.sh  Debian's linux-image-6.1.*-amd64-unsigned modules, bodies
#   2. sign.sh    signing speed: pgp-sign, sign-file, gpg, the floors
#      insn.sh    instructions per module, pgp-sign against the floor
#      pass.sh    pgp-sign over all modules in one run, as kbuild runs it
#   3. build.sh   what signing adds to make modules
#   4. guest.sh   load time in QEMU, OpenPGP against PKCS#7
#   5. report.sh  results/table.md, results/chart.png; the last line is
#                 "signer/floor=X.XX gpg/signer=Y.YY sign-file/signer=Z.ZZ"
#
# Environment: BUILD, KSRC, KOBJ, JOBS (from the Makefile), BENCH_DIR
# (default $BUILD/bench), BENCH_SAMPLE (sign only that many modules),
# BENCH_PARTS (default "sign insn pass build guest"; a run of some parts keeps
# the results of the others), BENCH_RESUME=1 (go on with a signing run that
# was cut short, keeping the chunks it finished), and the knobs of each part.
# Everything printed also goes to results/run.log.
set -euo pipefail
set -o errtrace
trap 'echo "run: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

here=$(dirname "$(realpath "$0")")
: "${BUILD:?}" "${KSRC:?}" "${KOBJ:?}"
export BUILD KSRC KOBJ
export JOBS=${JOBS:-$(nproc)}
export BENCH_DIR=${BENCH_DIR:-$BUILD/bench}
read -r -a parts <<<"${BENCH_PARTS:-sign insn pass build guest}"
res=$BENCH_DIR/results

main() {
	local p
	"$here/corpus.sh" "$BENCH_DIR" "$BENCH_DIR/bin"
	# env.txt describes the run that made the signing results; a run of
	# other parts only adds a line to it
	if [ "${BENCH_RESUME:-0}" = 1 ] && [ -s "$res/env.txt" ]; then
		echo "resumed:  $(date -u +%Y-%m-%dT%H:%M:%SZ), parts ${parts[*]}, load $(cut -d' ' -f1-3 /proc/loadavg) (BENCH_RESUME=1: the signing chunks done before are kept)" >>"$res/env.txt"
	elif [[ " ${parts[*]} " == *" sign "* ]] || [ ! -s "$res/env.txt" ]; then
		{
			echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
			echo "machine:  $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sed -n 1p), $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), shared"
			echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start"
			echo "software: $(openssl version | cut -d' ' -f1-2), $(gpg --version | sed -n 1p), libgcrypt $(gpg --version | sed -n 's/^libgcrypt //p'), $(uname -sr) host"
			echo "corpus:   $(cat "$BENCH_DIR/corpus/source"), $(wc -l <"$BENCH_DIR/corpus/list") modules; sample ${BENCH_SAMPLE:-all}"
			echo "parts:    ${parts[*]}; BENCH_CHUNK=${BENCH_CHUNK:-200} BENCH_BUILD_RUNS=${BENCH_BUILD_RUNS:-3} BENCH_ROUNDS=${BENCH_ROUNDS:-120} JOBS=$JOBS"
		} >"$res/env.txt"
	else
		echo "later:    parts ${parts[*]} run $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$res/env.txt"
	fi
	cat "$res/env.txt"
	for p in "${parts[@]}"; do
		case $p in
		sign)
			if [ "${BENCH_RESUME:-0}" != 1 ]; then
				rm -f "$res/sign.tsv" "$res/sizes.tsv"
			fi
			rm -f "$res/agg.txt"
			;;
		insn) rm -f "$res/insn.tsv" ;;
		pass) rm -f "$res/pass.tsv" ;;
		build) rm -f "$res/build.tsv" ;;
		guest) rm -f "$res/guest.tsv" ;;
		*)
			echo "bench: unknown part '$p' (sign, insn, pass, build, guest)" >&2
			return 2
			;;
		esac
	done
	for p in "${parts[@]}"; do
		"$here/$p.sh"
	done
	echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the end" >>"$res/env.txt"
	"$here/report.sh"
}

mkdir -p "$res"
if [ "${BENCH_RESUME:-0}" = 1 ]; then
	main 2>&1 | tee -a "$res/run.log"
else
	main 2>&1 | tee "$res/run.log"
fi
