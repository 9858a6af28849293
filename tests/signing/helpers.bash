# shellcheck shell=bash
# Helpers for the tests/signing/test-*.sh scripts, sourced after tests/lib.sh.
#
# Environment (besides KDIR and BUILD):
#   MODPUBKEY  public keyring built into $KDIR (default: $KDIR/modsign.pub)
#
# Test keys come from tests/testkeys.sh, made once and cached in
# $BUILD/test-keys; every gpg-agent a helper starts is killed when the
# test script exits.

tests_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIGN=$KDIR/scripts/modsign/pgp-sign
VERIFY=$KDIR/scripts/modsign/pgp-verify
if [ -e "$KDIR/source/scripts/extract-module-sig.pl" ]; then
	KSRC=$KDIR/source
else
	KSRC=$KDIR
fi
EXTRACT=$KSRC/scripts/extract-module-sig.pl
# shellcheck disable=SC2034 # used by the scripts that source this
KPUB=${MODPUBKEY:-$KDIR/modsign.pub}
# shellcheck source=../testkeys.sh
. "$tests_dir/testkeys.sh"
KEYS=$BUILD/test-keys
MAGIC='~Module signature appended~'

# Every GNUPGHOME used here, to kill its agent at exit.
gpg_homes=()
kill_agents() {
	local h
	for h in "${gpg_homes[@]}"; do
		gpgconf --homedir "$h" --kill all >/dev/null 2>&1 || :
		# a socket directory under /run/user outlives the home
		gpgconf --homedir "$h" --remove-socketdir >/dev/null 2>&1 || :
	done
}
trap kill_agents EXIT

# need CMD...: the tools a test cannot do without.
need() {
	local c
	for c in "$@"; do
		if ! command -v "$c" >/dev/null 2>&1; then
			echo "missing tool: $c" >&2
			exit 1
		fi
	done
}
need gpg gpgv gpgconf perl readelf openssl modinfo
if [ ! -x "$SIGN" ] || [ ! -x "$VERIFY" ]; then
	echo "$SIGN / $VERIFY not built (CONFIG_MODULE_SIG_PGP?)" >&2
	exit 1
fi

# usekey NAME...: make (once) the test keys NAME (tests/testkeys.sh), in
# $KEYS/NAME/{sec,pub,fpr,home}; an agent started in their homes is
# killed at exit.
usekey() {
	local k
	for k in "$@"; do
		testkey "$k" >/dev/null || exit 1
		gpg_homes+=("$KEYS/$k/home")
	done
}

# fpr NAME: fingerprint of the primary key of test key NAME.
fpr() {
	cat "$KEYS/$1/fpr"
}

# keyid NAME: its 16-digit key ID.
keyid() {
	fpr "$1" | cut -c25-40
}

usekey main

# A module to sign: a stripped, unsigned copy of an in-tree one.
sample_module() {
	local m
	m=$(modules_ko "$KDIR" | head -n1)
	echo "$KDIR/${m%.ko}.ko.stripped"
}

# has_trailer FILE: does FILE end with the signature magic?
has_trailer() {
	tail -c 28 "$1" | cmp -s - <(printf '%s\n' "$MAGIC")
}

# verify_status KEYRING FILE: pgp-verify's exit status.
verify_status() {
	local rc=0
	"$VERIFY" --keyring "$1" "$2" >/dev/null 2>&1 || rc=$?
	echo "$rc"
}

# gpgv_ok KEYRING FILE DIR: does gpgv accept the signature that
# extract-module-sig.pl takes out of FILE, over the body it gives?
gpgv_ok() {
	local ring=$1 file=$2 dir=$3 base
	base=$dir/$(basename "$file")
	perl "$EXTRACT" -s "$file" >"$base.sig" 2>/dev/null &&
		perl "$EXTRACT" -0 "$file" >"$base.body" 2>/dev/null &&
		gpgv --keyring "$(realpath "$ring")" "$base.sig" "$base.body" \
			>/dev/null 2>&1
}

# modinfo_field FILE FIELD: one field of modinfo's output.
modinfo_field() {
	modinfo -F "$2" "$1" 2>/dev/null | sed -n 1p
}

# extmod DIR [MAKE ARGS...]: copy the test modules to DIR and build them
# against $KDIR; the output goes to DIR.log, the status is make's.
extmod() {
	local dir=$1
	shift
	rm -rf "$dir"
	cp -r "$tests_dir/modules/extmod" "$dir"
	extmod_make "$dir" "$@"
}

# extmod_make DIR [MAKE ARGS...]: (re)build the test modules in DIR.
extmod_make() {
	local dir=$1
	shift
	make -C "$KDIR" M="$dir" "$@" modules >"$dir.log" 2>&1
}
