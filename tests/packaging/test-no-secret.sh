#!/bin/bash
# No package holds secret key material: every file of every package (the
# payload, a deb's control area, the kernel image decompressed, the tar
# sources inside the source rpm) is searched for OpenPGP secret key
# packets, armored private key blocks, PEM and gpg-agent private keys.
# The search first has to find keys planted on purpose, in both OpenPGP
# header formats, so a search that finds nothing cannot pass by accident.
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"
scan=$here/find-secret-keys.py

# Planted keys: a throwaway gpg key in a private home.
dir=$(scratch no-secret)
export GNUPGHOME=$dir/gnupg
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --quiet --pinentry-mode loopback --passphrase '' \
	--quick-gen-key 'planted <planted@example.org>' rsa2048 sign never 2>/dev/null
fpr=$(gpg --batch --with-colons --list-keys | awk -F: '$1 == "fpr" { if (!n++) print $10 }')
# A subkey too, for the tag 7 packet.
gpg --batch --quiet --pinentry-mode loopback --passphrase '' \
	--quick-add-key "$fpr" rsa2048 sign never 2>/dev/null
gpg --batch --quiet --export-secret-keys >"$dir/key.sec"
gpg --batch --quiet --export >"$dir/key.pub"
gpgconf --kill gpg-agent
mkdir -p "$dir/plant/old" "$dir/plant/new" "$dir/plant/pem" "$dir/plant/pub"
# Old format as gpg writes it, inside other bytes.
{ head -c 3001 /dev/urandom; cat "$dir/key.sec"; head -c 999 /dev/urandom; } >"$dir/plant/old/blob"
# The same secret key packet re-framed with a new-format header.
python3 - "$dir/key.sec" "$dir/plant/new/blob" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
assert b[0] == 0x95, hex(b[0])          # old format, tag 5, 2-octet length
n = int.from_bytes(b[1:3], "big")
body = b[3:3 + n]
hdr = bytes([0xC5, 0xFF]) + n.to_bytes(4, "big")
open(sys.argv[2], "wb").write(b"\0" * 17 + hdr + body + b"\0" * 5)
PY
openssl genpkey -algorithm ed25519 -out "$dir/plant/pem/key.pem" 2>/dev/null
gzip -c "$dir/plant/pem/key.pem" >"$dir/plant/pem/key.pem.gz"
rm "$dir/plant/pem/key.pem"
cp "$dir/key.pub" "$dir/plant/pub/keyring"

found() { "$scan" "$1" 2>/dev/null | sed 's/^.*: offset [0-9]*: //' | LC_ALL=C sort | tr '\n' ';'; }
check "scanner finds a planted secret key packet (old format)" \
	"OpenPGP secret key packet (tag 5, old format, algo 1);OpenPGP secret subkey packet (tag 7, old format, algo 1);" \
	"$(found "$dir/plant/old")"
check "scanner finds a planted secret key packet (new format)" \
	"OpenPGP secret key packet (tag 5, new format, algo 1);" "$(found "$dir/plant/new")"
check "scanner finds a gzipped PEM private key" "PEM private key;" "$(found "$dir/plant/pem")"
check "scanner passes a public keyring" "" "$(found "$dir/plant/pub")"

ensure_packages
for pkg in "$pkg_dir"/rpm/*.rpm "$pkg_dir"/deb/*.deb; do
	name=${pkg##*/}
	tree=$dir/pkg/$name
	unpack "$pkg" "$tree"
	while read -r img; do
		"$KSRC/scripts/extract-vmlinux" "$img" >"$img.vmlinux" ||
			fail "$name: decompress ${img##*/}"
	done < <(find "$tree" -name 'vmlinuz-*')
	# A source rpm's linux-source tarball is the pristine upstream one
	# (6.12's carries the SGX selftests' own signing key), as shown here.
	while read -r tarball; do
		check "$name: ${tarball##*/} is Debian's, unchanged" same \
			"$(cmp -s "$tarball" "/usr/src/${tarball##*/}" && echo same)"
	done < <(find "$tree" -type f -name 'linux-source-*.tar.xz')
	find "$tree" -type f ! -name 'linux-source-*.tar.xz' -print0 |
		xargs -0 "$scan" >"$dir/$name.scan" 2>&1 && rc=0 || rc=$?
	sed "s|^|$name: |" "$dir/$name.scan"
	check "$name holds no secret key" "0" "$rc"
done
# Nor does the deb's source package: its debian/ tarball (the recipe, the
# series, the helpers), and its orig tarball is Debian's linux-source.
for dsc in "$pkg_dir"/deb/*.dsc; do
	[ -e "$dsc" ] || continue
	name=${dsc##*/}
	tree=$dir/src/$name
	mkdir -p "$tree"
	while read -r f; do
		case "$f" in
		*.orig.tar.*)
			check "$name: ${f##*/} is Debian's linux-source, unchanged" same \
				"$(cmp -s "$pkg_dir/deb/$f" "/usr/src/linux-source-$(kernel_series "$KSRC").tar.xz" && echo same)"
			;;
		*.debian.tar.*) tar -xf "$pkg_dir/deb/$f" -C "$tree" ;;
		esac
	done < <(awk '/^Files:/ { f = 1; next } /^[^ ]/ { f = 0 } f { print $3 }' "$dsc")
	find "$tree" -type f -print0 | xargs -0 "$scan" >"$dir/$name.scan" 2>&1 && rc=0 || rc=$?
	sed "s|^|$name: |" "$dir/$name.scan"
	check "$name (source package) holds no secret key" "0" "$rc"
done
# Nor do the build logs, nor what is left of a build tree.
for kind in rpm deb; do
	"$scan" "$pkg_dir/$kind/build.log" >"$dir/$kind-log.scan" 2>&1 && rc=0 || rc=$?
	sed "s|^|$kind build.log: |" "$dir/$kind-log.scan"
	check "the $kind build log holds no secret key" "0" "$rc"
	if [ -d "$pkg_dir/$kind/work" ]; then
		"$scan" "$pkg_dir/$kind/work" >"$dir/$kind-work.scan" 2>&1 && rc=0 || rc=$?
		sed "s|^|$kind build tree: |" "$dir/$kind-work.scan"
		check "the $kind build tree holds no secret key" "0" "$rc"
	fi
done
finish
