#!/bin/bash
# Secrets hygiene of the build:
#   - the build's secret key file (KDIR/modsign.sec) is 0600 and is the
#     only copy of that key in the object tree (seckey-scan.pl: secret key
#     packets, tag 5/7, old and new headers, and the raw secret MPIs)
#   - the ephemeral key generator (scripts/modsign/genkey.sh) works in a
#     0700 GNUPGHOME, writes the secret key 0600, and leaves neither the
#     home nor a gpg-agent/scdaemon/keyboxd behind
#   - a build with a passphrase-protected MODSECKEY (imported into the
#     signer's private GNUPGHOME, used through its own gpg-agent): every
#     directory of that home is 0700 and every private key file 0600 while
#     the build runs; afterwards the home is gone and no process of it is
#     left
#   - MODSIGN_DISCARD=1 really removes the secret key: the file is gone,
#     no copy of it is anywhere in the module or scratch tree, no agent
#     survives, and the next build that needs it says it was discarded;
#     in-tree, on a copy of the object tree, the X.509 key the build made
#     for PKCS#7 goes too, and a rerun keeps the built-in certificate
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=../testkeys.sh
. "$here/../testkeys.sh"
# shellcheck source=faultlib.sh
. "$here/faultlib.sh"

: "${KSRC:?KSRC must point at the patched source tree}"
work=$(scratch secrets)
# Every private GNUPGHOME of the signer and the key generator goes here
# (they honour TMPDIR), so what they leave can be told from the rest of
# the machine.
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
scan="$here/seckey-scan.pl"

# gpg_procs: processes of the build (gpg and its daemons, the signer and
# its workers) whose command line mentions this test's tree
gpg_procs() {
	pgrep -af 'gpg|scdaemon|keyboxd|dirmngr|pgp-sign' | grep -F -- "$work" || :
}

# watch_modes DIR STOPFILE OUT: until STOPFILE exists, record the mode of
# every directory under DIR and of every private key file, "MODE PATH".
watch_modes() {
	while [ ! -e "$2" ]; do
		find "$1" -mindepth 1 \( -type d -o -path '*private-keys-v1.d/*' -o -name '*.sec*' \) \
			-printf '%m %p\n' 2>/dev/null >>"$3" || :
		sleep 0.02
	done
}

check "secrets: $KDIR/modsign.sec is 0600" "600" "$(stat -c %a "$KDIR/modsign.sec")"
# The scanner exits 0 when it found nothing, 1 when it found a copy, and
# anything else when it could not look (then the check fails too).
rc=0
found=$(perl "$scan" --except "$KDIR/modsign.sec" "$KDIR/modsign.sec" "$KDIR") || rc=$?
check "secrets: no other copy of the build's secret key in $KDIR" "0:" \
	"$rc:$(echo "$found" | sed -n 1,3p | tr '\n' '|' | sed 's/|$//')"

# --- the ephemeral key generator, with a small key to be quick.
cat >"$work/small.genkey" <<'TEMPLATE'
%no-protection
Key-Type: RSA
Key-Length: 2048
Key-Usage: sign
Name-Real: secrets test ephemeral key
Expire-Date: 0
%commit
TEMPLATE
mkdir -p "$work/gen"
rm -f "$work/gen.done"
watch_modes "$TMPDIR" "$work/gen.done" "$work/gen.modes" &
watcher=$!
rc=0
sh "$KSRC/scripts/modsign/genkey.sh" "$work/small.genkey" "$work/gen/modsign.sec" \
	"$work/gen/modsign.pub" >"$work/gen.log" 2>&1 || rc=$?
touch "$work/gen.done"
wait "$watcher"
check "genkey: succeeds" "0" "$rc"
check "genkey: secret key file is 0600" "600" "$(stat -c %a "$work/gen/modsign.sec")"
check "genkey: its GNUPGHOME was seen while it ran" "yes" \
	"$(grep -q "modsign-genkey" "$work/gen.modes" && echo yes)"
check "genkey: every directory of its GNUPGHOME was 0700" "" \
	"$(awk '$1 != "700"' "$work/gen.modes" | grep -v '/private-keys-v1.d/.*\.key$' | sort -u | sed -n 1,3p | tr '\n' '|')"
check "genkey: every private key file was 0600" "" \
	"$(grep '/private-keys-v1.d/.*\.key$' "$work/gen.modes" | awk '$1 != "600"' | sort -u | sed -n 1,3p | tr '\n' '|')"
check "genkey: its GNUPGHOME is removed" "" "$(ls -A "$TMPDIR")"
check "genkey: no GnuPG process of it survives" "" "$(gpg_procs | tr '\n' '|')"

