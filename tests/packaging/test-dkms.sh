#!/bin/bash
# External modules on the installed system, built the way users of the
# packages build them: a Debian bookworm root (a chroot; nothing is loaded
# into this machine's kernel) gets the kernel, its headers and
# modsign-dkms from the packages, and Debian's own vpoll-dkms, a
# third-party module package from the archive, is built by dkms and
# signed through modsign-dkms's sign_file.  Then the kernel from the
# package is booted in QEMU with module.sig_enforce=1 and loads, or
# refuses, what dkms and make built.
#
# rpm: the kernel trusts the packager's key (its build's MODPUBKEY).  dkms
#   signing with that key gives a module that loads untainted; a key the
#   kernel does not know signs nothing (sign_file refuses, the module stays
#   unsigned), and a module signed with it anyway is refused; an X.509 key
#   still goes to the kernel's sign-file (PKCS#7).  By hand, make M=DIR
#   against /lib/modules/RELEASE/build leaves modules unsigned, or signs
#   them with MODSECKEY.
# deb: its modules are signed with the ephemeral key of its build,
#   deleted since; the packager's key, built in beside it
#   (MODPUBKEY_EXTRA), is the DKMS key.  Installing the headers runs dkms
#   (header_postinst.d), which signs with it, and the module loads under
#   enforce; a key the kernel does not know signs nothing, and the kernel
#   refuses the unsigned module.  make M= with MODSECKEY signs too.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"
# shellcheck source=../guest/guestlib.sh
. "$here/../guest/guestlib.sh"

ensure_packages
dkms_root
root_tar=$pkg_dkms_root

outsider=$(testkey outsider)

yesno() {
	if "$@"; then echo yes; else echo no; fi
}

# new_root NAME: a fresh copy of the root in $root, with the test keys in
# /etc/modsign (0600) and the test modules' sources in /root/extmod.
new_root() {
	root=$(scratch "dkms-$1")/root
	mkdir -p "$root"
	tar -xf "$root_tar" -C "$root"
	# The root was made without documentation; what the packages install
	# from here on is installed whole (the deb's keyring is a doc file).
	rm -f "$root/etc/dpkg/dpkg.cfg.d/99mmdebstrap"
	install -d -m 0700 "$root/etc/modsign"
	install -m 0600 "$pkg_packager_key/sec" "$root/etc/modsign/packager.sec"
	install -m 0644 "$pkg_packager_key/pub" "$root/etc/modsign/packager.pub"
	install -m 0600 "$outsider/sec" "$root/etc/modsign/outsider.sec"
	install -m 0644 "$outsider/pub" "$root/etc/modsign/outsider.pub"
	mkdir -p "$root/pkg"
	cp -r "$pkg_top/tests/modules/extmod" "$root/root/extmod"
}

# in_root ROOT COMMAND: run COMMAND in ROOT with a clean environment, in
# mount and PID namespaces of its own with ROOT's /proc mounted (dkms
# needs it): the mount ends with the namespace, so nothing is left
# mounted in the scratch directory, whatever happens.
in_root() {
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		unshare --mount --pid --fork --mount-proc="$1/proc" \
		chroot "$1" /bin/sh -c "$2"
}

# dkms_key ROOT NAME [KEYFILE]: dkms signs with /etc/modsign/NAME.sec (or
# /etc/modsign/KEYFILE: a public key names a key held by gpg-agent), its
# certificate NAME.pub; no NAME: the framework's defaults (an X.509 key
# dkms makes itself)
dkms_key() {
	if [ -n "$2" ]; then
		printf 'mok_signing_key=/etc/modsign/%s\nmok_certificate=/etc/modsign/%s.pub\n' \
			"${3:-$2.sec}" "$2" >"$1/etc/dkms/framework.conf.d/zz-test.conf"
	else
		rm -f "$1/etc/dkms/framework.conf.d/zz-test.conf"
	fi
}

