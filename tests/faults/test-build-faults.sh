#!/bin/bash
# Faults during an external-module build (make -C KDIR M=DIR modules):
# eu-strip missing, a corrupt MODSECKEY, a wrong passphrase, an expired
# key, a full disk (at the compiler, and at the signer's own write),
# gpg-agent killed in the middle of a batch.  For each
# (faultlib.sh after_fault/rerun_ok): the build fails, its message names
# the file or tool and the reason, no .ko is left that looks signed but
# does not verify, no .ko.unsigned is changed, no temporary file is left,
# and once the fault is fixed a plain rebuild signs every module.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=../testkeys.sh
. "$here/../testkeys.sh"
# shellcheck source=faultlib.sh
. "$here/faultlib.sh"

work=$(scratch build-faults)
ext="$work/ext"
mnt="$work/full"
agent_home=
cleanup() {
	if [ -n "$agent_home" ] && [ -d "$agent_home" ]; then
		gpgconf --homedir "$agent_home" --kill all
	fi
	if mountpoint -q "$mnt"; then
		umount "$mnt"
	fi
}
trap cleanup EXIT

extmod_copy "$ext"
if ext_build "$ext" "$work/first.log"; then
	check "faults: first build signs both modules" "2" "$(signed_count "$ext")"
else
	fail "faults: first build" "$(build_errors "$work/first.log")"
	finish