# --- a protected key: the signer's private home and agent.
phome="$work/protect-home"
mkdir -m 0700 "$phome"
gpg_batch "$phome" --import "$KDIR/modsign.sec"
fpr=$(gpg_batch "$phome" --with-colons --list-secret-keys | awk -F: '/^fpr/ { if (!n++) print $10 }')
gpg_batch "$phome" --passphrase 'secrets test' --passwd "$fpr"
(umask 077 && gpg_batch "$phome" --passphrase 'secrets test' --export-secret-keys >"$work/protected.sec")
gpgconf --homedir "$phome" --kill all
rm -rf "$phome"
printf 'secrets test\n' >"$work/pass"
ext="$work/ext"
extmod_copy "$ext"
rm -f "$work/sign.done"
watch_modes "$TMPDIR" "$work/sign.done" "$work/sign.modes" &
watcher=$!
rc=0
MODSIGN_PASSPHRASE_FILE="$work/pass" ext_build "$ext" "$work/protected.log" \
	MODSECKEY="$work/protected.sec" || rc=$?
touch "$work/sign.done"
wait "$watcher"
if [ "$rc" -eq 0 ]; then
	check "protected key: build signs both modules" "2" "$(signed_count "$ext")"
else
	fail "protected key: build" "$(build_errors "$work/protected.log")"
fi
check "protected key: the signer's GNUPGHOME was seen while it ran" "yes" \
	"$(grep -q "/private-keys-v1.d/.*\.key$" "$work/sign.modes" && echo yes)"
check "protected key: every directory of that home was 0700" "" \
	"$(awk '$1 != "700"' "$work/sign.modes" | grep -v '/private-keys-v1.d/.*\.key$' | sort -u | sed -n 1,3p | tr '\n' '|')"
check "protected key: every private key file in it was 0600" "" \
	"$(grep '/private-keys-v1.d/.*\.key$' "$work/sign.modes" | awk '$1 != "600"' | sort -u | sed -n 1,3p | tr '\n' '|')"
check "protected key: the home is removed" "" "$(ls -A "$TMPDIR")"
check "protected key: no gpg, gpg-agent, scdaemon, keyboxd or pgp-sign of the build survives" "" "$(gpg_procs | tr '\n' '|')"

# --- MODSIGN_DISCARD=1 with a copy of the build's key.
disc="$work/disc"
mkdir -m 0700 "$disc"
(umask 077 && cp "$KDIR/modsign.sec" "$disc/modsign.sec")
extmod_copy "$work/ext2"
rc=0
ext_build "$work/ext2" "$work/discard.log" MODSECKEY="$disc/modsign.sec" MODSIGN_DISCARD=1 || rc=$?
if [ "$rc" -eq 0 ]; then
	check "discard: build signs both modules" "2" "$(signed_count "$work/ext2")"
else
	fail "discard: build" "$(build_errors "$work/discard.log")"
fi
check "discard: the secret key file is gone" "no" "$([ -e "$disc/modsign.sec" ] && echo yes || echo no)"
rc=0
found=$(perl "$scan" "$KDIR/modsign.sec" "$disc" "$work/ext2" "$TMPDIR") || rc=$?
check "discard: no copy of the secret key in the key directory, the module tree or TMPDIR" "0:" \
	"$rc:$(echo "$found" | sed -n 1,3p | tr '\n' '|' | sed 's/|$//')"
