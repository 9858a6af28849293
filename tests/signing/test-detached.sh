#!/bin/bash
# Signing without the secret key on the build host.  The build side
# writes a manifest of the modules (pgp-attach --create: the digest each
# signature must sign, under a hashed part fixed for the whole manifest);
# a signing side that holds the key and sees no module signs the digests
# (pgp-sign --sign-manifest, key file or gpg-agent); the build side
# attaches the detached signatures (pgp-attach), checking each against
# the manifest and the public keyring first.  pgp-sign --detach does the
# first two steps in one run where the key is.
#
# Checked: the round trip gives the modules pgp-sign gives in place, byte
# for byte (same SOURCE_DATE_EPOCH), with the key file or the agent, with
# one worker or three; gpgv accepts each detached signature over the
# unsigned module; the signing side runs in its own mount and network
# namespace, where the build tree is an empty tmpfs, and the build side
# ends with no copy of the secret key; a gpg-agent forwarded to the build
# side (its extra socket) signs for pgp-sign, Kbuild and the packages'
# signing step there.  Refused, with the exit status and
# a message naming the file, and no module changed: a missing signature,
# another module's, a module or digest that is not the manifest's, a
# signature from another manifest or by a key not in the keyring, a
# hostile or malformed manifest, a manifest for another key or time.
#
# PGP_SIGN, PGP_ATTACH and PGP_VERIFY=path run the cases against other
# builds of the tools (older ones, to see them fail).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

SIGN=${PGP_SIGN:-$SIGN}
VERIFY=${PGP_VERIFY:-$VERIFY}
ATTACH=${PGP_ATTACH:-$KDIR/scripts/modsign/pgp-attach}
need unshare mount sha256sum
usekey other expired
dir=$(scratch detached)
scan=$tests_dir/faults/seckey-scan.pl

# The signature time of every run: the key is older, so it is used as is.
SOURCE_DATE_EPOCH=$(date +%s)
export SOURCE_DATE_EPOCH

# The tree: the build's stripped, unsigned modules under kernel/.
orig=$dir/orig
mapfile -t rel < <(modules_ko "$KDIR" | sed 's|^|kernel/|')
for m in "${rel[@]}"; do
	mkdir -p "$(dirname "$orig/$m")"
	cp "$KDIR/${m#kernel/}.stripped" "$orig/$m"
