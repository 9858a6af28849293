#!/bin/bash
# Compressed modules, as distributions install them: signed when built,
# compressed by modules_install (xz, with the settings the kernel's
# decompressor needs), then loaded in QEMU under module.sig_enforce=1
# through kmod's own decompression (modprobe, insmod of a .ko.xz) and
# through the kernel's (finit_module with MODULE_INIT_COMPRESSED_FILE).
# The behaviour table's kernel (guest_table_opts) is the one booted, so
# this costs no kernel build of its own.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=guestlib.sh
. "$here/guestlib.sh"
# shellcheck source=../signlib.sh
. "$here/../signlib.sh"

work=$(guest_workdir guest-compressed)
payload=$work/payload
mods=$payload/modules
verify=$KDIR/scripts/modsign/pgp-verify

if ! kernel=$(guest_kernel table "${guest_table_opts[@]}"); then
	fail "compressed: the table kernel builds" "see the make output above"
	finish
fi
obj=$BUILD/test/kernel-table
check "compressed: the kernel decompresses xz modules itself" \
	"CONFIG_MODULE_DECOMPRESS=y CONFIG_MODULE_COMPRESS_XZ=y" \
	"$(grep -x 'CONFIG_MODULE_DECOMPRESS=y' "$obj/.config") $(grep -x 'CONFIG_MODULE_COMPRESS_XZ=y' "$obj/.config")"

# modules_install compresses the signed modules; it must not sign or
# strip them again.
release=$(make -s -C "$KSRC" O="$obj" kernelrelease)
root=$payload
rc=0
make -C "$KSRC" O="$obj" INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 \
	modules_install >"$work/install.log" 2>&1 || rc=$?
check "compressed: modules_install succeeds" 0 "$rc"
moddir=$root/lib/modules/$release
mapfile -t order < <(modules_ko "$obj")
xz_n=0 plain_n=0 same=0 valid=0 crc32=0
for m in "${order[@]}"; do
	inst=$moddir/kernel/$m.xz
	[ -e "$moddir/kernel/$m" ] && plain_n=$((plain_n + 1))
	[ -e "$inst" ] || continue
	xz_n=$((xz_n + 1))
	xz -dc "$inst" | cmp -s - "$obj/$m" && same=$((same + 1))
	"$verify" --keyring "$KDIR/modsign.pub" "$inst" >/dev/null 2>&1 && valid=$((valid + 1))
	# The kernel's xz decoder knows CRC32 (and no check), not CRC64 or
	# SHA-256, and a dictionary of 1 MiB at most is what it allocates.
	xz --robot -lvv "$inst" | awk -F'\t' '$1 == "stream" && $9 == "CRC32"' | grep . >/dev/null &&
		xz --robot -lvv "$inst" | grep -F -- '--lzma2=dict=1MiB' >/dev/null && crc32=$((crc32 + 1))
done
n=${#order[@]}
check "compressed: every module installed as .ko.xz, none plain" "$n 0" "$xz_n $plain_n"
check "compressed: each .ko.xz is the module signed at build, byte for byte" "$n" "$same"
check "compressed: xz with CRC32 and a 1 MiB dictionary, as the kernel needs" "$n" "$crc32"
check "compressed: pgp-verify reads every .ko.xz as validly signed" "$n" "$valid"
crc7=$moddir/kernel/lib/crc7.ko.xz
check "compressed: modinfo reads the signer from a .ko.xz" \
	"$(modinfo -F signer "$obj/lib/crc7.ko")" "$(modinfo -F signer "$crc7" 2>/dev/null)"
check "compressed: INSTALL_MOD_STRIP is ignored for signed modules" yes \
	"$(grep -q 'INSTALL_MOD_STRIP ignored' "$work/install.log" && echo yes)"

# The finit_module cases (cases.sh passes -c for a compressed file).
modsig=$here/../modsig.py
cp "$crc7" "$mods/valid.ko.xz"
"$modsig" edit "$obj/lib/crc7.ko" "$work/body-flip.ko" --flip body:200
xz --check=crc32 --lzma2=dict=1MiB -c "$work/body-flip.ko" >"$mods/tampered.ko.xz"
# A byte of the compressed stream itself: xz's CRC32 catches it.
cp "$crc7" "$mods/xz-flip.ko.xz"
size=$(stat -c %s "$crc7")
printf '\xff' | dd of="$mods/xz-flip.ko.xz" bs=1 seek=$((size / 2)) conv=notrunc status=none
# Compressed, then signed, the mistake the kernel must catch: the
# signature covers the xz bytes, not the module the kernel will check
# (tests/resign-module.py signs anything).
"$KSRC/scripts/extract-module-sig.pl" -0 "$obj/lib/crc7.ko" >"$work/body.ko" 2>/dev/null
xz --check=crc32 --lzma2=dict=1MiB -c "$work/body.ko" >"$work/body.ko.xz"
"$here/../resign-module.py" "$work/body.ko.xz" "$KDIR/modsign.sec" "$mods/signed-after.ko.xz"
cp "$mods/signed-after.ko.xz" "$mods/signed-after-raw.ko"
# The same, of a module that was signed before it was compressed.
"$here/../resign-module.py" "$crc7" "$KDIR/modsign.sec" "$mods/signed-twice.ko.xz"
cat >"$payload/cases.list" <<CASES
valid valid.ko.xz crc7
tampered tampered.ko.xz crc7
xz-flip xz-flip.ko.xz crc7
signed-after signed-after.ko.xz crc7
signed-after-raw signed-after-raw.ko crc7
signed-twice signed-twice.ko.xz crc7
CASES

# kmod, run from the initramfs with its libraries: modprobe resolves
# deflate's dependencies from modules.dep and decompresses each .ko.xz in
# user space, then hands the kernel the plain module.
for f in /usr/bin/kmod $(ldd /usr/bin/kmod | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }'); do
	mkdir -p "$payload$(dirname "$f")"
	cp -L "$f" "$payload$f"
done
# kmod acts on the name it is called by; /usr/sbin, as busybox's own
# modprobe and insmod are in /bin.
mkdir -p "$payload/usr/sbin"
for t in modprobe insmod; do
	ln -sf /usr/bin/kmod "$payload/usr/sbin/$t"
done
cp "$mods/tampered.ko.xz" "$payload/kmod-tampered.ko.xz"
cat >"$payload/setup.sh" <<'SETUP'
#!/bin/sh
# kmod cases, reported as cases.sh reports its own; the errno comes from
# kmod's message (it prints strerror).
mode=$1
# No ld.so.cache in the initramfs: name the libraries' directory.
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu
errno_of() {
	case "$1" in
	*"Key was rejected by service"*) echo EKEYREJECTED ;;
	*"Required key not available"*) echo ENOKEY ;;
	*"Bad message"*) echo EBADMSG ;;
	*"Invalid argument"*) echo EINVAL ;;
	*"Exec format error"*) echo ENOEXEC ;;
	*) echo "UNKNOWN($1)" ;;
	esac
}
kcase() {
	name=$1
	shift
	if out=$("$@" 2>&1); then result=OK; else result=$(errno_of "$out"); fi
	echo "CASE $name $mode $result $(cat /proc/sys/kernel/tainted)"
}
kcase kmod-modprobe /usr/sbin/modprobe deflate
echo "KMOD-LOADED $(cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ')"
rmmod deflate zlib_deflate
kcase kmod-insmod-tampered /usr/sbin/insmod /kmod-tampered.ko.xz
SETUP
chmod 0755 "$payload/setup.sh"

