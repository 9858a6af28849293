#!/bin/bash
# Build the rpm or deb packages into OUTDIR, unless OUTDIR already holds
# packages built from the same inputs (the tarball, kbuild-patches/, the
# config fragment, packaging/, the config kind and the key files):
# each build is a full kernel build, and the tests reuse one per input set.
#
#   build-package.sh rpm|deb OUTDIR
#
# Environment (from packaging/packaging.mk): TOP TARBALL KVER KCONFIG JOBS
# FRAGMENT KSRC, and optionally MODSECKEY/MODPUBKEY and MODPUBKEY_EXTRA
# (further public keys built into the kernel).  The build log goes
# to OUTDIR/build.log; a build that fails leaves no stamp, so it is
# retried next time.
#
# Signing off the build host (MODPUBKEY only, no MODSECKEY):
# MODSIGN_PKG_MANIFEST=FILE alone is the unsigned build, which writes the
# manifest of the packaged modules to FILE; then pgp-sign --sign-manifest
# FILE --output DIR where the key is; then MODSIGN_PKG_SIGNATURES=DIR too,
# in the same OUTDIR, is the signed build:
#   deb: the unsigned build keeps linux-image-*-modsign-unsigned (and the
#        -dbg package, which signing does not change) and the tools that
#        attach (OUTDIR/tools); the signed build makes the source package
#        linux-signed-modsign, which holds only the signatures (.dsc), and
#        builds it: the unsigned image's files with the signatures
#        attached, nothing compiled (packaging/deb/signed).
#   rpm: the unsigned build keeps its rpms in OUTDIR/unsigned (not for
#        installing) and the tools that attach (OUTDIR/tools); the signed
#        build repacks the kernel rpm with the signatures attached
#        (packaging/rpm/repack.sh, openSUSE's pesign-repackage shape),
#        nothing compiled, and takes the other rpms as they are.
set -euo pipefail

if [ "$#" -ne 2 ]; then
	echo "usage: $0 rpm|deb OUTDIR" >&2
	exit 2
fi
kind=$1
out=$2
: "${TOP:?}" "${TARBALL:?}" "${KVER:?}" "${KCONFIG:?}" "${JOBS:?}" "${FRAGMENT:?}" "${KSRC:?}"
here=$TOP/packaging

if [ -n "${MODSIGN_PKG_MANIFEST:-}" ]; then
	if [ -n "${MODSECKEY:-}" ] || [ -z "${MODPUBKEY:-}" ]; then
		echo "build-package: signing off the build host: give MODPUBKEY, and no MODSECKEY" >&2
		exit 2
	fi
	MODPUBKEY=$(realpath "$MODPUBKEY")
	mkdir -p "$(dirname "$MODSIGN_PKG_MANIFEST")"
	MODSIGN_PKG_MANIFEST=$(realpath "$MODSIGN_PKG_MANIFEST")
	if [ -n "${MODSIGN_PKG_SIGNATURES:-}" ]; then
		MODSIGN_PKG_SIGNATURES=$(realpath "$MODSIGN_PKG_SIGNATURES")
	fi
	export MODPUBKEY MODSIGN_PKG_MANIFEST MODSIGN_PKG_SIGNATURES
elif [ -n "${MODSIGN_PKG_SIGNATURES:-}" ]; then
	echo "build-package: MODSIGN_PKG_SIGNATURES needs MODSIGN_PKG_MANIFEST" >&2
	exit 2
elif [ -n "${MODSECKEY:-}" ] || [ -n "${MODPUBKEY:-}" ]; then
	if [ -z "${MODSECKEY:-}" ] || [ -z "${MODPUBKEY:-}" ]; then
		echo "build-package: give both MODSECKEY and MODPUBKEY, or neither" >&2
		exit 2
	fi
	MODSECKEY=$(realpath "$MODSECKEY")
	MODPUBKEY=$(realpath "$MODPUBKEY")
fi
# Further public keys for the kernel to trust (a DKMS key), with any key
# setting: absolute, as the build runs elsewhere.
if [ -n "${MODPUBKEY_EXTRA:-}" ]; then
	extra=()
	for f in $MODPUBKEY_EXTRA; do
		if [ ! -f "$f" ]; then
			echo "build-package: MODPUBKEY_EXTRA file $f: no such file" >&2
			exit 2
		fi
		extra+=("$(realpath "$f")")
	done
	MODPUBKEY_EXTRA=${extra[*]}
	export MODPUBKEY_EXTRA
fi
# unsigned: the first of the two builds of signing off the build host
phase=signed
if [ -n "${MODSIGN_PKG_MANIFEST:-}" ] && [ -z "${MODSIGN_PKG_SIGNATURES:-}" ]; then
	phase=unsigned
fi

