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
	gcc -static -O2 -Wall -Wextra -o "$loader.tmp" \
		"$(dirname "${BASH_SOURCE[0]}")/loader.c"
	mv "$loader.tmp" "$loader"
}

# guest_keyring: the main build's public key plus the built-in test keys
# (two of them revoked, which the kernel must not load)
guest_keyring() {
	local ring="$guest_dir/keyring.pub" sub exp rev subrev
	sub=$(testkey subkeyed)
	exp=$(testkey expired)
	rev=$(testkey revoked)
	subrev=$(testkey subrevoked)
	mkdir -p "$guest_dir"
	cat "$KDIR/modsign.pub" "$sub/pub" "$exp/pub" "$rev/pub" "$subrev/pub" >"$ring.tmp"
	if ! cmp -s "$ring.tmp" "$ring"; then
		mv "$ring.tmp" "$ring"
	else
		rm -f "$ring.tmp"
	fi
	echo "$ring"
}

# guest_kernel NAME [KCONFIG-OPTION...]: build and print the bzImage path
guest_kernel() {
	local name=$1 obj ring opt
	shift
	obj="$BUILD/test/kernel-$name"
	ring=$(guest_keyring)
	mkdir -p "$obj"
	cp "$KDIR/.config" "$obj/.config.new"
	"$KSRC/scripts/config" --file "$obj/.config.new" \
		--set-str MODULE_SIG_KEY "$KDIR/certs/signing_key.pem"
	for opt in "$@"; do
		"$KSRC/scripts/config" --file "$obj/.config.new" --enable "$opt"
	done
	if ! cmp -s "$obj/.config.new" "$obj/.config.in"; then
		cp "$obj/.config.new" "$obj/.config.in"
		cp "$obj/.config.new" "$obj/.config"
		make -s -C "$KSRC" O="$obj" olddefconfig >&2
	fi
	make -s -C "$KSRC" O="$obj" -j"${JOBS:-2}" MODPUBKEY="$ring" \
		MODSECKEY="$KDIR/modsign.sec" bzImage >&2
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

# guest_no_splat NAME LOG: the kernel printed no oops, BUG or WARNING
guest_no_splat() {
	local splat
	splat=$(grep -E 'Oops|BUG:|WARNING:|Call Trace|general protection|Kernel panic' "$2" || true)
	if [ -z "$splat" ]; then
		pass "$1"
	else
		fail "$1" "kernel splat: $(echo "$splat" | sed -n 1,3p | tr '\n' '|')"
	fi
}