log=$work/enforce.log
if ! guest_boot "$kernel" "$payload" "$log" module.sig_enforce=1; then
	fail "compressed: guest boot" "see $log"
	finish
fi
# want CASE RESULT: the result and the taint mask (0: nothing loaded
# tainted the kernel)
want() {
	check "compressed: enforce $1" "$2 0" "$(guest_result "$log" "$1")"
}
want valid OK
want tampered EKEYREJECTED
# The kernel's decompressor refuses the stream before any signature
# is looked at (kernel/module/decompress.c: -EINVAL).
want xz-flip EINVAL
# Decompressed, the module carries no signature: refused as unsigned.
want signed-after EKEYREJECTED
# Taken as it is, the signature is good but what it covers is no ELF
# module: the loader's own checks refuse it after the signature check.
want signed-after-raw ENOEXEC
# The kernel's decompressors stop at the end of the compressed stream and
# ignore what follows: the signed module inside is what is checked.
want signed-twice OK
want kmod-modprobe OK
# deflate and what modules.dep says it needs (zlib_deflate; zlib_inflate
# is built in when the kernel unpacks a gzip initramfs)
deps=$(awk -F'[: ]+' '$1 == "kernel/crypto/deflate.ko.xz" {
	for (i = 1; i <= NF; i++) if ($i != "") { sub(/.*\//, "", $i); sub(/\.ko\.xz$/, "", $i); print $i } }' \
	"$moddir/modules.dep" | sort | tr '\n' ' ' | sed 's/ $//')
check "compressed: modules.dep names deflate's dependency" "deflate zlib_deflate" "$deps"
check "compressed: modprobe loaded deflate and its dependencies" "$deps" \
	"$(sed -n 's/^KMOD-LOADED //p' "$log" | tr ' ' '\n' | grep -E '^(deflate|zlib_deflate|zlib_inflate)$' | sort | tr '\n' ' ' | sed 's/ $//')"
want kmod-insmod-tampered EKEYREJECTED
guest_no_splat "compressed: no oops or warning" "$log"

# pgp-verify says of each what the kernel did.
outcome_of() {
	local rc=0
	"$verify" --keyring "$(guest_keyring)" "$1" >/dev/null 2>&1 || rc=$?
	echo "$rc"
}
check "compressed: pgp-verify: valid .ko.xz exits 0" 0 "$(outcome_of "$mods/valid.ko.xz")"
check "compressed: pgp-verify: tampered .ko.xz is a bad signature (exit 12)" 12 "$(outcome_of "$mods/tampered.ko.xz")"
check "compressed: pgp-verify: altered xz stream is bad compression (exit 17)" 17 "$(outcome_of "$mods/xz-flip.ko.xz")"
check "compressed: pgp-verify: signed after compression (exit 18)" 18 "$(outcome_of "$mods/signed-after.ko.xz")"
# Stricter than the kernel, on purpose: a signature after the stream is
# a packaging mistake even when the module inside is signed.
check "compressed: pgp-verify: signed, compressed, signed again (exit 18)" 18 "$(outcome_of "$mods/signed-twice.ko.xz")"
finish
