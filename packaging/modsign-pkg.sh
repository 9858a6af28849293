#!/bin/bash
# Module steps shared by the rpm spec and debian/rules.  The packagers'
# tools strip modules, and a stripped signed module is no longer signed, so
# the recipes install the build's unsigned modules (foo.ko.unsigned, full
# debug info), let debuginfo extraction and stripping happen, and only then
# call `sign` here.
#
#   modsign-pkg.sh install-modules KOBJ MODDIR
#       MODDIR/kernel/<path>/foo.ko from KOBJ/<path>/foo.ko.unsigned, mode
#       0755 (find-debuginfo only takes files with an exec bit), plus the
#       modules.order/modules.builtin* lists depmod reads.
#   modsign-pkg.sh split-debug MODDIR DEBUGROOT
#       For dpkg, whose dh_strip leaves .ko alone: the debug info of
#       MODDIR/PATH.ko goes to DEBUGROOT/usr/lib/debug/lib/modules/KREL/PATH.ko,
#       the module keeps its symbol table (the loader needs it) and gets
#       a .gnu_debuglink naming that file, which is where gdb looks for it
#       (the global debug directory plus the module's own directory), and
#       .build-id/xx/yyyy.debug links to it, as Debian's -dbg packages do.
#   modsign-pkg.sh debug-vmlinux VMLINUX DEBUGROOT KREL
#       vmlinux, with its debug info, at usr/lib/debug/lib/modules/KREL/
#       under DEBUGROOT (perf looks there), linked from boot/vmlinux-KREL
#       and vmlinux-KREL beside it (systemtap, kdump-tools) and from
#       .build-id/xx/yyyy.debug by the build-id the running kernel reports.
#   modsign-pkg.sh sign KOBJ MODDIR
#       Sign every module under MODDIR in place with the tree's batch signer
#       (KOBJ/scripts/modsign/pgp-sign), then check every one with the
#       tree's verifier (pgp-verify) against the public keyring: one that
#       does not verify fails the package build.  Keys come from the
#       environment as for the kernel build (MODSECKEY or MODKEYNAME,
#       MODPUBKEY, KEYFLAGS), else the ephemeral pair the kernel build made
#       in KOBJ, whose secret half is deleted here, as is the X.509 key the
#       build generated for PKCS#7 (KOBJ/certs/signing_key.pem).
#       Signing off the build host, two builds: with MODSIGN_PKG_MANIFEST
#       alone (the unsigned build), nothing is signed and the manifest of
#       the modules (scripts/modsign/pgp-attach --create, paths relative
#       to MODDIR) is written to that file for pgp-sign --sign-manifest
#       where the key is; with MODSIGN_PKG_SIGNATURES too (the signed
#       build), the signatures made from that manifest are attached, each
#       module checked first.  MODPUBKEY is required and MODSECKEY refused:
#       the secret key is not on the build host.
#   modsign-pkg.sh attach-unpacked ROOT KREL KEYRING TOOLS MANIFEST SIGDIR
#       The signed build that compiles nothing (the deb's linux-signed
#       template, the rpm's repack): ROOT is the unsigned kernel package
#       of release KREL, unpacked.  `sign` attaches the signatures in
#       SIGDIR, made from MANIFEST, to ROOT/lib/modules/KREL, each module
#       checked first against MANIFEST and KEYRING (the keyring the kernel
#       was built with); then `compress` and `depmod-check` as in a build.
#       TOOLS holds the unsigned build's pgp-attach and pgp-verify.
#   modsign-pkg.sh compress KOBJ MODDIR
#       After signing: compress every module under MODDIR as KOBJ's config
#       asks modules_install to (CONFIG_MODULE_COMPRESS_XZ/ZSTD/GZIP; on
#       6.12 only with CONFIG_MODULE_COMPRESS_ALL), with the kernel's own
#       settings, and check each compressed module with pgp-verify again.
#       Nothing to do for a config without module compression.
#   modsign-pkg.sh depmod-check ROOT KREL
#       After signing and compressing: depmod -e against ROOT/boot's
#       System.map, as the install will run it.  A module that needs a
#       symbol nothing provides fails the package build, naming both.
#       depmod's output is then deleted: the packages make it at install
#       (their postinst, %post), they do not ship it.
#   modsign-pkg.sh maintscripts DEBIANDIR TEMPLATE PACKAGE KREL
#       DEBIANDIR/PACKAGE.{preinst,postinst,prerm,postrm} from whichever
#       of the templates DEBIANDIR/TEMPLATE.*.in exist (image, headers),
#       for dh_installdeb.
#   modsign-pkg.sh headers KSRC KOBJ DEST
#       DEST: the tree external modules are built (and signed) against,
#       /lib/modules/KREL/build on the installed system.
set -euo pipefail

