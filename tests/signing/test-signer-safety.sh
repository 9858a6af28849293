#!/bin/bash
# pgp-sign never gives a silent wrong result: a secret key that does not
# fit its public key, an expired key with an old SOURCE_DATE_EPOCH, a
# signature dated before the key's newest self-signature or binding, a
# hash or key the kernel refuses, and a batch killed by a signal (no
# temporary file, every module either untouched or validly signed, the
# .ko.unsigned originals never changed).
#
# PGP_SIGN may name another pgp-sign binary to run the cases against
# (an older one, to see them fail).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

SIGN=${PGP_SIGN:-$SIGN}
dir=$(scratch signer-safety)
export TMPDIR=$dir/tmp
mkdir -p "$TMPDIR"

# A module to sign: an in-tree one if the kernel was built, else a
# relocatable ELF object of about 256 KiB (pgp-sign and pgp-verify look
# at the bytes, not at what the module does).
if [ -s "$KDIR/modules.order" ]; then
	src=$(sample_module)
else
	src=$dir/sample.ko
	printf 'char modsign_test_data[262144] = { 1 };\nint modsign_test(void) { return 42; }\n' |
		gcc -c -x c - -o "$src"
fi

# corrupt_secret IN OUT MPI FIX: OUT is the unprotected secret key export
# IN with a byte in the middle of secret MPI number MPI (0 d, 1 p, 2 q,
# 3 u) of its first key packet inverted; with FIX=1 the checksum after
# the secret MPIs is recomputed, so that only a check of the numbers
# themselves can tell.
corrupt_secret() {
	python3 - "$tests_dir" "$@" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import modsig
src, out, which, fix = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
d = bytearray(open(src, "rb").read())
tag, hlen, length = modsig.packet_header(d, 0, src)
if tag != 5:
    sys.exit(f"{src}: first packet is not a secret key")
_, p = modsig.mpi(d, hlen + 6, src)  # n
_, p = modsig.mpi(d, p, src)  # e
if d[p] != 0:
    sys.exit(f"{src}: secret key is protected")
secstart = p = p + 1
at = []
for _ in range(4):  # d, p, q, u
    at.append(p)
    _, p = modsig.mpi(d, p, src)
secend = p
nbytes = (int.from_bytes(d[at[which]:at[which] + 2], "big") + 7) // 8
d[at[which] + 2 + nbytes // 2] ^= 0xFF
if fix:
    d[secend:secend + 2] = (sum(d[secstart:secend]) & 0xFFFF).to_bytes(2, "big")
open(out, "wb").write(d)
PY
}

# yesno CMD...: "yes" if CMD succeeds, else "no"
yesno() {
	if "$@"; then echo yes; else echo no; fi
}

# sign_status KEY MODULE [OPTION...]: copy the sample to MODULE, sign it
# with KEY; prints the exit status, the messages go to MODULE.err.
sign_status() {
	local key=$1 m=$2 rc=0
	shift 2
	cp "$src" "$m"
	"$SIGN" -k "$key" "$@" "$m" >"$m.err" 2>&1 || rc=$?
	echo "$rc"
}

# untouched MODULE: is MODULE still the unsigned sample?
untouched() {
	cmp -s "$src" "$1"
}

# sig_created MODULE: the creation time of MODULE's signature packet
sig_created() {
	perl "$EXTRACT" -s "$1" 2>/dev/null |
		gpg --batch --no-options --homedir "$dir/listhome" --list-packets 2>/dev/null |
		sed -n 's/.*version 4, created \([0-9]*\),.*/\1/p' | head -n1
}

# newest_selfsig PUB CLASSES: the newest creation time of the
# signatures of classes CLASSES (an awk regex: 0x1[0-3f] for the primary
# key's self-signatures, 0x1[0-38f] with the bindings) in keyring PUB
newest_selfsig() {
	gpg --batch --no-options --homedir "$dir/listhome" --list-packets "$1" 2>/dev/null |
		awk -v re="sigclass $2" '$0 ~ re {
			for (i = 1; i <= NF; i++)
				if ($i == "created") { t = $(i + 1); sub(",", "", t); if (t + 0 > max) max = t + 0 }
		} END { print max + 0 }'
}
mkdir -p "$dir/listhome"
chmod 700 "$dir/listhome"
gpg_homes+=("$dir/listhome")

