#!/bin/bash
# Compressed modules, as distributions install them (.ko.xz, .ko.zst,
# .ko.gz): the signature is appended to the uncompressed module, which is
# then compressed, and the kernel (MODULE_DECOMPRESS) and kmod decompress
# it before the signature is checked.  pgp-verify decompresses such a file
# (told by its magic, whatever its name) and gives the outcome of the
# module inside, naming the format; corrupt or truncated data is
# bad-compression (17), a signature appended to the compressed file
# signed-after-compression (18).  pgp-sign refuses a compressed module and
# leaves it as it is.  modinfo (kmod) shows the signer and key of a
# compressed module as of the uncompressed one.
#
# PGP_VERIFY and PGP_SIGN=path run the cases against another pgp-verify
# or pgp-sign (older ones, to see them fail).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

VERIFY=${PGP_VERIFY:-$VERIFY}
SIGN=${PGP_SIGN:-$SIGN}
need xz zstd gzip kmod
dir=$(scratch compressed)

# A module: an in-tree one if the kernel was built, else a relocatable
# ELF object with a .modinfo section, which is all modinfo reads.
if [ -s "$KDIR/modules.order" ]; then
	src=$(sample_module)
else
	src=$dir/sample.ko
	printf '%s\n' 'char modsign_test_data[262144] = { 1 };' \
		'static const char modinfo[] __attribute__((section(".modinfo"), used)) =' \
		'	"license=GPL\0description=modsign test";' |
		gcc -c -x c - -o "$src"
fi

cp "$src" "$dir/unsigned.ko"
cp "$src" "$dir/valid.ko"
"$SIGN" -k "$KEYS/main/sec" "$dir/valid.ko"
"$tests_dir/modsig.py" edit "$dir/valid.ko" "$dir/body.ko" --flip body:200
# the signature trailer pgp-sign appended
trailer_len=$(($(stat -c %s "$dir/valid.ko") - $(stat -c %s "$dir/unsigned.ko")))
tail -c "$trailer_len" "$dir/valid.ko" >"$dir/trailer"

# compress FORMAT IN OUT: as scripts/Makefile.modinst does
compress() {
	case $1 in
	xz) xz --check=crc32 --lzma2=dict=1MiB -c "$2" >"$3" ;;
	zstd) zstd -q -c "$2" >"$3" ;;
	gzip) gzip -n -c "$2" >"$3" ;;
	esac
}

# verify_line KEYRING FILE: "STATUS|LINE", pgp-verify's exit status and
# the line it prints (stderr left out).
verify_line() {
	local rc=0 out
	out=$("$VERIFY" --keyring "$1" "$2" 2>/dev/null) || rc=$?
	echo "$rc|$out"
}

# detail FILE: what pgp-verify says after "FILE: OUTCOME" for FILE.
detail() {
	local out
	out=$(verify_line "$KEYS/main/pub" "$1")
	out=${out#*|"$1": }
	case $out in
	*:*) echo ", ${out#*: }" ;;
	esac
}

# flip FILE OFFSET: invert the octet at OFFSET.
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059 # the format is the octet
	printf "\\$(printf %03o $((b ^ 255)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# ext FORMAT: the file name suffix; kmod_feature FORMAT: its name in
# kmod --version.
ext() {
	case $1 in
	xz) echo xz ;;
	zstd) echo zst ;;
	gzip) echo gz ;;
	esac
}
kmod_feature() {
	case $1 in
	xz) echo XZ ;;
	zstd) echo ZSTD ;;
	gzip) echo ZLIB ;;
	esac
}

