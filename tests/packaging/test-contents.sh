#!/bin/bash
# The kernel packages hold what a kernel package must: the image, its
# System.map and config, every module the build made (as many as the
# main build's modules.order lists, for the same config) and the
# modules.order that names every one of them, but none of depmod's output
# (the install makes it: deb postinst, rpm %post, which the packages
# carry, with the distributions' kernel hooks); the public keyring built
# into the kernel, in a doc path, by which every packaged module verifies,
# MODPUBKEY_EXTRA's keys after the signing key;
# no throwaway X.509 key built in; and kernel releases that let two builds
# install side by side (every file names the release; the rpm's carries
# its package release).
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
	listed=$(LC_ALL=C sort "$dir/lib/modules/$rel/modules.order" 2>/dev/null)
	check "$kind: modules.order names every packaged module" \
		"$(cd "$dir/lib/modules/$rel" && find . -name '*.ko' | sed 's,^\./,,' | LC_ALL=C sort | tr '\n' ' ')" \
		"$(echo "$listed" | tr '\n' ' ')"
	check "$kind: depmod's input is shipped, its output is not" \
		"modules.builtin modules.builtin.modinfo modules.order" \
		"$(cd "$dir/lib/modules/$rel" && find . -maxdepth 1 -name 'modules.*' -printf '%f\n' | LC_ALL=C sort | xargs)"
	check "$kind: no X.509 signing key of the build's own (MODULE_SIG_KEY)" 'CONFIG_MODULE_SIG_KEY=""' \
		"$(grep '^CONFIG_MODULE_SIG_KEY=' "$dir/boot/config-$rel" 2>/dev/null)"

	keyring=$dir/${3//REL/$rel}
	shipped_ring=$keyring
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

# The keyring is MODPUBKEY's keys, then MODPUBKEY_EXTRA's (common.sh: the
# rpm's extra key is the test key "extra", the deb's the packager's).
shipped_ring=/nonexistent
check_contents rpm "$(kernel_rpm)" usr/share/doc/kernel-keys/REL/modsign-pubkeys.gpg
check "rpm: the keyring is the packager's key, then MODPUBKEY_EXTRA's" same \
	"$(cat "$pkg_packager_key/pub" "$pkg_rpm_extra_key/pub" | cmp -s - "$shipped_ring" && echo same || echo differs)"
shipped_ring=/nonexistent
check_contents deb "$(image_deb)" usr/share/doc/linux-image-REL/modsign-pubkeys.gpg
packager_size=$(stat -c %s "$pkg_packager_key/pub")
check "deb: the keyring ends with MODPUBKEY_EXTRA's key, the packager's" same \
	"$(tail -c "$packager_size" "$shipped_ring" 2>/dev/null | cmp -s - "$pkg_packager_key/pub" && echo same || echo differs)"
check "deb: and holds one other key before it, the ephemeral one" 2 \
	"$(gpg --list-packets "$shipped_ring" 2>/dev/null | grep -c '^:public key packet:' || :)"

# The install scripts, as the packages carry them (the guest test runs them).
rpm=$(kernel_rpm)
krel=$(rpm -qp --provides "$rpm" 2>/dev/null | sed -n 's/^kernel-uname-r = //p')
check "rpm: the kernel release carries the package's version and release" \
	"$(rpm -qp --qf '%{VERSION}-%{RELEASE}' "$rpm" 2>/dev/null).modsign" "$krel"
check "rpm: the image is that kernel release's" "boot/vmlinuz-$krel" \
	"$(rpm -qpl "$rpm" 2>/dev/null | grep -o 'boot/vmlinuz-.*')"
scripts=$(rpm -qp --scripts "$rpm" 2>/dev/null)
check "rpm: %post runs depmod against the System.map" yes \
	"$(grep -q "^depmod -a -F /boot/System.map-$krel $krel\$" <<<"$scripts" && echo yes || echo no)"
check "rpm: %posttrans and %preun run kernel-install add and remove" "add remove" \
	"$(sed -n 's,^[[:space:]]*/usr/bin/kernel-install \(add\|remove\) '"$krel"'.*,\1,p' <<<"$scripts" | LC_ALL=C sort | xargs)"
check "rpm: the depmod output is owned as %ghost, not shipped" "10 0" \
	"$(rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$rpm" | awk '/modules\.(alias|dep|symbols|softdep|devname|builtin\.bin|builtin\.alias)/ { n++; if ($1 !~ /g/) b++ }
		END { print n + 0, b + 0 }')"
check "rpm: provides installonlypkg(kernel), so package managers keep several" yes \
	"$(rpm -qp --provides "$rpm" | grep -x 'installonlypkg(kernel)' >/dev/null && echo yes || echo no)"

# Two kernel releases install side by side when neither package has a
# file the other has: every file (directories may be shared) names the
# kernel release.  The rpm's release is in it (above), and the deb's
# Debian revision (below); the deb's package names carry it too, as
# Debian's carry their ABI number.
# not_naming PACKAGE KREL: the package's files whose path lacks KREL
not_naming() {
	case "$1" in
	*.rpm) rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2>/dev/null |
		awk '$1 !~ /^d/ { print $2 }' ;;
	*.deb) dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | sed 's,^\.,,' ;;
	esac | grep -vF -- "$2" | xargs
}
for p in "$rpm" "$(devel_rpm)"; do
	check "rpm: every file of $(basename "$p") names $krel" "" "$(not_naming "$p" "$krel")"