# built_module ROOT KREL: a copy, uncompressed, of the vpoll module dkms
# built last (the modules of dkms's tree may be compressed)
built=0
built_module() {
	local f copy
	f=$(find "$1/var/lib/dkms/vpoll/0.1/$2" -path '*/module/vpoll.ko*' | sed -n 1p)
	built=$((built + 1))
	copy=$1.vpoll-$built.ko
	case "$f" in
	'') return 1 ;;
	*.xz) xz -dc "$f" >"$copy" ;;
	*.zst) zstd -qdc "$f" >"$copy" ;;
	*.gz) gzip -dc "$f" >"$copy" ;;
	*) cp "$f" "$copy" ;;
	esac
	echo "$copy"
}

# boot_cases KIND KERNEL PAYLOAD: boot KERNEL under enforce with the
# payload's modules and cases.list; the console log's path goes to
# PAYLOAD.log-path
boot_cases() {
	local log=$3.console.log
	if ! guest_boot "$2" "$3" "$log" module.sig_enforce=1 >/dev/null 2>&1; then
		fail "$1: guest boots" "see $log"
		return 1
	fi
	pass "$1: guest boots"
	guest_no_splat "$1: no kernel splat" "$log"
	echo "$log" >"$3.log-path"
}

# unknown_key_build KIND: dkms builds vpoll again, with a key the kernel
# does not know: sign_file refuses it, and the module is left unsigned,
# with no partial file beside it.  A copy goes to the payload as
# vpoll-refused.ko; mod is left naming the module.
unknown_key_build() {
	local rc=0
	dkms_key "$root" outsider
	in_root "$root" "dkms remove vpoll/0.1 -k $krel" >>"$root.dkms-remove.log" 2>&1
	in_root "$root" "dkms build vpoll/0.1 -k $krel" >"$root.dkms-outsider.log" 2>&1 || rc=$?
	check "$1: dkms build with an unknown key (dkms ignores sign_file's status)" 0 "$rc"
	check "$1: sign_file refuses the key the kernel does not know" 1 \
		"$(grep -c "modsign-sign-file: .*vpoll.ko: unknown-key.* with the keyring of $krel .*: not signed$" \
			"$root.dkms-outsider.log" || :)"
	mod=$(built_module "$root" "$krel") || mod=/nonexistent
	check "$1: the module is left unsigned" unsigned "$(verify_outcome "$ring" "$mod")"
	check "$1: no partial file left beside it" "" \
		"$(find "$root/var/lib/dkms/vpoll/0.1" -name '*.modsign.*' -printf '%P ')"
	[ ! -f "$mod" ] || cp "$mod" "$payload/modules/vpoll-refused.ko"
}

# extmod_builds KIND: make M= against the installed tree, as a user
# builds a module by hand: with no key, NOSIGN and unsigned; with
# MODSECKEY the packager's key, valid for the kernel.  Copies go to the
# payload as extmod-unsigned.ko and extmod-signed.ko.
extmod_builds() {
	local rc=0
	in_root "$root" "make -C /lib/modules/$krel/build M=/root/extmod modules" \
		>"$root.extmod.log" 2>&1 || rc=$?
	check "$1: make M= against the installed tree" 0 "$rc"
	check "$1: make M= with no key: NOSIGN for each module" 2 \
		"$(grep -c '^  NOSIGN  /root/extmod/extmod_[ab].ko$' "$root.extmod.log" || :)"
	check "$1: make M= with no key: unsigned" unsigned \
		"$(verify_outcome "$ring" "$root/root/extmod/extmod_a.ko")"
	cp "$root/root/extmod/extmod_a.ko" "$payload/modules/extmod-unsigned.ko"
	rc=0
	in_root "$root" "make -C /lib/modules/$krel/build M=/root/extmod MODSECKEY=/etc/modsign/packager.sec modules" \
		>"$root.extmod-signed.log" 2>&1 || rc=$?
	check "$1: make M= MODSECKEY= against the installed tree" 0 "$rc"
	check "$1: make M= MODSECKEY=: valid for the kernel" valid \
		"$(verify_outcome "$ring" "$root/root/extmod/extmod_a.ko")"
	cp "$root/root/extmod/extmod_a.ko" "$payload/modules/extmod-signed.ko"
}

