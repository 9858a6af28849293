#!/bin/bash
# Hostile modules in QEMU: at least 1,000 mutants of one validly signed
# module and at least 1,000 of the same module without its signature
# (mutate.py), all loaded in one boot per mode: module.sig_enforce=1
# ("enforce") and without it ("permissive").
#
# Each signed mutant is classified on the host (mutate.py: did it change
# what the signature covers?) and judged by the userspace verifier
# (pgp-verify).  Each unsigned mutant is judged by mutate.py's model of
# the kernel's ELF checks (elf-bad: must be refused as malformed).
# Among both are ELF header and section header edits (e_shoff, e_shnum,
# e_shstrndx, e_shentsize, sh_name past the name table, .modinfo and
# this_module of another type or outside the file, unterminated tables):
# a kernel reads the ELF of a module it refuses, to name it in the log,
# and the ELF of any module it loads.
#
# Asserted, exactly, when enforcing:
#   - every signed mutant that changed signed bytes (or the signature
#     value, or made the trailer unreadable) is refused
#   - every signed mutant that changed only unsigned bytes loads if and
#     only if pgp-verify calls it valid
#   - for every signed mutant the kernel's errno is the one pgp-verify's
#     outcome stands for under enforce (module-signing.rst; ENOKEY/ENOPKG/ENODATA
#     become EKEYREJECTED when enforcing; pkcs7 only needs refusing)
#   - every unsigned mutant is refused with EKEYREJECTED
#   - the taint mask stays 0 throughout
# and in permissive mode:
#   - a signed mutant gets the errno of pgp-verify's outcome as in the
#     behaviour table, or, for the outcomes the table lets load tainted
#     (unsigned, unknown key, a non-PGP trailer), loads tainted 'E' or is
#     refused by the ELF checks (with an errno no signature check gives)
#   - the unchanged unsigned body loads, tainted 'E'
#   - every unsigned mutant mutate.py's model calls malformed is refused
#     with ENOEXEC; the others load tainted 'E' or are refused by the
#     ELF checks (the distribution is printed)
#   - the taint mask is 0 or 'E' alone, and 0 until the first module that
#     should taint it loads
# and in both modes:
#   - every mutant was tried, none killed the loader (an oops)
#   - no oops, BUG, WARNING, general protection fault or page fault
#   - every loaded mutant was removed; the valid module loads afterwards
#
# Environment: KDIR (built tree: lib/crc7.ko signed by the build,
# modsign.pub, scripts/modsign/pgp-verify, arch/x86/boot/bzImage), KSRC
# (scripts/extract-module-sig.pl), HOSTILE_COUNT (signed mutants, default
# 1200), HOSTILE_UNSIGNED_COUNT (unsigned mutants, default 1100),
# HOSTILE_SEED (default 1), HOSTILE_MODES (default "enforce permissive"),
# HOSTILE_KERNEL (default KDIR's bzImage).
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=../guest/guestlib.sh
. "$here/../guest/guestlib.sh"

count=${HOSTILE_COUNT:-1200}
ucount=${HOSTILE_UNSIGNED_COUNT:-1100}
seed=${HOSTILE_SEED:-1}
modes=${HOSTILE_MODES:-enforce permissive}
# Unsigned mutants are numbered from here, after the signed ones.
ufirst=100000
base="$KDIR/lib/crc7.ko"
ring="$KDIR/modsign.pub"
verify="$KDIR/scripts/modsign/pgp-verify"
kernel=${HOSTILE_KERNEL:-$KDIR/arch/x86/boot/bzImage}
splat_re='Oops|BUG:|WARNING:|Call Trace|general protection|page fault|Kernel panic'
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
if [ "$count" -ge "$ufirst" ]; then
	fail "hostile: HOSTILE_COUNT below $ufirst" "$count"
	finish
fi

"$here/mutate.py" "$base" "$payload/modules" "$count" "$seed" >"$work/mutate.log"
mv "$payload/modules/manifest" "$work/manifest.signed"
n=$(wc -l <"$work/manifest.signed")
if [ "$n" -ge 1000 ]; then
	pass "hostile: $(cat "$work/mutate.log")"
else
	fail "hostile: at least 1000 signed mutants" "only $n"
