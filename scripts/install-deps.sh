#!/bin/bash
# Install, with apt-get, every Debian package the build and the tests need
# that is not already installed.  Runs `apt-get update` once, and only when
# something is missing, so a prepared machine makes no network access.
set -euo pipefail

build_pkgs=(
	linux-source-6.1 linux-config-6.1 build-essential bc flex bison
	libelf-dev libssl-dev libassuan-dev libgpg-error-dev libgcrypt20-dev
	elfutils kmod gnupg xz-utils cpio rsync dwarves
)
test_pkgs=(
	qemu-system-x86 busybox-static mmdebstrap rpm debugedit debhelper
	fakeroot lintian clang-14 libclang-rt-14-dev shellcheck gnuplot-nox
	devscripts openssl python3
	gawk
)
# gawk: the kernel's check of a blacklist hash list (the blacklist test's
# guest kernel) is gawk-only.
# make bench boots the guest as the tests do, and counts instructions.
bench_pkgs=(valgrind)

case "${1:-build}" in
build) want=("${build_pkgs[@]}") ;;
test) want=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
bench) want=("${build_pkgs[@]}" "${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
*)
	echo "usage: $0 [build|test|bench]" >&2
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