done
n=${#rel[@]}
tree=$dir/tree
fresh_tree() {
	rm -rf "$tree"
	cp -a "$orig" "$tree"
}

# The reference: the same modules signed in place.
ref=$dir/ref
cp -a "$orig" "$ref"
(cd "$ref" && "$SIGN" -k "$KEYS/main/sec" "${rel[@]}")

# same_as DIR1 DIR2: how many of the modules are byte-identical
same_as() {
	local m k=0
	for m in "${rel[@]}"; do
		cmp -s "$1/$m" "$2/$m" && k=$((k + 1))
	done
	echo "$k"
}

# unchanged: the tree is the unsigned one, and no temporary file is left
unchanged() {
	if diff -r "$orig" "$tree" >/dev/null 2>&1; then echo yes; else echo no; fi
}

# --- the manifest --------------------------------------------------------
fresh_tree
rc=0
(cd "$tree" && "$ATTACH" --create "$dir/manifest" --keyring "$KEYS/main/pub" "${rel[@]}") || rc=$?
check "create: exit status" 0 "$rc"
check "create: the header says format, hash, creation time and issuer" \
	"modsign-manifest 1|hash sha256|created $SOURCE_DATE_EPOCH|issuer $(fpr main)" \
	"$(sed -n 1,4p "$dir/manifest" | paste -sd'|')"
check "create: one line per module, sorted by path" \
	"$(printf '%s\n' "${rel[@]}" | LC_ALL=C sort)" "$(awk 'NR > 4 { print $3 }' "$dir/manifest")"
check "create: the second column is each module's SHA-256" \
	"$(cd "$tree" && printf '%s\n' "${rel[@]}" | LC_ALL=C sort | xargs sha256sum | awk '{ print toupper($1) }')" \
	"$(awk 'NR > 4 { print $2 }' "$dir/manifest")"
check "create: the modules are left as they are" yes "$(unchanged)"

# --- signing where the key is, and only the key ---------------------------
# A mount and network namespace in which the build tree is an empty
# tmpfs: the signing side has the manifest and the key, not the modules.
signhost=$dir/signhost
mkdir -m 0700 "$signhost"
install -m 0600 "$KEYS/main/sec" "$signhost/key.sec"
rc=0
# shellcheck disable=SC2016 # expanded by the inner sh
unshare --mount --net -- sh -c '
	mount -t tmpfs none "$1" && mount -t tmpfs none "$2" || exit 99
	ls -A "$1" "$2" | grep -c "\.ko" >"$3/seen"
	exec "$4" -k "$3/key.sec" --sign-manifest "$5" --output "$6"' \
	sh "$tree" "$ref" "$signhost" "$SIGN" "$dir/manifest" "$dir/sigs" || rc=$?
check "sign-manifest: exit status, in a namespace of its own" 0 "$rc"
check "sign-manifest: the signing side saw no module" 0 "$(cat "$signhost/seen")"
check "sign-manifest: one signature file per module, DIR/MODULE.sig" \
	"$(printf '%s.sig\n' "${rel[@]}" | LC_ALL=C sort)" \
	"$(cd "$dir/sigs" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)"
ok=0
for m in "${rel[@]}"; do
	gpgv --keyring "$KEYS/main/pub" "$dir/sigs/$m.sig" "$orig/$m" >/dev/null 2>&1 && ok=$((ok + 1))
done
check "sign-manifest: gpgv accepts each detached signature over its module" "$n" "$ok"

rc=0
(cd "$tree" && "$ATTACH" --manifest "$dir/manifest" --signatures "$dir/sigs" \
	--keyring "$KEYS/main/pub") || rc=$?
check "attach: exit status" 0 "$rc"
check "attach: every module as pgp-sign signs it in place, byte for byte" "$n" "$(same_as "$tree" "$ref")"
rc=0
(cd "$tree" && "$VERIFY" --keyring "$KEYS/main/pub" "${rel[@]}" >/dev/null) || rc=$?
check "attach: pgp-verify finds every module valid" 0 "$rc"
rc=0
"$scan" "$KEYS/main/sec" "$tree" "$dir/sigs" "$dir/manifest" >"$dir/scan.out" || rc=$?
check "attach: no copy of the secret key on the build side" "0 0" "$rc $(wc -l <"$dir/scan.out")"
rc=0
(cd "$tree" && "$ATTACH" --manifest "$dir/manifest" --signatures "$dir/sigs" \
	--keyring "$KEYS/main/pub") 2>"$dir/again.err" || rc=$?
check "attach: a second run refuses the signed modules (exit 1)" 1 "$rc"
check "attach: ... and says so" yes \
	"$(grep -q "already signed" "$dir/again.err" && echo yes)"

# The same digests through gpg-agent, with three workers, and with
# pgp-sign --detach where modules and key are together.
rc=0
GNUPGHOME=$KEYS/main/home "$SIGN" --sign-manifest "$dir/manifest" --output "$dir/sigs-agent" || rc=$?
check "sign-manifest through gpg-agent: exit status" 0 "$rc"
check "sign-manifest through gpg-agent: signatures byte-identical to the key file's" yes \
	"$(diff -r "$dir/sigs" "$dir/sigs-agent" >/dev/null && echo yes)"
rc=0
"$SIGN" -k "$KEYS/main/sec" -j 3 --sign-manifest "$dir/manifest" --output "$dir/sigs-j3" || rc=$?
check "sign-manifest with three workers: same signatures" "0 yes" \
	"$rc $(diff -r "$dir/sigs" "$dir/sigs-j3" >/dev/null && echo yes)"
fresh_tree
rc=0
(cd "$tree" && "$SIGN" -k "$KEYS/main/sec" --detach "$dir/det" "${rel[@]}") || rc=$?
check "detach: exit status, modules left as they are" "0 yes" "$rc $(unchanged)"
check "detach: DIR/manifest is the manifest pgp-attach makes" yes \
	"$(cmp -s "$dir/manifest" "$dir/det/manifest" && echo yes)"
check "detach: the same signatures" yes \
	"$(diff -r -x manifest "$dir/sigs" "$dir/det" >/dev/null && echo yes)"
rc=0
(cd "$tree" && "$ATTACH" --manifest "$dir/det/manifest" --signatures "$dir/det" \
	--keyring "$KEYS/main/pub") || rc=$?
check "detach, then attach: modules as signed in place" "0 $n" "$rc $(same_as "$tree" "$ref")"

# --suffix: the modules are read from MODULE.unsigned, the manifest and
# the signatures name MODULE, and pgp-attach writes MODULE.
fresh_tree
first=${rel[0]}
mv "$tree/$first" "$tree/$first.unsigned"
(cd "$tree" && "$ATTACH" --create "$dir/m-unsigned" --keyring "$KEYS/main/pub" \
	--suffix .unsigned "$first")
check "create --suffix .unsigned: the manifest names MODULE" "$first" \
	"$(awk 'NR > 4 { print $3 }' "$dir/m-unsigned")"
"$SIGN" -k "$KEYS/main/sec" --sign-manifest "$dir/m-unsigned" --output "$dir/sigs-unsigned"
rc=0
(cd "$tree" && printf '%s\n' "$first" | "$ATTACH" --manifest "$dir/m-unsigned" \
	--signatures "$dir/sigs-unsigned" --keyring "$KEYS/main/pub" --suffix .unsigned -T -) || rc=$?
check "attach --suffix .unsigned -T -: MODULE.unsigned kept, MODULE signed as in place" "0 yes yes" \
	"$rc $(cmp -s "$tree/$first.unsigned" "$orig/$first" && echo yes) $(cmp -s "$tree/$first" "$ref/$first" && echo yes)"

# --- a forwarded gpg-agent ------------------------------------------------
# The key's agent runs on the signing side; the build side's GNUPGHOME
# holds the public key only, and its agent socket is the signing agent's
# restricted extra socket, which is what ssh's RemoteForward of
# "agent-extra-socket" to "agent-socket" gives (keys/README.md).
signhome=$dir/signhome buildhome=$dir/buildhome
mkdir -m 0700 "$signhome" "$buildhome"
gpg_homes+=("$signhome" "$buildhome")
rc=0
# The build side's import must not start an agent of its own: one whose
# socket is then replaced by the link below notices it within a minute,
# shuts down and deletes the socket, the link, on its way out; the build
# side's next gpg then starts a fresh agent that holds no key (seen in
# make check on 2026-12-07, and standalone).
{ gpg --homedir "$signhome" --batch --quiet --import "$KEYS/main/sec" &&
	gpg --homedir "$buildhome" --batch --quiet --no-autostart --import "$KEYS/main/pub" &&
	gpgconf --homedir "$signhome" --launch gpg-agent; } >"$dir/fwd-setup.log" 2>&1 || rc=$?
# The set-up check names the signing side's secret key too.
signkeys() { find "$signhome/private-keys-v1.d" -name '*.key' 2>/dev/null | wc -l; }
# gpg's own socket directory (under /run/user where there is one), made
# as gpg makes it: a directory it finds with other permissions is not used.
if [ -d "/run/user/$(id -u)" ]; then
	gpgconf --homedir "$buildhome" --create-socketdir >>"$dir/fwd-setup.log" 2>&1 || rc=$?
fi
extra=$(gpgconf --homedir "$signhome" --list-dirs agent-extra-socket)
buildsock=$(gpgconf --homedir "$buildhome" --list-dirs agent-socket)
mkdir -p "$(dirname "$buildsock")"
gpgconf --homedir "$buildhome" --kill gpg-agent >>"$dir/fwd-setup.log" 2>&1 || rc=$?
rm -f "$buildsock"
ln -s "$extra" "$buildsock"
# The set-up is a case of its own: a failure here explains the ones below.
check "forwarded agent: set up (keys imported, the signing agent holds the secret key and answers through the build side's socket)" "0 1 ok" \
	"$rc $(signkeys) $(gpg-connect-agent --homedir "$buildhome" --no-autostart 'GETINFO version' /bye 2>>"$dir/fwd-setup.log" |
		awk '/^OK/ { print "ok"; exit }')"
