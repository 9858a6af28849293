#!/bin/bash
# Sign an rpm's modules without building it again, in the shape of
# openSUSE's pesign-repackage: the unsigned build's binary rpm is unpacked,
# the signatures made from its manifest (pgp-sign --sign-manifest, where
# the key is) are attached, and an rpm is packed again from a spec made
# from the unsigned rpm's own header.  What rpm records of the package is
# kept (name, version, release, dependencies, scriptlets, each file's
# mode, owner and flags, changelog, build time and host, payload
# compression); only the modules change, each the unsigned module with
# its signature appended.
#
#   repack.sh UNSIGNED.rpm MANIFEST SIGDIR TOOLS OUTDIR
#
# MANIFEST and SIGDIR as for modsign-pkg.sh sign (MODSIGN_PKG_MANIFEST,
# MODSIGN_PKG_SIGNATURES); TOOLS holds the unsigned build's pgp-attach and
# pgp-verify.  Every module is checked against the manifest and against
# the keyring built into the kernel (the package's own copy) before any is
# written, as in the deb's linux-signed-modsign.  OUTDIR gets the rpm under
# the unsigned one's file name; nothing is written there on failure.  No
# key is needed, and nothing is compiled.
set -euo pipefail

prog=${0##*/}
die() {
	echo "$prog: $*" >&2
	exit 1
}

if [ "$#" -ne 5 ]; then
	echo "usage: $prog UNSIGNED.rpm MANIFEST SIGDIR TOOLS OUTDIR" >&2
	exit 2
fi
rpmfile=$(realpath "$1")
manifest=$(realpath "$2")
sigdir=$(realpath "$3")
tools=$(realpath "$4")
outdir=$5
helper=$(dirname "$(realpath "$0")")/../modsign-pkg.sh
[ -r "$rpmfile" ] || die "$1: not a readable rpm"
if [ ! -x "$tools/pgp-attach" ] || [ ! -x "$tools/pgp-verify" ]; then
	die "$4: pgp-attach and pgp-verify of the unsigned build are missing"
fi

q() { rpm -qp --qf "$1" "$rpmfile" 2>/dev/null; }
name=$(q '%{NAME}') || die "$1: not an rpm rpm can read"
krel=$(rpm -qp --provides "$rpmfile" 2>/dev/null | sed -n 's/^kernel-uname-r = //p')
[ -n "$krel" ] || die "$1: provides no kernel-uname-r: not a kernel package"

# What this script cannot carry over stops it, rather than being dropped.
[ "$(q '%{TRIGGERNAME}%{FILETRIGGERNAME}%{TRANSFILETRIGGERNAME}')" = '(none)(none)(none)' ] ||
	die "$1: has triggers, which repacking does not carry over"
# (rpm itself leaves a %ghost file's contents and time unverified.)
if q '[%{FILEFLAGS} %{FILEVERIFYFLAGS}\n]' |
	awk '{ if (int($1 / 64) % 2 == 0 && $2 != 4294967295 && $2 != -1) bad = 1 } END { exit !bad }'; then
	die "$1: has %verify file attributes, which repacking does not carry over"
fi
if q '[%{FILECAPS}\n]' | grep -q -v -x ''; then
	die "$1: has file capabilities, which repacking does not carry over"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/modsign-repack.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root" "$work/top"

# The payload, as it is (modes, owners, times).
rpm2cpio "$rpmfile" | (cd "$root" && cpio -idm --quiet --no-absolute-filenames) ||
	die "$1: cannot unpack the payload"

# Attach, compress and check: the step the deb's signed build runs too.
keyring=$root/usr/share/doc/kernel-keys/$krel/modsign-pubkeys.gpg
[ -s "$keyring" ] || die "$1: no keyring at ${keyring#"$root"}"
# Signing rewrites the modules and their directories; the times the
# package records stay the unsigned build's.
find "$root/lib/modules/$krel" -printf '%T@\t%p\n' >"$work/mtimes"
bash "$helper" attach-unpacked "$root" "$krel" "$keyring" "$tools" "$manifest" "$sigdir"
while IFS=$'\t' read -r mtime path; do
	for f in "$path" "$path.xz" "$path.zst" "$path.gz"; do
		[ ! -e "$f" ] || touch -h -d "@$mtime" "$f"
	done
done <"$work/mtimes"

# deps TAG: one "Requires(post): ..." line per dependency of
# TAG; the ones rpmbuild adds by itself (rpmlib features, the scriptlets'
# interpreters, the package's own provides) are left to it.
deps() {
	local tag=$1 line type dep
	q "[%{${tag}FLAGS:deptype}\t%{${tag}NEVRS}\n]" | while IFS=$'\t' read -r type dep; do
		[ -n "$dep" ] || continue
		case "$type" in
		*rpmlib* | *interp*) continue ;;
		esac
		line=
		case "$tag" in
		REQUIRE)
			# "manual" is a plain Requires, "auto" one a
			# generator found; the rest are the qualifiers.
			type=$(echo "$type" | tr ',' '\n' | sed -e '/^manual$/d' -e '/^auto$/d' | paste -s -d, -)
			line="Requires${type:+($type)}: $dep"
			;;
		PROVIDE)
			case "$dep" in
			"$name = "* | "$name($(q '%{ARCH}' | sed 's/_/-/')) = "*) continue ;;
			esac
			line="Provides: $dep"
			;;
		CONFLICT) line="Conflicts: $dep" ;;
		OBSOLETE) line="Obsoletes: $dep" ;;
		RECOMMEND) line="Recommends: $dep" ;;
		SUGGEST) line="Suggests: $dep" ;;
		SUPPLEMENT) line="Supplements: $dep" ;;
		ENHANCE) line="Enhances: $dep" ;;
		esac
		echo "$line"
	done
}