fi
sums=$(unsigned_sums "$ext")
# Makes the next build sign every module again.
resign_all() {
	touch "$1"/*.ko.stripped
}

# --- eu-strip missing: PATH is every directory of PATH, minus eu-strip.
farm="$work/path-without-eu-strip"
mkdir -p "$farm"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	[ -d "$d" ] || continue
	for f in "$d"/*; do
		b=$(basename "$f")
		[ "$b" = eu-strip ] || [ -e "$farm/$b" ] || ln -s "$f" "$farm/$b"
	done
done
check "eu-strip: the restricted PATH has no eu-strip" "" "$(PATH=$farm command -v eu-strip || :)"
touch "$ext"/*.ko.unsigned
rc=0
PATH=$farm ext_build "$ext" "$work/eu-strip.log" || rc=$?
after_fault "eu-strip" "$ext" "$work/eu-strip.log" "$rc" "$sums" "eu-strip.*not found"
# The signed modules of the previous .ko.unsigned are valid, but no longer
# the modules built: none may be left for an install to pick up.
check "eu-strip: no signed module of the previous build is left" "" \
	"$(find "$ext" -maxdepth 1 -name '*.ko' -printf '%f ')"
rerun_ok "eu-strip" "$ext" "$work/eu-strip-rerun.log" 2

# --- a corrupt MODSECKEY: one bit of a secret MPI flipped (its checksum
# no longer matches), and the key cut short.  The flip is 40 octets
# before the end of the first packet (the secret key packet: inside u,
# ahead of the two-octet checksum), not somewhere in the self-signature
# that follows, which no signer needs to read.
cp "$KDIR/modsign.sec" "$work/flipped.sec"
size=$(stat -c %s "$work/flipped.sec")
perl -e 'my ($f) = @ARGV; open(my $h, "+<:raw", $f) or die; local $/; my $d = <$h>;
	my $c = ord($d); die "not an old-format secret key packet\n" unless ($c & 0xc0) == 0x80 && (($c >> 2) & 15) == 5;
	my $lt = $c & 3; my $hl = 1 + (1, 2, 4)[$lt];
	my $len = $lt == 0 ? ord(substr($d, 1, 1)) : $lt == 1 ? unpack("n", substr($d, 1, 2)) : unpack("N", substr($d, 1, 4));
	my $off = $hl + $len - 40;
	substr($d, $off, 1) = chr(ord(substr($d, $off, 1)) ^ 0x10);
	seek($h, 0, 0); print $h $d; close($h) or die' "$work/flipped.sec"
head -c $((size / 2)) "$KDIR/modsign.sec" >"$work/truncated.sec"
for k in flipped truncated; do
	resign_all "$ext"
	rc=0
	ext_build "$ext" "$work/corrupt-$k.log" MODSECKEY="$work/$k.sec" || rc=$?
	after_fault "corrupt MODSECKEY ($k)" "$ext" "$work/corrupt-$k.log" "$rc" "$sums" \
		"$work/$k.sec" "corrupt|checksum|not a usable|cannot read"
	rerun_ok "corrupt MODSECKEY ($k)" "$ext" "$work/corrupt-$k-rerun.log" 2
done

# --- a wrong passphrase: the kernel's own key, protected with one.
phome="$work/protect-home"
mkdir -m 0700 "$phome"
gpg_batch "$phome" --import "$KDIR/modsign.sec"
fpr=$(gpg_batch "$phome" --with-colons --list-secret-keys | awk -F: '/^fpr/ { if (!n++) print $10 }')
printf 'right passphrase\n' >"$work/right.pass"
printf 'wrong passphrase\n' >"$work/wrong.pass"
# With loopback pinentry, --passphrase is the new passphrase of --passwd.
gpg_batch "$phome" --passphrase 'right passphrase' --passwd "$fpr"
gpg_batch "$phome" --passphrase 'right passphrase' --export-secret-keys >"$work/protected.sec"
gpgconf --homedir "$phome" --kill all
check "passphrase: the key file is protected" "protected" \
	"$(gpg --no-options --homedir "$phome" --list-packets "$work/protected.sec" 2>/dev/null | grep 'protected' >/dev/null && echo protected)"
resign_all "$ext"
rc=0
MODSIGN_PASSPHRASE_FILE="$work/wrong.pass" ext_build "$ext" "$work/passphrase.log" \
	MODSECKEY="$work/protected.sec" || rc=$?
# The message must say which key (its file or key ID) as well as why.
after_fault "wrong passphrase" "$ext" "$work/passphrase.log" "$rc" "$sums" "[Pp]assphrase" \
	"bad|wrong|incorrect" "$work/protected.sec|${fpr:24}"
MODSIGN_PASSPHRASE_FILE="$work/right.pass" rerun_ok "wrong passphrase" "$ext" \
	"$work/passphrase-rerun.log" 2 MODSECKEY="$work/protected.sec"

# --- an expired key (made 2020-01-01, expired a day later).
expired=$(testkey expired)
resign_all "$ext"
rc=0
ext_build "$ext" "$work/expired.log" MODSECKEY="$expired/sec" || rc=$?
after_fault "expired key" "$ext" "$work/expired.log" "$rc" "$sums" "$expired/sec" "expired"
rerun_ok "expired key" "$ext" "$work/expired-rerun.log" 2

# --- a full disk: the module directory on a small tmpfs, filled up
# between a good build and the next signing.
mkdir -p "$mnt"
mount -t tmpfs -o size=16m,mode=0755 tmpfs "$mnt"
extmod_copy "$mnt/ext"
if ext_build "$mnt/ext" "$work/full-first.log"; then
	fsums=$(unsigned_sums "$mnt/ext")
	# dd stops at ENOSPC: that it fails is the point.
	dd if=/dev/zero of="$mnt/filler" bs=4k >/dev/null 2>&1 || :
	check "full disk: the tmpfs is full" "0" "$(df --output=avail -B1 "$mnt" | tail -n 1 | tr -d ' ')"
	resign_all "$mnt/ext"
	rc=0
	ext_build "$mnt/ext" "$work/full.log" || rc=$?
	after_fault "full disk" "$mnt/ext" "$work/full.log" "$rc" "$fsums" "No space left on device"
	rm -f "$mnt/filler"
	rerun_ok "full disk" "$mnt/ext" "$work/full-rerun.log" 2
else
	fail "full disk: first build on the tmpfs" "$(build_errors "$work/full-first.log")"
fi

# --- a disk that fills up at the signer's own write.  Above, a full disk
# already stops the compiler: Kbuild's compiler probes write their files
# in M=, fail, and so change the command lines, and every object is
# rebuilt.  Here the probes find room but the signed module does not: a
# megabyte-sized module whose signed .ko is gone (a signed one would be
# removed before signing, freeing its own room), 256 KiB left free.
big=$mnt/big
rm -rf "$big"
mkdir -p "$big"
cp "$here/../modules/bigmod"/* "$big/"
if ext_build "$big" "$work/full-sign-first.log"; then
	bsums=$(unsigned_sums "$big")
	rm -f "$big/bigmod.ko"
	dd if=/dev/zero of="$mnt/filler" bs=4k >/dev/null 2>&1 || :
	truncate -s -256K "$mnt/filler"
	check "full disk at signing: less room than the signed module needs" "yes" \
		"$([ "$(df --output=avail -B1 "$mnt" | tail -n 1 | tr -d ' ')" -lt "$(stat -c %s "$big/bigmod.ko.stripped")" ] && echo yes || echo no)"
	rc=0
	ext_build "$big" "$work/full-sign.log" || rc=$?
	after_fault "full disk at signing" "$big" "$work/full-sign.log" "$rc" "$bsums" \
		"pgp-sign: $big/bigmod.ko: .*No space left on device"
	check "full disk at signing: the compiler did not run again" "" \
		"$(grep -E '^ +CC ' "$work/full-sign.log" | tr '\n' '|')"
	rm -f "$mnt/filler"
	rerun_ok "full disk at signing" "$big" "$work/full-sign-rerun.log" 1
else
	fail "full disk at signing: first build on the tmpfs" "$(build_errors "$work/full-sign-first.log")"
fi
umount "$mnt"

# --- gpg-agent killed in the middle of a batch: many modules, the
# kernel's key protected by a passphrase in a private GNUPGHOME, signed
# through that home's agent (MODKEYNAME + KEYFLAGS), and the agent killed
# after the first signatures.
many="$work/many"
nmods=${FAULTS_BATCH:-60}
mkdir -p "$many"
for i in $(seq 1 "$nmods"); do
	printf '// SPDX-License-Identifier: GPL-2.0\n#include <linux/module.h>\nMODULE_LICENSE("GPL");\nMODULE_DESCRIPTION("batch module %d");\n' \
		"$i" >"$many/batch$i.c"
	echo "obj-m += batch$i.o" >>"$many/Kbuild"
done
if ext_build "$many" "$work/many-first.log"; then
	check "agent: first build signs the $nmods modules" "$nmods" "$(signed_count "$many")"
else
	fail "agent: first build of $nmods modules" "$(build_errors "$work/many-first.log")"
fi
msums=$(unsigned_sums "$many")
agent_home="$work/agent-home"
mkdir -m 0700 "$agent_home"
gpg_batch "$agent_home" --import "$work/protected.sec"
echo allow-loopback-pinentry >"$agent_home/gpg-agent.conf"
gpgconf --homedir "$agent_home" --launch gpg-agent
agent_pid=$(pgrep -f "gpg-agent --homedir $agent_home" | sed -n 1p)
if [ -z "$agent_pid" ]; then
	fail "agent: gpg-agent started in $agent_home" "no such process"
	finish
fi
# gpg-agent (2.2.40) converts an imported protected key to its own format
# on the key's first use and rewrites the key file; two first uses at once
# (the batch's workers) race on that file and can leave it cut short, and
# every later signature fails ("Unmatched parentheses in S-expression").
# The fault under test is the agent dying, so the key is used once, alone,
# first.
echo warm-up >"$work/warm-up"
rc=0
gpg --homedir "$agent_home" --batch --quiet --no-tty --pinentry-mode loopback \
	--passphrase-file "$work/right.pass" --local-user "$fpr" \
	--detach-sign --output "$work/warm-up.sig" "$work/warm-up" || rc=$?
check "agent: one signature through the agent before the batch" 0 "$rc"
resign_all "$many"
rc=0
MODSIGN_PASSPHRASE_FILE="$work/right.pass" ext_build "$many" "$work/agent.log" \
	MODSECKEY= MODKEYNAME="$fpr" KEYFLAGS="--homedir $agent_home" &
build=$!
# Kill the agent once a few modules are signed; poll the quiet-mode
# progress lines ("  SIGN    ...") the batch prints.
killed=no
for _ in $(seq 1 3000); do
	if [ "$(grep -c 'SIGN ' "$work/agent.log" 2>/dev/null || :)" -ge 3 ]; then
		# SIGKILL: a TERMinated agent waits for its open connections
		# and so would let the batch finish; this is the agent dying.
		kill -KILL "$agent_pid"
		killed=yes
		break
	fi
	kill -0 "$build" 2>/dev/null || break
	sleep 0.01
done
wait "$build" || rc=$?
check "agent: killed after the first signatures, before the batch ended" "yes" "$killed"
after_fault "agent killed" "$many" "$work/agent.log" "$rc" "$msums" "gpg-agent"
check "agent: some modules were signed before the kill, the rest left unsigned-or-absent" "yes" \
	"$([ "$(signed_count "$many")" -lt "$nmods" ] && echo yes)"
# The fix: an agent again (launched by the signer through gpgconf).
MODSIGN_PASSPHRASE_FILE="$work/right.pass" rerun_ok "agent killed" "$many" "$work/agent-rerun.log" \
	"$nmods" MODSECKEY= MODKEYNAME="$fpr" KEYFLAGS="--homedir $agent_home"

finish