inputs_hash() {
	{
		echo "$kind $KVER $KCONFIG ${MODSECKEY:-ephemeral} ${MODPUBKEY:-} $phase"
		echo "${SOURCE_DATE_EPOCH:-}"
		stat -c '%n %s %Y' "$TARBALL"
		[ -z "${MODSECKEY:-}" ] || sha256sum "$MODSECKEY"
		[ -z "${MODPUBKEY:-}" ] || sha256sum "$MODPUBKEY"
		echo "extra: ${MODPUBKEY_EXTRA:-}"
		# shellcheck disable=SC2086 # a list of paths, as the kernel takes it
		[ -z "${MODPUBKEY_EXTRA:-}" ] || sha256sum $MODPUBKEY_EXTRA
		if [ "$phase" = signed ] && [ -n "${MODSIGN_PKG_SIGNATURES:-}" ]; then
			sha256sum "$MODSIGN_PKG_MANIFEST"
			find "$MODSIGN_PKG_SIGNATURES" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
		fi
		sha256sum "$FRAGMENT"
		for d in packaging kbuild-patches scripts; do
			[ ! -d "$TOP/$d" ] || find -H "$TOP/$d" -type f ! -name '*.sec' -print0
		done | LC_ALL=C sort -z | xargs -0 sha256sum
	} | sha256sum | cut -d' ' -f1
}

want=$(inputs_hash)
if [ "$phase" = signed ] && [ -f "$out/.inputs" ] && [ "$(cat "$out/.inputs")" = "$want" ]; then
	echo "build-package: $kind packages in $out are up to date"
	exit 0
fi

# The signed build repacks what the unsigned build left in OUTDIR.
template=no
if [ "$kind" = deb ] && [ -n "${MODSIGN_PKG_SIGNATURES:-}" ]; then
	template=yes
	rm -rf "$out/work" "$out/.inputs"
	find "$out" -maxdepth 1 -type f -name 'linux-signed-modsign*' -delete
	find "$out" -maxdepth 1 -type f -name 'linux-image-*_amd64.deb' ! -name '*-unsigned_*' ! -name '*-dbg_*' -delete
elif [ "$kind" = rpm ] && [ -n "${MODSIGN_PKG_SIGNATURES:-}" ]; then
	template=yes
	rm -rf "$out/work" "$out/.inputs"
	find "$out" -maxdepth 1 -type f -name '*.rpm' -delete
else
	rm -rf "$out"