prog=${0##*/}

die() {
	echo "$prog: $*" >&2
	exit 1
}

modules_under() {
	find "$1" -type f -name '*.ko' | LC_ALL=C sort
}

install_modules() {
	local kobj=$1 moddir=$2 ko n=0
	[ -f "$kobj/modules.order" ] || die "$kobj/modules.order: missing (were the modules built?)"
	mkdir -p "$moddir/kernel"
	while read -r ko; do
		ko=${ko%.o}
		ko=${ko%.ko}.ko
		[ -f "$kobj/$ko.unsigned" ] ||
			die "$kobj/$ko.unsigned: missing; the tree must keep unsigned modules (kbuild-patches)"
		install -D -m 0755 "$kobj/$ko.unsigned" "$moddir/kernel/$ko"
		n=$((n + 1))
	done <"$kobj/modules.order"
	[ "$n" -gt 0 ] || die "$kobj/modules.order lists no module"
	sed 's,^,kernel/,; s,\.o$,.ko,' "$kobj/modules.order" >"$moddir/modules.order"
	sed 's,^,kernel/,; s,\.o$,.ko,' "$kobj/modules.builtin" >"$moddir/modules.builtin"
	install -m 0644 "$kobj/modules.builtin.modinfo" "$moddir/modules.builtin.modinfo"
	echo "$prog: installed $n unsigned modules in $moddir"
}

build_id() {
	# The hex build-id of an ELF file, empty when it has none.
	readelf -n "$1" | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p' | sed -n 1p
}

split_debug() {
	local moddir=$1 debugroot=$2 ko id dbg link n=0
	while read -r ko; do
		id=$(build_id "$ko")
		[ "${#id}" -gt 2 ] || die "$ko: no build-id, so no debug file name"
		dbg="$debugroot/usr/lib/debug/lib/modules/${moddir##*/}/${ko#"$moddir"/}"
		link="$debugroot/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
		mkdir -p "${dbg%/*}" "${link%/*}"
		objcopy --only-keep-debug --compress-debug-sections=none "$ko" "$dbg"
		chmod 0644 "$dbg"
		ln -sfr "$dbg" "$link"
		# --strip-debug, not --strip-unneeded: the module loader resolves
		# and relocates through the symbol table.
		objcopy --strip-debug --remove-section=.comment "$ko"
		objcopy --add-gnu-debuglink="$dbg" "$ko"
		[ "$(build_id "$ko")" = "$id" ] || die "$ko: build-id changed while stripping"
		n=$((n + 1))
	done < <(modules_under "$moddir")
	echo "$prog: split debug info of $n modules into $debugroot"
}

debug_vmlinux() {
	local vmlinux=$1 debugroot=$2 krel=$3 dst id link
	id=$(build_id "$vmlinux")
	[ "${#id}" -gt 2 ] || die "$vmlinux: no build-id"
	readelf -S "$vmlinux" | awk '/\.debug_info/ { f = 1 } END { exit !f }' || die "$vmlinux: no debug info"
	dst=$debugroot/usr/lib/debug/lib/modules/$krel/vmlinux
	link=$debugroot/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	install -D -m 0644 "$vmlinux" "$dst"
	mkdir -p "$debugroot/usr/lib/debug/boot" "${link%/*}"
	ln -sfn "../lib/modules/$krel/vmlinux" "$debugroot/usr/lib/debug/boot/vmlinux-$krel"
	ln -sfn "lib/modules/$krel/vmlinux" "$debugroot/usr/lib/debug/vmlinux-$krel"
	ln -sfr "$dst" "$link"
	echo "$prog: vmlinux (build-id $id) in $debugroot"
}

# The build's own secret keys, deleted on exit (globals: the EXIT trap
# runs after sign_modules has returned): the ephemeral OpenPGP key, when
# it signs, and always the X.509 key that the kernel build generated
# for PKCS#7 (certs/signing_key.pem, MODULE_SIG_KEY's default).  The
# packaged kernel trusts both, and nothing signs with either after this.
ephemeral=""
x509_key=""
discard_build_keys() {
	local k
	for k in "$ephemeral" "$x509_key"; do
		if [ -n "$k" ] && [ -e "$k" ]; then
			shred -z -u "$k" 2>/dev/null || rm -f "$k"
			echo "$prog: deleted the build's secret key $k"
		fi
	done
}

# The modules under MODDIR, relative to it: the manifest's paths.
relative_modules() {
	(cd "$1" && find kernel -type f -name '*.ko' | LC_ALL=C sort)
}

# detached KOBJ MODDIR: the unsigned build's manifest, or the signed
# build's attaching (see the header).
detached() {
	local kobj=$1 moddir=$2 attach verifier hash n
	local -a mods name
	[ -z "${MODSECKEY:-}" ] ||
		die "MODSECKEY is set: signing off the build host takes no secret key here"
	if [ -z "${MODPUBKEY:-}" ] || [ ! -r "$MODPUBKEY" ]; then
		die "MODPUBKEY: the public keyring of the signing key is needed (and readable)"
	fi
	attach=$kobj/scripts/modsign/pgp-attach
	verifier=$kobj/scripts/modsign/pgp-verify
	[ -x "$attach" ] || die "$attach: the tree's pgp-attach is missing"
	x509_key=$kobj/certs/signing_key.pem
	trap discard_build_keys EXIT
	n=$(relative_modules "$moddir" | wc -l)
	[ "$n" -gt 0 ] || die "$moddir: no modules"
	if [ -z "${MODSIGN_PKG_SIGNATURES:-}" ]; then
		hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$kobj/.config")
		[ -n "$hash" ] || die "$kobj/.config: no CONFIG_MODULE_SIG_HASH"
		name=()
		[ -z "${MODKEYNAME:-}" ] || name=(--key-name "$MODKEYNAME")
		relative_modules "$moddir" | (cd "$moddir" && "$attach" --create "$MODSIGN_PKG_MANIFEST" \
			--keyring "$MODPUBKEY" --hash "$hash" "${name[@]}" -T -) ||
			die "cannot write the manifest $MODSIGN_PKG_MANIFEST"
		echo "$prog: $n modules left unsigned, their manifest in $MODSIGN_PKG_MANIFEST"
		return
	fi
	[ -r "$MODSIGN_PKG_MANIFEST" ] || die "$MODSIGN_PKG_MANIFEST: the unsigned build's manifest is missing"
	relative_modules "$moddir" | (cd "$moddir" && "$attach" --manifest "$MODSIGN_PKG_MANIFEST" \
		--signatures "$MODSIGN_PKG_SIGNATURES" --keyring "$MODPUBKEY" -T -) ||
		die "attaching the signatures of $MODSIGN_PKG_SIGNATURES failed (pgp-attach status $?)"
	mapfile -t mods < <(modules_under "$moddir")
	"$verifier" --keyring "$MODPUBKEY" "${mods[@]}" ||
		die "a packaged module does not verify against $MODPUBKEY (pgp-verify status $?)"
	chmod 0644 "${mods[@]}"
	echo "$prog: attached and verified the signatures of ${#mods[@]} modules"
}

sign_modules() {
	local kobj=$1 moddir=$2 pub hash signer verifier
	local -a mods key
	if [ -n "${MODSIGN_PKG_MANIFEST:-}" ]; then
		detached "$kobj" "$moddir"
		return
	fi
	[ -z "${MODSIGN_PKG_SIGNATURES:-}" ] ||
		die "MODSIGN_PKG_SIGNATURES needs MODSIGN_PKG_MANIFEST, the manifest they were made from"
	# The same keys, and the same defaults, as the kernel build: a secret
	# key file (MODSECKEY), else a key gpg-agent holds (MODKEYNAME), else
	# the ephemeral pair in the object tree.
	if [ -n "${MODSECKEY:-}" ]; then
		key=(--secret-key "$MODSECKEY")
		[ -r "$MODSECKEY" ] || die "$MODSECKEY: secret key not readable"
	elif [ -n "${MODKEYNAME:-}" ]; then
		key=(--key-name "$MODKEYNAME")
	else
		ephemeral=$kobj/modsign.sec
		key=(--secret-key "$ephemeral")
		[ -r "$ephemeral" ] || die "$ephemeral: the build's ephemeral secret key is missing"
	fi
	if [ -n "${KEYFLAGS:-}" ]; then
		key+=(--gpg-options "$KEYFLAGS")
	fi
	pub=${MODPUBKEY:-$kobj/modsign.pub}
	[ -r "$pub" ] || die "$pub: public keyring not readable"

	hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$kobj/.config")
	[ -n "$hash" ] || die "$kobj/.config: no CONFIG_MODULE_SIG_HASH"
	signer=$kobj/scripts/modsign/pgp-sign
	verifier=$kobj/scripts/modsign/pgp-verify
	[ -x "$signer" ] || die "$signer: the tree's batch signer is missing"
	[ -x "$verifier" ] || die "$verifier: the tree's verifier is missing"

	# Whether signing works or not: a key left in the build tree would be
	# a key that nobody controls and that the packaged kernel trusts.  The
	# recipes build in a tree of their own, so certs/signing_key.pem
	# there is always the one the build generated.
	x509_key=$kobj/certs/signing_key.pem
	trap discard_build_keys EXIT
	mapfile -t mods < <(modules_under "$moddir")
	[ "${#mods[@]}" -gt 0 ] || die "$moddir: no modules to sign"
	# The signer reads the key itself: no key material passes through this
	# script's arguments, output or environment.
	"$signer" --hash "$hash" "${key[@]}" --jobs "$(nproc)" "${mods[@]}" ||
		die "signing failed (pgp-sign status $?)"
	"$verifier" --keyring "$pub" "${mods[@]}" ||
		die "a packaged module does not verify against $pub (pgp-verify status $?)"
	chmod 0644 "${mods[@]}"
	echo "$prog: signed and verified ${#mods[@]} modules"
}

# config_has KOBJ OPTION: KOBJ's .config sets OPTION=y
config_has() {
	grep -qx "CONFIG_$2=y" "$1/.config"
}

compress_modules() {
	local kobj=$1 moddir=$2 pub ko n=0
	local -a cmd mods
	# The unsigned build's modules are not for installing: they stay as
	# the manifest describes them.
	if [ -n "${MODSIGN_PKG_MANIFEST:-}" ] && [ -z "${MODSIGN_PKG_SIGNATURES:-}" ]; then
		echo "$prog: unsigned build: modules left uncompressed"
		return
	fi
	# 6.12 compresses at install only with MODULE_COMPRESS_ALL; 6.1 has
	# no such option and compresses whenever a format is chosen.
	if grep -q '^# CONFIG_MODULE_COMPRESS_ALL is not set' "$kobj/.config"; then
		echo "$prog: modules stay uncompressed (CONFIG_MODULE_COMPRESS_ALL is not set)"
		return
	fi
	# As scripts/Makefile.modinst runs them: xz with CRC32 and a 1 MiB
	# dictionary, which is what the kernel's decompressor handles.
	if config_has "$kobj" MODULE_COMPRESS_XZ; then
		cmd=(xz --check=crc32 --lzma2=dict=1MiB -f)
	elif config_has "$kobj" MODULE_COMPRESS_ZSTD; then
		cmd=(zstd --rm -f -q)
	elif config_has "$kobj" MODULE_COMPRESS_GZIP; then
		cmd=(gzip -n -f)
	else
		echo "$prog: modules stay uncompressed (no CONFIG_MODULE_COMPRESS_* format)"
		return
	fi
	pub=${MODPUBKEY:-$kobj/modsign.pub}
	while read -r ko; do
		"${cmd[@]}" "$ko" || die "$ko: ${cmd[0]} failed"
		n=$((n + 1))
	done < <(modules_under "$moddir")
	[ "$n" -gt 0 ] || die "$moddir: no modules to compress"
	mapfile -t mods < <(find "$moddir" -type f -name '*.ko.*' | LC_ALL=C sort)
	[ "${#mods[@]}" -eq "$n" ] || die "$moddir: $n modules compressed, ${#mods[@]} compressed files"
	"$kobj/scripts/modsign/pgp-verify" --keyring "$pub" "${mods[@]}" ||
		die "a compressed module does not verify against $pub (pgp-verify status $?)"
	chmod 0644 "${mods[@]}"
	echo "$prog: compressed and verified $n modules (${cmd[0]})"
}

# depmod's output in a modules directory (kmod 30): what the package
# must not ship, and its postrm deletes.
depmod_outputs() {
	find "$1" -maxdepth 1 -type f -name 'modules.*' ! -name modules.order \
		! -name modules.builtin ! -name modules.builtin.modinfo
}

depmod_check() {
	local root=$1 krel=$2 map moddir out
	map=$root/boot/System.map-$krel
	moddir=$root/lib/modules/$krel
	[ -r "$map" ] || die "$map: missing (depmod checks symbols against it)"
	[ -d "$moddir" ] || die "$moddir: no modules directory"
	[ -z "$(depmod_outputs "$moddir")" ] ||
		die "$moddir: depmod output there before the check: $(depmod_outputs "$moddir" | xargs)"
	out=$(depmod -b "$root" -e -F "$map" "$krel" 2>&1) ||
		die "depmod -e -F $map $krel failed: $out"
	if grep -q 'needs unknown symbol' <<<"$out"; then
		die "unresolved symbols, the install's depmod would report them:"$'\n'"$(grep 'needs unknown symbol' <<<"$out")"
	fi
	[ -s "$moddir/modules.dep" ] || die "$moddir: depmod wrote no modules.dep"
	depmod_outputs "$moddir" | xargs rm -f
	echo "$prog: depmod -e found every symbol of the modules in $moddir; its output is made at install"
}

attach_unpacked() {
	local root=$1 krel=$2 keyring=$3 tools=$4 manifest=$5 sigdir=$6 kobj
	local config=$root/boot/config-$krel moddir=$root/lib/modules/$krel
	[ -r "$config" ] || die "$config: the unsigned package's config is missing"
	[ -d "$moddir" ] || die "$moddir: no modules directory"
	[ -s "$keyring" ] || die "$keyring: the kernel's keyring is missing or empty"
	if [ ! -x "$tools/pgp-attach" ] || [ ! -x "$tools/pgp-verify" ]; then
		die "$tools: pgp-attach and pgp-verify of the unsigned build are missing"
	fi
	tools=$(realpath "$tools")
	# All that sign and compress read of a kernel object tree is its config
	# and its modsign tools: a stand-in tree holds those two.
	kobj=$(mktemp -d "${TMPDIR:-/tmp}/modsign-kobj.XXXXXX")
	# shellcheck disable=SC2064 # the directory is known now
	trap "rm -rf '$kobj'" EXIT
	mkdir "$kobj/scripts"
	cp "$config" "$kobj/.config"
	ln -s "$tools" "$kobj/scripts/modsign"
	# sign sets a trap of its own: each step runs in a subshell of its own
	export MODPUBKEY=$keyring MODSIGN_PKG_MANIFEST=$manifest MODSIGN_PKG_SIGNATURES=$sigdir
	(sign_modules "$kobj" "$moddir")
	(compress_modules "$kobj" "$moddir")
	depmod_check "$root" "$krel"
}

maintscripts() {
	local debian=$1 template=$2 pkg=$3 krel=$4 s n=0
	for s in preinst postinst prerm postrm; do
		[ -r "$debian/$template.$s.in" ] || continue
		sed "s/@KREL@/$krel/g" "$debian/$template.$s.in" >"$debian/$pkg.$s"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || die "$debian/$template.*.in: no maintainer script templates"
}

# The tree that external modules build against (make -C DEST M=DIR), with
# the files the kernel's own packaging picks (6.1's builddeb, 6.12's
# install-extmod-build): from the source, the Makefiles, include/,
# scripts/ and the architecture's include and scripts directories; from
# the object tree, the generated headers, the built scripts (with
# scripts/sign-file and the modsign tools), Module.symvers, .config and
# the OpenPGP keyring built into the kernel (certs/pgp_pubkeys.gpg: public
# keys only, pgp-verify --check-pubring checks).  Files are picked by
# name, so the build's secret keys (modsign.sec, certs/signing_key.pem)
# cannot come along; the last check makes sure.
headers() {
	local ksrc=$1 kobj=$2 dest=$3 arch=x86 f
	for f in Module.symvers .config certs/pgp_pubkeys.gpg scripts/modsign/pgp-sign; do
		[ -e "$kobj/$f" ] || die "$kobj/$f: missing (was the kernel built?)"
	done
	"$kobj/scripts/modsign/pgp-verify" --check-pubring "$kobj/certs/pgp_pubkeys.gpg" ||
		die "$kobj/certs/pgp_pubkeys.gpg: not a keyring of public keys only"
	rm -rf "$dest"
	mkdir -p "$dest"
	(
		cd "$ksrc"
		find . "arch/$arch" -maxdepth 1 -name 'Makefile*'
		# dtc's include-prefixes link to every architecture's dts
		# directories, which are not shipped: they would dangle.
		find include scripts \( -type f -o -type l \) ! -name .gitignore \
			! -path 'scripts/dtc/include-prefixes/*'
		find "arch/$arch" -name Kbuild.platforms -o -name Platform
		find "arch/$arch" \( -name include -o -name scripts \) -type d -print0 |
			xargs -0 -I{} find {} -type f
	) | LC_ALL=C sort -u | tar -C "$ksrc" -c -f - -T - | tar -C "$dest" -x -f -
	(
		cd "$kobj"
		find "arch/$arch/include" include scripts -type f ! -name '*.o' ! -name '.*.cmd'
		[ ! -x tools/objtool/objtool ] || echo tools/objtool/objtool
		printf '%s\n' Module.symvers .config certs/pgp_pubkeys.gpg
	) | LC_ALL=C sort -u | tar -C "$kobj" -c -f - -T - | tar -C "$dest" -x -f -
	f=$(find "$dest" \( -name '*.sec' -o -name '*.pem' -o -name '*.priv' -o -name '*.key' \) -print -quit)
	[ -z "$f" ] || die "$f: a key file in the headers tree"
	echo "$prog: headers for external modules in $dest ($(du -sh "$dest" | cut -f1))"
}

case "${1:-}" in
install-modules)
	[ "$#" -eq 3 ] || die "usage: $prog install-modules KOBJ MODDIR"
	install_modules "$2" "$3"
	;;