[ "$rc" -eq 0 ] || sed 's/^/    /' "$dir/fwd-setup.log"
check "forwarded agent: the build side's GNUPGHOME holds no secret key" "0 0" \
	"$(find "$buildhome" -path '*private-keys-v1.d/*' | wc -l) $("$scan" "$KEYS/main/sec" "$buildhome" | wc -l)"
fresh_tree
rc=0
(cd "$tree" && "$SIGN" -n "$(fpr main)" -g "--homedir $buildhome" "${rel[@]}") || rc=$?
check "forwarded agent: pgp-sign signs in place, as with the key file" "0 $n" \
	"$rc $(same_as "$tree" "$ref")"
rc=0
"$SIGN" -g "--homedir $buildhome" --sign-manifest "$dir/manifest" --output "$dir/sigs-remote" || rc=$?
check "forwarded agent: the manifest's signatures, as with the key file" "0 yes" \
	"$rc $(diff -r "$dir/sigs" "$dir/sigs-remote" >/dev/null && echo yes)"
# Kbuild: an external module signed through the forwarded socket.
rc=0
extmod "$dir/extmod-remote" MODSECKEY= MODKEYNAME="$(fpr main)" KEYFLAGS="--homedir $buildhome" || rc=$?
check "forwarded agent: Kbuild signs external modules through it" "0 valid valid" \
	"$rc $(verify_outcome "$KEYS/main/pub" "$dir/extmod-remote/extmod_a.ko") $(verify_outcome "$KEYS/main/pub" "$dir/extmod-remote/extmod_b.ko")"
