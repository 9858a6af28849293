# shellcheck shell=bash
# Guest kernels and module variants for the QEMU tests.
#
# The main build (KDIR) embeds only its own key.  The guest kernels are
# the same source and config, rebuilt (bzImage only) in their own object
# directories with a keyring that also holds the test keys, so a subkey
# and an expired key can be tried; the modules stay the main build's.
# make keeps them up to date, so the cost is paid once per build directory.

# shellcheck source=../testkeys.sh
. "$(dirname "${BASH_SOURCE[0]}")/../testkeys.sh"

: "${KSRC:?KSRC must point at the patched source tree}"
guest_dir="$BUILD/test/guest"
loader="$guest_dir/loader"

guest_loader() {
	mkdir -p "$guest_dir"
	# A file of its own: tests that run side by side build it too.
	gcc -static -O2 -Wall -Wextra -o "$loader.tmp.$$" \
		"$(dirname "${BASH_SOURCE[0]}")/loader.c"
	mv "$loader.tmp.$$" "$loader"
}

# guest_workdir NAME: a fresh scratch directory for one guest test, with
# the payload's modules/ directory made and the loader built; prints it
guest_workdir() {
	local work
	work=$(scratch "$1")
	mkdir -p "$work/payload/modules"
	guest_loader
	echo "$work"
}

# The test keys built into the guest kernels, after the main build's key:
# a subkey, an expired key, two revoked ones, and those the trust rules
# refuse in whole or in part, or whose forged revocation they ignore
# (tests/testkeys.sh says what the kernel must do with each)
guest_keys=(subkeyed expired revoked subrevoked rsa1024 unbound nobacksig critself
	eddsaself badselfsig forgedrev sha1self)

# guest_keyring: the main build's public key plus the built-in test keys
guest_keyring() {
	local ring="$guest_dir/keyring.pub" k pubs=()
	for k in "${guest_keys[@]}"; do
		pubs+=("$(testkey "$k")/pub")
	done
	mkdir -p "$guest_dir"
	cat "$KDIR/modsign.pub" "${pubs[@]}" >"$ring.tmp"
	if ! cmp -s "$ring.tmp" "$ring"; then
		mv "$ring.tmp" "$ring"
	else
		rm -f "$ring.tmp"
	fi
	echo "$ring"
}

# pgp_verify_map MODE: the kernel's answer, in MODE (permissive or
# enforce), to a module for each outcome of pgp-verify, one "OUTCOME
# RESULT" line each, RESULT in the guest table's notation: OK:0 loads
# untainted, OK:E loads and sets the unsigned-module taint, else the errno
# of finit_module.  Kept here, in one place, for every test that compares
# the kernel with pgp-verify (the guest table, the hostile modules).
#   - ENODATA (unsigned) and ENOKEY (unknown-key) taint in permissive mode
#     and are EKEYREJECTED when enforcing, as in 6.1;
#   - OpenPGP ENOPKG (unsupported) is fatal in both modes (patch 0007);
#   - unsupported-nonpgp, the caller's name for an "unsupported" outcome
#     whose trailer is neither OpenPGP nor PKCS#7 (pgp-verify's detail says
#     "X.509 key identifier" or "not PGP or PKCS#7"), goes down the PKCS#7
#     path, which keeps 6.1's leniency;
#   - pkcs7 is not in the map: pgp-verify does not verify PKCS#7.
pgp_verify_map() {
	local soft
	case "$1" in
	permissive) soft=OK:E ;;
	enforce) soft=EKEYREJECTED ;;
	*)
		echo "pgp_verify_map: mode $1 is not permissive or enforce" >&2
		return 1
		;;
	esac
	cat <<EOF
valid OK:0
unsigned $soft
unknown-key $soft
bad-signature EKEYREJECTED
expired-key EKEYEXPIRED
unsupported ENOPKG
unsupported-nonpgp $soft
corrupt EBADMSG
EOF
}

