#!/bin/bash
# Packages signed off the build host, as a distribution would build them
# (make check-full only: two package builds).  For each of deb and rpm:
# the unsigned build (MODPUBKEY only, MODSIGN_PKG_MANIFEST) writes the
# manifest of the packaged modules; the manifest is signed with the
# packager's key in a mount and network namespace that holds the key and
# sees no build output; the signed build (MODSIGN_PKG_SIGNATURES) attaches
# the signatures.  Its package must hold every module, validly signed by
# that key, and no copy of the key may be anywhere on the build side.
#   deb: Debian's template shape.  The unsigned build keeps
#        linux-image-*-modsign-unsigned and the -dbg package; the signed
#        build's source (.dsc) holds only debian/ and the signatures, it
#        compiles nothing, and its image holds the unsigned image's files
#        with the signatures appended.
#   rpm: openSUSE's pesign-repackage shape.  The unsigned build keeps its
#        rpms aside (OUTDIR/unsigned); the signed build repacks the kernel
#        rpm, compiling nothing: the same header (dependencies, scriptlets,
#        files with their modes, owners and flags, changelog, build time)
#        and the same files, the modules with the signatures appended; the
#        other rpms are the unsigned build's, unchanged.
# MODSIGN_TEST_KINDS (default "deb rpm") picks the kinds.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=../packaging/common.sh
. "$here/../packaging/common.sh"

key=$pkg_packager_key
kver=$(kernel_series "$KSRC")
top=$BUILD/packages/detached
verify=$KDIR/scripts/modsign/pgp-verify
nmods=$(grep -c . "$KDIR/modules.order")
pkg_kversion=$(make -s -C "$KSRC" kernelversion)
# the deb's kernel release, as the recipe's debian/rules makes it from
# its changelog (with the version build-package.sh puts in)
relcheck=$(scratch detached-krel)
mkdir -p "$relcheck"
sed "s/@KVERSION@/$pkg_kversion/g" "$pkg_top/packaging/deb/debian/changelog" >"$relcheck/changelog"
deb_krel=$(rules_krel "$relcheck" "$relcheck/changelog")
# Both builds of a kind must make the same modules: the same time.
SOURCE_DATE_EPOCH=$(date +%s)
export SOURCE_DATE_EPOCH

# pkgmake KIND LOG VAR=VALUE...: make KIND with the packages in $top/KIND
pkgmake() {
	local kind=$1 log=$2
	shift 2
	make -s -C "$pkg_top" VBUILD="$BUILD" KVER="$kver" KCONFIG=small \
		JOBS="${JOBS:-$(nproc)}" PKGOUT="$top" MODPUBKEY="$key/pub" "$@" "$kind" \
		>"$log" 2>&1
}

