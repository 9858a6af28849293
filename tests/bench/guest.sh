#!/bin/bash
# Part 4 of the benchmark: module load time in the guest, OpenPGP against
# PKCS#7 signatures, measured inside the guest.
#
# The main build's kernel ($KOBJ/arch/x86/boot/bzImage) boots in QEMU
# (TCG) with an initramfs (tests/guest/mkinitramfs.sh) holding every
# module of the build three ways, all with the same body (FOO.ko.stripped,
# what pgp-sign signed):
#   pgp    FOO.ko as make modules signed it (RSA-4096 key modsign.sec,
#          built into the kernel from modsign.pub), SHA-256
#   pkcs7  the body signed by scripts/sign-file with the kernel's own X.509
#          key (certs/signing_key.pem, RSA-4096, built in), SHA-256
#   none   the body unsigned, loaded after the others (it taints), to show
#          how much of a load is signature checking at all
# bin/loadbench (static) runs as /loader from the payload's /cases.sh:
# BENCH_ROUNDS rounds (default 120) plus a warm-up round, each loading every
# module with finit_module timed by clock_gettime, the signed ways
# alternating which goes first, unloading between rounds; after each
# signed round the kernel must still be untainted (every signature was
# accepted).  Per-round sums go to results/guest.tsv as "WAY ROUND NS".
set -euo pipefail
set -o errtrace
trap 'echo "guest: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

: "${BENCH_DIR:?}" "${KOBJ:?}" "${KSRC:?}"
here=$(dirname "$(realpath "$0")")
guest_dir=$here/../guest
rounds=${BENCH_ROUNDS:-120}
res=$BENCH_DIR/results
g=$BENCH_DIR/guest
kernel=$KOBJ/arch/x86/boot/bzImage
out=$res/guest.tsv

for f in "$kernel" "$KOBJ/modules.order" "$KOBJ/certs/signing_key.pem" "$KOBJ/scripts/sign-file"; do
	if [ ! -e "$f" ]; then
		echo "guest: $f is missing: build the kernel first (make)" >&2
		exit 1
	fi
done
grep -q '^CONFIG_MODULE_SIG_PGP=y' "$KOBJ/.config" || {
	echo "guest: $KOBJ is not built with CONFIG_MODULE_SIG_PGP" >&2
	exit 1
}

rm -rf "$g"
mkdir -p "$g/payload/modules/pgp" "$g/payload/modules/pkcs7" "$g/payload/modules/none" "$res"
: >"$g/payload/bench.list"
while read -r ko; do
	base=$(basename "$ko")
	body=$KOBJ/$ko.stripped
	"$KSRC/scripts/extract-module-sig.pl" -0 "$KOBJ/$ko" >"$g/body" 2>/dev/null
	if ! cmp -s "$g/body" "$body"; then
		echo "guest: $KOBJ/$ko is not $body with a signature appended" >&2
		exit 1
	fi
	cp "$KOBJ/$ko" "$g/payload/modules/pgp/$base"
	"$KOBJ/scripts/sign-file" sha256 "$KOBJ/certs/signing_key.pem" \
		"$KOBJ/certs/signing_key.x509" "$body" "$g/payload/modules/pkcs7/$base"
	cp "$body" "$g/payload/modules/none/$base"
	name=$(modinfo -F name "$KOBJ/$ko")
	if [ -z "$name" ]; then
		echo "guest: no module name in $KOBJ/$ko" >&2
		exit 1
	fi
	echo "$base $name" >>"$g/payload/bench.list"
done <"$KOBJ/modules.order"
rm -f "$g/body"
n=$(wc -l <"$g/payload/bench.list")

cat >"$g/payload/cases.sh" <<EOF
#!/bin/sh
# written by tests/bench/guest.sh: the load-time benchmark instead of cases
echo "CLOCKSOURCE \$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) of \$(cat /sys/devices/system/clocksource/clocksource0/available_clocksource)"
echo LOADBENCH-START
/loader $rounds /bench.list /modules/pgp /modules/pkcs7 -u /modules/none
EOF
chmod 0755 "$g/payload/cases.sh"

