#!/bin/bash
# Reproducible signed packages (make check-full only: eight package
# builds).  For each of deb and rpm, four builds of the same sources,
# config and SOURCE_DATE_EPOCH, one after the other in the same directory
# (the build path is an input: the debug info names it):
#   p1, p2  with the packager's persistent key: every package is
#           byte-identical; the deb's .buildinfo differs only in its
#           Build-Date and the .changes only in the .buildinfo's checksums;
#   e1, e2  each with its own ephemeral key: every difference is the key.
#           In the image: each module's signature (the bodies are
#           identical), the kernel's built-in public keyring (vmlinuz is
#           otherwise identical, decompressed, but for the build-id that
#           hashes it) and the shipped copy of that keyring.  In the debug
#           package: vmlinux, the same way, and the build-id links that
#           name it.  In the headers: the tree's copy of the keyring.  The
#           DKMS package and the source rpm are identical.
# (A persistent and an ephemeral build are not compared: two different
# keys make keyrings of different sizes, and the kernel's layout follows.)
# repro-diff.py lists and classes every file of every package pair; its
# output is in the test log.  MODSIGN_TEST_KINDS (default "deb rpm")
# picks the kinds.  Each build's packages are kept in
# $BUILD/packages/repro/runs/KIND/RUN; MODSIGN_REPRO_REUSE=1 compares the
# builds kept there (with their SOURCE_DATE_EPOCH) instead of making them
# again, so the comparison can be rerun without eight package builds.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=../packaging/common.sh
. "$here/../packaging/common.sh"

key=$pkg_packager_key
kver=$(kernel_series "$KSRC")
top=$BUILD/packages/repro
runs=$top/runs
extract=$KSRC/scripts/extract-vmlinux
mkdir -p "$runs"
# After the key was made (a signature may not predate its key), and the
# same for every build, kept ones included.
if [ -n "${MODSIGN_REPRO_REUSE:-}" ] && [ -s "$runs/epoch" ]; then
	SOURCE_DATE_EPOCH=$(cat "$runs/epoch")