# The packages' signing step, MODKEYNAME through the same socket.  Its
# object tree argument is a stand-in, the config and the tools only: the
# step deletes the key files it finds in one.
kobj=$dir/kobj
mkdir -p "$kobj/scripts"
cp "$KDIR/.config" "$kobj/.config"
ln -s "$(realpath "$(dirname "$SIGN")")" "$kobj/scripts/modsign"
fresh_tree
rc=0
MODSECKEY='' MODPUBKEY="$KEYS/main/pub" MODKEYNAME="$(fpr main)" KEYFLAGS="--homedir $buildhome" \
	bash "$(dirname "$0")/../../packaging/modsign-pkg.sh" sign "$kobj" "$tree" >"$dir/pkg-remote.log" 2>&1 || rc=$?
check "forwarded agent: the packages' signing step signs through it, as with the key file" "0 $n" \
	"$rc $(same_as "$tree" "$ref")"
check "forwarded agent: no agent of its own was started on the build side" yes \
	"$([ -L "$buildsock" ] && echo yes)"
rm -f "$buildsock"

# --- what pgp-attach refuses ----------------------------------------------
# refused NAME STATUS PATTERN [ATTACH ARGS...]: attach from $sigs with
# $manifest into a fresh copy of the tree (after $prepare, if set) must
# exit with STATUS, say PATTERN, and change no module.
refused() {
	local name=$1 want=$2 pattern=$3 rc=0
	shift 3
	fresh_tree
	[ -z "${prepare:-}" ] || "$prepare"
	cp -a "$tree" "$dir/before"
	(cd "$tree" && "$ATTACH" --manifest "$manifest" --signatures "$sigs" \
		--keyring "${keyring:-$KEYS/main/pub}" "$@") 2>"$dir/err" || rc=$?
	check "attach refuses $name: exit status $want" "$want" "$rc"
	check "attach refuses $name: the message" yes \
		"$(grep -qF -- "$pattern" "$dir/err" && echo yes)"
	check "attach refuses $name: no module changed, nothing left" yes \
		"$(diff -r "$dir/before" "$tree" >/dev/null 2>&1 && echo yes)"
	rm -rf "$dir/before"
}
victim=${rel[$((n - 1))]}
other_mod=${rel[0]}
manifest=$dir/manifest

sigs=$dir/sigs-missing
cp -a "$dir/sigs" "$sigs"
rm "$sigs/$victim.sig"
refused "a missing signature" 5 "$victim: no signature: $sigs/$victim.sig"

sigs=$dir/sigs-swapped
cp -a "$dir/sigs" "$sigs"
cp "$sigs/$other_mod.sig" "$sigs/$victim.sig"
refused "another module's signature" 8 "$victim: with $sigs/$victim.sig it would be bad-signature"

