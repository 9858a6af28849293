#!/bin/bash
# Hostile modules in QEMU: at least 1,000 mutants of one validly signed
# module (mutate.pl), all loaded under module.sig_enforce=1 in one boot.
#
# Each mutant is classified on the host (mutate.pl: did it change what the
# signature covers?) and judged by the userspace verifier (pgp-verify).
# Asserted, exactly:
#   - every mutant that changed signed bytes (or the signature value, or
#     made the trailer unreadable) is refused
#   - every mutant that changed only unsigned bytes loads if and only if
#     pgp-verify calls it valid
#   - for every mutant the kernel's errno is the one pgp-verify's outcome
#     stands for under enforce (FORMAT.md; ENOKEY/ENOPKG/ENODATA become
#     EKEYREJECTED when enforcing; pkcs7 only needs refusing)
#   - no oops, BUG or WARNING; the taint mask stays 0 throughout
#   - the valid module still loads afterwards
#
# Environment: KDIR (built tree: lib/crc7.ko signed by the build,
# modsign.pub, scripts/modsign/pgp-verify, arch/x86/boot/bzImage),
# HOSTILE_COUNT (mutants, default 1200), HOSTILE_SEED (default 1).
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=../guest/guestlib.sh
. "$here/../guest/guestlib.sh"

count=${HOSTILE_COUNT:-1200}
seed=${HOSTILE_SEED:-1}
base="$KDIR/lib/crc7.ko"
ring="$KDIR/modsign.pub"
verify="$KDIR/scripts/modsign/pgp-verify"
kernel=${HOSTILE_KERNEL:-$KDIR/arch/x86/boot/bzImage}
work=$(scratch hostile)
payload="$work/payload"
mkdir -p "$payload/modules"

# The base must be valid, or every "refused" below would prove nothing.
if out=$("$verify" --keyring "$ring" "$base" 2>&1); then
	pass "hostile: base module $base is valid ($out)"
else
	fail "hostile: base module $base is valid" "$out"
	finish
fi

perl "$here/mutate.pl" "$base" "$payload/modules" "$count" "$seed" >"$work/mutate.log"
man="$payload/modules/manifest"
mv "$man" "$work/manifest"
man="$work/manifest"
n=$(wc -l <"$man")
if [ "$n" -ge 1000 ]; then
	pass "hostile: $(cat "$work/mutate.log")"
else
	fail "hostile: at least 1000 mutants" "only $n"
fi

