#!/bin/bash
# Part 2 of the benchmark: signing speed, side by side in one run.
#
# For each RSA size (BENCH_SIZES, "3072 4096") and job count (BENCH_JOBS_LIST,
# "1 2"), with SHA-256 throughout, every module of the sample is signed by
#
#   floor     bin/floor: SHA-256 of the body and one EVP_PKEY_sign (OpenSSL
#             libcrypto) in a loop, modules already in memory, nothing else
#   wfloor    the same loop also writing each module with a signature-sized
#             tail to a new file (bin/floor -w): the floor of a signer that
#             makes files, so that the cost of writing them is told apart
#   signer    the project's batch signer, key file, in-process libcrypto
#             (pgp-sign --secret-key --jobs J --suffix, as kbuild runs it)
#   sign-file the tree's scripts/sign-file once per module (PKCS#7, with an
#             X.509 key of the same size), xargs -P J
#   gpg       "gpg --detach-sign" once per module, framed by bin/gpgframe
#             (the seeds' approach), xargs -P J
#   gfloor    bin/floor -e gcrypt: SHA-256 and gcry_pk_sign (libgcrypt, what
#             gpg-agent uses) in a loop
#   agent     the project's signer through gpg-agent (no key file)
#   detached  the round trip of signing off the build host: pgp-attach
#             --create (the manifest), pgp-sign --sign-manifest --jobs J
#             (key file), pgp-attach (every module checked, then written)
#
# The sample is cut into chunks of BENCH_CHUNK modules and every
# configuration signs each chunk in turn, starting with a different one
# each chunk, so that the machine's load (it is shared) falls on all of
# them alike.  Every signed module is checked afterwards (untimed): PGP
# ones with pgp-verify, PKCS#7 ones by openssl cms -verify for the first
# of each chunk.  Times go to results/sign.tsv ("LABEL COUNT WALL USER SYS
# DAEMON"), bytes added per module to results/sizes.tsv.
set -euo pipefail
set -o errtrace
trap 'echo "sign: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

: "${BENCH_DIR:?}" "${KOBJ:?}" "${KSRC:?}"
bin=$BENCH_DIR/bin
res=$BENCH_DIR/results
corpus=$BENCH_DIR/corpus
work=$BENCH_DIR/work
read -r -a sizes <<<"${BENCH_SIZES:-3072 4096}"
read -r -a jobs_list <<<"${BENCH_JOBS_LIST:-1 2}"
read -r -a methods <<<"${BENCH_METHODS:-floor wfloor signer sign-file gpg gfloor agent detached}"
chunk=${BENCH_CHUNK:-200}
raw=$res/sign.tsv
sizes_tsv=$res/sizes.tsv