# scriptlet SECTION TAG: the scriptlet as the spec gives it
scriptlet() {
	local prog body
	prog=$(q "%{${2}PROG}")
	body=$(q "%{${2}}")
	[ "$prog" != '(none)' ] || return 0
	if [ "$prog" = /bin/sh ]; then
		echo "%$1"
	else
		echo "%$1 -p $prog"
	fi
	[ "$body" = '(none)' ] || printf '%s\n' "$body"
	echo
}

# files: the file list, each with its mode, owner and flags
files() {
	local flags mode user group path attr kind f
	q '[%{FILEFLAGS}\t%{FILEMODES:octal}\t%{FILEUSERNAME}\t%{FILEGROUPNAME}\t%{FILENAMES}\n]' |
		while IFS=$'\t' read -r flags mode user group path; do
			case "$path" in
			*'"'* | *'%'*) die "$1: $path: a file name this script cannot quote in a spec" ;;
			esac
			# A module the config compresses is compressed once signed.
			if [ ! -e "$root$path" ] && [ $((flags & 64)) -eq 0 ]; then
				for f in "$path.xz" "$path.zst" "$path.gz"; do
					[ ! -e "$root$f" ] || path=$f
				done
			fi
			kind=
			[ $((flags & 64)) -eq 0 ] || kind="$kind%ghost "
			[ $((flags & 2)) -eq 0 ] || kind="$kind%doc "
			[ $((flags & 128)) -eq 0 ] || kind="$kind%license "
			[ $((flags & 4096)) -eq 0 ] || kind="$kind%artifact "
			if [ $((flags & 1)) -ne 0 ]; then
				case $((flags & 24)) in
				0) kind="$kind%config " ;;
				8) kind="$kind%config(missingok) " ;;
				16) kind="$kind%config(noreplace) " ;;
				24) kind="$kind%config(missingok,noreplace) " ;;
				esac
			fi
			attr="%attr(${mode: -4},$user,$group)"
			case "${mode:0:${#mode}-4}" in
			4 | 04) kind="%dir $kind" ;;
			12 | 012) attr="%attr(-,$user,$group)" ;;
			esac
			echo "$kind$attr \"$path\""
		done
}

