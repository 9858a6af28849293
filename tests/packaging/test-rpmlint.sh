#!/bin/bash
# rpmlint finds no errors in the rpms (binary and source) beyond those its
# filter file names, each with the reason (packaging/rpm/kernel-modsign.rpmlintrc):
# the packages' signature, which the repository adds, and the kernel's own
# build tree in kernel-modsign-devel.  Warnings are listed, not judged.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

ensure_packages
rc_file=$pkg_top/packaging/rpm/kernel-modsign.rpmlintrc
dir=$(scratch rpmlint)
rpms=("$(kernel_rpm)" "$(devel_rpm)" "$(dkms_rpm)" "$(one_file "$pkg_dir/rpm/kernel-modsign-[0-9]*.src.rpm")")
# One run over them all: rpmlint counts a filter no package needed as an
# error (unused-rpmlintrc-filter), and exits non-zero on any error, so
# the errors themselves are what is judged.
rpmlint -r "$rc_file" "${rpms[@]}" >"$dir/rpmlint.log" 2>&1 || :
sed "s/^/rpmlint: /" "$dir/rpmlint.log"
check "rpmlint: all four rpms checked" 1 \
	"$(grep -c '^ *4 packages and 0 specfiles checked' "$dir/rpmlint.log" || :)"
for rpm in "${rpms[@]}"; do
	name=$(rpm -qp --qf '%{NAME}.%{ARCH}' "$rpm")
	[[ "$rpm" = *.src.rpm ]] && name=$(rpm -qp --qf '%{NAME}' "$rpm").src
	check "rpmlint: ${rpm##*/} has no errors" "" \
		"$(grep -F "$name: E: " "$dir/rpmlint.log" | tr '\n' ';')"
done
check "rpmlint: no other errors (the spec, the filters)" "" \
	"$(grep ': E: ' "$dir/rpmlint.log" | grep -v -E '^(kernel-modsign|kernel-modsign-devel|modsign-dkms)\.(x86_64|noarch|src): E: ' | tr '\n' ';')"
# The filters are narrow: without the file, the devel package's own tree
# and the missing signature are errors, so they are filtered, not absent.
rpmlint "$(devel_rpm)" >"$dir/unfiltered.log" 2>&1 || :
check "rpmlint: without the filters, the devel tree's empty kbuild files are errors" yes \
	"$(grep -q ': E: zero-length /usr/src/kernels/' "$dir/unfiltered.log" && echo yes || echo no)"
finish
