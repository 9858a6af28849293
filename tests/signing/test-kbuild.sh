#!/bin/bash
# Kbuild signs external modules (make M=dir): strip, then sign in one
# batch; re-running make re-signs nothing, or only what changed, and
# everything when the key changes; builds are reproducible with
# SOURCE_DATE_EPOCH; modules_install installs the signed modules as they
# are; each error stops the build before anything is signed.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=helpers.bash
. "$(dirname "$0")/helpers.bash"

dir=$(scratch kbuild)
usekey second
usekey expired
usekey encrypt
usekey ed25519
usekey dsa
export SOURCE_DATE_EPOCH=1700000000
mods=(extmod_a extmod_b)

yesno() {
	if "$@"; then echo yes; else echo no; fi
}

# has_secret_key HOME NAME: does the keyring of HOME hold NAME's secret key?
has_secret_key() {
	gpg --homedir "$1" --batch --list-secret-keys "$2" >/dev/null 2>&1
}

# signed_ok DIR KEYRING LABEL: both modules of DIR signed and valid.
signed_ok() {
	local d=$1 ring=$2 label=$3 m
	for m in "${mods[@]}"; do
		check "$label: $m has the trailer" yes "$(yesno has_trailer "$d/$m.ko")"
		check "$label: $m pgp-verify" valid "$(verify_outcome "$ring" "$d/$m.ko")"
		check "$label: $m gpgv accepts" yes "$(yesno gpgv_ok "$ring" "$d/$m.ko" "$dir")"
	done
}

