#!/bin/bash
# Turn the results of one benchmark run into results/table.md and
# results/chart.png, print the table and the targets, and end with the
# machine-readable line
#   signer/floor=X.XX gpg/signer=Y.YY sign-file/signer=Z.ZZ detached/signer=W.WW
# (RSA-4096, one job, wall-clock time per module).
set -euo pipefail
set -o errtrace
trap 'echo "report: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

: "${BENCH_DIR:?}"
res=$BENCH_DIR/results
table=$res/table.md
sign=$res/sign.tsv
sizes=$res/sizes.tsv
build=$res/build.tsv
guest=$res/guest.tsv

# agg: "SIZE JOBS METHOD N WALL_MS CPU_MS BYTES" per configuration, the
# times per module summed over all chunks (CPU = user + sys + agent)
agg() {
	awk 'NR == FNR { split($1, k, ":"); bn[$1] += $2; b[$1] += $3; next }
		{ split($1, k, ":"); n[$1] += $2; w[$1] += $3; c[$1] += $4 + $5 + $6
		  if (!($1 in seen)) { seen[$1] = 1; order[++no] = $1 } }
		END {
			for (i = 1; i <= no; i++) {
				l = order[i]; split(l, k, ":")
				printf "%s %s %s %d %.4f %.4f %s\n", k[1], substr(k[2], 2), k[3],
					n[l], 1000 * w[l] / n[l], 1000 * c[l] / n[l],
					(l in bn) ? sprintf("%.0f", b[l] / bn[l]) : "-"
			}
		}' "$sizes" "$sign" | sort -k1,1n -k2,2n -s
}

# val SIZE JOBS METHOD FIELD(5 wall, 6 cpu) from the aggregate
val() {
	awk -v s="$1" -v j="$2" -v m="$3" -v f="$4" \
		'$1 == s && $2 == j && $3 == m { print $f }' "$res/agg.txt"
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2f", a / b }'
}

name() {
	case $1 in
	floor) echo "floor: SHA-256 + EVP_PKEY_sign loop (OpenSSL)" ;;
	wfloor) echo "floor + writing each signed file (create, write, close)" ;;
	signer) echo "**pgp-sign** (batch, key file, libcrypto)" ;;
	sign-file) echo "scripts/sign-file once per module (PKCS#7)" ;;
	gpg) echo "gpg --detach-sign once per module + framing" ;;
	gfloor) echo "floor: SHA-256 + gcry_pk_sign loop (libgcrypt)" ;;
	agent) echo "pgp-sign through gpg-agent (batch)" ;;
	detached) echo "manifest, pgp-sign --sign-manifest, pgp-attach (round trip)" ;;
	*) echo "$1" ;;
	esac
}

{
	echo "# modsign benchmark"
	echo
	if [ -f "$res/env.txt" ]; then
		sed 's/^/    /' "$res/env.txt"
		echo
	fi
} >"$table"

# verdict OP LIMIT VALUE...: met when every value given meets it
verdict() {
	local op=$1 limit=$2
	shift 2
	awk -v op="$op" -v l="$limit" -v vs="$*" 'BEGIN {
		n = split(vs, v, " ")
		if (n == 0) { print "not measured"; exit }
		for (i = 1; i <= n; i++) {
			if (v[i] == "n/a") { print "not measured"; exit }
			if (!((op == "<=") ? (v[i] <= l) : (v[i] >= l))) { print "**MISSED**"; exit }
		}
		print "met" }'
}

