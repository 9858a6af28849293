#!/bin/bash
# Build, seed and run the libFuzzer targets; see README.md.
#
#   fuzz.sh build            compile the targets
#   fuzz.sh seeds            make the seed corpus with gpg
#   fuzz.sh check-seeds      the seeds parse as gpg says they should
#   fuzz.sh replay           run every input of regressions/<target>/
#   fuzz.sh run SECONDS [TARGET...]
#                            fuzz each target for SECONDS, print the figures
#   fuzz.sh elf-name-source  print the kernel file the elf-name target needs
#
# Environment: KSRC (kernel source holding the OpenPGP parsers, required),
# MODSIGN_SRC (the signer/verifier sources, default $KSRC/scripts/modsign),
# FUZZ_OUT (work directory, default $BUILD/fuzz), FUZZ_CC (clang-14),
# FUZZ_SEED (libFuzzer's -seed, for a run that can be repeated; random by
# default), FUZZ_SAVE_CRASHES=1 (run copies each crash input it finds to
# the regression inputs, so that replay keeps trying it), FUZZ_REGRESSIONS
# (those inputs, default regressions/ here), FUZZ_TARGETS (the targets,
# default all four), FUZZ_ELFNAME_SRC (the kernel file that defines
# module_unverified_name(), see fuzz-elf-name.c), KDIR (built tree whose modules
# seed elf-name, default $BUILD/linux).
set -euo pipefail

here=$(dirname "$(realpath "$0")")
regressions=${FUZZ_REGRESSIONS:-$here/regressions}
: "${KSRC:?KSRC must point at the patched kernel source}"
MODSIGN_SRC=${MODSIGN_SRC:-$KSRC/scripts/modsign}
FUZZ_OUT=${FUZZ_OUT:-${BUILD:?BUILD or FUZZ_OUT must be set}/fuzz}
cc=${FUZZ_CC:-clang-14}
read -r -a targets <<<"${FUZZ_TARGETS:-pgp-key pgp-sig modsig elf-name}"
elfname_src=${FUZZ_ELFNAME_SRC:-$KSRC/kernel/module/unverified_name.c}

# wanted TARGET: TARGET is one of this run's targets
wanted() {
	local t
	for t in "${targets[@]}"; do
		[ "$t" = "$1" ] && return 0
	done
	return 1
}
# revoke_key and revoke_subkey, shared with the tests' own keys
# shellcheck source=../testkeys.sh
. "$(dirname "${BASH_SOURCE[0]}")/../testkeys.sh"

die() {
	echo "fuzz: $*" >&2
	exit 1
}

# -fno-sanitize-recover: a UBSan finding must stop the run like an ASan
# one, or the fuzzer would print it and carry on as if nothing happened.
san=(-fsanitize=address -fsanitize=undefined -fno-sanitize-recover=all)
cflags=(-g -O1 -fno-omit-frame-pointer -std=gnu11 -Wall -Wno-unused-function
	-Werror=implicit-function-declaration -Werror=incompatible-pointer-types
	"${san[@]}")

# compile OUT SRC FLAGS...: instrumented for coverage, not linked
compile() {
	local out=$1 src=$2
	shift 2
	[ -f "$src" ] || die "$src is missing (KSRC=$KSRC MODSIGN_SRC=$MODSIGN_SRC)"
	"$cc" "${cflags[@]}" -fsanitize=fuzzer-no-link "$@" -c -o "$out" "$src"
}

