#!/bin/bash
# Reproducible signed packages (make check-full only: eight package
# builds).  For each of deb and rpm, four builds of the same sources,
# config and SOURCE_DATE_EPOCH, one after the other in the same directory
# (the build path is an input: the debug info names it):
#   p1, p2  with the packager's persistent key: every package is
#           byte-identical; the deb's .buildinfo differs only in its
#           Build-Date and the .changes only in the .buildinfo's checksums;
#   e1, e2  each with its own ephemeral key: every difference is a module
#           signature (the bodies are identical), the kernel's built-in
#           public keyring (vmlinuz is otherwise identical, decompressed)
#           or the shipped copy of that keyring; the debug packages and the
#           source rpm are identical.
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

# explain A B NAME: repro-diff over the package NAME of runs A and B,
# unpacked; its listing goes to the log and to $work/diff-A-B-NAME.txt,
# its status to $explained (0: every difference explained).
explain() {
	local a=$1 b=$2 name=$3
	rm -rf "$work/u"
	unpack "$built/$a/$name" "$work/u/a"
	unpack "$built/$b/$name" "$work/u/b"
	explained=0
	"$here/repro-diff.py" "$extract" "$work/u/a" "$work/u/b" >"$work/diff-$a-$b-$name.txt" ||
		explained=$?
	sed "s/^/  $a-$b $name: /" "$work/diff-$a-$b-$name.txt"
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

	mapfile -t names < <(find "$built/p1" -maxdepth 1 -type f -printf '%f\n' | LC_ALL=C sort)
	for run in p2 e1 e2; do
		check "$kind: build $run gives the same files as p1" "${names[*]}" \
			"$(find "$built/$run" -maxdepth 1 -type f -printf '%f\n' 2>/dev/null | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
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
		fi
		if [ ! -f "$built/e1/$name" ] || [ ! -f "$built/e2/$name" ]; then
			continue
		fi

		# two ephemeral keys
		explain e1 e2 "$name"
		summary=$(tail -n 1 "$work/diff-e1-e2-$name.txt")
		case $name in
		*-dbg_* | *-debuginfo-* | *-debugsource-* | *.src.rpm)
			check "$kind: $name: every file the same with two ephemeral keys" yes \
				"$([[ $summary =~ ^same=[0-9]+$ ]] && echo yes || echo "no ($summary)")"
			;;
		linux-image-* | kernel-modsign-[0-9]*)
			check "$kind: $name with two ephemeral keys: every difference is a signature or the key" 0 "$explained"
			check "$kind: $name: all $(grep -c . "$KDIR/modules.order") module signatures, the built-in key and its shipped copy differ" \
				"built-in=1 keyring=1 signature=$(grep -c . "$KDIR/modules.order")" \
				"$(tr ' ' '\n' <<<"$summary" | grep -E '^(built-in|keyring|signature)=' | tr '\n' ' ' | sed 's/ $//')"
			;;
		*)
			fail "$kind: $name" "a package this test does not know"
			;;
		esac
	done
	rm -rf "$work/u"
done
finish