for kind in ${MODSIGN_TEST_KINDS:-deb rpm}; do
	work=$(scratch "detached-$kind")
	manifest=$work/manifest
	rc=0
	pkgmake "$kind" "$work/unsigned.log" MODSIGN_PKG_MANIFEST="$manifest" || rc=$?
	check "$kind: the unsigned build succeeds" 0 "$rc"
	check "$kind: its manifest lists every module, for the packager's key" "$nmods issuer $(cat "$key/fpr")" \
		"$(awk 'NR > 4' "$manifest" 2>/dev/null | wc -l) $(sed -n 4p "$manifest" 2>/dev/null)"
	if [ "$kind" = deb ]; then
		check "$kind: the unsigned build keeps the -unsigned image, the -dbg, headers and DKMS packages" \
			"linux-headers-$deb_krel linux-image-$deb_krel-dbg linux-image-$deb_krel-unsigned modsign-dkms" \
			"$(find "$top/deb" -maxdepth 1 -name '*.deb' -printf '%f\n' | cut -d_ -f1 | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
		unsigned=$(one_file "$top/deb/linux-image-*-modsign-unsigned_*_amd64.deb") || unsigned=
		[ -z "$unsigned" ] || unpack "$unsigned" "$work/unsigned"
	else
		check "$kind: the unsigned build keeps its rpms aside, none for installing" "0 5" \
			"$(find "$top/$kind" -maxdepth 1 -name '*.rpm' | wc -l) $(find "$top/$kind/unsigned" -maxdepth 1 -name '*.rpm' | wc -l)"
		unsigned=$(one_file "$top/rpm/unsigned/kernel-modsign-[0-9]*.x86_64.rpm") || unsigned=
		[ -z "$unsigned" ] || unpack "$unsigned" "$work/unsigned"
	fi

	mkdir -m 0700 "$work/signhost"
	install -m 0600 "$key/sec" "$work/signhost/key.sec"
	rc=0
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare --mount --net -- sh -c '
		mount -t tmpfs none "$1" || exit 99
		exec "$2" -k "$3" --sign-manifest "$4" --output "$5"' \
		sh "$top" "$KDIR/scripts/modsign/pgp-sign" "$work/signhost/key.sec" \
		"$manifest" "$work/sigs" || rc=$?
	check "$kind: the manifest is signed elsewhere" 0 "$rc"
	rm -rf "$work/signhost"

	rc=0
	pkgmake "$kind" "$work/signed.log" MODSIGN_PKG_MANIFEST="$manifest" \
		MODSIGN_PKG_SIGNATURES="$work/sigs" || rc=$?
	check "$kind: the signed build attaches the signatures" 0 "$rc"
	if [ "$kind" = deb ]; then
		package=$(one_file "$top/deb/linux-image-*-modsign_*_amd64.deb") || package=
	else
		package=$(one_file "$top/rpm/kernel-modsign-[0-9]*.x86_64.rpm") || package=
	fi
	valid=0
	if [ -n "$package" ]; then
		unpack "$package" "$work/unpacked"
		while read -r ko; do
			"$verify" --keyring "$key/pub" "$ko" >/dev/null 2>&1 && valid=$((valid + 1))
		done < <(find "$work/unpacked/lib/modules" -name '*.ko' -o -name '*.ko.*')
	fi
	check "$kind: every packaged module is validly signed by the packager's key" "$nmods" "$valid"
	if [ "$kind" = rpm ] && [ -n "$package" ] && [ -n "$unsigned" ]; then
		compiled=missing
		[ ! -f "$top/rpm/build-signed.log" ] ||
			compiled=$(awk '/^[[:space:]]+(CC|LD|HOSTCC)[[:space:]]/ { n++ } END { print n + 0 }' "$top/rpm/build-signed.log")
		check "rpm: the signed build compiles nothing" 0 "$compiled"
		rpm_record "$unsigned" >"$work/header.unsigned"
		rpm_record "$package" >"$work/header.signed"
		check "rpm: the repacked rpm records what the unsigned one does ($(grep -c . "$work/header.unsigned") lines)" "" \
			"$(diff "$work/header.unsigned" "$work/header.signed" | sed -n 2,4p | tr '\n' '|')"
		check "rpm: the repacked rpm's name is the unsigned one's" "$(basename "$unsigned")" "$(basename "$package")"
		same=0 others=0
		while read -r f; do
			u=$work/unsigned/${f#"$work/unpacked/"}
			case "$f" in
			*.ko)
				[ -f "$u" ] && cmp -s -n "$(stat -c %s "$u")" "$u" "$f" &&
					[ "$(stat -c %s "$f")" -gt "$(stat -c %s "$u")" ] && same=$((same + 1))
				;;
			*) cmp -s "$u" "$f" || others=$((others + 1)) ;;
			esac
		done < <(find "$work/unpacked" -type f)
		check "rpm: each signed module is the unsigned rpm's module, a signature appended" "$nmods" "$same"
		check "rpm: every other file is the unsigned rpm's" 0 "$others"
		changed=0
		for r in "$top"/rpm/unsigned/*.rpm; do
			[ "$r" = "$unsigned" ] || cmp -s "$r" "$top/rpm/$(basename "$r")" || changed=$((changed + 1))
		done
		check "rpm: the other rpms (source, debuginfo, devel, dkms) are the unsigned build's" 0 "$changed"
	fi
	if [ "$kind" = deb ] && [ -n "$package" ] && [ -d "$work/unsigned" ]; then
		# Debian's template shape: the signed build repacked, compiled nothing
		dsc=$(one_file "$top/deb/linux-signed-modsign_*.dsc") || dsc=
		others=missing sigs=missing
		if [ -n "$dsc" ]; then
			others=$(tar -tf "${dsc%.dsc}.tar.xz" | awk '!/^[^\/]+\/(debian\/.*)?$/ { n++ } END { print n + 0 }')
			sigs=$(tar -tf "${dsc%.dsc}.tar.xz" | awk '/\/debian\/signatures\/modules\/.*\.ko\.sig$/ { n++ } END { print n + 0 }')
		fi
		check "deb: the signed build's source holds only debian/ (signatures and packaging)" 0 "$others"
		check "deb: its source carries a signature for every module" "$nmods" "$sigs"
		compiled=missing
		[ ! -f "$top/deb/build-signed.log" ] ||
			compiled=$(awk '/^[[:space:]]+(CC|LD|HOSTCC)[[:space:]]/ { n++ } END { print n + 0 }' "$top/deb/build-signed.log")
		check "deb: the signed build compiles nothing" 0 "$compiled"
		same=0
		while read -r ko; do
			u=$work/unsigned/${ko#"$work/unpacked/"}
			[ -f "$u" ] && cmp -s -n "$(stat -c %s "$u")" "$u" "$ko" &&
				[ "$(stat -c %s "$ko")" -gt "$(stat -c %s "$u")" ] && same=$((same + 1))
		done < <(find "$work/unpacked/lib/modules" -name '*.ko')
		check "deb: each signed module is the unsigned package's module, a signature appended" "$nmods" "$same"
		check "deb: the kernel image is the unsigned package's" 0 \
			"$(cmp -s "$work/unsigned/boot/vmlinuz-$deb_krel" "$work/unpacked/boot/vmlinuz-$deb_krel"; echo $?)"
	fi
	found=$("$here/../faults/seckey-scan.pl" "$key/sec" "$top" "$work/unpacked" "$manifest" "$work/sigs" | wc -l)
	check "$kind: no copy of the key in the builds, their logs or the package" 0 "$found"
done
finish