# --- rpm: the packager's key is the kernel's ---------------------------
guest_loader
new_root rpm
rpm_kernel=$(kernel_rpm)
cp "$rpm_kernel" "$(devel_rpm)" "$(dkms_rpm)" "$root/pkg/"
rc=0
in_root "$root" 'rpm -i --force-debian --nodeps /pkg/*.rpm' >"$root.install.log" 2>&1 || rc=$?
check "rpm: kernel, devel and modsign-dkms install" 0 "$rc"
krel=$(basename "$(one_file "$root/boot/vmlinuz-*")")
krel=${krel#vmlinuz-}
# The build link is absolute, for the root: followed from inside it.
ring=$root/usr/src/kernels/$krel/certs/pgp_pubkeys.gpg
check "rpm: /lib/modules/$krel/build is the devel tree" "/usr/src/kernels/$krel" \
	"$(readlink "$root/lib/modules/$krel/build")"
check "rpm: the devel tree's keyring is the kernel's" yes \
	"$(yesno cmp -s "$ring" "$root/usr/share/doc/kernel-keys/$krel/modsign-pubkeys.gpg")"
check "rpm: no secret key in the devel tree" "" \
	"$(find "$root/usr/src/kernels/$krel" \( -name '*.sec' -o -name '*.pem' -o -name '*.priv' \) -printf '%P ')"

payload=$(scratch dkms-rpm-guest)/payload
mkdir -p "$payload/modules"
: >"$payload/cases.list"

# packager_signed KIND HOW LOG: dkms's module, signed by sign_file with
# HOW (LOG says so once), verifies with the kernel's keyring and names
# the packager's key; leaves its path in mod
packager_signed() {
	check "$1: $2: sign_file signed it for $krel" 1 \
		"$(grep -c "modsign-sign-file: .*vpoll.ko: signed for $krel$" "$3" || :)"
	mod=$(built_module "$root" "$krel") || mod=/nonexistent
	check "$1: $2: the module verifies with the kernel's keyring" valid \
		"$(verify_outcome "$ring" "$mod")"
	check "$1: $2: the signature names the packager's key" "$pkg_packager_keyid" \
		"$(modinfo -F sig_key "$mod" 2>/dev/null | tr -d ':' | tr 'A-F' 'a-f')"
}

# dkms with the packager's key
dkms_key "$root" packager
rc=0
in_root "$root" "dkms install vpoll/0.1 -k $krel" >"$root.dkms-packager.log" 2>&1 || rc=$?
check "rpm: dkms install with the kernel's key" 0 "$rc"
check "rpm: dkms called modsign-sign-file" 1 \
	"$(grep -c "^Sign command: /usr/lib/modsign/modsign-sign-file$" "$root.dkms-packager.log" || :)"
packager_signed rpm "the packager's key file" "$root.dkms-packager.log"
installed=$(find "$root/lib/modules/$krel" -name 'vpoll.ko*' -printf '%P\n')
check "rpm: dkms installed it for $krel" yes "$(yesno test -n "$installed")"
check "rpm: depmod indexed it" yes \
	"$(yesno grep -q "^$installed:" "$root/lib/modules/$krel/modules.dep")"
[ ! -f "$mod" ] || cp "$mod" "$payload/modules/vpoll-packager.ko"
echo "vpoll-packager vpoll-packager.ko vpoll" >>"$payload/cases.list"

# A key the kernel does not know: sign_file refuses, the module stays unsigned.
unknown_key_build rpm
echo "vpoll-refused vpoll-refused.ko vpoll" >>"$payload/cases.list"
# ... and signed with it anyway, the kernel refuses it.
if [ -f "$mod" ]; then
	cp "$mod" "$payload/modules/vpoll-outsider.ko"
	"$KDIR/scripts/modsign/pgp-sign" --secret-key "$outsider/sec" --hash sha256 \
		"$payload/modules/vpoll-outsider.ko"
fi
check "rpm: a module signed with the unknown key" unknown-key \
	"$(verify_outcome "$ring" "$payload/modules/vpoll-outsider.ko")"
echo "vpoll-outsider vpoll-outsider.ko vpoll" >>"$payload/cases.list"

# An X.509 key (dkms makes one when none is set): the kernel's sign-file,
# PKCS#7, as dkms does for any kernel.
dkms_key "$root" ""
in_root "$root" "dkms remove vpoll/0.1 -k $krel" >>"$root.dkms-remove.log" 2>&1
rc=0
in_root "$root" "dkms build vpoll/0.1 -k $krel" >"$root.dkms-x509.log" 2>&1 || rc=$?
check "rpm: dkms build with its own X.509 key" 0 "$rc"
mod=$(built_module "$root" "$krel") || mod=/nonexistent
check "rpm: the X.509 key signs PKCS#7 through sign-file" pkcs7 "$(verify_outcome "$ring" "$mod")"

# A key held by gpg-agent: mok_signing_key names its public half, and the
# agent (started in the root's GNUPGHOME, ended with its PID namespace)
# signs.
dkms_key "$root" packager packager.pub
in_root "$root" "dkms remove vpoll/0.1 -k $krel" >>"$root.dkms-remove.log" 2>&1
rc=0
in_root "$root" "export GNUPGHOME=/root/.gnupg && install -d -m 0700 \$GNUPGHOME &&
	gpg --batch --quiet --import /etc/modsign/packager.sec &&
	dkms build vpoll/0.1 -k $krel" >"$root.dkms-agent.log" 2>&1 || rc=$?
check "rpm: dkms build with the key in gpg-agent" 0 "$rc"
packager_signed rpm "the packager's key in gpg-agent" "$root.dkms-agent.log"
check "rpm: no gpg-agent of the root left running" 0 \
	"$(ps -eo args | awk '/^gpg-agent/ && /\/root\/.gnupg/ { n++ } END { print n + 0 }')"

# By hand against the installed tree: unsigned, then signed with MODSECKEY.
extmod_builds rpm
echo "extmod-unsigned extmod-unsigned.ko extmod_a" >>"$payload/cases.list"
echo "extmod-signed extmod-signed.ko extmod_a" >>"$payload/cases.list"

# Taint 4096 is TAINT_OOT_MODULE ("O"), which every module built outside
# the kernel tree sets when it loads, signed or not, and which stays; the
# unsigned-module taint (8192, "E") must never appear.
if boot_cases rpm "$root/boot/vmlinuz-$krel" "$payload"; then
	log=$(cat "$payload.log-path")
	check "rpm guest: the dkms module signed with the kernel's key loads (out-of-tree taint only)" \
		"OK 4096" "$(guest_result "$log" vpoll-packager)"
	check "rpm guest: the module sign_file refused to sign is refused" \
		"EKEYREJECTED 4096" "$(guest_result "$log" vpoll-refused)"
	check "rpm guest: the module signed with the unknown key is refused" \
		"EKEYREJECTED 4096" "$(guest_result "$log" vpoll-outsider)"
	check "rpm guest: make M= with MODSECKEY loads (out-of-tree taint only)" \
		"OK 4096" "$(guest_result "$log" extmod-signed)"
	check "rpm guest: make M= unsigned is refused" \
		"EKEYREJECTED 4096" "$(guest_result "$log" extmod-unsigned)"
fi

# --- deb: installing the headers runs dkms -----------------------------
# The deb's kernel signs its own modules with its ephemeral key, and
# trusts the packager's key too (MODPUBKEY_EXTRA): the DKMS key here.
new_root deb
cp "$(image_deb)" "$(headers_deb)" "$(dkms_deb)" "$root/pkg/"
rc=0
in_root "$root" 'dpkg -i /pkg/linux-image-*.deb /pkg/modsign-dkms_*.deb' >"$root.install.log" 2>&1 || rc=$?
check "deb: image and modsign-dkms install" 0 "$rc"
dkms_key "$root" packager
rc=0
in_root "$root" 'dpkg -i /pkg/linux-headers-*.deb' >"$root.headers.log" 2>&1 || rc=$?
check "deb: headers install" 0 "$rc"
krel=$(basename "$(one_file "$root/boot/vmlinuz-*")")
krel=${krel#vmlinuz-}
ring=$root/usr/src/linux-headers-$krel/certs/pgp_pubkeys.gpg
check "deb: /lib/modules/$krel/build is the headers tree" "/usr/src/linux-headers-$krel" \
	"$(readlink "$root/lib/modules/$krel/build")"
check "deb: the headers' keyring is the kernel's" yes \
	"$(yesno cmp -s "$ring" "$root/usr/share/doc/linux-image-$krel/modsign-pubkeys.gpg")"
check "deb: headers install runs dkms, which builds vpoll" 1 \
	"$(grep -c '^Building module:' "$root.headers.log" || :)"
packager_signed deb "the DKMS key file" "$root.headers.log"
installed=$(find "$root/lib/modules/$krel" -name 'vpoll.ko*' | sed -n 1p)
check "deb: dkms installed vpoll for $krel" yes "$(yesno test -n "$installed")"

payload=$(scratch dkms-deb-guest)/payload
mkdir -p "$payload/modules"
[ ! -f "$mod" ] || cp "$mod" "$payload/modules/vpoll-dkms.ko"

# A key the kernel does not know: sign_file refuses, the module stays unsigned.
unknown_key_build deb
# By hand against the installed headers: unsigned, then signed with the
# DKMS key as MODSECKEY.
extmod_builds deb

own=$(find "$root/lib/modules/$krel/kernel" -name 'crc7.ko*' | sed -n 1p)
case "$own" in
*.xz) xz -dc "$own" >"$payload/modules/crc7.ko" ;;
*) cp "$own" "$payload/modules/crc7.ko" ;;
esac
# In this order, so that each taint is the one its load adds: the
# kernel's own module, the refused one (no taint), then the out-of-tree
# ones (4096, TAINT_OOT_MODULE; never 8192, the unsigned-module taint).
printf '%s\n' "crc7 crc7.ko crc7" "vpoll-refused vpoll-refused.ko vpoll" \
	"extmod-unsigned extmod-unsigned.ko extmod_a" "vpoll-dkms vpoll-dkms.ko vpoll" \
	"extmod-signed extmod-signed.ko extmod_a" >"$payload/cases.list"
if boot_cases deb "$root/boot/vmlinuz-$krel" "$payload"; then
	log=$(cat "$payload.log-path")
	check "deb guest: the kernel's own module loads untainted" \
		"OK 0" "$(guest_result "$log" crc7)"
	check "deb guest: the module sign_file refused to sign is refused" \
		"EKEYREJECTED 0" "$(guest_result "$log" vpoll-refused)"
	check "deb guest: make M= unsigned is refused" \
		"EKEYREJECTED 0" "$(guest_result "$log" extmod-unsigned)"
	check "deb guest: the dkms module signed with the DKMS key loads (out-of-tree taint only)" \
		"OK 4096" "$(guest_result "$log" vpoll-dkms)"
	check "deb guest: make M= with the DKMS key loads (out-of-tree taint only)" \
		"OK 4096" "$(guest_result "$log" extmod-signed)"
fi

finish