# no_signed_module DIR LABEL: nothing in DIR looks like a signed module.
no_signed_module() {
	local d=$1 label=$2 f n=0
	for f in "$d"/*.ko; do
		[ -e "$f" ] || continue
		if has_trailer "$f"; then
			n=$((n + 1))
		fi
	done
	check "$label: no module looks signed" 0 "$n"
}

# A user-supplied key.
m=$dir/user
rc=0
extmod "$m" MODSECKEY="$KEYS/main/sec" || rc=$?
check "user key: build" 0 "$rc"
signed_ok "$m" "$KEYS/main/pub" "user key"
for mod in "${mods[@]}"; do
	check "user key: STRIP line for $mod" 1 "$(grep -c "^  STRIP   $m/$mod.ko$" "$m.log")"
	check "user key: SIGN line for $mod" 1 "$(grep -c "^  SIGN    $m/$mod.ko$" "$m.log")"
	check "user key: $mod modinfo sig_id" PGP "$(modinfo_field "$m/$mod.ko" sig_id)"
	check "user key: $mod modinfo signer" "Test main <main@modsign.test>" \
		"$(modinfo_field "$m/$mod.ko" signer)"
	check "user key: $mod modinfo sig_key" "$(keyid main | sed 's/../&:/g; s/:$//')" \
		"$(modinfo_field "$m/$mod.ko" sig_key)"
	perl "$EXTRACT" -0 "$m/$mod.ko" >"$dir/body.o" 2>/dev/null
	check "user key: $mod signed body has no .debug_*" 0 \
		"$(readelf -S -W "$dir/body.o" | grep -c '\.debug_' || :)"
	check "user key: $mod.ko.unsigned has .debug_info" yes \
		"$(yesno grep -q '\.debug_info' <(readelf -S -W "$m/$mod.ko.unsigned"))"
done
check "user key: no key generated for an external build" 0 \
	"$(grep -c 'MODSIGN generated' "$m.log" || :)"

# Re-running make: nothing re-signed; a changed module: only it.
before_a=$(stat -c %Y.%y "$m/extmod_a.ko")
extmod_make "$m" MODSECKEY="$KEYS/main/sec"
check "re-run: nothing signed" 0 "$(grep -c 'SIGN' "$m.log" || :)"
check "re-run: extmod_a untouched" "$before_a" "$(stat -c %Y.%y "$m/extmod_a.ko")"
touch "$m/extmod_b.c"
extmod_make "$m" MODSECKEY="$KEYS/main/sec"
check "changed extmod_b: one SIGN line" 1 "$(grep -c 'SIGN' "$m.log" || :)"
check "changed extmod_b: it is re-signed" 1 "$(grep -c "SIGN    $m/extmod_b.ko" "$m.log" || :)"
check "changed extmod_b: extmod_a untouched" "$before_a" "$(stat -c %Y.%y "$m/extmod_a.ko")"

# Another key: everything is re-signed.
extmod_make "$m" MODSECKEY="$KEYS/second/sec"
check "new key: both re-signed" 2 "$(grep -c 'SIGN' "$m.log" || :)"
signed_ok "$m" "$KEYS/second/pub" "new key"

# Reproducible: the same key and SOURCE_DATE_EPOCH give the same bytes.
extmod "$dir/repro" MODSECKEY="$KEYS/main/sec"
mkdir -p "$dir/repro1"
cp "$dir"/repro/*.ko "$dir/repro1/"
make -C "$KDIR" M="$dir/repro" clean >/dev/null 2>&1
extmod_make "$dir/repro" MODSECKEY="$KEYS/main/sec"
for mod in "${mods[@]}"; do
	check "reproducible: $mod" yes \
		"$(yesno cmp -s "$dir/repro/$mod.ko" "$dir/repro1/$mod.ko")"
done

# Through gpg-agent (MODSECKEY empty, MODKEYNAME): the same bytes.
make -C "$KDIR" M="$dir/repro" clean >/dev/null 2>&1
rc=0
GNUPGHOME=$KEYS/main/home extmod_make "$dir/repro" MODSECKEY= \
	MODKEYNAME="Test main" || rc=$?
check "agent: build" 0 "$rc"
for mod in "${mods[@]}"; do
	check "agent: $mod identical to the key file build" yes \
		"$(yesno cmp -s "$dir/repro/$mod.ko" "$dir/repro1/$mod.ko")"
done

# MODKEYNAME alone, no MODSECKEY at all, in a tree that holds its own
# ephemeral modsign.sec: the key in the user's agent signs, not the file.
check "agent, no MODSECKEY: the tree has a key file to ignore" yes \
	"$(yesno test -s "$KDIR/modsign.sec")"
make -C "$KDIR" M="$dir/repro" clean >/dev/null 2>&1
rc=0
(
	unset MODSECKEY
	extmod_make "$dir/repro" MODKEYNAME="Test main" \
		KEYFLAGS="--homedir $KEYS/main/home"
) || rc=$?
check "agent, no MODSECKEY: build" 0 "$rc"
for mod in "${mods[@]}"; do
	check "agent, no MODSECKEY: $mod identical to the key file build" yes \
		"$(yesno cmp -s "$dir/repro/$mod.ko" "$dir/repro1/$mod.ko")"
done

# MODSIGN_DISCARD=1 with a key in gpg-agent: not deleted, and said so.
touch "$dir/repro/extmod_a.c"
rc=0
(
	unset MODSECKEY
	extmod_make "$dir/repro" MODKEYNAME="Test main" \
		KEYFLAGS="--homedir $KEYS/main/home" MODSIGN_DISCARD=1
) || rc=$?
check "agent, MODSIGN_DISCARD=1: build" 0 "$rc"
check "agent, MODSIGN_DISCARD=1: warns that it is ignored" yes \
	"$(yesno grep -q 'MODSIGN_DISCARD=1 ignored: the modules are signed through gpg-agent' "$dir/repro.log")"
check "agent, MODSIGN_DISCARD=1: the agent's key is still there" yes \
	"$(yesno has_secret_key "$KEYS/main/home" "Test main")"

# modules_install installs them unchanged, INSTALL_MOD_STRIP or not.
inst=$dir/install
make -C "$KDIR" M="$dir/repro" MODSECKEY="$KEYS/main/sec" \
	INSTALL_MOD_PATH="$inst" INSTALL_MOD_STRIP=1 modules_install \
	>"$dir/install.log" 2>&1
for mod in "${mods[@]}"; do
	f=$(find "$inst" -name "$mod.ko")
	check "modules_install: $mod installed unchanged" yes \
		"$(yesno cmp -s "$f" "$dir/repro/$mod.ko")"
done
check "modules_install: says INSTALL_MOD_STRIP is ignored" 1 \
	"$(grep -c 'INSTALL_MOD_STRIP ignored' "$dir/install.log" || :)"
check "modules_install: signs nothing" 0 "$(grep -c 'SIGN' "$dir/install.log" || :)"

# Errors: the build stops, with a message, and nothing looks signed.
unset SOURCE_DATE_EPOCH
# case|make arguments|message
while IFS='|' read -r label arg reason; do
	m=$dir/err-$label
	rc=0
	extmod "$m" "$arg" || rc=$?
	check "$label: build fails" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
	check "$label: message" yes "$(yesno grep -qF "$reason" "$m.log")"
	no_signed_module "$m" "$label"
done <<EOF_CASES
missing-key|MODSECKEY=$dir/nonexistent.sec|MODSECKEY '$dir/nonexistent.sec' does not exist
expired-key|MODSECKEY=$KEYS/expired/sec|key has expired
corrupt-key|MODSECKEY=$KEYS/main/pub|secret key not available
garbage-key|MODSECKEY=$KDIR/modules.order|$KDIR/modules.order: not a usable OpenPGP secret key: corrupt packet at offset 0
cannot-sign|MODSECKEY=$KEYS/encrypt/sec|key is not signing-capable
ed25519-key|MODSECKEY=$KEYS/ed25519/sec|EdDSA (ed25519)
dsa-key|MODSECKEY=$KEYS/dsa/sec|the kernel can only verify RSA keys of 2048 to 4096 bits
EOF_CASES

# No eu-strip in PATH.
fake=$dir/path
mkdir -p "$fake"
for t in /usr/bin/* /usr/local/bin/*; do
	[ "$(basename "$t")" = eu-strip ] || ln -sf "$t" "$fake/"
done
m=$dir/err-eu-strip
rc=0
PATH=$fake:/usr/sbin:/sbin extmod "$m" MODSECKEY="$KEYS/main/sec" || rc=$?
check "no eu-strip: build fails" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
check "no eu-strip: message" yes "$(yesno grep -q "'eu-strip' not found" "$m.log")"
no_signed_module "$m" "no eu-strip"

# MODSIGN_DISCARD=1: the key is gone after signing; later signing says so.
cp "$KEYS/main/sec" "$dir/discard.sec"
m=$dir/discard
extmod "$m" MODSECKEY="$dir/discard.sec" MODSIGN_DISCARD=1
signed_ok "$m" "$KEYS/main/pub" "discard"
check "discard: key deleted" no "$(yesno test -e "$dir/discard.sec")"
check "discard: DISCARD line" 1 "$(grep -c "DISCARD $dir/discard.sec" "$m.log" || :)"
extmod_make "$m" MODSECKEY="$dir/discard.sec"
check "discard: nothing to sign, build succeeds" 0 "$(grep -c 'error' "$m.log" || :)"
touch "$m/extmod_a.c"
rc=0
extmod_make "$m" MODSECKEY="$dir/discard.sec" || rc=$?
check "discard: signing again fails" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
check "discard: message says the key was discarded" yes \
	"$(yesno grep -q 'was discarded after signing' "$m.log")"
check "discard: out-of-date module removed, not left stale" no \
	"$(yesno test -e "$m/extmod_a.ko")"

# Signing later (patch 0027): MODSIGN_UNSIGNED=1, and the default against a
# tree that holds no key, as an installed kernel's headers package ships
# it (the packaging helper's copy of this tree: no modsign.sec).
# unsigned_ok DIR LABEL: both modules built, stripped, unsigned, NOSIGN'd.
unsigned_ok() {
	local d=$1 label=$2 mod
	for mod in "${mods[@]}"; do
		check "$label: NOSIGN line for $mod" 1 "$(grep -c "^  NOSIGN  $d/$mod.ko$" "$d.log" || :)"
		check "$label: $mod is unsigned" unsigned "$(verify_outcome "$KEYS/main/pub" "$d/$mod.ko")"
		check "$label: $mod is its stripped body" yes "$(yesno cmp -s "$d/$mod.ko" "$d/$mod.ko.stripped")"
	done
	check "$label: the note says how to sign them" 1 \
		"$(grep -c 'sign each with .*/scripts/modsign/pgp-sign --secret-key KEY MODULE' "$d.log" || :)"
	check "$label: signs nothing" 0 "$(grep -c '^  SIGN' "$d.log" || :)"
}
m=$dir/later
rc=0
extmod "$m" MODSIGN_UNSIGNED=1 || rc=$?
check "MODSIGN_UNSIGNED=1: build" 0 "$rc"
unsigned_ok "$m" "MODSIGN_UNSIGNED=1"
# A key afterwards: every module is signed (the mode is a signing parameter).
extmod_make "$m" MODSECKEY="$KEYS/main/sec"
signed_ok "$m" "$KEYS/main/pub" "signed after MODSIGN_UNSIGNED"
rc=0
extmod_make "$m" MODSIGN_UNSIGNED=1 MODSECKEY="$KEYS/main/sec" || rc=$?
check "MODSIGN_UNSIGNED=1 with a key: build fails" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
check "MODSIGN_UNSIGNED=1 with a key: message" 1 \
	"$(grep -c 'MODSIGN_UNSIGNED=1 leaves the modules unsigned: give it no key' "$m.log" || :)"
signed_ok "$m" "$KEYS/main/pub" "MODSIGN_UNSIGNED=1 with a key: modules untouched"

hdr=$dir/headers
bash "$tests_dir/../packaging/modsign-pkg.sh" headers "$KSRC" "$KDIR" "$hdr" >"$hdr.log" 2>&1
check "headers tree: no secret key in it" "" \
	"$(find "$hdr" \( -name '*.sec' -o -name '*.pem' \) -printf '%P ')"
m=$dir/headers-default
rm -rf "$m"
cp -r "$tests_dir/modules/extmod" "$m"
rc=0
make -C "$hdr" M="$m" modules >"$m.log" 2>&1 || rc=$?
check "keyless tree, no key given: build" 0 "$rc"
unsigned_ok "$m" "keyless tree"
rc=0
make -C "$hdr" M="$m" MODSECKEY="$KEYS/main/sec" modules >"$m.log" 2>&1 || rc=$?
check "keyless tree, MODSECKEY: build" 0 "$rc"
signed_ok "$m" "$KEYS/main/pub" "keyless tree, MODSECKEY"
rm -rf "$hdr"

finish