build() {
	local obj="$FUZZ_OUT/obj" ak o
	local -a defs kflags uflags kobjs=() uobjs=()
	ak="$KSRC/crypto/asymmetric_keys"
	rm -rf "$obj"
	mkdir -p "$obj" "$FUZZ_OUT/bin"
	# The stand-in headers the host tools build the kernel's OpenPGP code
	# with (scripts/modsign/include): the kernel headers the parsers use
	# are forwarded there as they are, everything else is a small
	# userspace version, so a new kernel dependency shows up as a compile
	# error instead of dragging in half of include/.  shim/ adds what the
	# ELF name reader needs.
	[ -d "$MODSIGN_SRC/include" ] || die "$MODSIGN_SRC/include is missing"
	# As scripts/modsign/Makefile has them: nothing to export symbols to,
	# and __printf() as <linux/compiler_attributes.h> has it.
	defs=('-DEXPORT_SYMBOL(sym)=' '-DEXPORT_SYMBOL_GPL(sym)='
	      '-D__printf(a, b)=__attribute__((__format__(printf, a, b)))')
	kflags=(-I"$here/shim" -I"$MODSIGN_SRC/include" "${defs[@]}")
	for o in "$ak/pgp_library.c" "$ak/pgp_key_payload.c" "$ak/pgp_signature.c" \
		"$KSRC/lib/crypto/sha1.c"; do
		compile "$obj/k-$(basename "$o" .c).o" "$o" "${kflags[@]}"
		kobjs+=("$obj/k-$(basename "$o" .c).o")
	done
	# libcrypto stands in for the kernel's crypto API as it does in the
	# host tools: scripts/modsign/ossl.c's ossl_verify_key_sig().
	uflags=(-I"$MODSIGN_SRC" -I"$MODSIGN_SRC/include" "${defs[@]}")
	for o in ossl util; do
		compile "$obj/g-$o.o" "$MODSIGN_SRC/$o.c" "${uflags[@]}"
	done
	compile "$obj/fuzz-pgp-key.o" "$here/fuzz-pgp-key.c" "${uflags[@]}"
	compile "$obj/fuzz-pgp-sig.o" "$here/fuzz-pgp-sig.c" "${kflags[@]}"
	"$cc" "${san[@]}" -fsanitize=fuzzer -o "$FUZZ_OUT/bin/pgp-key" \
		"$obj/fuzz-pgp-key.o" "${kobjs[@]}" "$obj/g-ossl.o" "$obj/g-util.o" -lcrypto
	"$cc" "${san[@]}" -fsanitize=fuzzer -o "$FUZZ_OUT/bin/pgp-sig" \
		"$obj/fuzz-pgp-sig.o" "${kobjs[@]}"

	# The verifier, as scripts/modsign/Makefile builds pgp-verify (with its
	# include/), minus main().
	# The object list is the one scripts/modsign/Makefile gives, asked of
	# make, so that a file the build engineer adds is linked here too.
	[ -f "$MODSIGN_SRC/Makefile" ] || die "$MODSIGN_SRC/Makefile is missing"
	# shellcheck disable=SC2016 # $(pgp-verify-objs) is for make to expand
	for o in $(printf 'include %s\nfuzz-objs:\n\t@echo $(pgp-verify-objs)\n' \
			"$MODSIGN_SRC/Makefile" | make -s --no-print-directory -f - HOSTPKG_CONFIG=pkg-config fuzz-objs); do
		o=${o%.o}
		[ "$o" = pgp-verify ] && continue
		compile "$obj/u-$o.o" "$MODSIGN_SRC/$o.c" "${uflags[@]}"
		uobjs+=("$obj/u-$o.o")
	done
	[ "${#uobjs[@]}" -gt 0 ] || die "no pgp-verify objects in $MODSIGN_SRC/Makefile"
	compile "$obj/fuzz-modsig.o" "$here/fuzz-modsig.c" "${uflags[@]}"
	# Its libraries too (libcrypto, and the decompressors it reads
	# compressed modules with).
	# shellcheck disable=SC2016 # $(HOSTLDLIBS_pgp-verify) is for make to expand
	mapfile -t ulibs < <(printf 'include %s\nfuzz-libs:\n\t@echo $(HOSTLDLIBS_pgp-verify)\n' \
		"$MODSIGN_SRC/Makefile" | make -s --no-print-directory -f - HOSTPKG_CONFIG=pkg-config fuzz-libs |
		tr ' ' '\n' | grep .)
	[ "${#ulibs[@]}" -gt 0 ] || die "no pgp-verify libraries in $MODSIGN_SRC/Makefile"
	"$cc" "${san[@]}" -fsanitize=fuzzer -o "$FUZZ_OUT/bin/modsig" \
		"$obj/fuzz-modsig.o" "${uobjs[@]}" "${ulibs[@]}"

	# The name reader of modules the kernel has not verified: one file,
	# self-contained.  Misaligned ELF headers are the kernel's normal
	# case on x86 (its UBSAN does not check alignment by default).
	if wanted elf-name; then
		[ -f "$elfname_src" ] || die "elf-name harness: source $elfname_src missing (FUZZ_ELFNAME_SRC)"
		compile "$obj/k-elf-name.o" "$elfname_src" "${kflags[@]}" -fno-sanitize=alignment
		compile "$obj/fuzz-elf-name.o" "$here/fuzz-elf-name.c" "${kflags[@]}" -fno-sanitize=alignment
		"$cc" "${san[@]}" -fsanitize=fuzzer -o "$FUZZ_OUT/bin/elf-name" \
			"$obj/fuzz-elf-name.o" "$obj/k-elf-name.o"
	fi
	echo "fuzz: built ${targets[*]} in $FUZZ_OUT/bin"
}