# Copies of the tree's programs, so that a rebuild of the tree during the
# run cannot change them halfway.  With BENCH_RESUME=1 a run that was cut
# short goes on: the chunks it finished (work/done) are kept, with their
# results, and the copies it made are used again.
mkdir -p "$res" "$work/tools"
if [ "${BENCH_RESUME:-0}" = 1 ] && [ -s "$work/done" ] && [ -x "$work/tools/pgp-sign" ]; then
	echo "sign: resuming after chunks $(tr '\n' ' ' <"$work/done")"
	[ -e "$work/tools/extract-module-sig.pl" ] ||
		cp "$KSRC/scripts/extract-module-sig.pl" "$work/tools/"
	# drop what the cut-short chunk had already written
	keep=$(($(wc -l <"$work/done") * ${#sizes[@]} * ${#jobs_list[@]}))
	head -n $((keep * ${#methods[@]})) "$raw" >"$raw.tmp"
	mv "$raw.tmp" "$raw"
	nsized=0
	for m in "${methods[@]}"; do
		case $m in floor | wfloor | gfloor) ;; *) nsized=$((nsized + 1)) ;; esac
	done
	head -n $((keep * nsized)) "$sizes_tsv" >"$sizes_tsv.tmp"
	mv "$sizes_tsv.tmp" "$sizes_tsv"
else
	: >"$raw"
	: >"$sizes_tsv"
	: >"$work/done"
	for f in scripts/modsign/pgp-sign scripts/modsign/pgp-verify \
		scripts/modsign/pgp-attach scripts/sign-file scripts/extract-module-sig.pl; do
		t=$KOBJ/$f
		[ -e "$t" ] || t=$KSRC/$f
		if [ ! -e "$t" ]; then
			echo "sign: $KOBJ/$f is missing: build the kernel first (make)" >&2
			exit 1
		fi
		cp "$t" "$work/tools/"
	done
fi
signer=$work/tools/pgp-sign
verifier=$work/tools/pgp-verify
attach=$work/tools/pgp-attach
signfile=$work/tools/sign-file
extract=$work/tools/extract-module-sig.pl
echo "sign: pgp-sign $(sha256sum "$signer" | cut -c1-12), sign-file $(sha256sum "$signfile" | cut -c1-12) from $KOBJ"

# The sample: every module, or BENCH_SAMPLE of them spread evenly over
# the package (the list is in path order), so that sizes stay representative.
total=$(wc -l <"$corpus/list")
sample=${BENCH_SAMPLE:-$total}
if [ "$sample" -gt "$total" ] || [ "$sample" -lt 1 ]; then
	sample=$total
fi
awk -v n="$sample" -v t="$total" 'BEGIN { k = 0 }
	NR - 1 == int(k * t / n) { print; k++ }' "$corpus/list" >"$work/sample"
(cd "$corpus/bodies" && xargs -d '\n' stat -c '%n %s') <"$work/sample" >"$work/body-sizes"
split -l "$chunk" -d -a 4 "$work/sample" "$work/chunk."
mapfile -t chunks < <(ls "$work"/chunk.*)
echo "sign: $sample of $total modules ($(awk '{s += $2} END {printf "%.0f MB", s / 1e6}' "$work/body-sizes")), ${#chunks[@]} chunks of up to $chunk"

# One gpg-agent per key size, for gpg and for the signer's agent path, in
# a copy of the key's GNUPGHOME of this run's own (so that runs never share
# an agent); its CPU time is added to theirs (btime -a).
declare -A keydir agent_pid gnupg
stop_agents() {
	local s
	for s in "${sizes[@]}"; do
		[ -n "${gnupg[$s]:-}" ] &&
			gpgconf --homedir "${gnupg[$s]}" --kill gpg-agent >/dev/null 2>&1
	done
	return 0
}
trap stop_agents EXIT
for s in "${sizes[@]}"; do
	keydir[$s]=$("$(dirname "$0")/keys.sh" "$BENCH_DIR/keys" "$s")
	home=$work/gnupg-$s
	rm -rf "$home"
	cp -a "${keydir[$s]}/gnupg" "$home"
	rm -f "$home"/S.* "$home"/*.lock
	gnupg[$s]=$home
	gpgconf --homedir "$home" --launch gpg-agent
	agent_pid[$s]=$(gpg-connect-agent --homedir "$home" 'getinfo pid' /bye |
		awk '/^D / {print $2}')
	if [ -z "${agent_pid[$s]}" ]; then
		echo "sign: no gpg-agent pid for $home" >&2
		exit 1
	fi
	openssl x509 -inform DER -in "${keydir[$s]}/cert.x509" -out "${keydir[$s]}/cert.pem"
done

# check_pgp LABEL DIR KEYDIR: every module in DIR verifies with the key
check_pgp() {
	local out bad rc=0
	# The verifier's status counts as well as its report: awk, not
	# grep -v, keeps the lines that do not say "valid" without failing
	# when there are none.
	out=$(find "$2" -name '*.ko' -type f -print0 |
		xargs -0 "$verifier" --keyring "$3/pub" 2>&1) || rc=$?
	bad=$(printf '%s\n' "$out" | awk 'NF && !/: valid(: .*)?$/')
	if [ -n "$bad" ] || [ "$rc" -ne 0 ]; then
		echo "sign: $1: modules that do not verify (pgp-verify status $rc):" >&2
		echo "$bad" | sed -n 1,5p >&2
		exit 1
	fi
}

# check_pkcs7 LABEL FILE BODY KEYDIR: FILE is BODY with a good PKCS#7 signature
check_pkcs7() {
	local t=$work/p7
	if ! perl "$extract" -s "$2" >"$t.sig" 2>"$t.err" ||
		! perl "$extract" -0 "$2" >"$t.body" 2>>"$t.err" ||
		! cmp -s "$t.body" "$3" ||
		! openssl cms -verify -binary -inform DER -in "$t.sig" -content "$3" \
			-certfile "$4/cert.pem" -nointern -noverify -out /dev/null 2>"$t.err"; then
		echo "sign: $1: $2 is not $3 with a good PKCS#7 signature" >&2
		cat "$t.err" >&2
		exit 1
	fi
}

# run_one SIZE JOBS METHOD CHUNK: sign the chunk once, timed, then check
run_one() {
	local size=$1 j=$2 method=$3 list=$4 label kd out n added first
	local -a paths
	label=$size:j$j:$method
	kd=${keydir[$size]}
	out=$work/out
	n=$(wc -l <"$list")
	rm -rf "$out"
	mkdir -p "$out"
	case $method in
	floor | wfloor | gfloor)
		mapfile -t paths < <(sed "s,^,$corpus/bodies/," "$list")
		if [ "$method" = wfloor ]; then
			paths=(-w "$out" "${paths[@]}")
		fi
		"$bin/floor" -o "$raw" -l "$label" -k "$kd/key.pem" -j "$j" \
			-e "$([ "$method" = gfloor ] && echo gcrypt || echo openssl)" \
			"${paths[@]}" >/dev/null
		rm -rf "$out"
		return 0
		;;
	signer | agent)
		while read -r m; do
			ln -s "$corpus/bodies/$m" "$out/$m.body"
		done <"$list"
		sed "s,^,$out/,; s,\$,.body," "$list" >"$work/files"
		if [ "$method" = signer ]; then
			"$bin/btime" -o "$raw" -l "$label" -n "$n" -- "$signer" \
				--secret-key "$kd/sec" --hash sha256 --jobs "$j" \
				--suffix .body --files-from "$work/files"
		else
			"$bin/btime" -o "$raw" -l "$label" -n "$n" -a "${agent_pid[$size]}" -- \
				"$signer" --key-name "$(cat "$kd/fpr")" \
				--gpg-options "--homedir ${gnupg[$size]}" --hash sha256 --jobs "$j" \
				--suffix .body --files-from "$work/files"
		fi
		;;
	detached)
		while read -r m; do
			ln -s "$corpus/bodies/$m" "$out/$m.body"
		done <"$list"
		# One timed command for the three steps; the manifest and the
		# signatures stay under $out, paths relative to it.
		# shellcheck disable=SC2016 # expanded by the inner bash
		(cd "$out" && "$bin/btime" -o "$raw" -l "$label" -n "$n" -- \
			bash -c 'set -e
				attach=$1 sign=$2 kd=$3 j=$4 list=$5
				"$attach" --create manifest --keyring "$kd/pub" --hash sha256 \
					--suffix .body -T "$list"
				"$sign" --secret-key "$kd/sec" --jobs "$j" \
					--sign-manifest manifest --output sigs
				"$attach" --manifest manifest --signatures sigs \
					--keyring "$kd/pub" --suffix .body' \
			sh "$attach" "$signer" "$kd" "$j" "$list")
		rm -rf "$out/sigs" "$out/manifest"
		;;
	sign-file)
		(cd "$corpus/bodies" && "$bin/btime" -o "$raw" -l "$label" -n "$n" -- \
			xargs -d '\n' -P "$j" -I{} "$signfile" sha256 "$kd/key.pem" \
			"$kd/cert.x509" {} "$out/{}") <"$list"
		;;
	gpg)
		(cd "$corpus/bodies" && "$bin/btime" -o "$raw" -l "$label" -n "$n" \
			-a "${agent_pid[$size]}" -- \
			xargs -d '\n' -P "$j" -I{} "$bin/gpgframe" "${gnupg[$size]}" \
			"$(cat "$kd/fpr")!" "$(cat "$kd/uid")" "$(cat "$kd/keyid")" \
			{} "$out/{}") <"$list"
		;;
	*)
		echo "sign: unknown method $method" >&2
		exit 1
		;;
	esac

	# untimed: everything was signed, correctly; bytes added
	if [ "$(find "$out" -name '*.ko' -type f | wc -l)" -ne "$n" ]; then
		echo "sign: $label: $n modules given, $(find "$out" -name '*.ko' -type f | wc -l) signed" >&2
		exit 1
	fi
	added=$(awk 'NR == FNR { body[$1] = $2; next }
		{ n = $1; sub(".*/", "", n); s += $2 - body[n] }
		END { print s }' "$work/body-sizes" \
		<(find "$out" -name '*.ko' -type f -printf '%p %s\n'))
	echo "$label $n $added" >>"$sizes_tsv"
	first=$(head -n 1 "$list")
	if [ "$method" = sign-file ]; then
		check_pkcs7 "$label" "$out/$first" "$corpus/bodies/$first" "$kd"
	else
		check_pgp "$label" "$out" "$kd"
	fi
	rm -rf "$out"
}

configs=()
for s in "${sizes[@]}"; do
	for j in "${jobs_list[@]}"; do
		for m in "${methods[@]}"; do
			configs+=("$s $j $m")
		done
	done
done

# Warm up (untimed, into a scratch results file): libraries paged in,
# agents holding their keys.
real_raw=$raw
real_sizes=$sizes_tsv
raw=$work/warmup.tsv
sizes_tsv=$work/warmup-sizes.tsv
head -n 2 "$work/sample" >"$work/warm"
for c in "${configs[@]}"; do
	read -r s j m <<<"$c"
	run_one "$s" "$j" "$m" "$work/warm"
done
raw=$real_raw
sizes_tsv=$real_sizes

start=$SECONDS
for i in "${!chunks[@]}"; do
	if grep -qx "$i" "$work/done"; then
		continue
	fi
	(cd "$corpus/bodies" && xargs -d '\n' cat) <"${chunks[$i]}" >/dev/null
	nc=${#configs[@]}
	for ((k = 0; k < nc; k++)); do
		read -r s j m <<<"${configs[$(((k + i) % nc))]}"
		run_one "$s" "$j" "$m" "${chunks[$i]}"
	done
	echo "$i" >>"$work/done"
	echo "sign: chunk $((i + 1))/${#chunks[@]} done, $((SECONDS - start))s, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
stop_agents
rm -rf "$work"/chunk.* "$work/files" "$work"/p7.* "$work"/gnupg-*
