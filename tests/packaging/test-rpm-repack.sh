#!/bin/bash
# packaging/rpm/repack.sh, the rpm's signed build off the build host, on a
# kernel rpm made here from the main build (no package build needed): its
# unsigned modules, System.map, config and keyring, with what a kernel
# rpm's header carries (dependencies of each kind, scriptlets, %ghost,
# %doc, %config, %dir, a changelog).  The manifest is made and signed as
# the recipes do, and the repacked rpm must record what the unsigned one
# does, hold the same files but for the modules, each the unsigned module
# with its signature appended and valid for the kernel's keyring, and
# the same rpm, byte for byte, when repacked again.  It
# refuses, writing nothing: a missing signature, a signature of another
# module, an rpm with a trigger (which it cannot carry over).
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

dir=$(scratch rpm-repack)
krel=$(cat "$KDIR/include/config/kernel.release")
tools=$KDIR/scripts/modsign
repack=$pkg_top/packaging/rpm/repack.sh
helper=$pkg_top/packaging/modsign-pkg.sh

# The payload: the main build's unsigned modules, as a package build
# installs them, and what a kernel rpm ships beside them.
stage=$dir/stage
bash "$helper" install-modules "$KDIR" "$stage/lib/modules/$krel" >"$dir/install.log"
install -D -m 0644 "$KDIR/arch/x86/boot/bzImage" "$stage/boot/vmlinuz-$krel"
install -D -m 0644 "$KDIR/System.map" "$stage/boot/System.map-$krel"
install -D -m 0644 "$KDIR/.config" "$stage/boot/config-$krel"
install -D -m 0644 "$KDIR/certs/pgp_pubkeys.gpg" "$stage/usr/share/doc/kernel-keys/$krel/modsign-pubkeys.gpg"
install -D -m 0644 /dev/null "$stage/etc/modsign-test/test.conf"
nmods=$(find "$stage/lib/modules" -name '*.ko' | wc -l)

# kernel_rpm NAME [TRIGGER]: the rpm, built from the stage; TRIGGER adds a
# %triggerin
kernel_rpm() {
	local top=$dir/rpmbuild-$1
	mkdir -p "$top"
	cat >"$top/kernel.spec" <<EOF
%global _buildhost build
%global use_source_date_epoch_as_buildtime 1
%global clamp_mtime_to_source_date_epoch 1
%global __spec_install_post %{nil}
%global debug_package %{nil}
%global _build_id_links none
Name: kernel-repacktest
Version: 6.1
Release: 3
Summary: A kernel rpm to repack
License: GPL-2.0-only
Group: System/Kernel
URL: https://www.kernel.org/
Packager: modsign tests <tests@modsign.invalid>
AutoReqProv: no
Provides: kernel-uname-r = $krel
Provides: installonlypkg(kernel)
Requires(post): kmod
Requires(preun): coreutils
Requires: grep >= 3.0
Conflicts: kernel-old < 1.0
Obsoletes: kernel-older < 0.5
Recommends: linux-firmware

%description
A kernel rpm made by test-rpm-repack.sh.

%install
cp -a $stage/. %{buildroot}/

%post
depmod -a -F /boot/System.map-$krel $krel

%preun -p /bin/true

%posttrans
echo posttrans $krel
${2:+%triggerin -- $2}
${2:+echo triggered}

%files
/boot/vmlinuz-$krel
/boot/System.map-$krel
%attr(0600,root,root) /boot/config-$krel
%doc /usr/share/doc/kernel-keys/$krel/modsign-pubkeys.gpg
%dir /lib/modules/$krel
/lib/modules/$krel/kernel
/lib/modules/$krel/modules.order
/lib/modules/$krel/modules.builtin
/lib/modules/$krel/modules.builtin.modinfo
%ghost %attr(0644,root,root) /lib/modules/$krel/modules.dep
%config(noreplace) /etc/modsign-test/test.conf

%changelog
* Thu Dec 03 2026 modsign tests <tests@modsign.invalid> - 6.1-3
- A test package.
EOF
	SOURCE_DATE_EPOCH=1764720000 rpmbuild -bb --nodeps --quiet --define "_topdir $top" \
		"$top/kernel.spec" >"$top.log" 2>&1 || return 1
	find "$top/RPMS" -name '*.rpm'
}

unsigned=$(kernel_rpm plain) || unsigned=
check "the unsigned kernel rpm builds" yes "$([ -f "$unsigned" ] && echo yes || echo no)"

