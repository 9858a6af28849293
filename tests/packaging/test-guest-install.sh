#!/bin/bash
# Install each kernel package in a Debian guest and load its modules:
# boot 1 installs the linux-image deb with dpkg, boot 2 the kernel rpm
# with rpm, each on the kernel image taken from that package, booted with
# module.sig_enforce=1.  In the guest every packaged module is modprobed
# from the installed /lib/modules tree (indexed by the install's depmod),
# and a copy of one module with one byte changed is loaded; then the
# package is removed.  The deb runs the kernel hook directories
# (/etc/kernel/*.d) and linux-update-symlinks as Debian's images do, and
# leaves nothing behind; the host judges the console.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

ensure_packages
guest_root
root_img=$pkg_guest_root

# guest_boot KIND PACKAGE: unpack PACKAGE on the host for its kernel image
# and module list, boot the guest root plus a second archive holding
# /init, the package and the list, and check what the guest reports.
guest_boot() {
	local kind=$1 package=$2 dir unpacked payload log krel mods kernel
	dir=$(scratch "guest-$kind")
	unpacked=$dir/unpacked
	unpack "$package" "$unpacked"
	if ! kernel=$(one_file "$unpacked/boot/vmlinuz-*"); then
		fail "$kind: package holds one kernel image"
		return
	fi
	krel=${kernel##*/vmlinuz-}
	mods=$(cd "$unpacked/lib/modules/$krel" && find . -name '*.ko' | sed 's,^\./,,' | LC_ALL=C sort)
	if [ -z "$mods" ]; then
		fail "$kind: package holds modules" "none under /lib/modules/$krel"
		return
	fi

	payload=$dir/payload
	mkdir -p "$payload/pkg"
	install -m 0755 "$here/guest-init.sh" "$payload/init"
	install -m 0755 /bin/busybox "$payload/pkg/busybox"
	cp "$package" "$payload/pkg/"
	echo "$kind" >"$payload/pkg/kind"
	echo "$mods" >"$payload/pkg/modules.list"
	# A second newc archive after the root: the kernel unpacks both, the
	# later one's /init over the root's.
	(cd "$payload" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -1 >"$dir/payload.cpio.gz"
	cat "$root_img" "$dir/payload.cpio.gz" >"$dir/initrd.gz"

	log=$dir/console.log
	if ! MODSIGN_QEMU_MEM=${MODSIGN_QEMU_MEM:-1536} \
		"$here/../guest/qemu-run.sh" "$kernel" "$dir/initrd.gz" "$log" \
		module.sig_enforce=1 rdinit=/init; then
		fail "$kind: guest boots and finishes" "see $log"
		tail -n 30 "$log" | sed 's/^/    /'
		return
	fi
	pass "$kind: guest boots and finishes"
	guest_report "$log" >"$dir/results"
	local r=$dir/results nmods signer

	check "$kind: guest runs the packaged kernel" "$krel" "$(sed -n 's/^kernel //p' "$r")"
	check "$kind: module.sig_enforce is on" "Y" "$(sed -n 's/^sig_enforce //p' "$r")"
	check "$kind: package installs (exit status)" "0" "$(sed -n 's/^install //p' "$r")"
	check "$kind: packaged modules are in the installed tree" "" "$(sed -n 's/^missing //p' "$r")"
	check "$kind: the install's depmod indexed every module" "$(echo "$mods" | wc -l)" \
		"$(sed -n 's/^depmod-at-install //p' "$r")"
	local image=/boot/vmlinuz-$krel
	if [ "$kind" = deb ]; then
		check "deb: install runs the kernel's preinst.d and postinst.d hooks (version, image)" \
			"preinst.d $krel $image|postinst.d $krel $image" "$(sed -n 's/^hook //p' "$r" | paste -sd'|')"
		check "deb: linux-update-symlinks points /vmlinuz at the image" "${image#/}" \
			"$(sed -n 's/^symlink //p' "$r")"
	fi

	nmods=$(echo "$mods" | wc -l)
	check "$kind: every module modprobes ($nmods)" "$nmods" \
		"$(count_lines '^modprobe [^ ]+ 0 ?$' <"$r")"
	check "$kind: every module is in /proc/modules" "$nmods" "$(loaded_count "$r" "$mods")"
	check "$kind: kernel stays untainted" "0" "$(sed -n 's/^tainted //p' "$r")"

	# Every module names one signer and key, and the kernel's keyring holds
	# that key under that name ("<user ID>: <key ID>" in /proc/keys).
	signer=$(sed -n 's/^signer [^ ]* \(..*\)$/\1/p' "$r" | LC_ALL=C sort -u)
	keyid=$(sed -n 's/^sig_key [^ ]* \(..*\)$/\1/p' "$r" | LC_ALL=C sort -u | tr -d ':' | tr 'A-F' 'a-f')
	check "$kind: modinfo shows one signer and key for all modules ($nmods)" "$nmods $nmods 1 1" \
		"$(count_lines '^signer [^ ]* .' <"$r") $(count_lines '^sig_key [^ ]* .' <"$r") $(count_lines . <<<"$signer") $(count_lines . <<<"$keyid")"
	if [ "$(echo "$signer" | grep -c .)" = 1 ] && [ "$(echo "$keyid" | grep -c .)" = 1 ] &&
		grep '^key ' "$r" | grep -F " $signer: $keyid" >/dev/null; then
		pass "$kind: signer '$signer: $keyid' is a key in the kernel's keyring"
	else
		fail "$kind: signer is a key in the kernel's keyring" \
			"signer '${signer//$'\n'/|}: ${keyid//$'\n'/|}', keys: $(sed -n 's/^key //p' "$r" | tr '\n' ';')"
	fi

	# The rpm carries the packager's key, the deb the ephemeral one.
	if [ "$kind" = rpm ]; then
		check "rpm: signed with the packager's MODSECKEY (key ID)" "$pkg_packager_keyid" "$keyid"
	else
		check "deb: signed with an ephemeral key, not the packager's" "different" \
			"$([ -n "$keyid" ] && [ "$keyid" != "$pkg_packager_keyid" ] && echo different || echo "same: $keyid")"
	fi

	check "$kind: the package is removed (exit status)" 0 "$(sed -n 's/^remove //p' "$r")"
	check "$kind: nothing of /lib/modules/$krel is left, nor a /vmlinuz link" "0 " \
		"$(sed -n 's/^left //p' "$r")"
	if [ "$kind" = deb ]; then
		check "deb: removal runs the prerm.d and postrm.d hooks" \
			"prerm.d $krel $image|postrm.d $krel $image" "$(sed -n 's/^rmhook //p' "$r" | paste -sd'|')"
	fi

	# insmod reports EKEYREJECTED as strerror's text.
	check "$kind: module with one changed byte is refused (EKEYREJECTED)" \
		"1 Key was rejected by service" \
		"$(sed -n 's/^changed \([0-9]*\) .*: \(Key was rejected by service\)$/\1 \2/p; s/^changed \([0-9]*\) \(.*\)$/\1 \2/p' "$r" | sed -n 1p)"
}

for kind in deb rpm; do
	if [ "$kind" = deb ]; then pkg=$(image_deb) || pkg=""; else pkg=$(kernel_rpm) || pkg=""; fi
	if [ -z "$pkg" ]; then
		fail "$kind: kernel package exists in $pkg_dir/$kind"
		continue
	fi
	guest_boot "$kind" "$pkg"
done
finish
