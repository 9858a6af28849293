#!/bin/bash
# Signing speed: pgp-sign signs a few hundred copies of a module with an
# RSA-4096 key in one run; its time per module is compared with the bare
# OpenSSL RSA-4096 signing operation (openssl speed).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

dir=$(scratch speed)
n=${MODSIGN_BENCH_MODULES:-300}
mkkey rsa4096 rsa4096 sign never
src=$KDIR/$(sort "$KDIR/modules.order" | head -n1)
src=${src%.ko}.ko.stripped
for i in $(seq "$n"); do
	cp "$src" "$dir/m$i.ko"
done

# openssl speed counts CPU time; so does this (the machine may be busy).
bare=$(openssl speed -seconds 2 rsa4096 2>/dev/null |
	awk '$1 == "rsa" && $2 == "4096" { printf "%.2f", $4 * 1000 }')

# run_timed JOBS: sign the copies; prints "cpu-ms/module wall-ms/module".
run_timed() {
	local t TIMEFORMAT='%3U %3S %3R'
	for i in $(seq "$n"); do
		cp "$src" "$dir/m$i.ko"
	done
	t=$({ time "$SIGN" -k "$KEYS/rsa4096.sec" -j "$1" "$dir"/m*.ko; } 2>&1)
	awk -v n="$n" '{ printf "%.2f %.2f\n", ($1 + $2) * 1000 / n, $3 * 1000 / n }' <<<"$t"
}
read -r cpu1 wall1 < <(run_timed 1)
read -r cpuj wallj < <(run_timed "$(nproc)")
echo "# $n modules of $(stat -c %s "$src") bytes, RSA-4096, per module:" \
	"1 job ${cpu1} ms CPU, ${wall1} ms wall; $(nproc) jobs ${cpuj} ms CPU," \
	"${wallj} ms wall; bare RSA sign ${bare} ms CPU"

check "all $n signed and valid" 0 \
	"$("$VERIFY" -q --keyring "$KEYS/rsa4096.pub" "$dir"/m*.ko >/dev/null 2>&1; echo $?)"
check "CPU per module within 25% (+0.5 ms) of the bare RSA operation" yes \
	"$(awk -v p="$cpu1" -v b="$bare" 'BEGIN { print (p <= b * 1.25 + 0.5) ? "yes" : "no" }')"

finish