# The manifest, as the unsigned build's signing step writes it, and the
# signatures, where the key is.
mkdir -p "$dir/unsigned"
unpack "$unsigned" "$dir/unsigned"
cp -a "$dir/unsigned" "$dir/for-manifest"
rc=0
MODPUBKEY=$KDIR/modsign.pub MODSIGN_PKG_MANIFEST=$dir/manifest \
	bash "$helper" sign "$KDIR" "$dir/for-manifest/lib/modules/$krel" >"$dir/manifest.log" 2>&1 || rc=$?
check "the manifest is written" "0 $nmods" "$rc $(awk 'NR > 4' "$dir/manifest" 2>/dev/null | wc -l)"
rc=0
"$tools/pgp-sign" -k "$KDIR/modsign.sec" --sign-manifest "$dir/manifest" --output "$dir/sigs" \
	>"$dir/sign.log" 2>&1 || rc=$?
check "the manifest is signed" 0 "$rc"

rc=0
(cd "$dir" && bash "$repack" "$unsigned" "$dir/manifest" "$dir/sigs" "$tools" "$dir/out") \
	>"$dir/repack.log" 2>&1 || rc=$?
check "repack.sh succeeds" 0 "$rc"
signed=$dir/out/$(basename "$unsigned")
check "the repacked rpm has the unsigned one's name" yes "$([ -f "$signed" ] && echo yes || echo no)"
check "repack.sh compiles nothing" 0 \
	"$(awk '/^[[:space:]]+(CC|LD|HOSTCC)[[:space:]]/ { n++ } END { print n + 0 }' "$dir/repack.log")"
# Reproducible: the same inputs, another time and directory, the same rpm.
rc=0
(cd "$dir" && bash "$repack" "$unsigned" "$dir/manifest" "$dir/sigs" "$tools" "$dir/out-again") \
	>"$dir/repack-again.log" 2>&1 || rc=$?
check "repacking again gives the same rpm, byte for byte" "0 same" \
	"$rc $(cmp -s "$signed" "$dir/out-again/$(basename "$unsigned")" && echo same || echo differs)"

for r in unsigned signed; do
	rpm_record "${!r}" >"$dir/header.$r"
done
check "the repacked rpm records what the unsigned one does ($(grep -c . "$dir/header.unsigned") lines)" "" \
	"$(diff "$dir/header.unsigned" "$dir/header.signed" | sed -n 2,4p | tr '\n' '|')"

mkdir -p "$dir/signed"
[ ! -f "$signed" ] || unpack "$signed" "$dir/signed"
same=0 valid=0 others=0
while read -r f; do
	u=$dir/unsigned/${f#"$dir/signed/"}
	case "$f" in
	*.ko)
		[ -f "$u" ] && cmp -s -n "$(stat -c %s "$u")" "$u" "$f" &&
			[ "$(stat -c %s "$f")" -gt "$(stat -c %s "$u")" ] && same=$((same + 1))
		[ "$(verify_outcome "$KDIR/certs/pgp_pubkeys.gpg" "$f")" = valid ] && valid=$((valid + 1))
		;;
	*) cmp -s "$u" "$f" || others=$((others + 1)) ;;
	esac
done < <(find "$dir/signed" -type f ! -path '*/DEBIAN/*')
check "each module is the unsigned rpm's, a signature appended ($nmods)" "$nmods" "$same"
check "each module is valid for the kernel's keyring" "$nmods" "$valid"
check "every other file is the unsigned rpm's" 0 "$others"

# refused NAME RPM SIGDIR MESSAGE: repack.sh fails with MESSAGE and
# writes nothing
refused() {
	local rc=0
	(cd "$dir" && bash "$repack" "$2" "$dir/manifest" "$3" "$tools" "$dir/out-$1") \
		>"$dir/refused-$1.log" 2>&1 || rc=$?
	check "refused, $1: fails" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
	check "refused, $1: says why" yes "$(grep -q -e "$4" "$dir/refused-$1.log" && echo yes || echo no)"
	check "refused, $1: writes nothing" no "$([ -e "$dir/out-$1" ] && echo yes || echo no)"
}
first=$(cd "$dir/sigs" && find . -name '*.ko.sig' | LC_ALL=C sort | sed -n 1p)
second=$(cd "$dir/sigs" && find . -name '*.ko.sig' | LC_ALL=C sort | sed -n 2p)
cp -a "$dir/sigs" "$dir/sigs-missing"
rm "$dir/sigs-missing/$first"
refused missing-signature "$unsigned" "$dir/sigs-missing" "${first#./}"
cp -a "$dir/sigs" "$dir/sigs-swapped"
cp "$dir/sigs/$second" "$dir/sigs-swapped/$first"
refused other-modules-signature "$unsigned" "$dir/sigs-swapped" "$(basename "${first%.sig}")"
triggered=$(kernel_rpm trigger bash) || triggered=/nonexistent
refused trigger "$triggered" "$dir/sigs" "has triggers, which repacking does not carry over"
finish