fi
mkdir -p "$out"
work=$out/work
mkdir -p "$work"
kversion=$(tar -xJOf "$TARBALL" --occurrence=1 "linux-source-$KVER/Makefile" |
	awk '$1 == "VERSION" { v = $3 } $1 == "PATCHLEVEL" { p = $3 }
	     $1 == "SUBLEVEL" { s = $3 } END { print v "." p "." s }')
log=$out/build.log
[ "$template" = no ] || log=$out/build-signed.log

# A failed build keeps its tree for a look, but not the secret keys the
# build made in it: the ephemeral OpenPGP key and the X.509 key for PKCS#7.
discard_keys() {
	find "$work" \( -name modsign.sec -o -name signing_key.pem \) -type f -print -delete
}
start=$SECONDS
echo "build-package: building $kind packages of $kversion ($KCONFIG config), log in $log"

what=$kind
[ "$template" = no ] || what=$kind-signed
case "$what" in
rpm)
	top=$work/rpmbuild
	mkdir -p "$top/SOURCES" "$top/SPECS"
	ln -s "$TARBALL" "$top/SOURCES/linux-source-$KVER.tar.xz"
	tar -cf "$top/SOURCES/kbuild-patches.tar" -C "$TOP" kbuild-patches
	cat "$FRAGMENT" "$here/small-system.config" >"$top/SOURCES/small.config"
	chmod 0644 "$top/SOURCES/small.config"
	install -m 0644 "$here/package.config" "$top/SOURCES/package.config"
	install -m 0755 "$TOP/scripts/configure-kernel.sh" "$here/modsign-pkg.sh" \
		"$here/dkms/modsign-sign-file" "$top/SOURCES/"
	install -m 0644 "$here/dkms/modsign.conf" "$top/SOURCES/"
	# The version and series go in the spec itself, and so in the source
	# rpm: it rebuilds with no --define.
	{
		printf '%%{!?kversion: %%global kversion %s}\n' "$kversion"
		printf '%%{!?kseries: %%global kseries %s}\n' "$KVER"
		cat "$here/rpm/kernel-modsign.spec"
	} >"$top/SPECS/kernel-modsign.spec"
	defs=(--define "_topdir $top" --define "kversion $kversion" --define "kseries $KVER"
		--define "kconfig $KCONFIG" --define "_smp_mflags -j$JOBS")
	if [ -n "${MODSECKEY:-}" ]; then
		defs+=(--define "modseckey $MODSECKEY")
	fi
	if [ -n "${MODPUBKEY:-}" ]; then
		defs+=(--define "modpubkey $MODPUBKEY")
	fi
	if [ -n "${MODPUBKEY_EXTRA:-}" ]; then
		defs+=(--define "modpubkey_extra $MODPUBKEY_EXTRA")
	fi
	if [ -n "${MODSIGN_PKG_MANIFEST:-}" ]; then
		defs+=(--define "modsign_manifest $MODSIGN_PKG_MANIFEST")
	fi
	if [ -n "${MODSIGN_PKG_SIGNATURES:-}" ]; then
		defs+=(--define "modsign_signatures $MODSIGN_PKG_SIGNATURES")
	fi
	# The unsigned build's tools that attach are taken from its build
	# tree, which rpmbuild would remove (all of $work goes below).
	if [ "$phase" = unsigned ]; then
		defs+=(--noclean)
	fi
	# --nodeps: the BuildRequires name Debian packages that the rpm
	# database here knows nothing about.
	if ! rpmbuild -ba --nodeps "${defs[@]}" "$top/SPECS/kernel-modsign.spec" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		discard_keys
		echo "build-package: rpmbuild failed, log in $log (build tree kept in $work)" >&2
		exit 1
	fi
	if [ "$phase" = unsigned ]; then
		# Not for installing: the signed build repacks them.
		mkdir -p "$out/unsigned" "$out/tools"
		cp "$top"/RPMS/*/*.rpm "$top"/SRPMS/*.rpm "$out/unsigned/"
		install -m 0755 "$top/BUILD/linux-source-$KVER/obj/scripts/modsign/pgp-attach" \
			"$top/BUILD/linux-source-$KVER/obj/scripts/modsign/pgp-verify" "$out/tools/"
	else
		cp "$top"/RPMS/*/*.rpm "$top"/SRPMS/*.rpm "$out/"
	fi
	;;
rpm-signed)
	if ! unsigned=$(ls "$out"/unsigned/kernel-modsign-[0-9]*.x86_64.rpm 2>/dev/null) ||
		[ ! -x "$out/tools/pgp-attach" ]; then
		echo "build-package: no unsigned kernel rpm and tools in $out: the unsigned build (MODSIGN_PKG_MANIFEST alone) comes first" >&2
		exit 1
	fi
	if ! TMPDIR=$work bash "$here/rpm/repack.sh" "$unsigned" "$MODSIGN_PKG_MANIFEST" \
		"$MODSIGN_PKG_SIGNATURES" "$out/tools" "$work/signed" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "build-package: the signed repack failed, log in $log (build tree kept in $work)" >&2
		exit 1
	fi
	# Signing changes the kernel package only.
	find "$out/unsigned" -maxdepth 1 -name '*.rpm' ! -name "$(basename "$unsigned")" -exec cp {} "$out/" \;
	cp "$work/signed/$(basename "$unsigned")" "$out/"
	;;
deb-signed)
	if ! unsigned=$(ls "$out/linux-image-$kversion-"*-modsign-unsigned_*_amd64.deb 2>/dev/null) ||
		[ ! -x "$out/tools/pgp-attach" ]; then
		echo "build-package: no unsigned image package and tools in $out: the unsigned build (MODSIGN_PKG_MANIFEST alone) comes first" >&2
		exit 1
	fi
	src=$work/linux-signed-modsign
	mkdir -p "$src"
	cp -a "$here/deb/signed/debian" "$src/"
	install -m 0644 "$here/deb/debian/copyright" "$src/debian/copyright"
	install -m 0644 "$here/deb/debian"/image.*.in "$src/debian/"
	mkdir -p "$src/debian/modsign" "$src/debian/signatures/modules"
	install -m 0755 "$here/modsign-pkg.sh" "$src/debian/modsign/"
	install -m 0644 "$MODSIGN_PKG_MANIFEST" "$src/debian/signatures/manifest"
	cp -a "$MODSIGN_PKG_SIGNATURES/." "$src/debian/signatures/modules/"
	# the unsigned image's kernel release, revision included
	krel=$(dpkg-deb -f "$unsigned" Package | sed -e 's/^linux-image-//' -e 's/-unsigned$//')
	sed -i -e "s/@KREL@/$krel/g" -e "s/@KVERSION@/$kversion/g" "$src/debian/control" "$src/debian/changelog"
	if ! { (cd "$work" && dpkg-source -b linux-signed-modsign) &&
		(cd "$src" && MODSIGN_UNSIGNED_DEB=$unsigned MODSIGN_PKG_TOOLS=$out/tools \
			dpkg-buildpackage -b -us -uc); } >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "build-package: the signed build failed, log in $log (build tree kept in $work)" >&2
		exit 1
	fi
	cp "$work"/*.dsc "$work"/*.tar.* "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$out/"
	;;
deb)
	# The source package first, as Debian's archive would hold it: the
	# linux-source tarball, unchanged, as the orig tarball, and debian/
	# with the series as debian/patches ("3.0 (quilt)").  The packages are
	# then built from that .dsc, unpacked afresh, as a buildd builds them.
	stage=$work/stage/linux-modsign-$kversion
	mkdir -p "$stage"
	ln -s "$TARBALL" "$work/stage/linux-modsign_$kversion.orig.tar.xz"
	tar -xJf "$TARBALL" -C "$stage" --strip-components=1
	cp -a "$here/deb/debian" "$stage/debian"
	mkdir -p "$stage/debian/modsign" "$stage/debian/patches"
	cat "$FRAGMENT" "$here/small-system.config" >"$stage/debian/modsign/small.config"
	chmod 0644 "$stage/debian/modsign/small.config"
	install -m 0644 "$here/package.config" "$stage/debian/modsign/package.config"
	install -m 0755 "$TOP/scripts/configure-kernel.sh" "$here/modsign-pkg.sh" \
		"$here/dkms/modsign-sign-file" "$stage/debian/modsign/"
	install -m 0644 "$here/dkms/modsign.conf" "$stage/debian/modsign/"
	# A 6.12 series entry ../6.1/NAME is the 6.1 patch: one flat directory.
	awk '!/^[[:space:]]*(#|$)/' "$TOP/kbuild-patches/$KVER/series" | while read -r p; do
		install -m 0644 "$TOP/kbuild-patches/$KVER/$p" "$stage/debian/patches/${p##*/}"
		echo "${p##*/}"
	done >"$stage/debian/patches/series"
	sed -i "s/@KVERSION@/$kversion/g" "$stage/debian/changelog"
	# The kernel release carries the Debian revision (debian/rules says why
	# and refuses one that cannot be part of a package name).
	krel=$(cd "$stage" && make -s --no-print-directory -f debian/rules print-krel)
	sed -i -e "s/@KREL@/$krel/g" -e "s/@KVERSION@/$kversion/g" "$stage/debian/control"
	if [ "$phase" = unsigned ]; then
		sed -i -e 's/@UNSIGNED@/-unsigned/' -e "s/@UNSIGNED_NOTE@/\\n .\\n Its modules are not signed: linux-image-$krel, made from\\n this package and the signatures of its modules, replaces it./" \
			"$stage/debian/control"
	else
		sed -i -e 's/@UNSIGNED@//' -e 's/@UNSIGNED_NOTE@//' "$stage/debian/control"
	fi
	src=$work/linux-modsign-$kversion
	if ! { (cd "$work/stage" && dpkg-source -b "linux-modsign-$kversion") &&
		rm -rf "$stage" &&
		dpkg-source -x "$work"/stage/linux-modsign_*.dsc "$src"; } >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "build-package: the source package failed, log in $log (build tree kept in $work)" >&2
		exit 1
	fi
	if ! (cd "$src" && MODSIGN_KCONFIG=$KCONFIG DEB_BUILD_OPTIONS="parallel=$JOBS ${DEB_BUILD_OPTIONS:-}" \
		dpkg-buildpackage -b -us -uc) >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		discard_keys
		echo "build-package: dpkg-buildpackage failed, log in $log (build tree kept in $work)" >&2
		exit 1
	fi
	cp "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$out/"
	cp -L "$work"/stage/linux-modsign_* "$out/"
	if [ "$phase" = unsigned ]; then
		# what the signed build attaches with (Debian's signing build
		# takes them from linux-kbuild)
		mkdir -p "$out/tools"
		install -m 0755 "$src/debian/build/scripts/modsign/pgp-attach" \
			"$src/debian/build/scripts/modsign/pgp-verify" "$out/tools/"
	fi
	;;
*)
	echo "build-package: unknown kind '$kind' (rpm or deb)" >&2
	exit 2
	;;
esac

# The build trees are large and the ephemeral secret key must not outlive
# the build; the packages and the log are what is kept.
rm -rf "$work"
if [ "$phase" = unsigned ]; then
	[ -s "$MODSIGN_PKG_MANIFEST" ] || {
		echo "build-package: the unsigned build wrote no manifest ($MODSIGN_PKG_MANIFEST)" >&2
		exit 1
	}
	echo "build-package: unsigned $kind build done in $((SECONDS - start)) s; sign $MODSIGN_PKG_MANIFEST"
	exit 0
fi
echo "$((SECONDS - start))" >"$out/build-seconds"
echo "$want" >"$out/.inputs"
echo "build-package: $kind packages in $out after $((SECONDS - start)) s:"
ls -l "$out"