fi

# The module without its signature, as the build's .ko.unsigned would be
# after stripping: what extract-module-sig.pl -0 gives.
body="$work/body.ko"
perl "$KSRC/scripts/extract-module-sig.pl" -0 "$base" >"$body" 2>"$work/extract.log"
"$here/mutate.py" --unsigned "$body" "$payload/modules" "$ucount" "$seed" "$ufirst" >"$work/mutate-unsigned.log"
mv "$payload/modules/manifest" "$work/manifest.unsigned"
nu=$(wc -l <"$work/manifest.unsigned")
if [ "$nu" -ge 1000 ]; then
	pass "hostile: $(cat "$work/mutate-unsigned.log")"
else
	fail "hostile: at least 1000 unsigned mutants" "only $nu"
fi
total=$((n + nu))

# pgp-verify on all of them at once; its exit status is that of the first
# module that is not valid, so only 2 (usage) and 3 (I/O) are errors here.
rc=0
(cd "$payload/modules" && "$verify" --keyring "$ring" ./*.ko) >"$work/verify.out" 2>"$work/verify.err" || rc=$?
case "$rc" in
0 | 1[0-6]) pass "hostile: pgp-verify judged $(wc -l <"$work/verify.out") mutants" ;;
*) fail "hostile: pgp-verify ran" "exit $rc: $(head -n 3 "$work/verify.err" | tr '\n' '|')" ;;
esac
bad=$(awk -v f="$ufirst" '/^\.\/[0-9]+\.ko: / { id = substr($1, 3) + 0; if (id >= f && $2 != "unsigned") print }' "$work/verify.out")
check "hostile: pgp-verify calls every unsigned mutant unsigned" "" "$(echo "$bad" | sed -n 1,3p | tr '\n' '|' | sed 's/|$//')"

cp "$base" "$payload/modules/valid.ko"
cat "$work/manifest.signed" "$work/manifest.unsigned" |
	awk '{ printf "%d /modules/%04d.ko\n", $1, $1 }' >"$work/all.list"

# Permissive mode lets a module whose signature is missing, made by an
# unknown key, or not PGP, load tainted: the kernel then links whatever
# ELF is in front of the trailer.  A signed mutant like that whose body
# was damaged too is an unsigned module with a random symbol table, which
# 6.1 trusts (an unbounded st_name is read by printk): the permissive
# boot leaves those out, and says how many.
perl -e '
	my ($body, $dir, $ver, $ufirst) = @ARGV;
	my $b = do { local $/; open(my $f, "<:raw", $body) or die "$body: $!\n"; <$f> };
	open(my $v, "<", $ver) or die "$ver: $!\n";
	while (<$v>) {
		next unless /^\.\/(\d+)\.ko: ([a-z0-9-]+)(.*)/;
		my ($id, $o, $d) = ($1, $2, $3);
		next if $id >= $ufirst;
		next unless $o =~ /^(unsigned|unknown-key|pkcs7)$/ || ($o eq "unsupported" && $d =~ /X\.509 key identifier|not PGP or PKCS#7/);
		my $m = do { local $/; open(my $f, "<:raw", "$dir/$id.ko") or die "$id: $!\n"; <$f> };
		print $id + 0, "\n" if substr($m, 0, length($b)) ne $b;
	}' "$body" "$payload/modules" "$work/verify.out" "$ufirst" | sort -n >"$work/permissive.skip"
awk 'NR == FNR { skip[$1] = 1; next } !($1 in skip)' "$work/permissive.skip" "$work/all.list" >"$work/permissive.list"
nskip=$(wc -l <"$work/permissive.skip")
gcc -static -O2 -Wall -Wextra -o "$payload/massload" "$here/massload.c"
cp "$here/guest-cases.sh" "$payload/cases.sh"
chmod 0755 "$payload/cases.sh"
guest_loader

# join MODE LOG: one line per mutant,
#   ID SET CLASS OUTCOME RESULT TAINT DESCRIPTION
# SET is s (signed) or u (unsigned); OUTCOME is pgp-verify's; RESULT and
# TAINT are the kernel's ("none" if the mutant was never tried).
join_results() {
	perl -e '
	my ($ms, $mu, $ver, $log, $skip) = @ARGV;
	my (%set, %class, %what, %out, %res, %taint, @order);
	for my $f ([$ms, "s"], [$mu, "u"]) {
		open(my $m, "<", $f->[0]) or die "$f->[0]: $!\n";
		while (<$m>) { chomp; my ($i, $c, $w) = split / /, $_, 3; $set{$i} = $f->[1]; $class{$i} = $c; $what{$i} = $w; push @order, $i }
	}
	open(my $v, "<", $ver) or die; while (<$v>) {
		next unless /^\.\/(\d+)\.ko: ([a-z0-9-]+)(.*)/;
		my ($id, $o, $detail) = ($1 + 0, $2, $3);
		# A trailer that is neither PGP nor PKCS#7 is refused by the
		# PKCS#7 path, which keeps 6.1 leniency, not by the PGP one.
		$o = "unsupported-nonpgp" if $o eq "unsupported" && $detail =~ /X\.509 key identifier|not PGP or PKCS#7/;
		$out{$id} = $o;
	}
	open(my $l, "<", $log) or die; while (<$l>) { s/\r//; /^M (\d+) (\S+) (-?\d+)$/ and ($res{$1} = $2, $taint{$1} = $3) }
	if ($skip) { open(my $s, "<", $skip) or die; while (<$s>) { chomp; $res{$_} //= "SKIP"; $taint{$_} //= "-" } }
	for my $i (@order) {
		printf "%d %s %s %s %s %s %s\n", $i, $set{$i}, $class{$i}, $out{$i} // "none", $res{$i} // "none", $taint{$i} // "none", $what{$i};
	}' "$work/manifest.signed" "$work/manifest.unsigned" "$work/verify.out" "$1" "${2:-}"
}

# first LINES: the first few lines of a list, on one line
first() {
	echo "$1" | sed -n 1,5p | tr '\n' '|' | sed 's/|$//'
}

# Checks for both modes.
common_checks() {
	local mode=$1 log=$2 joined=$3 bad ntried
	ntried=$(awk '$5 != "none" && $5 != "SKIP"' "$joined" | wc -l)
	if [ "$mode" = permissive ]; then
		check "hostile/$mode: every mutant was tried in the guest but the $nskip with a damaged ELF behind a tolerated signature" \
			"$((total - nskip))" "$ntried"
	else
		check "hostile/$mode: every mutant was tried in the guest" "$total" "$ntried"
	fi
	bad=$(awk '$5 == "DIED" || $5 == "HUNG"' "$joined")
	if [ -z "$bad" ]; then
		pass "hostile/$mode: no mutant killed or hung the loader"
	else
		fail "hostile/$mode: no mutant killed or hung the loader" \
			"$(echo "$bad" | wc -l) did (ID SET CLASS VERIFIER KERNEL TAINT WHAT): $(first "$bad")"
	fi
	check "hostile/$mode: every loaded mutant was removed again" "" "$(first "$(awk '/^RMMOD-FAILED/' "$log")")"
	# The console and the guest's own scan of the whole kernel log
	# (SPLAT lines), which sees what loglevel=3 kept off the console.
	bad=$(awk -v re="$splat_re" '$0 ~ re' "$log")
	if [ -z "$bad" ]; then
		pass "hostile/$mode: no oops, BUG, WARNING or fault in $(sed -n 's/^KLOG-LINES //p' "$log") lines of kernel log"
	else
		fail "hostile/$mode: no oops, BUG, WARNING or fault" \
			"$(echo "$bad" | grep -c .) lines: $(echo "$bad" | sed -n 1,3p | tr '\n' '|')"
	fi
}

enforce_checks() {
	local log=$1 joined=$2 bad nsigned nuns nload
	check "hostile/enforce: guest enforcing and untainted at start" "mode=enforce tainted=0" \
		"$(sed -n 's/^HOSTILE-START //p' "$log")"
	bad=$(awk '$2 == "s" && $3 == "signed" && $5 == "OK"' "$joined")
	nsigned=$(awk '$2 == "s" && $3 == "signed"' "$joined" | wc -l)
	if [ -z "$bad" ]; then
		pass "hostile/enforce: all $nsigned mutants that changed signed bytes were refused"
	else
		fail "hostile/enforce: mutants that changed signed bytes were refused" \
			"$(echo "$bad" | wc -l) loaded: $(first "$bad")"
	fi
	# Unsigned-bytes mutants: loaded exactly when the verifier says valid.
	bad=$(awk '$2 == "s" && $3 == "unsigned" && (($4 == "valid") != ($5 == "OK"))' "$joined")
	nuns=$(awk '$2 == "s" && $3 == "unsigned"' "$joined" | wc -l)
	nload=$(awk '$2 == "s" && $3 == "unsigned" && $5 == "OK"' "$joined" | wc -l)
	if [ -z "$bad" ]; then
		pass "hostile/enforce: of $nuns mutants that changed only unsigned bytes, the $nload pgp-verify calls valid loaded, the rest were refused"
	else
		fail "hostile/enforce: unsigned-bytes mutants load exactly when valid" \
			"$(echo "$bad" | wc -l) differ: $(first "$bad")"
	fi
	# The errno each verifier outcome stands for when enforcing (the guest
	# table's map, OK:0 written OK here).
	bad=$(awk '
		NR == FNR { e[$1] = ($2 == "OK:0" ? "OK" : $2); next }
		$2 != "s" { next }
		$4 == "pkcs7" { if ($5 == "OK") print; next }
		!($4 in e) || e[$4] != $5' <(pgp_verify_map enforce) "$joined")
	if [ -z "$bad" ]; then
		pass "hostile/enforce: kernel errno matches pgp-verify's outcome for all $n signed mutants"
	else
		fail "hostile/enforce: kernel errno matches pgp-verify's outcome" \
			"$(echo "$bad" | wc -l) differ (ID SET CLASS VERIFIER KERNEL TAINT WHAT): $(first "$bad")"
	fi
	bad=$(awk '$2 == "u" && $5 != "EKEYREJECTED"' "$joined")
	if [ -z "$bad" ]; then
		pass "hostile/enforce: all $nu unsigned mutants were refused with EKEYREJECTED"
	else
		fail "hostile/enforce: unsigned mutants refused with EKEYREJECTED" \
			"$(echo "$bad" | wc -l) were not: $(first "$bad")"
	fi
	check "hostile/enforce: taint mask 0 after every load" "" "$(first "$(awk '$6 != "0"' "$joined")")"
	check "hostile/enforce: valid module loads afterwards, untainted" "OK 0" "$(sed -n 's/^VALID-AFTER //p' "$log")"
	check "hostile/enforce: guest untainted at the end" "tainted=0" "$(sed -n 's/^HOSTILE-END //p' "$log")"
}

permissive_checks() {
	local log=$1 joined=$2 bad nbad
	if [ "$(awk '$2 == "s" && $5 != "SKIP"' "$joined" | wc -l)" -ge 1000 ]; then
		pass "hostile/permissive: at least 1000 signed mutants loaded ($nskip left out)"
	else
		fail "hostile/permissive: at least 1000 signed mutants loaded" "$nskip of $n left out"
	fi
	check "hostile/permissive: guest permissive and untainted at start" "mode=permissive tainted=0" \
		"$(sed -n 's/^HOSTILE-START //p' "$log")"
	# The behaviour table in permissive mode.  "load" is an outcome the
	# signature check lets through, tainted: the module then loads, or the
	# ELF checks refuse it, with an errno no signature check gives.
	bad=$(awk '
		NR == FNR { e[$1] = ($2 == "OK:0" ? "OK" : $2 == "OK:E" ? "load" : $2); next }
		BEGIN { e["pkcs7"] = "any";
			sig["EKEYREJECTED"] = sig["EKEYEXPIRED"] = sig["EKEYREVOKED"] = sig["ENOPKG"] = sig["EBADMSG"] = sig["ENOKEY"] = sig["ENODATA"] = 1 }
		$2 != "s" || $5 == "SKIP" { next }
		!($4 in e) { print; next }
		e[$4] == "any" { next }
		e[$4] == "load" { if ($5 in sig || $5 == "none" || $5 == "DIED" || $5 == "HUNG") print; next }
		e[$4] != $5' <(pgp_verify_map permissive) "$joined")
	if [ -z "$bad" ]; then
		pass "hostile/permissive: kernel errno matches pgp-verify's outcome for all $n signed mutants"
	else
		fail "hostile/permissive: kernel errno matches pgp-verify's outcome" \
			"$(echo "$bad" | wc -l) differ (ID SET CLASS VERIFIER KERNEL TAINT WHAT): $(first "$bad")"
	fi
	check "hostile/permissive: the unsigned body loads, tainted E" "OK 8192" \
		"$(awk '$3 == "intact" { print $5, $6 }' "$joined")"
	nbad=$(awk '$3 == "elf-bad"' "$joined" | wc -l)
	bad=$(awk '$3 == "elf-bad" && $5 != "ENOEXEC"' "$joined")
	if [ -z "$bad" ]; then
		pass "hostile/permissive: all $nbad malformed unsigned mutants were refused with ENOEXEC"
	else
		fail "hostile/permissive: malformed unsigned mutants refused with ENOEXEC" \
			"$(echo "$bad" | wc -l) of $nbad were not: $(first "$bad")"
	fi
	bad=$(awk '$3 == "elf-ok" && ($5 == "none" || $5 == "DIED" || $5 == "HUNG" || $5 ~ /^(EKEYREJECTED|EKEYEXPIRED|EKEYREVOKED|ENOPKG|EBADMSG|ENOKEY|ENODATA)$/)' "$joined")
	check "hostile/permissive: other unsigned mutants load or get an ELF error" "" "$(first "$bad")"
	# Taint: E (8192) after every tainting load, nothing else ever, and
	# nothing before the first module that should taint loads.
	bad=$(awk '
		$5 == "SKIP" { next }
		$5 == "OK" && ($2 == "u" || $4 != "valid") { tainting = 1; if ($6 != "8192") print; next }
		$6 != "0" && $6 != "8192" { print; next }
		!tainting && $6 != "0" { print }' "$joined")
	check "hostile/permissive: taint E after each tainting load, and nothing else" "" "$(first "$bad")"
	check "hostile/permissive: valid module loads afterwards" "OK" \
		"$(sed -n 's/^VALID-AFTER \([A-Z]*\) .*/\1/p' "$log")"
	echo "# permissive: unsigned mutants by class and kernel result:"
	awk '$2 == "u" { print "#   " $3 " -> " $5 }' "$joined" | sort | uniq -c | sort -rn
}