bits() { # the RSA size of a signed module's key, from its signature
	"$KSRC/scripts/extract-module-sig.pl" -s "$1" 2>/dev/null >"$g/sig"
	stat -c %s "$g/sig"
}
pgp_sig=$(bits "$g/payload/modules/pgp/$(head -n 1 "$g/payload/bench.list" | cut -d' ' -f1)")
p7_sig=$(bits "$g/payload/modules/pkcs7/$(head -n 1 "$g/payload/bench.list" | cut -d' ' -f1)")
# A home of its own: gpg --no-options will not create a missing ~/.gnupg.
mkdir -m 0700 "$g/gnupg"
pgp_key=$(gpg --homedir "$g/gnupg" --no-options --no-autostart --with-colons \
	--show-keys "$KOBJ/modsign.pub" 2>/dev/null | awk -F: '/^pub/ { if (!n++) print $3 }')
x509_key=$(openssl x509 -in "$KOBJ/certs/signing_key.pem" -noout -text | sed -n 's/.*Public-Key: (\([0-9]*\) bit).*/\1/p')

# The small kernel has no HPET or ACPI PM timer to calibrate the TSC
# against, and under TCG the PIT calibration fails, which leaves only
# jiffies (4 ms steps).  QEMU's TCG TSC is the host's, so the guest is told
# the host's TSC rate: absolute times rest on it, ratios do not.
tsc_khz=$(awk -F': ' '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
read -r -a guest_args <<<"loglevel=4 tsc_early_khz=$tsc_khz tsc=reliable ${BENCH_GUEST_ARGS:-}"

echo "guest: $n modules x 3 ways, $rounds rounds, booting $kernel under QEMU (TCG)"
MODSIGN_QEMU_TIMEOUT=${MODSIGN_QEMU_TIMEOUT:-900} \
	"$guest_dir/mkinitramfs.sh" "$g/initrd.cpio.gz" "$BENCH_DIR/bin/loadbench" "$g/payload"
MODSIGN_QEMU_TIMEOUT=${MODSIGN_QEMU_TIMEOUT:-900} \
	"$guest_dir/qemu-run.sh" "$kernel" "$g/initrd.cpio.gz" "$g/console.log" "${guest_args[@]}"
if ! grep -q '^LOADBENCH-END' "$g/console.log" || grep -q '^LOADBENCH-ERROR' "$g/console.log"; then
	echo "guest: the benchmark did not finish; console log $g/console.log:" >&2
	grep -E '^LOADBENCH|^ORDER' "$g/console.log" >&2 || tail -n 20 "$g/console.log" >&2
	exit 1
fi

{
	echo "# modules: $n ($(cut -d' ' -f2 "$g/payload/bench.list" | tr '\n' ' ')), load order: $(sed -n 's/^ORDER //p' "$g/console.log" | tr -d '\r')"
	echo "# QEMU TCG, 1 vCPU, guest clock $(sed -n 's/^CLOCKSOURCE \([^ ]*\).*/\1/p' "$g/console.log" | tr -d '\r') at the host's $((tsc_khz / 1000)) MHz, $rounds rounds + 1 warm-up, the signed ways alternating which goes first"
	echo "# keys: OpenPGP RSA-$pgp_key (modsign.pub), X.509 RSA-$x509_key (certs/signing_key.x509), both SHA-256; signature trailers $pgp_sig (PGP packet) and $p7_sig (PKCS#7) bytes"
	tr -d '\r' <"$g/console.log" | awk '$1 == "ROUND" { w = $2; sub(".*/", "", w); print w, $3, $4 }'
} >"$out"
rm -f "$g/initrd.cpio.gz" "$g/sig"
echo "guest: $(grep -c -v '^#' "$out") rounds recorded"
