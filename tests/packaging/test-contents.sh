#!/bin/bash
# The kernel packages hold what a kernel package must: the image, its
# System.map and config, every module the build made (as many as the
# main build's modules.order lists, for the same config) and a
# modules.dep, written after signing, that names every one of them; the
# public keyring built into the kernel, in a doc path, by which every
# packaged module verifies; and no throwaway X.509 key built in.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

ensure_packages
want=$(grep -c . "$KDIR/modules.order")
verify=$KDIR/scripts/modsign/pgp-verify

# check_contents KIND PACKAGE KEYRING-PATH (KEYRING-PATH has REL for the release)
check_contents() {
	local kind=$1 dir rel f n listed keyring valid ko
	local -a rels
	dir=$(scratch "contents-$kind")
	unpack "$2" "$dir"
	mapfile -t rels < <(find "$dir/lib/modules" -mindepth 1 -maxdepth 1 -type d -printf '%f\n')
	check "$kind: one kernel release under /lib/modules" 1 "${#rels[@]}"
	rel=${rels[0]:-none}
	for f in "vmlinuz-$rel" "System.map-$rel" "config-$rel"; do
		check "$kind: /boot/$f" yes "$([ -s "$dir/boot/$f" ] && echo yes || echo no)"
	done
	n=$(find "$dir/lib/modules/$rel" -name '*.ko' | wc -l)
	check "$kind: every module of the build ($want)" "$want" "$n"
	if [ -s "$dir/lib/modules/$rel/modules.dep" ]; then
		listed=$(cut -d: -f1 "$dir/lib/modules/$rel/modules.dep" | LC_ALL=C sort)
		check "$kind: modules.dep names every packaged module" \
			"$(cd "$dir/lib/modules/$rel" && find . -name '*.ko' | sed 's,^\./,,' | LC_ALL=C sort | tr '\n' ' ')" \
			"$(echo "$listed" | tr '\n' ' ')"
	else
		fail "$kind: modules.dep" "missing or empty in $dir/lib/modules/$rel"
	fi
	check "$kind: no X.509 signing key of the build's own (MODULE_SIG_KEY)" 'CONFIG_MODULE_SIG_KEY=""' \
		"$(grep '^CONFIG_MODULE_SIG_KEY=' "$dir/boot/config-$rel" 2>/dev/null)"

	keyring=$dir/${3//REL/$rel}
	check "$kind: the kernel's public keyring is shipped (${3//REL/$rel})" yes \
		"$([ -s "$keyring" ] && echo yes || echo no)"
	[ -s "$keyring" ] || return 0
	check "$kind: the shipped keyring holds public keys only" 0 \
		"$("$verify" --check-pubring "$keyring" >/dev/null 2>&1; echo $?)"
	valid=0
	while read -r ko; do
		"$verify" --keyring "$keyring" "$ko" >/dev/null 2>&1 && valid=$((valid + 1))
	done < <(find "$dir/lib/modules/$rel" -name '*.ko')
	check "$kind: every packaged module verifies with the shipped keyring" "$want" "$valid"
}

check_contents rpm "$(kernel_rpm)" usr/share/doc/kernel-keys/REL/modsign-pubkeys.gpg
check_contents deb "$(image_deb)" usr/share/doc/linux-image-REL/modsign-pubkeys.gpg
finish