for mode in $modes; do
	log="$work/guest-$mode.log"
	args=(loglevel=3 log_buf_len=8M)
	skip=
	case "$mode" in
	enforce)
		args+=(module.sig_enforce=1)
		cp "$work/all.list" "$payload/mutants.list"
		;;
	permissive)
		cp "$work/permissive.list" "$payload/mutants.list"
		skip="$work/permissive.skip"
		;;
	*)
		fail "hostile: mode $mode" "HOSTILE_MODES takes enforce and permissive"
		continue
		;;
	esac
	start=$SECONDS
	rm -f "$log"
	# A run takes well under a minute per mode; a load that oopses
	# holding a module in the list makes the next one wait forever, and
	# the timeout (300 s) ends the boot.
	# guest_boot's status is not enough (a failed mkinitramfs does not
	# stop it): the guest must have reached the end of the cases.
	if MODSIGN_QEMU_TIMEOUT=${MODSIGN_QEMU_TIMEOUT:-300} guest_boot "$kernel" "$payload" "$log" "${args[@]}" &&
		grep -q '^HOSTILE-END' "$log"; then
		pass "hostile/$mode: guest went through its $(wc -l <"$payload/mutants.list") mutants in $((SECONDS - start))s"
	else
		fail "hostile/$mode: guest went through its mutants" "after $((SECONDS - start))s, see $log"
		grep -q '^HOSTILE-START' "$log" 2>/dev/null || continue
	fi
	joined="$work/joined-$mode"
	join_results "$log" "$skip" >"$joined"
	common_checks "$mode" "$log" "$joined"
	"${mode}_checks" "$log" "$joined"
	echo "# $mode: results by set, verifier outcome and kernel errno:"
	awk '{ print "#   " $2 " " $4 " -> " $5 }' "$joined" | sort | uniq -c | sort -rn
done
finish
