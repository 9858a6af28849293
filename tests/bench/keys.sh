#!/bin/bash
# Make, once, the benchmark's keys of one RSA size and print their
# directory:
#
#   keys.sh DIR BITS
#
# DIR/rsaBITS/ then holds
#   gnupg/      a GNUPGHOME holding the OpenPGP key, unprotected, for gpg
#               and for the signer's gpg-agent path
#   sec, pub    its secret and public exports (MODSECKEY, MODPUBKEY)
#   fpr, keyid, uid   its fingerprint, 16-hex-digit key ID and user ID
#   key.pem, cert.x509   an RSA key of the same size and its self-signed
#               certificate (DER), made by "openssl req" as the kernel's
#               certs/Makefile does, for sign-file and for the floor
# Keys are made in a temporary directory and moved into place whole, so a
# half-made set is never taken for a cached one.
set -euo pipefail
set -o errtrace
trap 'echo "keys: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

if [ "$#" -ne 2 ]; then
	echo "usage: $0 DIR BITS" >&2
	exit 2
fi
dir=$1/rsa$2
bits=$2

if [ -s "$dir/cert.x509" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$1"
tmp=$(mktemp -d "$1/.keys.XXXXXX")
cleanup() {
	gpgconf --homedir "$tmp/gnupg" --kill all >/dev/null 2>&1 || :
	rm -rf "$tmp"
}
trap cleanup EXIT

g() {
	gpg --homedir "$tmp/gnupg" --batch --quiet --no-tty \
		--pinentry-mode loopback --passphrase '' "$@"
}

mkdir -m 0700 "$tmp/gnupg"
uid="modsign bench rsa$bits <bench-rsa$bits@modsign.invalid>"
echo "keys: generating RSA-$bits OpenPGP and X.509 keys" >&2
g --quick-gen-key "$uid" "rsa$bits" sign never
g --with-colons --list-keys | awk -F: '/^fpr/ { if (!n++) print $10 }' >"$tmp/fpr"
g --with-colons --list-keys | awk -F: '/^pub/ { if (!n++) print $5 }' >"$tmp/keyid"
echo "$uid" >"$tmp/uid"
g --export >"$tmp/pub"
(umask 077 && g --export-secret-keys >"$tmp/sec")
gpgconf --homedir "$tmp/gnupg" --kill all

cat >"$tmp/x509.genkey" <<EOF
[ req ]
default_bits = $bits
distinguished_name = req_distinguished_name
prompt = no
string_mask = utf8only
x509_extensions = myexts

[ req_distinguished_name ]
CN = modsign bench rsa$bits

[ myexts ]
basicConstraints=critical,CA:FALSE
keyUsage=digitalSignature
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EOF
openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
	-config "$tmp/x509.genkey" -outform DER -out "$tmp/cert.x509" \
	-keyout "$tmp/key.pem" 2>/dev/null
rm -f "$tmp/x509.genkey"

rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
echo "$dir"