# --- a secret key that does not match its public key ---------------------
while read -r name mpi fix code why; do
	corrupt_secret "$KEYS/main/sec" "$dir/$name.sec" "$mpi" "$fix"
	rc=$(sign_status "$dir/$name.sec" "$dir/$name.ko")
	check "$name: exit status" "$code" "$rc"
	check "$name: message names the key file and the reason" yes \
		"$(grep -F "$dir/$name.sec" "$dir/$name.ko.err" | grep -qi "$why" && echo yes || echo no)"
	check "$name: module not written" yes "$(yesno untouched "$dir/$name.ko")"
done <<'EOF_CASES'
corrupt-d 0 0 4 checksum
corrupt-d-fixed-checksum 0 1 13 does.not.match
corrupt-p-fixed-checksum 1 1 13 does.not.match
corrupt-u-fixed-checksum 3 1 13 does.not.match
EOF_CASES

# Nothing is written in a batch either, whatever the job count.
corrupt_secret "$KEYS/main/sec" "$dir/batch.sec" 0 1
mkdir -p "$dir/batch"
for i in 1 2 3 4; do cp "$src" "$dir/batch/m$i.ko"; done
rc=0
"$SIGN" -k "$dir/batch.sec" -j 2 "$dir"/batch/*.ko 2>/dev/null || rc=$?
check "corrupt key, batch of 4, 2 jobs: exit status" 13 "$rc"
n=0
for i in 1 2 3 4; do untouched "$dir/batch/m$i.ko" || n=$((n + 1)); done
check "corrupt key, batch of 4, 2 jobs: no module written" 0 "$n"

# Through gpg-agent.  libgcrypt checks its own RSA signatures, so a key
# with a wrong d is refused by the agent itself (exit status 10); a
# consistent secret key that is not the one of the public key is not:
# the agent is given another key under the keygrip of "main".
usekey safety-other
cp -r "$KEYS/main/home" "$dir/agenthome"
rm -f "$dir/agenthome"/S.* "$dir/agenthome"/*.lock
gpg_homes+=("$dir/agenthome")
grips() {
	gpg --homedir "$1" --batch --with-colons --with-keygrip \
		--list-secret-keys 2>/dev/null | awk -F: '/^grp/ { print $10; exit }'
}
grip=$(grips "$dir/agenthome")
cp "$KEYS/safety-other/home/private-keys-v1.d/$(grips "$KEYS/safety-other/home").key" \
	"$dir/agenthome/private-keys-v1.d/$grip.key"
cp "$src" "$dir/agent.ko"
rc=0
GNUPGHOME=$dir/agenthome "$SIGN" -n "Test main" "$dir/agent.ko" >"$dir/agent.err" 2>&1 || rc=$?
gpgconf --homedir "$dir/agenthome" --kill all >/dev/null 2>&1 || :
check "agent holds another secret key: exit status" 13 "$rc"
check "agent holds another secret key: message names the module and the key" yes \
	"$(grep -F "$dir/agent.ko" "$dir/agent.err" | grep -qiF "$(keyid main)" && echo yes || echo no)"
check "agent holds another secret key: module not written" yes "$(yesno untouched "$dir/agent.ko")"

# --- expiry by the real clock -------------------------------------------
exp=$(testkey expired)
rc=$(SOURCE_DATE_EPOCH=1577880000 sign_status "$exp/sec" "$dir/expired.ko")
check "expired key, SOURCE_DATE_EPOCH before the expiry: exit status" 5 "$rc"
check "expired key, SOURCE_DATE_EPOCH before the expiry: module not written" yes \
	"$(yesno untouched "$dir/expired.ko")"
check "expired key: message names the key file" yes \
	"$(grep -qF "$exp/sec" "$dir/expired.ko.err" && echo yes || echo no)"

# --- signature time clamped to the newest self-signature / binding -------
usekey safety-reselfsig
# the primary's newest self-signature is 2022-01-01, the subkey's binding 2022-06-01
for sel in subkey primary; do
	if [ "$sel" = primary ]; then
		opt=(-n "$(fpr safety-reselfsig)!")
		newest=$(newest_selfsig "$KEYS/safety-reselfsig/pub" '0x1[0-3f]')
		check "reselfsig key: newest self-signature of the primary is 2022-01-01" 1640995200 "$newest"
	else
		opt=()
		newest=$(newest_selfsig "$KEYS/safety-reselfsig/pub" '0x1[0-38f]')
		check "reselfsig key: newest binding of the subkey is 2022-06-01" 1654041600 "$newest"
	fi
	rc=$(SOURCE_DATE_EPOCH=1500000000 sign_status "$KEYS/safety-reselfsig/sec" \
		"$dir/clamp-$sel.ko" "${opt[@]}")
	check "clamp, $sel: signs" 0 "$rc"
	t=$(sig_created "$dir/clamp-$sel.ko")
	check "clamp, $sel: creation time >= its newest self-signature ($newest)" yes \
		"$([ "${t:-0}" -ge "$newest" ] && echo yes || echo "no ($t)")"
	check "clamp, $sel: pgp-verify" valid \
		"$(verify_outcome "$KEYS/safety-reselfsig/pub" "$dir/clamp-$sel.ko")"
	check "clamp, $sel: gpgv accepts" yes \
		"$(gpgv_ok "$KEYS/safety-reselfsig/pub" "$dir/clamp-$sel.ko" "$dir" && echo yes || echo no)"
done
# A SOURCE_DATE_EPOCH after all of them is kept as it is.
rc=$(SOURCE_DATE_EPOCH=1700000000 sign_status "$KEYS/safety-reselfsig/sec" "$dir/clamp-late.ko")
check "clamp: a later SOURCE_DATE_EPOCH is kept" "0 1700000000" "$rc $(sig_created "$dir/clamp-late.ko")"

# --- hashes and keys the kernel refuses ---------------------------------
for hash in sha1 sha224; do
	rc=$(sign_status "$KEYS/main/sec" "$dir/$hash.ko" -a "$hash")
	check "--hash $hash: refused" 14 "$rc"
	check "--hash $hash: message" yes \
		"$(grep -q "kernel refuses.*$hash" "$dir/$hash.ko.err" && echo yes || echo no)"
	check "--hash $hash: module not written" yes "$(yesno untouched "$dir/$hash.ko")"
done
for hash in sha256 sha384 sha512; do
	rc=$(sign_status "$KEYS/main/sec" "$dir/$hash.ko" -a "$hash")
	check "--hash $hash: signs, valid" "0 valid" "$rc $(verify_outcome "$KEYS/main/pub" "$dir/$hash.ko")"
done

usekey safety-rsa2560
rc=$(sign_status "$KEYS/safety-rsa2560/sec" "$dir/rsa2560.ko")
check "RSA-2560 key (modulus of 320 octets): refused" 8 "$rc"
check "RSA-2560 key: message names the key" yes \
	"$(grep -qiF "$(keyid safety-rsa2560)" "$dir/rsa2560.ko.err" && echo yes || echo no)"
check "RSA-2560 key: module not written" yes "$(yesno untouched "$dir/rsa2560.ko")"

usekey safety-edprimary
rc=$(sign_status "$KEYS/safety-edprimary/sec" "$dir/edprimary.ko")
check "RSA subkey of an Ed25519 primary: refused" 8 "$rc"
check "RSA subkey of an Ed25519 primary: module not written" yes \
	"$(yesno untouched "$dir/edprimary.ko")"

# --- signals in the middle of a batch ------------------------------------
# The batch: modules of 512 KiB, so that a good share of the time is
# spent writing them (with a temporary file in place).
big=$dir/big.ko
cp "$src" "$big"
truncate -s +512K "$big"

# count_signed DIR: how many of DIR/m*.ko were replaced since DIR.start
# (quick: workers that outlive pgp-sign must not get time to finish)
count_signed() {
	find "$1" -name 'm*.ko' -newer "$1.start" | wc -l
}

# batch_kill NAME SIGNAL DELAY [OPTION...]: sign 300 copies in place,
# each with a .ko.unsigned that is a hard link to it (so that writing
# into the module instead of replacing it would change the .ko.unsigned
# too), kill pgp-sign after DELAY seconds, then
# check what is left: no temporary file or GNUPGHOME, no worker still
# signing, every module unsigned or validly signed, no .ko.unsigned
# changed.  --fsync makes the time during which a temporary file exists
# long enough for the signal to land in it.
batch_kill() {
	local name=$1 sig=$2 delay=$3 b pid i tmp unsigned_ok n1 n2 bad left
	local signed=()
	shift 3
	b=$dir/kill-$name
	rm -rf "$b"
	mkdir -p "$b"
	for i in $(seq 1 300); do
		cp "$big" "$b/m$i.ko"
		ln "$b/m$i.ko" "$b/m$i.ko.unsigned"
	done
	(cd "$b" && sha256sum -- *.ko.unsigned >"$b.sums")
	touch "$b.start"
	"$SIGN" --fsync "$@" "$b"/*.ko 2>"$b.err" &
	pid=$!
	sleep "$delay"
	kill -s "$sig" "$pid" 2>/dev/null || :
	wait "$pid" || :
	left=$(pgrep -fc -- "$b/m1.ko" || :)
	n1=$(count_signed "$b")
	sleep 1		# workers that outlive the main process, if any
	n2=$(count_signed "$b")
	tmp=$(find "$b" "$TMPDIR" -mindepth 1 \( -name '.tmp_*' -o -name 'modsign-gnupg.*' \) | wc -l)
	for i in $(seq 1 300); do
		cmp -s "$big" "$b/m$i.ko" || signed+=("$b/m$i.ko")
	done
	bad=0
	if [ "${#signed[@]}" -gt 0 ]; then
		bad=$("$VERIFY" --keyring "${KPUBKEY:-$KEYS/main/pub}" "${signed[@]}" 2>&1 |
			grep -vc ': valid' || :)
	fi
	echo "# $name: $n1 of 300 modules signed when killed"
	unsigned_ok=$(cd "$b" && sha256sum --quiet -c "$b.sums" >/dev/null 2>&1 && echo yes || echo no)
	check "$name: no temporary file left" 0 "$tmp"
	check "$name: no worker left running" 0 "$left"
	check "$name: nothing signed once pgp-sign has exited" "$n1" "$n2"
	check "$name: every module unsigned or validly signed" 0 "$bad"
	check "$name: .ko.unsigned unchanged" yes "$unsigned_ok"
	rm -rf "$b"
}
for delay in ${DELAYS:-0.3 0.6 1.0}; do
	batch_kill "SIGTERM after ${delay}s" TERM "$delay" -k "$KEYS/main/sec"
	batch_kill "SIGTERM after ${delay}s, 2 jobs" TERM "$delay" -k "$KEYS/main/sec" -j 2
done
batch_kill "SIGINT after 0.5s, 2 jobs" INT 0.5 -k "$KEYS/main/sec" -j 2
printf '%s\n' "$testkey_passphrase" >"$dir/pass"
usekey protected
KPUBKEY=$KEYS/protected/pub batch_kill "SIGTERM after 3s, protected key file" TERM 3 \
	-k "$KEYS/protected/sec" -P "$dir/pass"
check "protected key file: its agent is gone" 0 \
	"$(pgrep -f "gpg-agent --homedir $TMPDIR" | wc -l)"

finish