# elf_name_seeds DIR: small real modules of the built tree, signed and
# without their signature, and mutate.py's systematic ELF header edits of
# one of them (the hostile test's malformed modules).
elf_name_seeds() {
	local s=$1 kdir=${KDIR:-$BUILD/linux} ko name n=0 mut
	local -a kos
	mapfile -t kos < <(find "$kdir" -name '*.ko' -size -8k 2>/dev/null | LC_ALL=C sort | head -n 6)
	[ "${#kos[@]}" -gt 0 ] || die "elf-name seeds: no module under $kdir (KDIR)"
	for ko in "${kos[@]}"; do
		name=$(modinfo -F name "$ko")
		n=$((n + 1))
		perl "$KSRC/scripts/extract-module-sig.pl" -0 "$ko" >"$s/body-$name.ko" 2>/dev/null
		cp "$ko" "$s/signed-$name.ko"
		echo "elf-name body-$name.ko name $name"
		echo "elf-name signed-$name.ko name $name"
	done
	mut=$(mktemp -d)
	"$here/../hostile/mutate.py" --unsigned "$s/body-$(modinfo -F name "${kos[0]}").ko" \
		"$mut" 0 1 0 >/dev/null
	for ko in "$mut"/*.ko; do
		cp "$ko" "$s/header-$(basename "$ko")"
	done
	rm -rf "$mut"
	# A malformed header may still leave .modinfo readable: any result.
	echo "elf-name header-*.ko any"
}

# The seed keys live in a private home that is removed, agent and all,
# when seeding ends: a fuzz run leaves no secret key and no process behind.
seed_home=
seed_cleanup() {
	if [ -n "$seed_home" ] && [ -d "$seed_home" ]; then
		gpgconf --homedir "$seed_home" --kill all
		rm -rf "$seed_home"
	fi
}

g() {
	gpg --homedir "$seed_home" --batch --quiet --no-tty --pinentry-mode loopback \
		--passphrase '' "$@"
}

first_fpr() {
	g --with-colons --list-keys "$1" | awk -F: '/^fpr/ { if (!n++) print $10 }'
}

# key_ids WHO: gpg's key IDs of WHO's keys and subkeys, lower case, in order
key_ids() {
	g --with-colons --list-keys "$1" | awk -F: '/^fpr/ {print tolower(substr($10, 25))}'
}

seeds() {
	local s="$FUZZ_OUT/seeds" pgpseed="$here/pgpseed.py" work name f h form uid n
	local -A uids=([plain]="fuzz plain <plain@fuzz>" [subkeyed]="fuzz subkeyed <subkeyed@fuzz>"
		[expired]="fuzz expired <expired@fuzz>")
	local -a signopts
	rm -rf "$s"
	mkdir -p "$s/pgp-key" "$s/pgp-sig" "$s/modsig"
	if wanted elf-name; then
		mkdir -p "$s/elf-name"
		elf_name_seeds "$s/elf-name" >"$s/EXPECT.elf-name"
	fi
	work=$(mktemp -d)
	seed_home="$work/gnupg"
	trap 'seed_cleanup; rm -rf "$work"' EXIT
	mkdir -m 0700 "$seed_home"

	# Small RSA keys: 2048 bits is the least the kernel takes.
	g --quick-gen-key "${uids[plain]}" rsa2048 sign never
	g --quick-gen-key "${uids[subkeyed]}" rsa2048 cert never
	g --quick-add-key "$(first_fpr subkeyed@fuzz)" rsa2048 sign never
	g --faked-system-time 20200101T000000 --quick-gen-key "${uids[expired]}" rsa2048 sign 1d

	# A small stand-in for a stripped module: what is signed does not matter
	# to the parsers, its length does a little (SHA block boundaries).
	head -c 200 /bin/true >"$work/body"

	g --export >"$work/all.pub"
	cp "$work/all.pub" "$s/pgp-key/all.pgp"
	for name in plain subkeyed expired; do
		g --export "$name@fuzz" >"$work/$name.pub"
		(umask 077 && g --export-secret-keys "$name@fuzz" >"$work/$name.sec")
		cp "$work/$name.pub" "$s/pgp-key/ring-$name.pgp"
		"$pgpseed" payloads "$work/$name.pub" "$s/pgp-key/payload-$name"
	done
	# Revoked keys, made after all.pub: a key revoked with the revocation
	# certificate gpg made for it, and a subkey revoked with revkey.  Each
	# signs before its revocation, and its keyring is exported after.
	g --quick-gen-key "fuzz revoked <revoked@fuzz>" rsa2048 sign never
	g --quick-gen-key "fuzz subrevoked <subrevoked@fuzz>" rsa2048 cert,sign never
	g --quick-add-key "$(first_fpr subrevoked@fuzz)" rsa2048 sign never
	g -u "$(first_fpr "<revoked@fuzz>")" --digest-algo SHA256 --detach-sign \
		-o "$work/revoked.rsig" "$work/body"
	g -u "$(key_ids subrevoked@fuzz | sed -n 2p)!" --digest-algo SHA256 --detach-sign \
		-o "$work/subrevoked.rsig" "$work/body"
	revoke_key "$seed_home" "$(first_fpr "<revoked@fuzz>")"
	revoke_subkey "$seed_home" "$(first_fpr subrevoked@fuzz)"
	for name in revoked subrevoked; do
		# <...>: the exact address, which "revoked@fuzz" alone is not.
		g --export "<$name@fuzz>" >"$work/$name.pub"
		cp "$work/$name.pub" "$s/pgp-key/ring-$name.pgp"
	done
	for f in "$s"/pgp-key/*.pgp; do
		for form in 1 2 5; do
			"$pgpseed" newfmt "$f" "${f%.pgp}-new$form.pgp" "$form"
		done
	done

	for name in plain subkeyed expired; do
		for h in SHA1 SHA224 SHA256 SHA384 SHA512; do
			signopts=(--digest-algo "$h")
			# The expired key signs while it was still valid.
			[ "$name" = expired ] && signopts+=(--faked-system-time 20200101T060000)
			g "${signopts[@]}" -u "$(first_fpr "$name@fuzz")" --detach-sign \
				-o "$work/$name-$h.sig" "$work/body"
		done
	done
	# Extra subpackets gpg can be asked for: a notation (critical or not),
	# a signature expiry, a policy URL, a signer's user ID.
	g -u "$(first_fpr plain@fuzz)" --digest-algo SHA256 --sig-notation 'note@fuzz=value' \
		--detach-sign -o "$work/plain-notation.sig" "$work/body"
	g -u "$(first_fpr plain@fuzz)" --digest-algo SHA256 --sig-notation '!crit@fuzz=value' \
		--detach-sign -o "$work/plain-critical.sig" "$work/body"
	g -u "$(first_fpr plain@fuzz)" --digest-algo SHA256 --default-sig-expire 1d --sig-policy-url \
		'https://policy.fuzz/' --detach-sign -o "$work/plain-expiry.sig" "$work/body"
	g -u "$(first_fpr plain@fuzz)" --digest-algo SHA256 --sender plain@fuzz \
		--detach-sign -o "$work/plain-sender.sig" "$work/body"

	n=0
	for f in "$work"/*.sig; do
		name=$(basename "$f" .sig)
		uid=${uids[${name%%-*}]}
		cp "$f" "$s/pgp-sig/$name.sig"
		"$pgpseed" module "$work/all.pub" "$work/body" "$f" "$uid" "$s/modsig/$name.in"
		for form in 1 2 5; do
			"$pgpseed" newfmt "$f" "$work/$name-new$form.sig.tmp" "$form"
			cp "$work/$name-new$form.sig.tmp" "$s/pgp-sig/$name-new$form.sig"
			"$pgpseed" module "$work/all.pub" "$work/body" \
				"$work/$name-new$form.sig.tmp" "$uid" "$s/modsig/$name-new$form.in"
		done
		n=$((n + 1))
	done
	# The verifier against a keyring of only the signer's key, of another
	# key (unknown-key) and of a secret key export (which the kernel's
	# keyring splitter refuses); and an unsigned module.
	"$pgpseed" module "$work/plain.pub" "$work/body" "$work/plain-SHA256.sig" \
		"${uids[plain]}" "$s/modsig/own-ring.in"
	"$pgpseed" module "$work/expired.pub" "$work/body" "$work/plain-SHA256.sig" \
		"${uids[plain]}" "$s/modsig/other-ring.in"
	"$pgpseed" module "$work/plain.sec" "$work/body" "$work/plain-SHA256.sig" \
		"${uids[plain]}" "$s/modsig/secret-ring.in"
	# Revoked keys: the verifier, like the kernel, does not use them.
	"$pgpseed" module "$work/revoked.pub" "$work/body" "$work/revoked.rsig" \
		"fuzz revoked <revoked@fuzz>" "$s/modsig/revoked-ring.in"
	"$pgpseed" module "$work/subrevoked.pub" "$work/body" "$work/subrevoked.rsig" \
		"fuzz subrevoked <subrevoked@fuzz>" "$s/modsig/subrevoked-ring.in"
	perl -e 'my $r = do { local $/; open(my $f, "<:raw", $ARGV[0]) or die; <$f> };
		my $b = do { local $/; open(my $f, "<:raw", $ARGV[1]) or die; <$f> };
		print pack("n", length($r)), $r, $b' "$work/plain.pub" "$work/body" \
		>"$s/modsig/unsigned.in"

	expectations >"$s/EXPECT"
	if [ -f "$s/EXPECT.elf-name" ]; then
		cat "$s/EXPECT.elf-name" >>"$s/EXPECT"
		rm "$s/EXPECT.elf-name"
	fi

	seed_cleanup
	seed_home=
	rm -rf "$work"
	trap - EXIT
	echo "fuzz: seeds from $n gpg signatures and 5 keys:" \
		"$(find "$s/pgp-key" -type f | wc -l) pgp-key," \
		"$(find "$s/pgp-sig" -type f | wc -l) pgp-sig," \
		"$(find "$s/modsig" -type f | wc -l) modsig," \
		"$(find "$s" -path '*/elf-name/*' -type f | wc -l) elf-name"
}

# expectations: "TARGET FILE-GLOB RESULT" lines, what the code under test
# must make of each seed, from what gpg says about the keys it made (so
# a kernel fingerprint that differed from gpg's would show here).
expectations() {
	local -a ids all
	local pl sp ss ex h hid params valid expired
	local -A pgp_hash=([SHA1]=2 [SHA224]=11 [SHA256]=8 [SHA384]=9 [SHA512]=10)
	mapfile -t ids < <(key_ids plain@fuzz)
	pl=${ids[0]}
	mapfile -t ids < <(key_ids subkeyed@fuzz)
	sp=${ids[0]}
	ss=${ids[1]}
	mapfile -t ids < <(key_ids expired@fuzz)
	ex=${ids[0]}
	# Every key but the subkeyed primary, which is certify-only: the kernel
	# will not take a key that may not sign data (EKEYREJECTED).
	mapfile -t all < <(g --with-colons --show-keys "$work/all.pub" |
		awk -F: '/^fpr/ {print tolower(substr($10, 25))}' | grep -vx "$sp")
	echo "pgp-key all*.pgp payload=-74 id=- split=0 keys=4 accepted=3 ids=$(IFS=,; echo "${all[*]}")"
	echo "pgp-key ring-plain*.pgp payload=0 id=$pl split=0 keys=1 accepted=1 ids=$pl"
	echo "pgp-key ring-expired*.pgp payload=0 id=$ex split=0 keys=1 accepted=1 ids=$ex"
	# A keyring of one primary key and its subkey is also the payload of
	# that subkey (its signatures verified, the back-signature included).
	echo "pgp-key ring-subkeyed*.pgp payload=0 id=$ss split=0 keys=2 accepted=1 ids=$ss"
	echo "pgp-key payload-plain-0*.pgp payload=0 id=$pl split=0 keys=1 accepted=1 ids=$pl"
	echo "pgp-key payload-expired-0*.pgp payload=0 id=$ex split=0 keys=1 accepted=1 ids=$ex"
	# The certify-only primary is refused, its signing subkey taken.
	echo "pgp-key payload-subkeyed-0*.pgp payload=-129 id=- split=0 keys=1 accepted=0 ids="
	echo "pgp-key payload-subkeyed-1*.pgp payload=0 id=$ss split=0 keys=2 accepted=1 ids=$ss"
	# SHA-1 and SHA-224 signatures parse, but no signature may use them
	# (ENOPKG, unsupported).
	for h in "${!pgp_hash[@]}"; do
		hid=${pgp_hash[$h]}
		params=0 valid=valid expired=expired-key
		case "$h" in
		SHA1 | SHA224) params=-65 valid=unsupported expired=unsupported ;;
		esac
		echo "pgp-sig plain-$h*.sig sig=0 params=$params hash=$hid issuer=$pl"
		echo "pgp-sig subkeyed-$h*.sig sig=0 params=$params hash=$hid issuer=$ss"
		echo "pgp-sig expired-$h*.sig sig=0 params=$params hash=$hid issuer=$ex"
		echo "modsig plain-$h*.in $valid"
		echo "modsig subkeyed-$h*.in $valid"
		echo "modsig expired-$h*.in $expired"
	done
	for h in notation sender expiry; do
		echo "pgp-sig plain-$h*.sig sig=0 params=0 hash=8 issuer=$pl"
	done
	echo "pgp-sig plain-critical*.sig sig=-65 params=1 hash=0 issuer=-"
	echo "modsig plain-notation*.in valid"
	echo "modsig plain-sender*.in valid"
	echo "modsig plain-expiry*.in expired-key"
	echo "modsig plain-critical*.in unsupported"
	echo "modsig own-ring.in valid"
	# The kernel's keyring splitter refuses secret key packets (and the
	# build never embeds them: pgp-verify --check-pubring).
	echo "modsig secret-ring.in keyring-refused"
	echo "modsig other-ring.in unknown-key"
	echo "modsig revoked-ring.in unknown-key"
	echo "modsig subrevoked-ring.in unknown-key"
	# A valid revocation refuses a key with its subkeys (EKEYREVOKED), a
	# subkey revocation that subkey alone; the split hands every key on.
	mapfile -t ids < <(key_ids subrevoked@fuzz)
	echo "pgp-key ring-revoked*.pgp payload=-128 id=- split=0 keys=1 accepted=0 ids="
	echo "pgp-key ring-subrevoked*.pgp payload=-128 id=- split=0 keys=2 accepted=1 ids=${ids[0]}"
	echo "modsig unsigned.in unsigned"
}

# check_seeds: each seed gives the RESULT of seeds/EXPECT, and every seed
# is covered by a line of it.
check_seeds() {
	local t glob want f got bad=0 n=0 seen
	local -A result
	for t in "${targets[@]}"; do
		while read -r f got; do
			result[$t/$f]=$got
		done < <(FUZZ_REPORT=1 "$FUZZ_OUT/bin/$t" -runs=1 "$FUZZ_OUT/seeds/$t"/* 2>&1 |
			awk '/^Running: / {f = $2; sub(".*/", "", f)}
			     /^RESULT / && f != "" {sub(/^RESULT /, ""); print f, $0; f = ""}')
	done
	seen=$(mktemp)
	while read -r t glob want; do
		wanted "$t" || continue
		for f in "$FUZZ_OUT/seeds/$t"/$glob; do
			[ -e "$f" ] || { echo "fuzz: no seed matches $t/$glob"; bad=$((bad + 1)); continue; }
			f=$(basename "$f")
			echo "$t/$f" >>"$seen"
			got=${result[$t/$f]:-none}
			[ "$t" = modsig ] && got=${got%% *}
			n=$((n + 1))
			if [ "$want" = any ] && [ "$got" != none ]; then
				:
			elif [ "$got" != "$want" ]; then
				echo "fuzz: seed $t/$f: expected '$want', got '$got'"
				bad=$((bad + 1))
			fi
		done
	done <"$FUZZ_OUT/seeds/EXPECT"
	for t in "${targets[@]}"; do
		for f in "$FUZZ_OUT/seeds/$t"/*; do
			if ! grep -qxF "$t/$(basename "$f")" "$seen"; then
				echo "fuzz: seed $t/$(basename "$f") has no expectation"
				bad=$((bad + 1))
			fi
		done
	done
	rm -f "$seen"
	echo "fuzz: seeds: $((n - bad < 0 ? 0 : n - bad))/$n as expected, $bad problems"
	[ "$bad" -eq 0 ]
}

# replay: every saved crash input, each a past bug, must now run clean.
replay() {
	local t bin rc=0 n
	local -a inputs
	for t in "${targets[@]}"; do
		bin="$FUZZ_OUT/bin/$t"
		[ -x "$bin" ] || die "$bin is not built"
		mapfile -t inputs < <(find "$regressions/$t" -type f ! -name README 2>/dev/null | sort)
		n=${#inputs[@]}
		if [ "$n" -eq 0 ]; then
			echo "fuzz: replay $t: no regression inputs"
			continue
		fi
		if "$bin" -runs=1 "${inputs[@]}" >"$FUZZ_OUT/replay-$t.log" 2>&1; then
			echo "fuzz: replay $t: $n inputs ran clean"
		else
			echo "fuzz: replay $t: FAILED (log: $FUZZ_OUT/replay-$t.log)"
			grep -E 'ERROR|runtime error|FUZZ-INVARIANT|Running:' \
				"$FUZZ_OUT/replay-$t.log" | tail -n 5 | sed 's/^/    /'
			rc=1
		fi
	done
	return "$rc"
}

# run SECONDS [TARGET...]: one libFuzzer process per target.  The corpus
# under $FUZZ_OUT/corpus grows from run to run; the seeds are read only.
run() {
	local secs=$1 t bin log rc=0 trc execs stats crashes c
	local -a seed=()
	shift
	[ -z "${FUZZ_SEED:-}" ] || seed=(-seed="$FUZZ_SEED")
	[ "$#" -gt 0 ] || set -- "${targets[@]}"
	for t in "$@"; do
		bin="$FUZZ_OUT/bin/$t"
		[ -x "$bin" ] || die "$bin is not built"
		[ -d "$FUZZ_OUT/seeds/$t" ] || die "no seeds for $t (run: fuzz.sh seeds)"
		# Crash inputs of earlier runs are kept, but apart, so the count
		# below is this run's.
		if [ -d "$FUZZ_OUT/crashes/$t" ]; then
			mkdir -p "$FUZZ_OUT/crashes-earlier/$t"
			find "$FUZZ_OUT/crashes/$t" -type f -exec mv -t "$FUZZ_OUT/crashes-earlier/$t" {} +
		fi
		mkdir -p "$FUZZ_OUT/corpus/$t" "$FUZZ_OUT/crashes/$t" "$FUZZ_OUT/logs"
		log="$FUZZ_OUT/logs/$t.log"
		if "$bin" "${seed[@]}" -max_total_time="$secs" -print_final_stats=1 -max_len=8192 \
			-timeout=10 -rss_limit_mb=1024 -detect_leaks=1 \
			-artifact_prefix="$FUZZ_OUT/crashes/$t/" \
			"$FUZZ_OUT/corpus/$t" "$FUZZ_OUT/seeds/$t" >"$log" 2>&1; then
			trc=0
		else
			trc=$?
		fi
		execs=$(awk '/^stat::number_of_executed_units:/ {print $2}' "$log")
		# The last status line has the final coverage: "cov: N ft: N corp: N/..."
		# (A crash among the seeds leaves no status line: no stats then.)
		stats=$(awk '/^#[0-9]+/ { last = $0 } END { print last }' "$log" |
			sed -nE 's/.*cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+).*exec\/s: ([0-9]+).*/cov \1, ft \2, corpus \3, \4 exec\/s/p')
		crashes=$(find "$FUZZ_OUT/crashes/$t" -type f | wc -l)
		echo "fuzz: $t: ${execs:-?} executions in ${secs}s, ${stats:-no stats}, exit $trc, $crashes crash inputs"
		if [ "$trc" -ne 0 ]; then
			rc=1
			grep -E 'ERROR: |runtime error|FUZZ-INVARIANT|SUMMARY|Test unit written' \
				"$log" | sed -n 1,6p | sed 's/^/    /'
			echo "    log: $log"
		fi
		if [ "${FUZZ_SAVE_CRASHES:-0}" = 1 ] && [ "$crashes" -gt 0 ]; then
			mkdir -p "$regressions/$t"
			for c in "$FUZZ_OUT/crashes/$t"/*; do
				cp "$c" "$regressions/$t/"
				echo "    regression input: $regressions/$t/${c##*/}"
			done
		fi
	done
	return "$rc"
}

case "${1:-}" in
build) build ;;
seeds) seeds ;;
replay) replay ;;
check-seeds) check_seeds ;;
elf-name-source) echo "$elfname_src" ;;
run)
	shift
	[ "$#" -ge 1 ] || die "usage: fuzz.sh run SECONDS [TARGET...]"
	run "$@"
	;;
*)
	echo "usage: fuzz.sh build|seeds|check-seeds|replay|run SECONDS [TARGET...]|elf-name-source" >&2
	exit 2
	;;
esac