# The behaviour table's kernel, shared with the compressed-module test:
# SHA-1 built in, so that the sha1 row's ENOPKG is the trust rules'
# refusal, not an algorithm the kernel lacks (the small config has no
# SHA-1), and modules installed xz-compressed, which the kernel can
# decompress itself.  The options of either version are given; the other's
# are dropped by olddefconfig (6.1 has no MODULE_COMPRESS and
# MODULE_COMPRESS_ALL: it compresses whenever a format is chosen).
# shellcheck disable=SC2034 # used by the tests that source this file
guest_table_opts=(CRYPTO_SHA1 MODULE_COMPRESS MODULE_COMPRESS_NONE=n
	MODULE_COMPRESS_XZ MODULE_COMPRESS_ALL MODULE_DECOMPRESS)

# guest_kernel NAME [OPTION | OPTION=n | OPTION=STRING...]: build and
# print the bzImage path.  MODPUBKEY is guest_keyring's unless the caller
# sets guest_modpubkey to another keyring file.
guest_kernel() {
	local name=$1 obj ring opt
	shift
	obj="$BUILD/test/kernel-$name"
	ring=${guest_modpubkey:-$(guest_keyring)}
	mkdir -p "$obj"
	# A new object directory starts as a copy of the main build's (same
	# source and config but for the keys, and MODULE_SIG_FORCE): make then
	# rebuilds only what the differences touch, minutes instead of a whole
	# kernel.  The guest build signs with the main build's secret keys
	# where they are.
	if [ ! -e "$obj/.config.in" ] && [ -e "$KDIR/vmlinux" ]; then
		copy_objtree "$KDIR" "$obj"
	fi
	cp "$KDIR/.config" "$obj/.config.new"
	"$KSRC/scripts/config" --file "$obj/.config.new" \
		--set-str MODULE_SIG_KEY "$KDIR/certs/signing_key.pem"
	for opt in "$@"; do
		case "$opt" in
		*=n) "$KSRC/scripts/config" --file "$obj/.config.new" --disable "${opt%=n}" ;;
		*=*) "$KSRC/scripts/config" --file "$obj/.config.new" \
			--set-str "${opt%%=*}" "${opt#*=}" ;;
		*) "$KSRC/scripts/config" --file "$obj/.config.new" --enable "$opt" ;;
		esac
	done
	if ! cmp -s "$obj/.config.new" "$obj/.config.in"; then
		cp "$obj/.config.new" "$obj/.config"
		make -s -C "$KSRC" O="$obj" olddefconfig >&2 || return 1
		cp "$obj/.config.new" "$obj/.config.in"
	fi
	# Called as $(guest_kernel ...), where set -e does not reach: a
	# failed build must not hand back the bzImage copied from KDIR.
	make -s -C "$KSRC" O="$obj" -j"${JOBS:-2}" MODPUBKEY="$ring" \
		MODSECKEY="$KDIR/modsign.sec" bzImage >&2 || return 1
	echo "$obj/arch/x86/boot/bzImage"
}

# guest_boot KERNEL PAYLOAD-DIR LOG [ARGS...]: pack and boot one guest
guest_boot() {
	local kernel=$1 payload=$2 log=$3
	shift 3
	"$(dirname "${BASH_SOURCE[0]}")/mkinitramfs.sh" "$log.cpio.gz" "$loader" "$payload"
	"$(dirname "${BASH_SOURCE[0]}")/qemu-run.sh" "$kernel" "$log.cpio.gz" "$log" "$@"
	# The serial console ends lines with CR LF.
	sed -i "s/\r$//" "$log"
	rm -f "$log.cpio.gz"
}

# guest_result LOG CASE: "RESULT TAINT" the guest saw for CASE
# (cases.sh's "CASE name mode result taint" line)
guest_result() {
	grep "^CASE $2 " "$1" | sed -n 1p | awk '{ print $4, $5 }'
}

# guest_no_splat NAME LOG: the kernel printed no oops, BUG or WARNING
guest_no_splat() {
	local splat
	splat=$(awk '/Oops|BUG:|WARNING:|Call Trace|general protection|Kernel panic/' "$2")
	if [ -z "$splat" ]; then
		pass "$1"
	else
		fail "$1" "kernel splat: $(echo "$splat" | sed -n 1,3p | tr '\n' '|')"
	fi
}
