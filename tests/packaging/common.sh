# shellcheck shell=bash
# Shared by the package tests: build the packages once (make rpm deb keeps
# them under $BUILD/packages/small and rebuilds only when an input changes)
# and find and unpack them.
pkg_top=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../..")
# MODSIGN_PKG_DIR=DIR tests the packages in DIR/rpm and DIR/deb as they
# are, without building (packages from elsewhere, or broken on purpose).
pkg_dir=${MODSIGN_PKG_DIR:-$BUILD/packages/small}
# shellcheck source=../testkeys.sh
. "$pkg_top/tests/testkeys.sh"

# The two key paths of the recipes, one per package kind: the rpm is
# signed with a packager's own key given as MODSECKEY/MODPUBKEY, the deb
# with the ephemeral key its kernel build makes.  Each kernel trusts one
# more key, given as MODPUBKEY_EXTRA: the deb's the packager's, the key
# DKMS signs with on its installed system; the rpm's the test key
# "extra", which signs nothing there.
pkg_packager_key=$(testkey packager)
pkg_rpm_extra_key=$(testkey extra)
# The 8-byte key ID modinfo shows: the fingerprint's last 16 hex digits.
# shellcheck disable=SC2034 # used by the tests that source this file
pkg_packager_keyid=$(tr 'A-F' 'a-f' <"$pkg_packager_key/fpr" | sed 's/.*\(.\{16\}\)$/\1/')

# The Debian roots of the package tests, made once (guest-root.sh keeps
# them): the guest test-guest-install boots, test-dkms's chroot, and the
# root test-installed-boot puts on a disk.
pkg_guest_root=$BUILD/packages/guest-root.cpio.gz
pkg_dkms_root=$BUILD/packages/dkms-root.tar
pkg_boot_root=$BUILD/packages/boot-root.tar
guest_root() { "$pkg_top/tests/packaging/guest-root.sh" "$pkg_guest_root"; }
dkms_root() {
	"$pkg_top/tests/packaging/guest-root.sh" "$pkg_dkms_root" \
		dkms,gcc,make,libc6-dev,elfutils,python3,libssl3,libassuan0,openssl,gnupg,vpoll-dkms
}
# The root test-installed-boot puts on a disk: initramfs-tools, and zstd,
# its default compressor (a Recommends, which mmdebstrap leaves out), and
# GRUB for BIOS without grub-pc's debconf questions: grub2-common has
# grub-install, update-grub and the /etc/kernel hooks, grub-pc-bin the
# i386-pc images.
boot_root() {
	"$pkg_top/tests/packaging/guest-root.sh" "$pkg_boot_root" \
		initramfs-tools,zstd,grub2-common,grub-pc-bin
}

# build_packages: the rpm, the deb and the roots, side by side: much of a
# package build is one process at a time (unpacking, patching,
# compressing, debug info) and mmdebstrap waits on the network, while the
# other build's compiler can use the CPUs.  Run through ensure_packages.
build_packages() {
	# This suite's build directory is the version's own (VBUILD).
	local kver pid rc=0
	local -a pids=()
	kver=$(kernel_series "$KSRC")
	make -s -C "$pkg_top" VBUILD="$BUILD" KVER="$kver" KCONFIG=small JOBS="${JOBS:-$(nproc)}" \
		MODSECKEY="$pkg_packager_key/sec" MODPUBKEY="$pkg_packager_key/pub" \
		MODPUBKEY_EXTRA="$pkg_rpm_extra_key/pub" rpm &
	pids+=("$!")
	make -s -C "$pkg_top" VBUILD="$BUILD" KVER="$kver" KCONFIG=small JOBS="${JOBS:-$(nproc)}" \
		MODPUBKEY_EXTRA="$pkg_packager_key/pub" deb &
	pids+=("$!")
	(guest_root && dkms_root && boot_root) &
	pids+=("$!")
	for pid in "${pids[@]}"; do
		wait "$pid" || rc=1
	done
	return "$rc"
}

# ensure_packages: the packages made (make keeps them until an input
# changes), one build at a time in a build directory: a test waits for
# the one tests/packaging/prebuild.sh started, then finds them made.
# flock -o: the lock is flock's own, not inherited by anything the build
# leaves running.
ensure_packages() {
	[ -z "${MODSIGN_PKG_DIR:-}" ] || return 0
	mkdir -p "$BUILD/packages"
	flock -o "$BUILD/packages/.build.lock" "$pkg_top/tests/packaging/build-packages.sh"
}

# count_lines ERE: how many lines of stdin match (0 too, with status 0,
# where grep -c would exit 1); the guest tests count their report lines.
count_lines() {
	awk -v re="$1" '$0 ~ re { n++ } END { print n + 0 }'
}