done
deb=$(image_deb)
debrel=$(dpkg-deb -f "$deb" Package | sed 's/^linux-image-//')
check "deb: the kernel release carries the package's version and revision" \
	"$(dpkg-deb -f "$deb" Version)-modsign" "$debrel"
check "deb: the image is that kernel release's" "boot/vmlinuz-$debrel" \
	"$(dpkg-deb -c "$deb" | grep -o 'boot/vmlinuz-.*')"
for p in "$deb" "$(headers_deb)"; do
	check "deb: every file of $(basename "$p") names $debrel" "" "$(not_naming "$p" "$debrel")"
done

ctl=$(scratch contents-deb-control)
dpkg-deb -e "$deb" "$ctl"
check "deb: maintainer scripts preinst, postinst, prerm, postrm" "postinst postrm preinst prerm" \
	"$(find "$ctl" -maxdepth 1 -regex '.*/\(pre\|post\)\(inst\|rm\)' -printf '%f\n' | LC_ALL=C sort | xargs)"
check "deb: postinst runs depmod, linux-update-symlinks and the postinst.d hooks" "3" \
	"$(awk '/^depmod -a -F "\/boot\/System.map-\$version" "\$version"$/ || /linux-update-symlinks "\$change"/ ||
		/\/etc\/kernel\/postinst.d$/ { n++ } END { print n + 0 }' "$ctl/postinst")"
check "deb: the scripts name the package's kernel release" \
	"$(dpkg-deb -f "$deb" Package | sed 's/^linux-image-//')" \
	"$(sed -n 's/^version=//p' "$ctl"/preinst "$ctl"/postinst "$ctl"/prerm "$ctl"/postrm | LC_ALL=C sort -u)"
check "deb: depends on linux-base (linux-update-symlinks)" yes \
	"$(dpkg-deb -f "$deb" Depends | grep 'linux-base' >/dev/null && echo yes || echo no)"
# Debug information fits one build only; the -dbg package names no image
# another source makes (lintian: version-substvar-for-external-package).
check "deb: the -dbg package depends on this build's image, at its version" \
	"$(dpkg-deb -f "$deb" Package) (= $(dpkg-deb -f "$deb" Version))" \
	"$(dpkg-deb -f "$(dbg_deb)" Depends)"
finish