sigs=$dir/sigs
flip_module() {
	printf '\x5a' | dd of="$tree/$victim" bs=1 seek=300 conv=notrunc status=none
}
prepare=flip_module
refused "a module changed since the manifest" 6 "$victim: not the module $manifest was made from"
prepare=

manifest=$dir/manifest-digest
awk -v v="$victim" '$3 == v { $1 = substr($1, 1, 10) (substr($1, 11, 1) == "0" ? "1" : "0") substr($1, 12) } { print }' \
	"$dir/manifest" >"$manifest"
refused "a manifest digest that is not the module's" 6 "$victim: $manifest: the digest given for this module is not its digest"

# A second manifest, one second earlier: its signatures carry another
# hashed part.
manifest=$dir/manifest
(cd "$orig" && SOURCE_DATE_EPOCH=$((SOURCE_DATE_EPOCH - 1)) \
	"$ATTACH" --create "$dir/manifest-early" --keyring "$KEYS/main/pub" "${rel[@]}")
"$SIGN" -k "$KEYS/main/sec" --sign-manifest "$dir/manifest-early" --output "$dir/sigs-early"
sigs=$dir/sigs-mixed
cp -a "$dir/sigs" "$sigs"
cp "$dir/sigs-early/$victim.sig" "$sigs/$victim.sig"
refused "a signature made from another manifest" 7 "$sigs/$victim.sig: not made from $manifest"

sigs=$dir/sigs-short
cp -a "$dir/sigs" "$sigs"
truncate -s 100 "$sigs/$victim.sig"
refused "a truncated signature" 7 "$sigs/$victim.sig: not one OpenPGP signature packet"

# A manifest, and its signatures, by a key the keyring does not hold.
(cd "$orig" && "$ATTACH" --create "$dir/manifest-other" --keyring "$KEYS/other/pub" "${rel[@]}")
"$SIGN" -k "$KEYS/other/sec" --sign-manifest "$dir/manifest-other" --output "$dir/sigs-other"
manifest=$dir/manifest-other sigs=$dir/sigs-other
refused "signatures by a key not in MODPUBKEY" 8 "made for key $(fpr other), which is not in $KEYS/main/pub"
manifest=$dir/manifest sigs=$dir/sigs
refused "a module not in the manifest" 5 "kernel/nosuch.ko: not in $manifest" kernel/nosuch.ko
keyring=$KEYS/main/sec
refused "a keyring with a secret key in it" 3 "$KEYS/main/sec"
keyring=

sign_victim() {
	cp "$ref/$victim" "$tree/$victim"
}
prepare=sign_victim
refused "a module signed already" 1 "$victim: already signed"
prepare=

# Killed halfway: every module before the victim is checked and written
# to its temporary file when attach blocks opening the victim's signature
# (a FIFO).  SIGTERM must leave the tree as it was, temporary files
# included.
fresh_tree
sigs=$dir/sigs-fifo
cp -a "$dir/sigs" "$sigs"
rm "$sigs/$victim.sig"
mkfifo "$sigs/$victim.sig"
(cd "$tree" && exec "$ATTACH" --manifest "$manifest" --signatures "$sigs" \
	--keyring "$KEYS/main/pub") 2>"$dir/err" &
attach_pid=$!
staged=0
for _ in $(seq 100); do
	staged=$(find "$tree" -name '.tmp_*' | wc -l)
	[ "$staged" -lt $((n - 1)) ] || break
	sleep 0.1
done
check "attach killed halfway: the modules before the victim were staged" $((n - 1)) "$staged"
kill -TERM "$attach_pid"
rc=0
wait "$attach_pid" || rc=$?
check "attach killed halfway: killed by SIGTERM" 143 "$rc"
check "attach killed halfway: no module changed, no temporary file left" yes "$(unchanged)"
rm -rf "$sigs"
sigs=$dir/sigs

# A destination that cannot be replaced: every module checks, and the
# renaming stops at the victim (a directory).  The modules renamed before
# it are signed and valid, the victim is untouched, nothing else is left.
fresh_tree
for m in "${rel[@]}"; do
	mv "$tree/$m" "$tree/$m.unsigned"