# pgp-verify on all of them at once; its exit status is that of the first
# module that is not valid, so only 2 (usage) and 3 (I/O) are errors here.
rc=0
(cd "$payload/modules" && "$verify" --keyring "$ring" ./*.ko) >"$work/verify.out" 2>"$work/verify.err" || rc=$?
case "$rc" in
0 | 1[0-6]) pass "hostile: pgp-verify judged $(wc -l <"$work/verify.out") mutants" ;;
*) fail "hostile: pgp-verify ran" "exit $rc: $(head -n 3 "$work/verify.err" | tr '\n' '|')" ;;
esac

cp "$base" "$payload/modules/valid.ko"
awk '{ printf "%d /modules/%04d.ko\n", $1, $1 }' "$man" >"$payload/mutants.list"
gcc -static -O2 -Wall -Wextra -o "$payload/massload" "$here/massload.c"
cp "$here/guest-cases.sh" "$payload/cases.sh"
chmod 0755 "$payload/cases.sh"
guest_loader

log="$work/guest.log"
start=$SECONDS
if MODSIGN_QEMU_TIMEOUT=${MODSIGN_QEMU_TIMEOUT:-900} guest_boot "$kernel" "$payload" "$log" \
	module.sig_enforce=1 loglevel=3 log_buf_len=8M; then
	pass "hostile: guest ran all cases in $((SECONDS - start))s"
else
	fail "hostile: guest ran all cases" "see $log"
fi

check "hostile: guest enforcing and untainted at start" "mode=enforce tainted=0" \
	"$(sed -n 's/^HOSTILE-START //p' "$log" | tr -d '\r')"

# Join manifest, verifier outcome and kernel result, one line per mutant:
#   ID CLASS OUTCOME RESULT TAINT DESCRIPTION
perl -e '
	my ($man, $ver, $log) = @ARGV;
	my (%class, %what, %out, %res, %taint);
	open(my $m, "<", $man) or die; while (<$m>) { chomp; my ($i, $c, $w) = split / /, $_, 3; $class{$i} = $c; $what{$i} = $w }
	open(my $v, "<", $ver) or die; while (<$v>) {
		next unless /^\.\/(\d+)\.ko: ([a-z0-9-]+)(.*)/;
		my ($id, $o, $detail) = ($1 + 0, $2, $3);
		# A trailer that is neither PGP nor PKCS#7 is refused by the
		# PKCS#7 path, which keeps 6.1 leniency, not by the PGP one.
		$o = "unsupported-nonpgp" if $o eq "unsupported" && $detail =~ /X\.509 key identifier|not PGP or PKCS#7/;
		$out{$id} = $o;
	}
	open(my $l, "<", $log) or die; while (<$l>) { s/\r//; /^M (\d+) (\S+) (-?\d+)$/ and ($res{$1} = $2, $taint{$1} = $3) }
	for my $i (sort { $a <=> $b } keys %class) {
		printf "%d %s %s %s %s %s\n", $i, $class{$i}, $out{$i} // "none", $res{$i} // "none", $taint{$i} // "none", $what{$i};
	}' "$man" "$work/verify.out" "$log" >"$work/joined"

tried=$(awk '$4 != "none"' "$work/joined" | wc -l)
check "hostile: every mutant was tried in the guest" "$n" "$tried"

bad=$(awk '$2 == "signed" && $4 == "OK"' "$work/joined")
nsigned=$(awk '$2 == "signed"' "$work/joined" | wc -l)
if [ -z "$bad" ]; then
	pass "hostile: all $nsigned mutants that changed signed bytes were refused"
else
	fail "hostile: mutants that changed signed bytes were refused" \
		"$(echo "$bad" | wc -l) loaded: $(echo "$bad" | sed -n 1,5p | tr '\n' '|')"
fi

# Unsigned-bytes mutants: loaded exactly when the verifier says valid.
bad=$(awk '$2 == "unsigned" && (($3 == "valid") != ($4 == "OK"))' "$work/joined")
nuns=$(awk '$2 == "unsigned"' "$work/joined" | wc -l)
nload=$(awk '$2 == "unsigned" && $4 == "OK"' "$work/joined" | wc -l)
if [ -z "$bad" ]; then
	pass "hostile: of $nuns mutants that changed only unsigned bytes, the $nload pgp-verify calls valid loaded, the rest were refused"
else
	fail "hostile: unsigned-bytes mutants load exactly when valid" \
		"$(echo "$bad" | wc -l) differ: $(echo "$bad" | sed -n 1,5p | tr '\n' '|')"
fi

# The errno each verifier outcome stands for when enforcing.
bad=$(awk '
	BEGIN { e["valid"] = "OK"; e["unsigned"] = "EKEYREJECTED"; e["unknown-key"] = "EKEYREJECTED";
		e["bad-signature"] = "EKEYREJECTED"; e["expired-key"] = "EKEYEXPIRED";
		e["unsupported"] = "ENOPKG"; e["unsupported-nonpgp"] = "EKEYREJECTED"; e["corrupt"] = "EBADMSG" }
	$3 == "pkcs7" { if ($4 == "OK") print; next }
	!($3 in e) || e[$3] != $4' "$work/joined")
if [ -z "$bad" ]; then
	pass "hostile: kernel errno matches pgp-verify's outcome for all $n mutants"
else
	fail "hostile: kernel errno matches pgp-verify's outcome" \
		"$(echo "$bad" | wc -l) differ (ID CLASS VERIFIER KERNEL TAINT WHAT): $(echo "$bad" | sed -n 1,5p | tr '\n' '|')"
fi

bad=$(awk '$5 != "0"' "$work/joined")
check "hostile: taint mask 0 after every load" "" "$(echo "$bad" | sed -n 1,3p | tr '\n' '|' | sed 's/|$//')"
check "hostile: every loaded mutant was removed again" "" "$(grep '^RMMOD-FAILED' "$log" | sed -n 1,3p | tr -d '\r' | tr '\n' '|')"
check "hostile: valid module loads afterwards, untainted" "OK 0" "$(sed -n 's/^VALID-AFTER //p' "$log" | tr -d '\r')"
check "hostile: guest untainted at the end" "tainted=0" "$(sed -n 's/^HOSTILE-END //p' "$log" | tr -d '\r')"
guest_no_splat "hostile: no oops, BUG or WARNING in $(sed -n 's/^KLOG-LINES //p' "$log" | tr -d '\r') lines of kernel log" "$log"

echo "# results by verifier outcome and kernel errno:"
awk '{ print "#   " $2 " " $3 " -> " $4 }' "$work/joined" | sort | uniq -c | sort -rn
finish