# targets: rows of the summary table, added by each section; whys: for a
# missed target, what this run's own cross-checks say about the gap
targets=()
whys=()
last_line=""
if [ -s "$sign" ]; then
	agg >"$res/agg.txt"
	{
		echo "## Signing (part 2): SHA-256, every method on the same modules, interleaved in chunks"
		echo
		echo "Wall: wall-clock time of the whole run divided by the modules signed (with 2 jobs, throughput)."
		echo "CPU: user + system time of the process(es) and of gpg-agent.  Floors: the loop only, modules in memory."
		echo
		echo "| RSA | jobs | method | wall ms/module | CPU ms/module | wall × OpenSSL floor | wall × libgcrypt floor | wall × pgp-sign | bytes added/module |"
		echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|"
		while read -r s j m _ w c b; do
			fl=$(val "$s" "$j" floor 5)
			gf=$(val "$s" "$j" gfloor 5)
			sg=$(val "$s" "$j" signer 5)
			case $m in
			gpg | agent | gfloor) rg=$(ratio "$w" "$gf") ;;
			*) rg="" ;;
			esac
			printf '| %s | %s | %s | %.2f | %.2f | %s | %s | %s | %s |\n' "$s" "$j" "$(name "$m")" \
				"$w" "$c" "$(ratio "$w" "$fl")" "$rg" "$(ratio "$w" "$sg")" "$b"
		done <"$res/agg.txt"
		echo
		echo "Modules per configuration: $(awk '{print $4}' "$res/agg.txt" | sort -u | tr '\n' ' ')"
		echo
	} >>"$table"

	s=4096 j=1
	w_fl=$(val $s $j floor 5) w_sg=$(val $s $j signer 5)
	w_sf=$(val $s $j sign-file 5) w_gpg=$(val $s $j gpg 5)
	c_fl=$(val $s $j floor 6) c_sg=$(val $s $j signer 6)
	c_sf=$(val $s $j sign-file 6) c_gpg=$(val $s $j gpg 6)
	w_gf=$(val $s $j gfloor 5) w_ag=$(val $s $j agent 5)
	r_floor=$(ratio "$w_sg" "$w_fl")
	r_gpg=$(ratio "$w_gpg" "$w_sg")
	r_sf=$(ratio "$w_sf" "$w_sg")
	c_ag=$(val $s $j agent 6) c_gf=$(val $s $j gfloor 6)
	targets+=("| pgp-sign within 1.15× of the floor (RSA-4096, 1 job) | $r_floor | $(ratio "$c_sg" "$c_fl") | $(verdict "<=" 1.15 "$r_floor" "$(ratio "$c_sg" "$c_fl")") |")
	targets+=("| pgp-sign ≥ 2.5× faster than gpg once per module | $r_gpg | $(ratio "$c_gpg" "$c_sg") | $(verdict ">=" 2.5 "$r_gpg" "$(ratio "$c_gpg" "$c_sg")") |")
	targets+=("| pgp-sign no slower than sign-file | $r_sf | $(ratio "$c_sf" "$c_sg") | $(verdict ">=" 1.0 "$r_sf" "$(ratio "$c_sf" "$c_sg")") |")
	w_wf=$(val $s $j wfloor 5) c_wf=$(val $s $j wfloor 6)
	if [ -n "$w_wf" ]; then
		targets+=("| (cross-check) pgp-sign / (floor + writing the files) | $(ratio "$w_sg" "$w_wf") | $(ratio "$c_sg" "$c_wf") | $(verdict "<=" 1.15 "$(ratio "$w_sg" "$w_wf")" "$(ratio "$c_sg" "$c_wf")") |")
	fi
	targets+=("| (no target) pgp-sign via gpg-agent / libgcrypt floor | $(ratio "$w_ag" "$w_gf") | $(ratio "$c_ag" "$c_gf") | |")
	w_dt=$(val $s $j detached 5) c_dt=$(val $s $j detached 6)
	r_dt=$(ratio "$w_dt" "$w_sg")
	if [ -n "$w_dt" ]; then
		targets+=("| detached round trip within 1.2× of pgp-sign in place | $r_dt | $(ratio "$c_dt" "$c_sg") | $(verdict "<=" 1.2 "$r_dt" "$(ratio "$c_dt" "$c_sg")") |")
	fi
	if [ "$(verdict "<=" 1.15 "$r_floor" "$(ratio "$c_sg" "$c_fl")")" != met ] && [ -n "$w_wf" ]; then
		r_wf=$(ratio "$w_sg" "$w_wf")
		if [ "$(verdict "<=" 1.15 "$r_wf")" = met ]; then
			whys+=("pgp-sign is $r_floor× the floor, but $r_wf× the floor that also writes each signed file ($(ratio "$w_wf" "$w_fl")× the bare floor): the floor keeps the modules in memory and writes nothing, so the gap is writing the files, not the signing.")
		else
			whys+=("pgp-sign is $r_floor× the floor and still $r_wf× the floor that also writes each signed file: the gap is in pgp-sign itself (reading, framing or the atomic write), not only in the file system.")
		fi
	fi

	# every method against every other, RSA-4096, one job, wall
	{
		echo "Row / column, wall time per module, RSA-4096, one job:"
		echo
		echo "| | floor | floor + write | pgp-sign | sign-file | gpg | libgcrypt floor | pgp-sign via agent | detached round trip |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
		for a in floor wfloor signer sign-file gpg gfloor agent detached; do
			row="| $(name "$a" | sed 's/: SHA-256 + / /; s/ loop / /; s/ once per module.*//; s/ (batch.*//; s/ (create.*//; s/\*//g')"
			for b in floor wfloor signer sign-file gpg gfloor agent detached; do
				row+=" | $(ratio "$(val $s $j "$a" 5)" "$(val $s $j "$b" 5)")"
			done
			echo "$row |"
		done
		echo
	} >>"$table"
	last_line="signer/floor=$r_floor gpg/signer=$r_gpg sign-file/signer=$r_sf${w_dt:+ detached/signer=$r_dt}"
