#!/bin/bash
# Debian's full config (make KCONFIG=debian), short of the hours its
# kernel takes to build here: scripts/configure-kernel.sh turns OpenPGP
# module signing on and the options take; the signing tools build under
# it (modules_prepare); and modules built against that tree, with its
# full DWARF, BTF for modules and MODULE_SIG_ALL, are stripped, signed and
# verify, and modules_install leaves them as signed.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

work=$(scratch debian-config)
obj=$work/obj
keys=(MODSECKEY="$KEYS/main/sec" MODPUBKEY="$KEYS/main/pub")

rc=0
"$tests_dir/../scripts/configure-kernel.sh" "$KSRC" "$obj" debian \
	>"$work/configure.log" 2>&1 || rc=$?
check "debian config: configure-kernel.sh succeeds" 0 "$rc"
for line in CONFIG_MODULE_SIG=y CONFIG_MODULE_SIG_PGP=y CONFIG_MODULE_SIG_ALL=y \
	CONFIG_MODULE_SIG_SHA256=y 'CONFIG_SYSTEM_TRUSTED_KEYS=""' \
	CONFIG_DEBUG_INFO_BTF_MODULES=y; do
	check "debian config: $line" yes "$(grep -qxF "$line" "$obj/.config" && echo yes)"
done

rc=0
make -C "$KSRC" O="$obj" -j"${JOBS:-2}" modules_prepare "${keys[@]}" \
	>"$work/prepare.log" 2>&1 || rc=$?
check "debian config: modules_prepare builds" 0 "$rc"
verify=$obj/scripts/modsign/pgp-verify
check "debian config: pgp-sign and pgp-verify are built" yes \
	"$([ -x "$obj/scripts/modsign/pgp-sign" ] && [ -x "$verify" ] && echo yes)"

ext=$work/extmod
cp -r "$tests_dir/modules/extmod" "$ext"
rc=0
# No vmlinux, so no Module.symvers: modpost cannot resolve the modules'
# symbols, which 6.12 makes an error unless told it is expected.
make -C "$obj" M="$ext" modules KBUILD_MODPOST_WARN=1 "${keys[@]}" >"$work/extmod.log" 2>&1 || rc=$?
check "debian config: external modules build" 0 "$rc"
for mod in extmod_a extmod_b; do
	m=$ext/$mod.ko
	check "debian config: $mod: SIGN line" yes \
		"$(grep -qxF "  SIGN    $m" "$work/extmod.log" && echo yes)"
	rc=0
	"$verify" --keyring "$KEYS/main/pub" "$m" >/dev/null 2>&1 || rc=$?
	check "debian config: $mod: verifies (the tree's own pgp-verify)" 0 "$rc"
	check "debian config: $mod: gpgv accepts" yes \
		"$(gpgv_ok "$KEYS/main/pub" "$m" "$work" && echo yes)"
	check "debian config: $mod: modinfo signer, sig_key, sig_hashalgo" \
		"Test main <main@modsign.test>|$(keyid main | sed 's/../&:/g; s/:$//')|sha256" \
		"$(modinfo_field "$m" signer)|$(modinfo_field "$m" sig_key)|$(modinfo_field "$m" sig_hashalgo)"
	check "debian config: $mod: .ko.unsigned keeps its DWARF, .ko has none" "yes:no" \
		"$(readelf -S "$m.unsigned" | grep -q '\.debug_info' && echo yes):$(readelf -S "$m" | grep -q '\.debug' && echo yes || echo no)"
done

rc=0
make -C "$obj" M="$ext" modules_install INSTALL_MOD_PATH="$work/root" "${keys[@]}" \
	>"$work/install.log" 2>&1 || rc=$?
check "debian config: modules_install succeeds" 0 "$rc"
# Debian's 6.1 config installs modules as they are; its 6.12 config
# compresses them (MODULE_COMPRESS_XZ, MODULE_COMPRESS_ALL), after they
# were signed: the .ko.xz holds the signed module, byte for byte.
case "$(kernel_series "$KSRC")" in
6.1) suffix= ;;
*)
	suffix=.xz
	for line in CONFIG_MODULE_COMPRESS_XZ=y CONFIG_MODULE_COMPRESS_ALL=y CONFIG_MODULE_DECOMPRESS=y; do
		check "debian config: $line" yes "$(grep -qxF "$line" "$obj/.config" && echo yes)"
	done
	;;
esac
same=0
for mod in extmod_a extmod_b; do
	inst=$(find "$work/root" -name "$mod.ko$suffix")
	if [ -z "$inst" ]; then
		continue
	elif [ -z "$suffix" ]; then
		cmp -s "$ext/$mod.ko" "$inst" && same=$((same + 1))
	else
		xz -dc "$inst" | cmp -s "$ext/$mod.ko" - && same=$((same + 1))
		rc=0
		"$verify" --keyring "$KEYS/main/pub" "$inst" >/dev/null 2>&1 || rc=$?
		check "debian config: installed $mod.ko$suffix verifies" 0 "$rc"
	fi
done
check "debian config: MODULE_SIG_ALL installs the signed modules unchanged (as .ko$suffix)" 2 "$same"

finish
