#!/bin/bash
# The deb's signed build of signing off the build host: the
# linux-signed-modsign template (packaging/deb/signed), as
# build-package.sh runs it, without a kernel build.  Its input, the
# unsigned build's linux-image-*-modsign-unsigned, is made here from the
# image package make check built: the signatures cut off its modules and
# the packager's public key as the kernel's keyring.  The manifest is made
# and signed as the unsigned build and the signing host would.
#   - the signed build makes a .dsc holding only debian/ and a
#     linux-image-*-modsign with the unsigned package's version (and
#     providing that package at it, for the -dbg package), whose
#     modules are the unsigned ones with the packager's signatures
#     appended,
#     depmod -e run on it with no output shipped, and the image's
#     maintainer scripts for its release;
#   - a missing signature, a keyring without the signing key, a module
#     that is not the manifest's, a module needing a symbol that no
#     packaged module provides, and no unsigned package each stop the
#     build, naming the cause, with no image package made.
# (tests/full/test-detached-packages.sh does it from a real unsigned build.)
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

ensure_packages
key=$pkg_packager_key
other=$(testkey other)
kver=$(kernel_series "$KSRC")
tools=$KDIR/scripts/modsign
work=$(scratch signed-template)
image=$(image_deb)
version=$(dpkg-deb -f "$image" Version)
pkg=$(dpkg-deb -f "$image" Package)
krel=${pkg#linux-image-}

# unsigned_deb KEYRING OUT: the stand-in unsigned image package
unsigned_deb() {
	local root=$work/root
	rm -rf "$root"
	dpkg-deb -R "$image" "$root"
	python3 - "$root/lib/modules/$krel" <<'EOF'
import os, struct, sys
magic = b"~Module signature appended~\n"
for top, _, names in os.walk(sys.argv[1]):
    for n in names:
        if not n.endswith(".ko"):
            continue
        p = os.path.join(top, n)
        d = open(p, "rb").read()
        if not d.endswith(magic):
            sys.exit(p + ": not signed")
        f = struct.unpack_from(">BBBBB3xI", d, len(d) - len(magic) - 12)
        open(p, "wb").write(d[: len(d) - len(magic) - 12 - f[3] - f[4] - f[5]])
EOF
	mv "$root/usr/share/doc/$pkg" "$root/usr/share/doc/$pkg-unsigned"
	install -m 0644 "$1" "$root/usr/share/doc/$pkg-unsigned/modsign-pubkeys.gpg"
	sed -i "s/^Package: .*/Package: $pkg-unsigned/" "$root/DEBIAN/control"
	rm -f "$root/DEBIAN/md5sums"
	dpkg-deb --root-owner-group -b "$root" "$2" >/dev/null
}

# signed_build OUT LOG: build-package.sh's signed deb build in OUT
signed_build() {
	make -s -C "$pkg_top" VBUILD="$BUILD" KVER="$kver" KCONFIG=small JOBS="${JOBS:-$(nproc)}" \
		PKGOUT="$1" MODPUBKEY="$key/pub" MODSIGN_PKG_MANIFEST="${manifest:-$work/manifest}" \
		MODSIGN_PKG_SIGNATURES="${sigs:-$work/sigs}" deb >"$2" 2>&1
}

# outdir NAME KEYRING: an OUTDIR as the unsigned build leaves it
outdir() {
	local out=$work/$1
	mkdir -p "$out/deb/tools"
	unsigned_deb "$2" "$out/deb/$pkg-unsigned_${version}_amd64.deb"
	install -m 0755 "$tools/pgp-attach" "$tools/pgp-verify" "$out/deb/tools/"
	echo "$out"
}

out=$(outdir good "$key/pub")
mapfile -t mods < <(cd "$work/root/lib/modules/$krel" && find . -name '*.ko' | sed 's,^\./,,' | LC_ALL=C sort)
check "the stand-in unsigned image has modules" yes "$([ "${#mods[@]}" -gt 0 ] && echo yes || echo no)"
rc=0
(cd "$work/root/lib/modules/$krel" && "$tools/pgp-attach" --create "$work/manifest" \
	--keyring "$key/pub" "${mods[@]}") || rc=$?
check "the manifest of the unsigned modules is made with the public key" 0 "$rc"
rc=0
"$tools/pgp-sign" -k "$key/sec" --sign-manifest "$work/manifest" --output "$work/sigs" || rc=$?
check "the manifest is signed" 0 "$rc"

rc=0
signed_build "$out" "$work/good.log" || rc=$?
check "the signed build succeeds" 0 "$rc"
signed=$(one_file "$out/deb/${pkg}_*_amd64.deb") || signed=
dsc=$(one_file "$out/deb/linux-signed-modsign_*.dsc") || dsc=
others=missing
[ -z "$dsc" ] || others=$(tar -tf "${dsc%.dsc}.tar.xz" | awk '!/^[^\/]+\/(debian\/.*)?$/ { n++ } END { print n + 0 }')
check "the source package holds only debian/" 0 "$others"
check "its debian/signatures holds the manifest and a signature per module" "$((${#mods[@]} + 1))" \
	"$([ -z "$dsc" ] || tar -tf "${dsc%.dsc}.tar.xz" | grep -cE '/debian/signatures/(manifest|modules/.*\.ko\.sig)$')"
if [ -n "$signed" ]; then
	check "the signed image has the unsigned package's version" "$version" "$(dpkg-deb -f "$signed" Version)"
	check "it replaces the unsigned image" "$pkg-unsigned $pkg-unsigned" \
		"$(dpkg-deb -f "$signed" Conflicts) $(dpkg-deb -f "$signed" Replaces)"
	check "it provides the unsigned image at its version (the -dbg package's dependency)" \
		"$pkg-unsigned (= $version)" "$(dpkg-deb -f "$signed" Provides)"
	unpack "$signed" "$work/signed"
	valid=0 appended=0
	for m in "${mods[@]}"; do
		s=$work/signed/lib/modules/$krel/$m u=$work/root/lib/modules/$krel/$m
		"$tools/pgp-verify" --keyring "$key/pub" "$s" >/dev/null 2>&1 && valid=$((valid + 1))
		[ -f "$s" ] && [ "$(stat -c %s "$s")" -gt "$(stat -c %s "$u")" ] &&
			cmp -s -n "$(stat -c %s "$u")" "$u" "$s" && appended=$((appended + 1))
	done
	check "every module verifies with the packager's key" "${#mods[@]}" "$valid"
	check "every module is the unsigned one with a signature appended" "${#mods[@]}" "$appended"
	check "the kernel image is the unsigned package's" 0 \
		"$(cmp -s "$work/root/boot/vmlinuz-$krel" "$work/signed/boot/vmlinuz-$krel"; echo $?)"
	check "the keyring is shipped under the signed package's name only" "yes no" \
		"$([ -s "$work/signed/usr/share/doc/$pkg/modsign-pubkeys.gpg" ] && echo yes || echo no) $([ -e "$work/signed/usr/share/doc/$pkg-unsigned" ] && echo yes || echo no)"
	check "depmod -e checked the modules, none of its output is shipped" "yes no" \
		"$(grep -q 'depmod -e found every symbol' "$out/deb/build-signed.log" && echo yes || echo no) $([ -e "$work/signed/lib/modules/$krel/modules.dep" ] && echo yes || echo no)"
	dpkg-deb -e "$signed" "$work/signed-control"
	check "the maintainer scripts are the image's, for its release" "$krel $krel $krel $krel" \
		"$(for s in preinst postinst prerm postrm; do sed -n 's/^version=//p' "$work/signed-control/$s" 2>/dev/null || echo none; done | xargs)"
else
	fail "the signed image package" "not made (log: $work/good.log)"
fi

# refuse CASE LOG-PATTERN: the signed build in $out must fail, naming the cause
refuse() {
	local what=$1 pattern=$2 log=$work/$3.log rc=0
	signed_build "$out" "$log" || rc=$?
	check "$what: the build fails" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
	check "$what: the message names it" yes "$(grep -q -- "$pattern" "$log" && echo yes || echo no)"
	check "$what: no image package made" 0 \
		"$(find "$out/deb" -maxdepth 1 -name "${pkg}_*.deb" | wc -l)"
}

out=$(outdir missing "$key/pub")
victim=${mods[0]}
mv "$work/sigs/$victim.sig" "$work/victim.sig"
refuse "a missing signature" "$victim: no signature" missing
mv "$work/victim.sig" "$work/sigs/$victim.sig"

out=$(outdir wrongkey "$other/pub")
refuse "a kernel keyring without the signing key" "which is not in .*modsign-pubkeys.gpg" wrongkey

out=$(outdir changed "$key/pub")
printf 'x' >>"$work/root/lib/modules/$krel/$victim"
dpkg-deb --root-owner-group -b "$work/root" "$out/deb/$pkg-unsigned_${version}_amd64.deb" >/dev/null
refuse "a module that is not the manifest's" "$victim: not the module" changed

# A module another one needs, left out of the unsigned package (and of
# the manifest and signatures made from it).
out=$(outdir unresolved "$key/pub")
needed=$(cd "$work/root/lib/modules/$krel" && for m in "${mods[@]}"; do modinfo -F depends "$m"; done |
	tr ',' '\n' | sed -n '/./{p;q}')
gone=$(cd "$work/root/lib/modules/$krel" && find . -name "$needed.ko" -printf '%P\n')
rm "$work/root/lib/modules/$krel/$gone"
dpkg-deb --root-owner-group -b "$work/root" "$out/deb/$pkg-unsigned_${version}_amd64.deb" >/dev/null
(cd "$work/root/lib/modules/$krel" && find . -name '*.ko' -printf '%P\n' |
	"$tools/pgp-attach" --create "$work/manifest-unresolved" --keyring "$key/pub" -T -)
"$tools/pgp-sign" -k "$key/sec" --sign-manifest "$work/manifest-unresolved" --output "$work/sigs-unresolved"
manifest=$work/manifest-unresolved sigs=$work/sigs-unresolved \
	refuse "a module needing a symbol no module provides ($needed left out)" "needs unknown symbol" unresolved

out=$work/empty
mkdir -p "$out/deb"
refuse "no unsigned package" "the unsigned build (MODSIGN_PKG_MANIFEST alone) comes first" empty
finish