fi

if [ -s "$res/insn.tsv" ]; then
	fi_=$(awk '$1 == "floor" { print $3 }' "$res/insn.tsv")
	si_=$(awk '$1 == "signer" { print $3 }' "$res/insn.tsv")
	ni_=$(awk '$1 == "signer" { print $2 }' "$res/insn.tsv")
	ri_=$(ratio "$si_" "$fi_")
	{
		echo "Instructions per module (callgrind, load-independent, RSA-4096, $ni_ modules): floor loop $fi_, whole pgp-sign process $si_: **$ri_×**."
		echo
	} >>"$table"
	targets+=("| (cross-check) pgp-sign / floor, instructions (callgrind) | $ri_ | | $(verdict "<=" 1.15 "$ri_") |")
fi

if [ -s "$res/pass.tsv" ]; then
	read -r pw pc pn < <(awk '{ n[$1] += $2; w[$1] += $3; c[$1] += $4 + $5 }
		$1 == "signer" { runs++ }
		END { printf "%.4f %.4f %d\n", w["signer"] / w["floor"], c["signer"] / c["floor"], n["signer"] / runs }' "$res/pass.tsv")
	{
		echo "One pgp-sign run over all $pn modules into a fresh directory, as kbuild signs (RSA-4096, one job), against the floor over the same modules, alternating:"
		echo
		echo "| run | floor ms/module wall | pgp-sign ms/module wall | floor ms/module CPU | pgp-sign ms/module CPU |"
		echo "|---:|---:|---:|---:|---:|"
		awk '$1 == "floor" { fw = 1000 * $3 / $2; fc = 1000 * ($4 + $5) / $2 }
			$1 == "signer" { printf "| %d | %.2f | %.2f | %.2f | %.2f |\n", ++r, fw, 1000 * $3 / $2, fc, 1000 * ($4 + $5) / $2 }' "$res/pass.tsv"
		echo
	} >>"$table"
	targets+=("| (cross-check) pgp-sign / floor, one run over all modules as kbuild signs | $(printf '%.2f' "$pw") | $(printf '%.2f' "$pc") | $(verdict "<=" 1.15 "$(printf '%.2f' "$pw")" "$(printf '%.2f' "$pc")") |")
fi

if [ -s "$build" ]; then
	# build.tsv: "KIND-TREE RUN WALL USER SYS 0", KIND clean, rebuild, tools
	{
		echo "## Build overhead (part 3): make -j${JOBS:-2} modules, small config"
		echo
		sed -n 's/^# //p' "$build"
		echo
		echo "| measurement | without PGP (s wall) | with PGP (s wall) | with / without, wall | without PGP (s CPU) | with PGP (s CPU) | with / without, CPU |"
		echo "|---|---:|---:|---:|---:|---:|---:|"
		for kind in clean rebuild; do
			awk -v k="$kind" '
				$1 == k "-nopgp" { a += $3; ca += $4 + $5; na++ }
				$1 == k "-pgp" { b += $3; cb += $4 + $5; nb++ }
				END { if (na && nb) printf "| %s (mean of %d) | %.1f | %.1f | **%.3f** | %.1f | %.1f | **%.3f** |\n",
					(k == "clean" ? "make modules in a fresh object tree" : "all modules rebuilt from source"),
					na, a / na, b / nb, (b / nb) / (a / na), ca / na, cb / nb, (cb / nb) / (ca / na) }' "$build"
		done
		for kind in clean rebuild; do
			awk -v k="$kind" '
				$1 == k "-nopgp" { a += $3; ca += $4 + $5; na++ }
				$1 == k "-pgp" { b += $3; cb += $4 + $5; nb++ }
				END { if (na && nb) printf "%.3f %.3f\n", (b / nb) / (a / na), (cb / nb) / (ca / na) }' "$build" >"$res/build-$kind.txt"
		done
		awk '$1 == "tools-pgp" { w += $3; c += $4 + $5; n++ }
			END { if (n) printf "\nOf the clean build with PGP: building scripts/modsign (pgp-sign, pgp-verify) alone takes %.1f s wall, %.1f s CPU (mean of %d).\n", w / n, c / n, n }' "$build"
		echo
		echo "Runs, in the order made (wall/CPU s): $(grep -v '^#' "$build" | awk '{ printf "%s#%s %.1f/%.1f; ", $1, $2, $3, $4 + $5 }')"
		echo
	} >>"$table"
	for kind in clean rebuild; do
		read -r bw bc <"$res/build-$kind.txt" || continue
		targets+=("| signing adds < 10% to make modules ($([ "$kind" = clean ] && echo "fresh tree" || echo "modules rebuilt")) | $bw | $bc | $(verdict "<=" 1.10 "$bw" "$bc") |")
	done
fi

if [ -s "$guest" ]; then
	# guest.tsv: VARIANT ROUND NS (ROUND 0 is the warm-up)
	{
		echo "## Guest load time (part 4): finit_module of every module of the build, QEMU TCG"
		echo
		sed -n 's/^# //p' "$guest"
		echo
		echo "Host preemption of QEMU only ever adds time, so the least-disturbed rounds (minimum, 10th percentile) estimate the loads' own cost best; the median and mean carry the host's load."
		echo
		echo "| signature | rounds | min ms/round | p10 | median | mean | min × PKCS#7 | p10 × PKCS#7 | median × PKCS#7 |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
		mods=$(sed -n 's/^# modules: \([0-9]*\).*/\1/p' "$guest")
		for v in pgp pkcs7 none; do
			awk -v v="$v" '$1 == v && $2 > 0 { print $3 }' "$guest" | sort -n >"$res/guest-$v.txt"
		done
		# stats FILE: min p10 median mean of a sorted column
		stats() {
			awk '{ a[NR] = $1; s += $1 } END { if (NR) printf "%s %s %s %s\n", a[1], a[int(NR / 10) + 1],
				(NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2, s / NR }' "$1"
		}
		read -r p7min p7p10 p7med _ < <(stats "$res/guest-pkcs7.txt")
		for v in pgp pkcs7 none; do
			[ -s "$res/guest-$v.txt" ] || continue
			read -r mn p10 md mean < <(stats "$res/guest-$v.txt")
			case $v in
			pgp) lab="OpenPGP (pgp-sign, the build's key)" ;;
			pkcs7) lab="PKCS#7 (sign-file, the kernel's X.509 key)" ;;
			none) lab="none (unsigned body: no verification)" ;;
			esac
			awk -v l="$lab" -v n="$(wc -l <"$res/guest-$v.txt")" -v mn="$mn" -v p10="$p10" -v md="$md" -v mean="$mean" \
				-v a="$p7min" -v b="$p7p10" -v c="$p7med" 'BEGIN {
				printf "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f | %.3f |\n", l, n, mn / 1e6, p10 / 1e6, md / 1e6, mean / 1e6, mn / a, p10 / b, md / c }'
		done
		echo
		echo "Per module: $mods modules a round; signature checking is the signed time less the unsigned one."
		echo
		# paired: the PGP/PKCS#7 ratio of each round (both ways load back
		# to back in every round, so the host's load falls on both)
		join <(awk '$1 == "pgp" && $2 > 0 { print $2, $3 }' "$guest" | sort) \
			<(awk '$1 == "pkcs7" && $2 > 0 { print $2, $3 }' "$guest" | sort) |
			awk '{ print $2 / $3 }' | sort -n >"$res/guest-ratio.txt"
		awk '{ a[NR] = $1 } END { if (NR) printf "Per-round PGP/PKCS#7 ratio: median **%.3f**, quartiles %.3f and %.3f, min %.3f, max %.3f over %d rounds.\n",
			(NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2, a[int((NR + 3) / 4)], a[int((3 * NR + 3) / 4)], a[1], a[NR], NR }' "$res/guest-ratio.txt"
		echo
	} >>"$table"
	read -r pgmin _ < <(stats "$res/guest-pgp.txt")
	gmin=$(awk -v a="$pgmin" -v b="$p7min" 'BEGIN { printf "%.3f", a / b }')
	gpair=$(awk '{ a[NR] = $1 } END { if (NR) printf "%.3f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }' "$res/guest-ratio.txt")
	targets+=("| PGP verification in the guest no slower than PKCS#7 (least-disturbed round, 3 decimals; median of per-round ratios $gpair) | $gmin | | $(verdict "<=" 1.000 "$gmin") |")
	if [ "$(verdict "<=" 1.000 "$gmin")" != met ]; then
		read -r q1 q3 < <(awk '{ a[NR] = $1 } END { if (NR) printf "%.3f %.3f\n", a[int((NR + 3) / 4)], a[int((3 * NR + 3) / 4)] }' "$res/guest-ratio.txt")
		if awk -v a="$q1" -v b="$q3" 'BEGIN { exit !(a <= 1 && b >= 1) }'; then
			whys+=("PGP verification is $gmin× PKCS#7 on the least-disturbed round, but the per-round ratios' quartiles ($q1 and $q3) straddle 1: the difference is inside this run's noise (both check the same RSA-4096 signature with the same public-key code). A run with more rounds (BENCH_ROUNDS) narrows it.")
		else
			whys+=("PGP verification is $gmin× PKCS#7, and the per-round ratios' quartiles ($q1 and $q3) are both above 1: the PGP path is slower here beyond this run's noise.")
		fi
	fi