else
	rm -rf "${runs:?}"/*
	SOURCE_DATE_EPOCH=$(date +%s)
	echo "$SOURCE_DATE_EPOCH" >"$runs/epoch"
fi
export SOURCE_DATE_EPOCH

# build KIND RUN [VAR=VALUE...]: a full package build of KIND in
# $top/KIND, the same path each time; its outputs are moved to
# $runs/KIND/RUN, which .built marks complete.
build() {
	local kind=$1 run=$2 start=$SECONDS out=$runs/$1/$2
	shift 2
	if [ -n "${MODSIGN_REPRO_REUSE:-}" ] && [ -f "$out/.built" ]; then
		echo "$kind $run: the kept build of $(cat "$out/.built")"
		return 0
	fi
	rm -rf "$out"
	mkdir -p "$out"
	# the stamp would let a build with the same inputs as the last one
	# do nothing
	rm -f "$top/$kind/.inputs"
	make -s -C "$pkg_top" VBUILD="$BUILD" KVER="$kver" KCONFIG=small \
		JOBS="${JOBS:-$(nproc)}" PKGOUT="$top" "$@" "$kind" >"$out.log" 2>&1 || return 1
	find "$top/$kind" -maxdepth 1 -type f \( -name '*.deb' -o -name '*.rpm' \
		-o -name '*.buildinfo' -o -name '*.changes' \) -exec mv -t "$out" {} +
	date -u '+%F %T UTC' >"$out/.built"
	echo "$kind $run: built in $((SECONDS - start)) s"
}

# keyring RUN: $work/RUN.gpg, the public keyring built into RUN's kernel,
# as its image package ships it (the debug packages ship none).
keyring() {
	local image
	image=$(find "$built/$1" -maxdepth 1 -type f \( -name 'kernel-modsign-[0-9]*.x86_64.rpm' \
		-o -name 'linux-image-*.deb' ! -name '*-dbg_*' \) | head -n 1)
	rm -rf "$work/u"
	[ -z "$image" ] || unpack "$image" "$work/u"
	find "$work/u" -name modsign-pubkeys.gpg -exec cp {} "$work/$1.gpg" \; 2>/dev/null
	rm -rf "$work/u"
}

# explain A B NAME: repro-diff over the package NAME of runs A and B,
# unpacked; its listing goes to the log and to $work/diff-A-B-NAME.txt,
# its status to $explained (0: every difference explained).
explain() {
	local a=$1 b=$2 name=$3
	local -a rings=()
	rm -rf "$work/u"
	unpack "$built/$a/$name" "$work/u/a"
	unpack "$built/$b/$name" "$work/u/b"
	if [ -s "$work/$a.gpg" ] && [ -s "$work/$b.gpg" ]; then
		rings=("$work/$a.gpg" "$work/$b.gpg")
	fi
	explained=0
	"$here/repro-diff.py" "$extract" "$work/u/a" "$work/u/b" "${rings[@]}" \
		>"$work/diff-$a-$b-$name.txt" || explained=$?
	sed "s/^/  $a-$b $name: /" "$work/diff-$a-$b-$name.txt"
}

# rpm_header_diff A B: the names of the header tags whose values differ
# between two rpms (a payload that is the same can still come in a
# different header)
rpm_header_diff() {
	python3 - "$1" "$2" <<'EOF'
import subprocess
import sys
import xml.etree.ElementTree as ET


def tags(path):
    out = subprocess.run(["rpm", "-qp", "--xml", path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=True).stdout
    return {tag.get("name"): ET.tostring(tag) for tag in ET.fromstring(out)}


a, b = tags(sys.argv[1]), tags(sys.argv[2])
print(" ".join(sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))))
EOF
}

# words WORD...: the words sorted, on one line
words() {
	printf '%s\n' "$@" | grep . | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

# classes SUMMARY: the classes of difference repro-diff counted, "same"
# left out, sorted
classes() {
	# shellcheck disable=SC2046 # one word per class
	words $(tr ' ' '\n' <<<"$1" | sed -n 's/^\([a-zA-Z-]*\)=[0-9]*$/\1/p' | grep -vx same)
}

for kind in ${MODSIGN_TEST_KINDS:-deb rpm}; do
	work=$(scratch "repro-$kind")
	built=$runs/$kind
	keys=(MODSECKEY="$key/sec" MODPUBKEY="$key/pub")
	rc=0
	build "$kind" p1 "${keys[@]}" || rc=$?
	check "$kind: first build with the packager's key" 0 "$rc"
	rc=0
	build "$kind" p2 "${keys[@]}" || rc=$?
	check "$kind: second build with the packager's key" 0 "$rc"
	for run in e1 e2; do
		rc=0
		build "$kind" "$run" || rc=$?
		check "$kind: build $run with an ephemeral key" 0 "$rc"
	done
	[ -d "$built/p1" ] || continue
	for run in p1 p2 e1 e2; do
		keyring "$run"
	done
	# A deb's DEBIAN/md5sums lists each file that differs.
	sums=
	[ "$kind" = rpm ] || sums=checksums

	mapfile -t names < <(find "$built/p1" -maxdepth 1 -type f ! -name '.*' -printf '%f\n' | LC_ALL=C sort)
	for run in p2 e1 e2; do
		check "$kind: build $run gives the same files as p1" "${names[*]}" \
			"$(find "$built/$run" -maxdepth 1 -type f ! -name '.*' -printf '%f\n' 2>/dev/null | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
	done
	for name in "${names[@]}"; do
		case $name in
		*.buildinfo)
			# dpkg-genbuildinfo records when the build ran
			check "$kind: $name differs only in Build-Date" "" \
				"$(diff <(grep -v '^Build-Date:' "$built/p1/$name") \
					<(grep -v '^Build-Date:' "$built/p2/$name" 2>/dev/null) 2>&1)"
			continue
			;;
		*.changes)
			# it holds the .buildinfo's size and checksums
			check "$kind: $name differs only in the .buildinfo's checksums" "" \
				"$(diff <(grep -v '\.buildinfo$' "$built/p1/$name") \
					<(grep -v '\.buildinfo$' "$built/p2/$name" 2>/dev/null) 2>&1)"
			continue
			;;
		esac
		if cmp -s "$built/p1/$name" "$built/p2/$name"; then
			pass "$kind: $name byte-identical in two builds with the packager's key"
		else
			fail "$kind: $name byte-identical in two builds with the packager's key" \
				"$(cmp "$built/p1/$name" "$built/p2/$name" 2>&1 | head -n 1)"
			# the listing of what differs, for the log
			explain p1 p2 "$name"
			if [[ $name == *.rpm ]]; then
				echo "  p1-p2 $name: header tags that differ:" \
					"$(rpm_header_diff "$built/p1/$name" "$built/p2/$name")"
			fi
		fi
		if [ ! -f "$built/e1/$name" ] || [ ! -f "$built/e2/$name" ]; then
			continue
		fi

		# two ephemeral keys
		explain e1 e2 "$name"
		summary=$(tail -n 1 "$work/diff-e1-e2-$name.txt")
		case $name in
		*-dbg_* | *-debuginfo-*)
			# vmlinux holds the built-in key; its build-id hashes it
			check "$kind: $name with two ephemeral keys: every difference is vmlinux's built-in key" 0 "$explained"
			check "$kind: $name: only vmlinux and the links named by its build-id differ" \
				"$(words build-id built-in $sums) built-in=1" \
				"$(classes "$summary") $(tr ' ' '\n' <<<"$summary" | grep '^built-in=')"
			;;
		*.src.rpm | modsign-dkms*)
			check "$kind: $name: every file the same with two ephemeral keys" yes \
				"$([[ $summary =~ ^same=[0-9]+$ ]] && echo yes || echo "no ($summary)")"
			;;
		linux-headers-* | kernel-modsign-devel-*)
			check "$kind: $name with two ephemeral keys: every difference is the key" 0 "$explained"
			check "$kind: $name: only the tree's copy of the keyring differs" \
				"$(words keyring $sums) keyring=1" \
				"$(classes "$summary") $(tr ' ' '\n' <<<"$summary" | grep '^keyring=')"
			;;
		linux-image-* | kernel-modsign-[0-9]*)
			check "$kind: $name with two ephemeral keys: every difference is a signature or the key" 0 "$explained"
			check "$kind: $name: all $(grep -c . "$KDIR/modules.order") module signatures, the built-in key and its shipped copy differ" \
				"$(words built-in keyring signature $sums) built-in=1 keyring=1 signature=$(grep -c . "$KDIR/modules.order")" \
				"$(classes "$summary") $(tr ' ' '\n' <<<"$summary" | grep -E '^(built-in|keyring|signature)=' | tr '\n' ' ' | sed 's/ $//')"
			;;
		*)
			fail "$kind: $name" "a package this test does not know"
			;;
		esac
	done
	rm -rf "$work/u"
done
finish
