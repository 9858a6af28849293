#!/bin/bash
# Signing through gpg-agent: a key in a GNUPGHOME chosen by MODKEYNAME
# (no MODSECKEY), a passphrase-protected key with pinentry loopback, and
# a protected MODSECKEY file imported into a private GNUPGHOME.  The
# agent and libcrypto give byte-identical signatures.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

dir=$(scratch agent)
pass=$testkey_passphrase
usekey protected
printf '%s\n' "$pass" >"$dir/pass"
printf 'wrong\n' >"$dir/badpass"
src=$(sample_module)
export SOURCE_DATE_EPOCH=1700000000
# The private GNUPGHOMEs of the signer go here, to see them removed.
export TMPDIR=$dir/tmp
mkdir -p "$TMPDIR"

sign() {
	local out=$1
	shift
	cp "$src" "$out"
	"$SIGN" "$@" "$out"
}

sign "$dir/openssl.ko" -k "$KEYS/main/sec"
GNUPGHOME=$KEYS/main/home sign "$dir/agent.ko" -n "Test main"
check "agent path signs" valid "$(verify_outcome "$KEYS/main/pub" "$dir/agent.ko")"
check "agent and libcrypto signatures are byte-identical" yes \
	"$(cmp -s "$dir/openssl.ko" "$dir/agent.ko" && echo yes || echo no)"

sign "$dir/keyflags.ko" -n "$(fpr main)" -g "--homedir $KEYS/main/home"
check "KEYFLAGS --homedir selects the GNUPGHOME" yes \
	"$(cmp -s "$dir/openssl.ko" "$dir/keyflags.ko" && echo yes || echo no)"

# A protected key in the user's agent, passphrase by loopback.
GNUPGHOME=$KEYS/protected/home sign "$dir/prot-agent.ko" -n "Test protected" \
	-P "$dir/pass"
check "protected key through the agent" valid \
	"$(verify_outcome "$KEYS/protected/pub" "$dir/prot-agent.ko")"
gpgconf --homedir "$KEYS/protected/home" --kill gpg-agent
rc=0
msg=$(GNUPGHOME=$KEYS/protected/home sign "$dir/prot-bad.ko" \
	-n "Test protected" -P "$dir/badpass" 2>&1) || rc=$?
check "wrong passphrase: exit status" 11 "$rc"
check "wrong passphrase: message" yes \
	"$(grep -q 'bad passphrase' <<<"$msg" && echo yes || echo no)"
check "wrong passphrase: the message names the key" yes \
	"$(grep 'bad passphrase' <<<"$msg" | grep -iF "$(fpr protected)" >/dev/null && echo yes || echo no)"
check "wrong passphrase: module not signed" no \
	"$(has_trailer "$dir/prot-bad.ko" && echo yes || echo no)"

# A protected MODSECKEY file: private GNUPGHOME, same signature.
sign "$dir/prot-file.ko" -k "$KEYS/protected/sec" -P "$dir/pass"
check "protected MODSECKEY file signs" valid \
	"$(verify_outcome "$KEYS/protected/pub" "$dir/prot-file.ko")"
check "protected file and agent signatures are byte-identical" yes \
	"$(cmp -s "$dir/prot-agent.ko" "$dir/prot-file.ko" && echo yes || echo no)"
rc=0
msg=$(MODSIGN_PASSPHRASE_FILE=$dir/badpass sign "$dir/prot-file-bad.ko" \
	-k "$KEYS/protected/sec" 2>&1) || rc=$?
check "protected file, wrong passphrase (MODSIGN_PASSPHRASE_FILE)" 11 "$rc"
check "wrong passphrase: the message names the module, the key file and the key" yes \
	"$(grep 'bad passphrase' <<<"$msg" | grep -F "$dir/prot-file-bad.ko" |
		grep -F "$KEYS/protected/sec" | grep -iF "$(keyid protected)" >/dev/null && echo yes || echo no)"
rc=0
sign "$dir/prot-file-none.ko" -k "$KEYS/protected/sec" 2>/dev/null || rc=$?
check "protected file, no passphrase" 11 "$rc"
check "private GNUPGHOMEs are removed" "" "$(ls -A "$TMPDIR")"
check "their agents are gone" 0 \
	"$(pgrep -f "gpg-agent --homedir $TMPDIR" | wc -l)"

# No gpg: a clear message before anything is signed.
cp "$src" "$dir/nogpg.ko"
rc=0
msg=$(PATH=/nonexistent GNUPGHOME=$KEYS/main/home "$SIGN" -n "Test main" \
	"$dir/nogpg.ko" 2>&1) || rc=$?
check "no gpg: exit status" 10 "$rc"
check "no gpg: message" yes "$(grep -q 'gpg not found' <<<"$msg" && echo yes || echo no)"
check "no gpg: module not signed" no \
	"$(has_trailer "$dir/nogpg.ko" && echo yes || echo no)"

# Many modules through the agent, with workers.
mkdir -p "$dir/many"
for i in 1 2 3 4 5 6; do
	cp "$src" "$dir/many/m$i.ko"
done
GNUPGHOME=$KEYS/protected/home "$SIGN" -n "Test protected" -P "$dir/pass" \
	-j 3 "$dir"/many/*.ko
check "six modules, three workers, through the agent" 0 \
	"$(verify_status "$KEYS/protected/pub" "$dir/many/m6.ko")"
check "all six identical" 1 "$(sha256sum "$dir"/many/*.ko | cut -d' ' -f1 | sort -u | wc -l)"

# With workers, the first signature through the agent is made alone: the
# passphrase is tried once, not once per worker, and the imported key's
# first use (gpg-agent rewrites its key file then) is not made twice at once.
mkdir -p "$dir/many-bad"
for i in 1 2 3 4 5 6; do
	cp "$src" "$dir/many-bad/m$i.ko"
done
rc=0
msg=$("$SIGN" -k "$KEYS/protected/sec" -P "$dir/badpass" -j 3 "$dir"/many-bad/*.ko 2>&1) || rc=$?
check "wrong passphrase, three workers: exit status" 11 "$rc"
check "wrong passphrase, three workers: said once, for the first module" \
	"$dir/many-bad/m1.ko" "$(grep 'bad passphrase' <<<"$msg" | cut -d: -f2 | tr -d ' ' | tr '\n' ' ' | sed 's/ $//')"
check "wrong passphrase, three workers: no module signed" "" \
	"$(for f in "$dir"/many-bad/*.ko; do has_trailer "$f" && echo "$f"; done)"

finish