payload_macro() {
	local comp flags
	comp=$(q '%{PAYLOADCOMPRESSOR}')
	flags=$(q '%{PAYLOADFLAGS}')
	case "$comp" in
	xz) echo "w$flags.xzdio" ;;
	zstd) echo "w$flags.zstdio" ;;
	gzip) echo "w$flags.gzdio" ;;
	bzip2) echo "w$flags.bzdio" ;;
	*) die "$1: payload compressor '$comp' unknown here" ;;
	esac
}

optional() {
	local v
	v=$(q "%{$2}")
	[ "$v" = '(none)' ] || echo "$1: $v"
}

spec=$work/top/repack.spec
{
	# The unsigned build's settings, and none of rpmbuild's own
	# processing: the files are the built package's, stripped and
	# split already, and its dependencies are recorded in its header.
	echo "%global _buildhost $(q '%{BUILDHOST}')"
	echo '%global use_source_date_epoch_as_buildtime 1'
	echo '%global clamp_mtime_to_source_date_epoch 1'
	echo "%global _binary_payload $(payload_macro "$1")"
	echo "%global _binary_filedigest_algorithm $(q '%{FILEDIGESTALGO}')"
	echo '%global __spec_install_post %{nil}'
	echo '%global debug_package %{nil}'
	echo '%global _build_id_links none'
	echo "Name: $name"
	[ "$(q '%{EPOCH}')" = '(none)' ] || echo "Epoch: $(q '%{EPOCH}')"
	echo "Version: $(q '%{VERSION}')"
	echo "Release: $(q '%{RELEASE}')"
	echo "Summary: $(q '%{SUMMARY}')"
	echo "License: $(q '%{LICENSE}')"
	optional Group GROUP
	optional URL URL
	optional Packager PACKAGER
	optional Vendor VENDOR
	optional Distribution DISTRIBUTION
	optional BugURL BUGURL
	echo 'AutoReqProv: no'
	for tag in REQUIRE PROVIDE CONFLICT OBSOLETE RECOMMEND SUGGEST SUPPLEMENT ENHANCE; do
		deps "$tag"
	done
	echo
	echo '%description'
	q '%{DESCRIPTION}'
	echo
	echo
	echo '%install'
	echo "cp -a '$root/.' %{buildroot}/"
	echo
	scriptlet pretrans PRETRANS
	scriptlet pre PREIN
	scriptlet post POSTIN
	scriptlet preun PREUN
	scriptlet postun POSTUN
	scriptlet posttrans POSTTRANS
	echo '%files'
	files "$1"
	echo
	if [ "$(q '%{CHANGELOGTIME}')" != '(none)' ]; then
		echo '%changelog'
		q '[* %{CHANGELOGTIME:day} %{CHANGELOGNAME}\n%{CHANGELOGTEXT}\n\n]'
	fi
} >"$spec"

# The unsigned rpm's build time, as the build's own SOURCE_DATE_EPOCH.
if ! SOURCE_DATE_EPOCH=$(q '%{BUILDTIME}') rpmbuild -bb --nodeps --quiet \
	--define "_topdir $work/top" --target "$(q '%{ARCH}')" "$spec" >"$work/rpmbuild.log" 2>&1; then
	tail -n 20 "$work/rpmbuild.log" >&2
	die "$1: rpmbuild of the repacked spec failed"
fi
built=$(find "$work/top/RPMS" -name '*.rpm')
[ "$(echo "$built" | grep -c .)" = 1 ] || die "$1: rpmbuild made $(echo "$built" | grep -c .) rpms, not one"
mkdir -p "$outdir"
cp "$built" "$outdir/$(basename "$rpmfile").tmp"
mv "$outdir/$(basename "$rpmfile").tmp" "$outdir/$(basename "$rpmfile")"
echo "$prog: $(basename "$rpmfile"): modules signed, repacked in $outdir"