# guest_report LOG: the guest's "R key value" lines, without the prefix
guest_report() { tr -d '\r' <"$1" | sed -n 's/^R //p'; }

# loaded_count REPORT MODULES: how many of MODULES (paths or names, one a
# line) the report's "loaded" lines (/proc/modules, "-" as "_") list, and
# the names of any others: "N" or "N (not: a b)"
loaded_count() {
	local name n=0 bad=""
	while read -r name; do
		name=$(basename "$name" .ko)
		if grep -qx "loaded ${name//-/_}" "$1"; then
			n=$((n + 1))
		else
			bad="$bad $name"
		fi
	done <<<"$2"
	echo "$n${bad:+ (not:$bad)}"
}

# rules_krel DIR CHANGELOG: the kernel release the recipe's debian/rules
# makes of CHANGELOG (print-krel, the one place the rule lives), run in
# DIR/debian with copies of both; its messages and status are the rules'.
rules_krel() {
	mkdir -p "$1/debian"
	cp "$pkg_top/packaging/deb/debian/rules" "$1/debian/rules"
	cp "$2" "$1/debian/changelog"
	(cd "$1" && make -s --no-print-directory -f debian/rules print-krel)
}

# One file matching a glob, or a failure naming the glob.
one_file() {
	local -a hits
	# nullglob: no match gives an empty list, counted (and refused) below.
	local restore IFS=
	restore=$(shopt -p nullglob)
	shopt -s nullglob
	# shellcheck disable=SC2206 # the glob is meant to expand here
	hits=($1)
	eval "$restore"
	if [ "${#hits[@]}" -ne 1 ]; then
		echo "expected one file matching $1, found ${#hits[@]}" >&2
		return 1
	fi
	echo "${hits[0]}"
}

kernel_rpm() { one_file "$pkg_dir/rpm/kernel-modsign-[0-9]*.x86_64.rpm"; }
debuginfo_rpm() { one_file "$pkg_dir/rpm/kernel-modsign-debuginfo-*.x86_64.rpm"; }
image_deb() { one_file "$pkg_dir/deb/linux-image-*-modsign_*_amd64.deb"; }
dbg_deb() { one_file "$pkg_dir/deb/linux-image-*-modsign-dbg_*_amd64.deb"; }
headers_deb() { one_file "$pkg_dir/deb/linux-headers-*-modsign_*_amd64.deb"; }
dkms_deb() { one_file "$pkg_dir/deb/modsign-dkms_*_all.deb"; }
devel_rpm() { one_file "$pkg_dir/rpm/kernel-modsign-devel-*.x86_64.rpm"; }
dkms_rpm() { one_file "$pkg_dir/rpm/modsign-dkms-*.noarch.rpm"; }

# rpm_record RPM: everything rpm records of a package but the digests and
# sizes of its files, which signing the modules changes: the tests of the
# repacked rpm compare the unsigned and the signed package's.
rpm_record() {
	local header='%{NAME} %{EPOCH} %{VERSION} %{RELEASE} %{ARCH} %{SUMMARY} %{LICENSE} %{GROUP} %{URL}
%{PACKAGER} %{BUILDHOST} %{BUILDTIME} %{SOURCERPM} %{PAYLOADCOMPRESSOR} %{PAYLOADFLAGS}
%{DESCRIPTION}
[P %{PROVIDEFLAGS:deptype} %{PROVIDENEVRS}\n][R %{REQUIREFLAGS:deptype} %{REQUIRENEVRS}\n]
[C %{CONFLICTNEVRS}\n][O %{OBSOLETENEVRS}\n][W %{RECOMMENDNEVRS}\n]
[F %{FILENAMES} %{FILEMODES:octal} %{FILEUSERNAME} %{FILEGROUPNAME} %{FILEFLAGS:fflags} %{FILEMTIMES}\n]
[L %{CHANGELOGTIME} %{CHANGELOGNAME} %{CHANGELOGTEXT}\n]'
	rpm -qp --qf "$header" "$1" 2>/dev/null || :
	rpm -qp --scripts "$1" 2>/dev/null || :
}

# unpack PACKAGE DIR: the payload (and, for a deb, the control area in
# DIR/DEBIAN) of an rpm or deb.
unpack() {
	mkdir -p "$2"
	case "$1" in
	*.rpm) rpm2cpio "$1" | (cd "$2" && cpio -idm --quiet) ;;
	*.deb)
		dpkg-deb -x "$1" "$2"
		dpkg-deb -e "$1" "$2/DEBIAN"
		;;
	esac
}
