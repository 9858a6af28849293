#!/bin/bash
# Part 3 of the benchmark: what build-time signing adds to "make modules".
#
# Two object trees from the same patched source ($KSRC) and the main
# build's .config ($KOBJ/.config): "pgp" as it is (CONFIG_MODULE_SIG_PGP=y:
# make modules builds scripts/modsign/pgp-sign and pgp-verify, strips every
# module and signs them all in one pgp-sign run) and "nopgp" with only
# CONFIG_MODULE_SIG_PGP=n (everything else the same; such a build signs
# nothing during make modules, sign-file signs at modules_install).
# Both are given the main build's OpenPGP key (MODSECKEY, MODPUBKEY), so no
# key is generated.  Two measurements, each BENCH_BUILD_RUNS times, the
# kinds alternating (nopgp first in odd runs, pgp first in even ones):
#
#   clean    make -jJOBS modules in a fresh object tree holding only the
#            .config: prepare, host tools, every module compiled, modpost,
#            final link (and for pgp strip + sign).  No vmlinux is built,
#            so modpost warns about unresolved symbols, alike in both.
#   rebuild  then every module's objects (FOO.mod lists them), FOO.mod.[co]
#            and FOO.ko* removed and make -jJOBS modules again: the
#            modules rebuilt from source with the tools already built.
#
# Then, in the pgp tree, scripts/modsign/ is removed and "make scripts"
# timed: what building pgp-sign and pgp-verify costs (part of the clean
# pgp time).  Times go to results/build.tsv as bin/btime writes them:
# "KIND-TREE RUN WALL USER SYS 0" (CPU: make and everything it ran).
set -euo pipefail
set -o errtrace
trap 'echo "build: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

: "${BENCH_DIR:?}" "${KOBJ:?}" "${KSRC:?}"
jobs=${JOBS:-$(nproc)}
runs=${BENCH_BUILD_RUNS:-3}
res=$BENCH_DIR/results
root=$BENCH_DIR/build
out=$res/build.tsv
mkdir -p "$res" "$root"

if [ ! -s "$KOBJ/.config" ] || [ ! -s "$KOBJ/modsign.sec" ]; then
	echo "build: $KOBJ has no .config or modsign.sec: build the kernel first (make)" >&2
	exit 1
fi

# The two configurations, made once per run of the benchmark.
for t in pgp nopgp; do
	mkdir -p "$root/config-$t"
	cp "$KOBJ/.config" "$root/config-$t/.config"
	if [ "$t" = nopgp ]; then
		"$KSRC/scripts/config" --file "$root/config-$t/.config" --disable MODULE_SIG_PGP
	fi
	make -s -C "$KSRC" O="$root/config-$t" olddefconfig >/dev/null
done
if grep -q '^CONFIG_MODULE_SIG_PGP=y' "$root/config-nopgp/.config" ||
	! grep -q '^CONFIG_MODULE_SIG_PGP=y' "$root/config-pgp/.config"; then
	echo "build: cannot make the two configurations" >&2
	exit 1
fi
# diff exits 1 when the configurations differ, which they may; 2 is an error.
rc=0
diff <(grep -v MODULE_SIG_PGP "$root/config-pgp/.config") \
	<(grep -v MODULE_SIG_PGP "$root/config-nopgp/.config") >"$root/config.diff" || rc=$?
if [ "$rc" -gt 1 ]; then
	echo "build: cannot compare the two configurations (diff status $rc)" >&2
	exit 1
fi

# timed LABEL RUN DIR [MAKE-TARGET]: one timed make, wall and CPU time
timed() {
	"$BENCH_DIR/bin/btime" -o "$out" -l "$1" -n "$2" -- \
		make -s -C "$KSRC" O="$3" -j"$jobs" MODSECKEY="$KOBJ/modsign.sec" \
		MODPUBKEY="$KOBJ/modsign.pub" "${4:-modules}" >"$3.log" 2>&1 || {
		echo "build: make ${4:-modules} in $3 failed:" >&2
		tail -n 20 "$3.log" >&2
		exit 1
	}
	echo "build: $1 run $2: $(tail -n 1 "$out" | awk '{ printf "%.1fs wall, %.1fs CPU", $3, $4 + $5 }'), load $(cut -d' ' -f1 /proc/loadavg)"
}

# forget_modules DIR: remove what make modules built for each module
forget_modules() {
	local ko base
	while read -r ko; do
		base=$1/${ko%.ko}
		if [ -f "$base.mod" ]; then
			(cd "$1" && xargs rm -f) <"$base.mod"
		fi
		rm -f "$base.mod" "$base.mod.c" "$base.mod.o" "$base.o" "$base.ko" \
			"$base.ko.unsigned" "$base.ko.stripped"
	done <"$1/modules.order"
}

{
	echo "# make -j$jobs modules, $(nproc) CPUs, $runs runs of each; trees differ only in CONFIG_MODULE_SIG_PGP ($(wc -l <"$root/config.diff") other .config lines differ)"
} >"$out"
for ((r = 1; r <= runs; r++)); do
	if [ $((r % 2)) -eq 1 ]; then order=(nopgp pgp); else order=(pgp nopgp); fi
	for t in "${order[@]}"; do
		rm -rf "${root:?}/$t"
		mkdir -p "$root/$t"
		cp "$root/config-$t/.config" "$root/$t/.config"
		timed "clean-$t" "$r" "$root/$t"
	done
	for ((i = ${#order[@]} - 1; i >= 0; i--)); do
		t=${order[$i]}
		forget_modules "$root/$t"
		timed "rebuild-$t" "$r" "$root/$t"
	done
	# of the clean pgp build: building the host tools pgp-sign, pgp-verify
	rm -rf "$root/pgp/scripts/modsign"
	timed tools-pgp "$r" "$root/pgp" scripts
done

# What the pgp tree's make modules made, for the record.
{
	echo "# modules: $(wc -l <"$root/pgp/modules.order") ($(sed 's,.*/,,; s,\.ko$,,' "$root/pgp/modules.order" | tr '\n' ' '))"
	n_signed=$(while read -r ko; do
		tail -c 28 "$root/pgp/$ko" | awk '/Module signature appended/ { n++ } END { print n + 0 }'
	done <"$root/pgp/modules.order" | awk '{ s += $1 } END { print s }')
	n_nosig=$(while read -r ko; do
		tail -c 28 "$root/nopgp/$ko" | awk '/Module signature appended/ { n++ } END { print n + 0 }'
	done <"$root/nopgp/modules.order" | awk '{ s += $1 } END { print s }')
	echo "# signed after make modules: pgp tree $n_signed, nopgp tree $n_nosig"
} >>"$out"
if [ "$n_signed" -ne "$(wc -l <"$root/pgp/modules.order")" ] || [ "$n_nosig" -ne 0 ]; then
	echo "build: the pgp tree did not sign every module, or the nopgp tree signed some" >&2
	exit 1
fi
rm -rf "$root/pgp" "$root/nopgp" "$root"/*.log "$root/try"