split-debug)
	[ "$#" -eq 3 ] || die "usage: $prog split-debug MODDIR DEBUGROOT"
	split_debug "$2" "$3"
	;;
sign)
	[ "$#" -eq 3 ] || die "usage: $prog sign KOBJ MODDIR"
	sign_modules "$2" "$3"
	;;
compress)
	[ "$#" -eq 3 ] || die "usage: $prog compress KOBJ MODDIR"
	compress_modules "$2" "$3"
	;;
debug-vmlinux)
	[ "$#" -eq 4 ] || die "usage: $prog debug-vmlinux VMLINUX DEBUGROOT KREL"
	debug_vmlinux "$2" "$3" "$4"
	;;
attach-unpacked)
	[ "$#" -eq 7 ] || die "usage: $prog attach-unpacked ROOT KREL KEYRING TOOLS MANIFEST SIGDIR"
	attach_unpacked "$2" "$3" "$4" "$5" "$6" "$7"
	;;
depmod-check)
	[ "$#" -eq 3 ] || die "usage: $prog depmod-check ROOT KREL"
	depmod_check "$2" "$3"
	;;
maintscripts)
	[ "$#" -eq 5 ] || die "usage: $prog maintscripts DEBIANDIR TEMPLATE PACKAGE KREL"
	maintscripts "$2" "$3" "$4" "$5"
	;;
headers)
	[ "$#" -eq 4 ] || die "usage: $prog headers KSRC KOBJ DEST"
	headers "$2" "$3" "$4"
	;;
*)
	echo "usage: $prog install-modules|split-debug|debug-vmlinux|sign|compress|attach-unpacked|depmod-check|maintscripts|headers ..." >&2
	exit 2
	;;
esac
