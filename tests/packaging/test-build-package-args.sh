#!/bin/bash
# build-package.sh refuses key settings it cannot build with before it
# starts anything: an exit status of 2, a message naming the setting (and
# the file), and no output directory made.  Needs no package.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

dir=$(scratch build-package-args)
kver=$(kernel_series "$KSRC")

# refused NAME MESSAGE VAR=VALUE...: build-package.sh deb with these
# settings exits 2 with MESSAGE on stderr and makes no OUTDIR
refused() {
	local name=$1 message=$2 rc=0
	shift 2
	env TOP="$pkg_top" TARBALL="/usr/src/linux-source-$kver.tar.xz" KVER="$kver" KCONFIG=small \
		JOBS=1 FRAGMENT="$pkg_top/scripts/default-build.config" KSRC="$KSRC" "$@" \
		"$pkg_top/packaging/build-package.sh" deb "$dir/$name" >"$dir/$name.log" 2>&1 || rc=$?
	check "build-package: $name: exit status 2" 2 "$rc"
	check "build-package: $name: says why" 1 "$(grep -c -F -x "$message" "$dir/$name.log" || :)"
	check "build-package: $name: nothing made" no "$([ -e "$dir/$name" ] && echo yes || echo no)"
}

refused extra-missing "build-package: MODPUBKEY_EXTRA file $dir/none.pub: no such file" \
	MODPUBKEY_EXTRA="$pkg_packager_key/pub $dir/none.pub"
refused seckey-alone "build-package: give both MODSECKEY and MODPUBKEY, or neither" \
	MODSECKEY="$pkg_packager_key/sec"
refused signatures-alone "build-package: MODSIGN_PKG_SIGNATURES needs MODSIGN_PKG_MANIFEST" \
	MODSIGN_PKG_SIGNATURES="$dir"
finish