# The same outcome as uncompressed: valid, unsigned, tampered.
for fmt in xz zstd gzip; do
	ext=$(ext "$fmt")
	for name in valid:0:valid unsigned:10:unsigned body:12:bad-signature; do
		IFS=: read -r base status outcome <<<"$name"
		f=$dir/$base.ko.$ext
		compress "$fmt" "$dir/$base.ko" "$f"
		check "$fmt: $base module: outcome, exit status and detail as uncompressed" \
			"$status|$f: $outcome: $fmt-compressed$(detail "$dir/$base.ko")" \
			"$(verify_line "$KEYS/main/pub" "$f")"
	done
	check "$fmt: valid module, keyring without its key: unknown-key" \
		"11|$dir/valid.ko.$ext: unknown-key: $fmt-compressed, key $(keyid main) not in the keyring" \
		"$(verify_line "$(testkey other)/pub" "$dir/valid.ko.$ext")"

	# a byte flipped in the middle of the compressed data
	f=$dir/corrupt.ko.$ext
	cp "$dir/valid.ko.$ext" "$f"
	flip "$f" $(($(stat -c %s "$f") / 2))
	out=$(verify_line "$KEYS/main/pub" "$f")
	check "$fmt: corrupt data: bad-compression, exit status 17, names the file" \
		"17|$f: bad-compression: cannot decompress the $fmt data" \
		"${out%: *}"
	f=$dir/truncated.ko.$ext
	head -c $(($(stat -c %s "$dir/valid.ko.$ext") / 2)) "$dir/valid.ko.$ext" >"$f"
	check "$fmt: truncated data: bad-compression, exit status 17" \
		"17|$f: bad-compression: cannot decompress the $fmt data: compressed data is truncated" \
		"$(verify_line "$KEYS/main/pub" "$f")"

	# compressed, then "signed": the trailer of a valid signature appended
	f=$dir/sig-after.ko.$ext
	cat "$dir/unsigned.ko.$ext" "$dir/trailer" >"$f"
	check "$fmt: signature appended after compression: its own outcome, exit status 18" \
		"18|$f: signed-after-compression: signature appended after $fmt compression: the kernel checks the decompressed module; sign before compressing" \
		"$(verify_line "$KEYS/main/pub" "$f")"
	f=$dir/garbage.ko.$ext
	cat "$dir/valid.ko.$ext" - >"$f" <<<"garbage"
	check "$fmt: other data after the stream: bad-compression, exit status 17" \
		"17|$f: bad-compression: 8 octets of trailing data after the $fmt stream" \
		"$(verify_line "$KEYS/main/pub" "$f")"

	# pgp-sign refuses, whatever the name, and writes nothing
	for f in "$dir/tosign.ko.$ext" "$dir/tosign-$fmt.ko"; do
		cp "$dir/unsigned.ko.$ext" "$f"
		rc=0
		err=$("$SIGN" -k "$KEYS/main/sec" "$f" 2>&1) || rc=$?
		unchanged=no
		cmp -s "$dir/unsigned.ko.$ext" "$f" && unchanged=yes
		check "$fmt: pgp-sign refuses $(basename "$f"): exit status, message, file unchanged" \
			"1|pgp-sign: $f: $fmt-compressed: sign the module before compressing it|yes" \
			"$rc|$err|$unchanged"
	done
done

# xz stream padding (zero octets, a multiple of four) is part of the format
cp "$dir/valid.ko.xz" "$dir/padded.ko.xz"
head -c 8 /dev/zero >>"$dir/padded.ko.xz"
check "xz: stream padding after the stream: valid" \
	"0|$dir/padded.ko.xz: valid: xz-compressed$(detail "$dir/valid.ko")" \
	"$(verify_line "$KEYS/main/pub" "$dir/padded.ko.xz")"

# Decompressed size bound: 1 GiB.
head -c $((1024 * 1024 * 1024 + 1)) /dev/zero | zstd -q -c >"$dir/huge.ko.zst"
check "zstd: more than 1 GiB decompressed: bad-compression, exit status 17" \
	"17|$dir/huge.ko.zst: bad-compression: zstd data decompresses to more than 1024 MiB" \
	"$(verify_line "$KEYS/main/pub" "$dir/huge.ko.zst")"
rm -f "$dir/huge.ko.zst"

# Several modules: one line each, the status of the first that is not valid.
rc=0
out=$("$VERIFY" --keyring "$KEYS/main/pub" "$dir/valid.ko.xz" \
	"$dir/sig-after.ko.zst" "$dir/corrupt.ko.gz" 2>/dev/null) || rc=$?
check "several compressed modules: exit status of the first failure, one line each" \
	"18 3" "$rc $(wc -l <<<"$out")"

# modinfo (kmod) reads the signature of the decompressed module.  kmod
# built without a decompressor ("-XZ", "-ZSTD", "-ZLIB" in kmod --version)
# cannot read such a module at all: that is said, not passed.
features=$(kmod --version | sed -n 2p)
expect="$(modinfo_field "$dir/valid.ko" signer)|$(modinfo_field "$dir/valid.ko" sig_key)"
check "modinfo of the uncompressed module: signer, sig_key" \
	"Test main <main@modsign.test>|$(keyid main | sed 's/../&:/g; s/:$//')" "$expect"
for fmt in xz zstd gzip; do
	feature=$(kmod_feature "$fmt")
	f=$dir/valid.ko.$(ext "$fmt")
	case " $features " in
	*" +$feature "*)
		check "$fmt: modinfo signer, sig_key as uncompressed" "$expect" \
			"$(modinfo_field "$f" signer)|$(modinfo_field "$f" sig_key)"
		;;
	*)
		echo "SKIP $fmt: modinfo: kmod is built without $fmt support (kmod --version: $features)"
		;;
	esac
done

finish