fi

if [ "${#targets[@]}" -gt 0 ]; then
	{
		echo "## Targets"
		echo
		echo "| target | ratio, wall | ratio, CPU | |"
		echo "|---|---:|---:|---|"
		printf '%s\n' "${targets[@]}"
		echo
		echo "A target is met only if both ratios meet it: wall clock (what a build waits for, the machine's load included) and CPU (user + system time, gpg-agent's included: the same comparison with the load left out)."
		echo
		if [ "${#whys[@]}" -gt 0 ]; then
			echo "Why the missed targets are missed, from this run's cross-checks:"
			echo
			printf -- '- %s\n' "${whys[@]}"
			echo
		fi
	} >>"$table"
fi

# The chart: ms per module, wall and CPU, per configuration and method.
if [ -s "$res/agg.txt" ] && command -v gnuplot >/dev/null; then
	awk 'BEGIN { nm = split("floor wfloor signer sign-file gpg gfloor agent", ms, " ") }
		{ w[$1 " j" $2, $3] = $5; c[$1 " j" $2, $3] = $6
		  if (!(($1 " j" $2) in seen)) { seen[$1 " j" $2] = 1; cf[++nc] = $1 " j" $2 } }
		END {
			for (i = 1; i <= nc; i++) {
				printf "\"RSA-%s\"", cf[i]
				for (m = 1; m <= nm; m++) printf " %s", ((cf[i], ms[m]) in w) ? w[cf[i], ms[m]] : "-"
				for (m = 1; m <= nm; m++) printf " %s", ((cf[i], ms[m]) in c) ? c[cf[i], ms[m]] : "-"
				printf "\n"
			}
		}' "$res/agg.txt" >"$res/chart.dat"
	gnuplot 2>"$res/gnuplot.log" <<EOF
set terminal pngcairo size 1400,600 font "sans,10"
set output "$res/chart.png"
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top left
set ylabel "ms per module"
set multiplot layout 1,2 title "Module signing, SHA-256, Debian 6.1 modules (lower is better)"
set title "wall clock"
plot for [i=2:8] "$res/chart.dat" using i:xtic(1) title word("floor(OpenSSL) floor+write pgp-sign sign-file gpg floor(libgcrypt) pgp-sign/agent", i-1)
set title "CPU (incl. gpg-agent)"
plot for [i=9:15] "$res/chart.dat" using i:xtic(1) title word("floor(OpenSSL) floor+write pgp-sign sign-file gpg floor(libgcrypt) pgp-sign/agent", i-8)
unset multiplot
EOF
	echo "Chart: chart.png" >>"$table"
fi

cat "$table"
echo
echo "Results: $res (table.md, chart.png, sign.tsv, sizes.tsv, build.tsv, guest.tsv)"
if [ -n "$last_line" ]; then
	echo "$last_line"
fi
