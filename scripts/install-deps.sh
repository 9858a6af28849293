#!/bin/bash
# Install, with apt-get, every Debian package the build and the tests need
# that is not already installed.  Runs `apt-get update` once, and only when
# something is missing, so a prepared machine makes no network access.
#
#   install-deps.sh build|test|bench [KVER]
#
# build installs the kernel source of KVER (6.1 by default); test and
# bench install every version's, as make check tests them all.
set -euo pipefail

kvers=(6.1 6.12)
kernel_pkgs() {
	local v
	for v in "$@"; do
		echo "linux-source-$v" "linux-config-$v"
	done
}

# liblzma, libzstd, zlib: pgp-verify reads compressed modules; xz-utils,
# zstd: modules_install compresses them as the config asks.
build_pkgs=(
	build-essential bc flex bison
	libelf-dev libssl-dev libassuan-dev libgpg-error-dev libgcrypt20-dev
	liblzma-dev libzstd-dev zlib1g-dev
	elfutils kmod gnupg xz-utils zstd cpio rsync dwarves
)
test_pkgs=(
	qemu-system-x86 busybox-static mmdebstrap rpm debugedit debhelper
	fakeroot lintian rpmlint clang-14 libclang-rt-14-dev shellcheck gnuplot-nox
	devscripts openssl python3
	gawk e2fsprogs
)
# gawk: the kernel's check of a blacklist hash list (the blacklist test's
# guest kernel) is gawk-only.  e2fsprogs (mke2fs -d, debugfs): the
# installed-boot test's disk, made and read without mounting it; Debian 12
# no longer counts it as required, so a minimal system may lack it.
# make bench boots the guest as the tests do, and counts instructions.
bench_pkgs=(valgrind)

kver=${2:-6.1}
case " ${kvers[*]} " in
*" $kver "*) ;;
*)
	echo "install-deps: no series for kernel $kver (${kvers[*]})" >&2
	exit 2
	;;
esac
mapfile -t one_kernel < <(kernel_pkgs "$kver" | tr ' ' '\n')
mapfile -t all_kernels < <(kernel_pkgs "${kvers[@]}" | tr ' ' '\n')

case "${1:-build}" in
build) want=("${one_kernel[@]}" "${build_pkgs[@]}") ;;
test) want=("${all_kernels[@]}" "${build_pkgs[@]}" "${test_pkgs[@]}") ;;
bench) want=("${all_kernels[@]}" "${build_pkgs[@]}" "${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
*)
	echo "usage: $0 [build|test|bench] [KVER]" >&2
	exit 2
	;;
esac

missing=()
for pkg in "${want[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
		grep 'install ok installed' >/dev/null; then
		missing+=("$pkg")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]} (run as root to install them)" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