done
mkdir -p "$tree/$victim/keep"
rc=0
(cd "$tree" && "$ATTACH" --manifest "$manifest" --signatures "$sigs" \
	--keyring "$KEYS/main/pub" --suffix .unsigned) 2>"$dir/err" || rc=$?
check "attach cannot rename the victim into place: exit status 1" 1 "$rc"
check "attach cannot rename the victim into place: the message" yes \
	"$(grep -qF -- "$victim: cannot rename into place: Is a directory" "$dir/err" && echo yes)"
check "attach cannot rename the victim into place: the modules before it signed as in place" \
	$((n - 1)) "$(same_as "$tree" "$ref")"
check "attach cannot rename the victim into place: the victim and every original kept, no temporary file" \
	"yes $n 0" "$([ -d "$tree/$victim/keep" ] && echo yes) $(
		k=0; for m in "${rel[@]}"; do cmp -s "$tree/$m.unsigned" "$orig/$m" && k=$((k + 1)); done; echo $k
	) $(find "$tree" -name '.tmp_*' | wc -l)"

rc=0
"$ATTACH" --create "$dir/manifest-expired" --keyring "$KEYS/expired/pub" "$orig/$victim" 2>"$dir/err" || rc=$?
check "create refuses an expired key: exit status 9, nothing written" "9 no" \
	"$rc $([ -e "$dir/manifest-expired" ] && echo yes || echo no)"

# --- what pgp-sign --sign-manifest refuses --------------------------------
# sign_refused NAME MANIFEST PATTERN [PGP-SIGN ARGS...]: exit status 15
# (2 for a usage error, given as WANT=2), PATTERN said, nothing written.
sign_refused() {
	local name=$1 m=$2 pattern=$3 rc=0
	shift 3
	rm -rf "$dir/out" "$dir/x.sig" "$dir/escape"
	"$SIGN" -k "$KEYS/main/sec" --sign-manifest "$m" --output "$dir/out" "$@" \
		2>"$dir/err" || rc=$?
	check "sign-manifest refuses $name: exit status ${WANT:-15}" "${WANT:-15}" "$rc"
	check "sign-manifest refuses $name: the message" yes \
		"$(grep -qF -- "$pattern" "$dir/err" && echo yes)"
	check "sign-manifest refuses $name: nothing written" no \
		"$([ -e "$dir/out" ] || [ -e "$dir/x.sig" ] || [ -e "/x.sig" ] && echo yes || echo no)"
}
hdr=$(sed -n 1,4p "$dir/manifest")
line=$(sed -n 5p "$dir/manifest")
digests=${line% *}
bad=$dir/bad-manifest
sign_refused "a manifest for another key" "$dir/manifest-other" \
	"$dir/manifest-other: made for key $(fpr other)"
sed "3s/.*/created 1000/" "$dir/manifest" >"$bad"
sign_refused "a creation time before the key" "$bad" "$bad: creation time 1000 is before"
for path in /x ../x kernel//x.ko kernel/./x.ko "kernel/a b.ko" kernel/é.ko; do
	printf '%s\n%s %s\n' "$hdr" "$digests" "$path" >"$bad"
	sign_refused "the module path '$path'" "$bad" "$bad:5: module path"
done
printf 'modsign-manifest 2\n' >"$bad"
sign_refused "another format" "$bad" "$bad:1: not a module signing manifest"
sed "2s/.*/hash md5/" "$dir/manifest" >"$bad"
sign_refused "a hash the kernel refuses" "$bad" "$bad:2: hash 'md5'"
sed "5s/^../ /" "$dir/manifest" >"$bad"
sign_refused "a short digest" "$bad" "$bad:5:"
{ cat "$dir/manifest"; sed -n 5p "$dir/manifest"; } >"$bad"
sign_refused "a module named twice" "$bad" "is in it twice"
head -c -1 "$dir/manifest" >"$bad"
sign_refused "no final newline" "$bad" "$bad:1: not a manifest"
sign_refused "--hash sha512 for a sha256 manifest" "$dir/manifest" \
	"made for sha256, not --hash sha512" --hash sha512
WANT=2 sign_refused "a module named beside the manifest" "$dir/manifest" \
	"name no module" "$orig/$victim"
finish
