#!/bin/bash
# The source rpm stands alone: it holds the kernel tarball, the patch
# series and everything the spec reads, its spec names the version and
# series itself, so `rpmbuild --rebuild` needs no --define (only --nodeps
# here, where the rpm database knows no package), and it declares what
# the build needs by the names of an rpm system.  Rebuilt as far as %prep
# (the whole build is the one make rpm ran): every patch of the series
# applies to the tarball it carries.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"
: "${KSRC:?KSRC must point at the patched source tree}"

ensure_packages
srpm=$(one_file "$pkg_dir/rpm/kernel-modsign-*.src.rpm")
kver=$(kernel_series "$KSRC")
dir=$(scratch srpm)

check "srpm: holds the tarball, the series and every file the spec reads" \
	"configure-kernel.sh kbuild-patches.tar kernel-modsign.spec linux-source-$kver.tar.xz modsign-pkg.sh modsign-sign-file modsign.conf package.config small.config" \
	"$(rpm -qpl "$srpm" 2>/dev/null | LC_ALL=C sort | xargs)"
# The libraries the modsign tools link and the tools the build runs.
requires=$(rpm -qp --requires "$srpm" 2>/dev/null | awk '{ print $1 }' | LC_ALL=C sort -u)
missing=""
for r in gcc make bc flex bison elfutils elfutils-libelf-devel openssl-devel libassuan-devel \
	libgpg-error-devel xz-devel libzstd-devel zlib-devel kmod; do
	grep -qx -- "$r" <<<"$requires" || missing="$missing $r"
done
check "srpm: BuildRequires names the build's tools and libraries" "" "$missing"

rc=0
rpmbuild -rp --nodeps --define "_topdir $dir/top" "$srpm" >"$dir/prep.log" 2>&1 || rc=$?
check "srpm: rpmbuild -rp with no --define (spec, sources, %prep)" 0 "$rc"
[ "$rc" -eq 0 ] || tail -n 15 "$dir/prep.log" | sed 's/^/    /'
check "srpm: %prep applies every patch of the series" \
	"$(series_patches "$pkg_top/kbuild-patches/$kver" | wc -l)" \
	"$(awk '/^applying / { n++ } END { print n + 0 }' "$dir/prep.log")"
check "srpm: the prepared tree is the version the package says" \
	"$(rpm -qp --qf '%{VERSION}' "$srpm" 2>/dev/null)" \
	"$(kernel_series "$dir/top/BUILD/linux-source-$kver" 2>/dev/null).$(awk '$1 == "SUBLEVEL" { print $3 }' "$dir/top/BUILD/linux-source-$kver/Makefile" 2>/dev/null)"
# A second build of the same version, --define "pkgrelease 2", has a kernel
# release of its own (test-contents: every file names it), so both install.
check "srpm: a rebuild with pkgrelease 2 is kernel release VERSION-2.modsign" \
	"$(rpm -qp --qf '%{VERSION}' "$srpm" 2>/dev/null)-2.modsign" \
	"$(rpmspec -q --provides --define "pkgrelease 2" "$dir/top/SPECS/kernel-modsign.spec" 2>/dev/null |
		sed -n 's/^kernel-uname-r = //p')"
rm -rf "$dir/top"
finish
