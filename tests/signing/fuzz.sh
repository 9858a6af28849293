#!/bin/bash
# Fuzz the parsers that see untrusted bytes (module trailer, signature
# packet, keyrings, S-expressions) with libFuzzer, ASan and UBSan for
# MODSIGN_FUZZ_SECONDS (default 30), seeded with signed modules and keys.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

dir=$(scratch fuzz)
secs=${MODSIGN_FUZZ_SECONDS:-30}
src=$KSRC/scripts/modsign
if ! command -v clang-14 >/dev/null 2>&1; then
	echo "# clang-14 not installed: fuzzing skipped"
	finish
	exit 0
fi

rc=0
clang-14 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$src" -I"$KSRC/tools/include" \
	"$(dirname "$0")/fuzz/fuzz-verify.c" "$src"/verify.c "$src"/modsig.c \
	"$src"/pgp-packet.c "$src"/pgp-key.c "$src"/util.c "$src"/ossl.c \
	"$src"/sexp.c -lcrypto -o "$dir/fuzz" >"$dir/build.log" 2>&1 || rc=$?
check "fuzz target builds" 0 "$rc"

mkdir -p "$dir/corpus"
cp "$(sample_module)" "$dir/corpus/unsigned.ko"
cp "$(sample_module)" "$dir/corpus/signed.ko"
"$SIGN" -k "$KEYS/main.sec" "$dir/corpus/signed.ko"
cp "$KEYS/main.pub" "$KEYS/main.sec" "$dir/corpus/"
printf '(7:sig-val(3:rsa(1:s4:abcd)))' >"$dir/corpus/sexp"

rc=0
FUZZ_KEYRING=$KEYS/main.pub "$dir/fuzz" -max_total_time="$secs" \
	-max_len=65536 -rss_limit_mb=4096 "$dir/corpus" >"$dir/fuzz.log" 2>&1 || rc=$?
check "no crash, leak or undefined behaviour in ${secs}s" 0 "$rc"
runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$dir/fuzz.log")
echo "# ${runs:-0} runs"

finish
