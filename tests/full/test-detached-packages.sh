#!/bin/bash
# Packages signed off the build host, as a distribution would build them
# (make check-full only: four package builds).  For each of deb and rpm:
# the unsigned build (MODPUBKEY only, MODSIGN_PKG_MANIFEST) writes the
# manifest of the packaged modules and keeps no package; the manifest is
# signed with the packager's key in a mount and network namespace that
# holds the key and sees no build output; the signed build (the same build
# again, MODSIGN_PKG_SIGNATURES) attaches the signatures.  Its package must
# hold every module, validly signed by that key, and no copy of the key
# may be anywhere on the build side.
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

for kind in deb rpm; do
	work=$(scratch "detached-$kind")
	manifest=$work/manifest
	rc=0
	pkgmake "$kind" "$work/unsigned.log" MODSIGN_PKG_MANIFEST="$manifest" || rc=$?
	check "$kind: the unsigned build succeeds" 0 "$rc"
	check "$kind: its manifest lists every module, for the packager's key" "$nmods issuer $(cat "$key/fpr")" \
		"$(awk 'NR > 4' "$manifest" 2>/dev/null | wc -l) $(sed -n 4p "$manifest" 2>/dev/null)"
	check "$kind: the unsigned build keeps no package" 0 \
		"$(find "$top/$kind" -maxdepth 1 \( -name '*.deb' -o -name '*.rpm' \) | wc -l)"

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
	found=$("$here/../faults/seckey-scan.pl" "$key/sec" "$top" "$work/unpacked" "$manifest" "$work/sigs" | wc -l)
	check "$kind: no copy of the key in the builds, their logs or the package" 0 "$found"
done
finish