check "discard: no gpg, gpg-agent, scdaemon, keyboxd or pgp-sign survives" "" "$(gpg_procs | tr '\n' '|')"
touch "$work/ext2"/*.ko.stripped
rc=0
ext_build "$work/ext2" "$work/discard-again.log" MODSECKEY="$disc/modsign.sec" MODSIGN_DISCARD=1 || rc=$?
check "discard: the next signing build fails" "yes" "$([ "$rc" -ne 0 ] && echo yes)"
check "discard: and says the key was discarded" "yes" \
	"$(grep -q "$disc/modsign.sec was discarded" "$work/discard-again.log" && echo yes)"
check "discard: and leaves no module that looks signed but is not" "" "$(bad_modules "$work/ext2" | tr '\n' '|')"

# --- MODSIGN_DISCARD=1 in-tree, on a copy of the whole object tree: both
# the OpenPGP key and the X.509 key the build made for PKCS#7 go, the
# kernel keeps the certificate made from the latter, and a rerun that
# needs a key says it was discarded instead of making a new one.
#
# Kbuild writes absolute object-tree paths into objtool's command lines,
# so a copy built under its own path is rebuilt from scratch (about six
# minutes here).  Where a private mount namespace can be had, the copy is
# bind-mounted over KDIR for make alone: the same paths, nothing to
# rebuild, and the real object tree is never touched.
tree="$work/tree"
cp -a "$KDIR" "$tree"
if unshare --mount --propagation private true 2>/dev/null; then
	echo "# in-tree discard: the copy is bind-mounted over $KDIR in a private mount namespace"
	kmake() {
		local log=$1
		shift
		# shellcheck disable=SC2016 # expanded by the inner sh
		unshare --mount --propagation private \
			sh -c 'mount --bind "$1" "$2" && shift 2 && exec make "$@"' \
			sh "$tree" "$KDIR" -C "$KSRC" O="$KDIR" -j"${JOBS:-2}" "$@" >"$log" 2>&1
	}
else
	echo "# in-tree discard: no mount namespace here, the copy is rebuilt under its own path"
	kmake() {
		local log=$1
		shift
		make -C "$KSRC" O="$tree" -j"${JOBS:-2}" "$@" >"$log" 2>&1
	}
fi
rc=0
kmake "$work/intree-discard.log" MODSIGN_DISCARD=1 bzImage modules || rc=$?
check "in-tree discard: the build succeeds" 0 "$rc"
for k in modsign.sec certs/signing_key.pem; do
	check "in-tree discard: says DISCARD $k" yes \
		"$(grep -q "^  DISCARD $k\$" "$work/intree-discard.log" && echo yes)"
	check "in-tree discard: $k is gone, $k.discarded says why" "no:yes" \
		"$([ -e "$tree/$k" ] && echo yes || echo no):$(grep -q 'MODSIGN_DISCARD=1' "$tree/$k.discarded" && echo yes)"
done
rc=0
found=$(perl "$scan" "$KDIR/modsign.sec" "$tree") || rc=$?
check "in-tree discard: no copy of the OpenPGP secret key in the object tree" "0:" \
	"$rc:$(echo "$found" | sed -n 1,3p | tr '\n' '|' | sed 's/|$//')"
rc=0
found=$(python3 "$here/../packaging/find-secret-keys.py" "$tree") || rc=$?
check "in-tree discard: no secret key of any kind in the object tree" "0:" \
	"$rc:$(echo "$found" | sed -n 1,3p | tr '\n' '|' | sed 's/|$//')"
n=$(wc -l <"$tree/modules.order")
good=0
while read -r m; do
	if "$verifier" --keyring "$tree/modsign.pub" "$tree/$m" >/dev/null 2>&1; then
		good=$((good + 1))
	fi
done < <(modules_ko "$tree")
check "in-tree discard: all $n modules verify" "$n" "$good"
cp "$tree/arch/x86/boot/bzImage" "$work/bzImage.before"
cp "$tree/certs/signing_key.x509" "$work/x509.before"

rc=0
kmake "$work/intree-rerun.log" MODSIGN_DISCARD=1 bzImage modules || rc=$?
check "in-tree discard: a rerun with nothing to sign succeeds" 0 "$rc"
check "in-tree discard: the rerun makes no new X.509 key" no \
	"$([ -e "$tree/certs/signing_key.pem" ] && echo yes || echo no)"
check "in-tree discard: the built-in certificate is the same" same \
	"$(cmp -s "$work/x509.before" "$tree/certs/signing_key.x509" && echo same)"
check "in-tree discard: the kernel image is the same" same \
	"$(cmp -s "$work/bzImage.before" "$tree/arch/x86/boot/bzImage" && echo same)"

first=$(modules_ko "$tree" | head -n1)
rm -f "$tree/$first"
rc=0
kmake "$work/intree-resign.log" modules || rc=$?
check "in-tree discard: a rerun that must sign $first fails" yes "$([ "$rc" -ne 0 ] && echo yes)"
check "in-tree discard: and says the key was discarded" yes \
	"$(grep -q "modsign.sec was discarded after signing (MODSIGN_DISCARD=1)" "$work/intree-resign.log" && echo yes)"
rc=0
out=$("$verifier" --keyring "$tree/modsign.pub" "$tree/$first" 2>&1) || rc=$?
if [ ! -e "$tree/$first" ] || [ "$rc" -eq 10 ]; then
	pass "in-tree discard: $first is not left looking signed"
else
	fail "in-tree discard: $first is not left looking signed" "$out (exit $rc)"
fi
check "in-tree discard: no new key was made" "no:no" \
	"$([ -e "$tree/modsign.sec" ] && echo yes || echo no):$([ -e "$tree/certs/signing_key.pem" ] && echo yes || echo no)"
check "in-tree discard: the real object tree keeps both keys" "yes:yes" \
	"$([ -s "$KDIR/modsign.sec" ] && echo yes):$([ -s "$KDIR/certs/signing_key.pem" ] && echo yes)"
rm -rf "$tree"

finish
