#!/bin/bash
# Build the rpm or deb packages into OUTDIR, unless OUTDIR already holds
# packages built from the same inputs (the tarball, kbuild-patches/, the
# config fragment, packaging/, the config kind and the key files):
# each build is a full kernel build, and the tests reuse one per input set.
#
#   build-package.sh rpm|deb OUTDIR
#
# Environment (from packaging/packaging.mk): TOP TARBALL KVER KCONFIG JOBS
# FRAGMENT KSRC, and optionally MODSECKEY/MODPUBKEY.  The build log goes
# to OUTDIR/build.log; a build that fails leaves no stamp, so it is
# retried next time.
set -euo pipefail

if [ "$#" -ne 2 ]; then
	echo "usage: $0 rpm|deb OUTDIR" >&2
	exit 2
fi
kind=$1
out=$2
: "${TOP:?}" "${TARBALL:?}" "${KVER:?}" "${KCONFIG:?}" "${JOBS:?}" "${FRAGMENT:?}" "${KSRC:?}"
here=$TOP/packaging

if [ -n "${MODSECKEY:-}" ] || [ -n "${MODPUBKEY:-}" ]; then
	if [ -z "${MODSECKEY:-}" ] || [ -z "${MODPUBKEY:-}" ]; then
		echo "build-package: give both MODSECKEY and MODPUBKEY, or neither" >&2
		exit 2
	fi
	MODSECKEY=$(realpath "$MODSECKEY")
	MODPUBKEY=$(realpath "$MODPUBKEY")
fi

inputs_hash() {
	{
		echo "$kind $KVER $KCONFIG ${MODSECKEY:-ephemeral} ${MODPUBKEY:-}"
		stat -c '%n %s %Y' "$TARBALL"
		[ -z "${MODPUBKEY:-}" ] || sha256sum "$MODSECKEY" "$MODPUBKEY"
		sha256sum "$FRAGMENT"
		for d in packaging kbuild-patches scripts; do
			[ ! -d "$TOP/$d" ] || find -H "$TOP/$d" -type f ! -name '*.sec' -print0
		done | LC_ALL=C sort -z | xargs -0 sha256sum
	} | sha256sum | cut -d' ' -f1
}

want=$(inputs_hash)
if [ -f "$out/.inputs" ] && [ "$(cat "$out/.inputs")" = "$want" ]; then
	echo "build-package: $kind packages in $out are up to date"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out"
work=$out/work
mkdir -p "$work"
kversion=$(tar -xJOf "$TARBALL" --occurrence=1 "linux-source-$KVER/Makefile" |
	awk '$1 == "VERSION" { v = $3 } $1 == "PATCHLEVEL" { p = $3 }
	     $1 == "SUBLEVEL" { s = $3 } END { print v "." p "." s }')
log=$out/build.log

# A failed build keeps its tree for a look, but not the secret keys the
# build made in it: the ephemeral OpenPGP key and the X.509 key for PKCS#7.
discard_keys() {
	find "$work" \( -name modsign.sec -o -name signing_key.pem \) -type f -print -delete
}
start=$SECONDS
echo "build-package: building $kind packages of $kversion ($KCONFIG config), log in $log"

case "$kind" in
rpm)
	top=$work/rpmbuild
	mkdir -p "$top/SOURCES" "$top/SPECS"
	ln -s "$TARBALL" "$top/SOURCES/linux-source-$KVER.tar.xz"
	tar -cf "$top/SOURCES/kbuild-patches.tar" -C "$TOP" kbuild-patches
	install -m 0644 "$FRAGMENT" "$top/SOURCES/small.config"
	install -m 0755 "$TOP/scripts/configure-kernel.sh" "$here/modsign-pkg.sh" "$top/SOURCES/"
	install -m 0644 "$here/rpm/kernel-modsign.spec" "$top/SPECS/"
	defs=(--define "_topdir $top" --define "kversion $kversion" --define "kseries $KVER"
		--define "kconfig $KCONFIG" --define "_smp_mflags -j$JOBS")
	if [ -n "${MODSECKEY:-}" ]; then
		defs+=(--define "modseckey $MODSECKEY" --define "modpubkey $MODPUBKEY")
	fi
	# --nodeps: the BuildRequires name Debian packages that the rpm
	# database here knows nothing about.
	if ! rpmbuild -ba --nodeps "${defs[@]}" "$top/SPECS/kernel-modsign.spec" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		discard_keys
		echo "build-package: rpmbuild failed, log in $log (build tree kept in $work)" >&2
		exit 1
	fi
	cp "$top"/RPMS/*/*.rpm "$top"/SRPMS/*.rpm "$out/"
	;;
deb)
	src=$work/linux-modsign-$kversion
	mkdir -p "$src"
	# The patched tree that `make tree` prepared, without its git history.
	git -C "$KSRC" archive --format=tar HEAD | tar -x -C "$src"
	cp -a "$here/deb/debian" "$src/debian"
	mkdir -p "$src/debian/modsign"
	install -m 0644 "$FRAGMENT" "$src/debian/modsign/small.config"
	install -m 0755 "$TOP/scripts/configure-kernel.sh" "$here/modsign-pkg.sh" "$src/debian/modsign/"
	sed -i "s/@KVERSION@/$kversion/g" "$src/debian/control" "$src/debian/changelog"
	if ! (cd "$src" && MODSIGN_KCONFIG=$KCONFIG DEB_BUILD_OPTIONS="parallel=$JOBS ${DEB_BUILD_OPTIONS:-}" \
		dpkg-buildpackage -b -us -uc) >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		discard_keys
		echo "build-package: dpkg-buildpackage failed, log in $log (build tree kept in $work)" >&2
		exit 1
	fi
	cp "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$out/"
	;;
*)
	echo "build-package: unknown kind '$kind' (rpm or deb)" >&2
	exit 2
	;;
esac

# The build trees are large and the ephemeral secret key must not outlive
# the build; the packages and the log are what is kept.
rm -rf "$work"
echo "$((SECONDS - start))" >"$out/build-seconds"
echo "$want" >"$out/.inputs"
echo "build-package: $kind packages in $out after $((SECONDS - start)) s:"
ls -l "$out"
