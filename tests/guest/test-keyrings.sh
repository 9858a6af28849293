#!/bin/bash
# Which keys OpenPGP module signatures are checked against, and what a key
# ID names (Documentation/admin-guide/module-signing.rst, "Keyrings"):
#
#   - a key ID names one key: an OpenPGP key whose key ID is already in
#     the built-in keyring is not loaded ("key ID already in use"), be it
#     the same key given twice in MODPUBKEY or an X.509 certificate
#     (CONFIG_SYSTEM_TRUSTED_KEYS) whose subject key identifier is those
#     eight octets.  The key loaded first keeps its modules: the repeated
#     build key still verifies; the clashing OpenPGP key signs nothing.
#   - OpenPGP module signatures are checked against the built-in keys
#     only.  From user space an OpenPGP key can go into a keyring of one's
#     own, never into .secondary_trusted_keys (it carries no signature by
#     a trusted key: ENOPKG), nor can that keyring be linked there
#     (EOPNOTSUPP); a module signed by it is a module by an unknown key.
#
# One guest kernel (SECONDARY_TRUSTED_KEYRING, the certificate, the build
# key twice and the clashing key); boots in enforce and permissive mode,
# each module that taints in a permissive boot of its own, since the
# taint stays once set.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=guestlib.sh
. "$here/guestlib.sh"

work=$(guest_workdir guest-keyrings)
main_id=$(craft_key keyids "$KDIR/modsign.pub" | sed -n 1p)
clash_id=$(testkey_ids clash)
outsider=$(testkey outsider)

# The certificate's secret key is thrown away: only the certificate is
# built in, and nothing is ever signed with it.
(umask 077 && openssl req -x509 -newkey rsa:2048 -nodes -days 36500 \
	-keyout "$work/clash-x509.key" -out "$work/clash-x509.pem" \
	-subj "/CN=modsign test X.509 with an OpenPGP key ID/" \
	-addext "subjectKeyIdentifier=$clash_id" 2>/dev/null)
rm -f "$work/clash-x509.key"
chmod 0644 "$work/clash-x509.pem"
skid=$(openssl x509 -in "$work/clash-x509.pem" -noout -ext subjectKeyIdentifier |
	sed -n 2p | tr -d ' :' | tr 'A-F' 'a-f')
check "keyrings: the certificate's subject key identifier is the clash key's ID" \
	"$clash_id" "$skid"

# The certificate path is part of the kernel's configuration: keep it
# where the next run finds the same bytes, so make rebuilds nothing.
mkdir -p "$guest_dir"
cert="$guest_dir/clash-x509.pem"
if ! [ -s "$cert" ] || ! openssl x509 -in "$cert" -noout -ext subjectKeyIdentifier |
	tr -d ' :\n' | tr 'A-F' 'a-f' | grep -q -- "$clash_id"; then
	cp "$work/clash-x509.pem" "$cert"
fi
guest_modpubkey="$guest_dir/keyrings.pub"
cat "$KDIR/modsign.pub" "$KDIR/modsign.pub" "$(testkey clash)/pub" >"$guest_modpubkey.tmp"
if cmp -s "$guest_modpubkey.tmp" "$guest_modpubkey"; then
	rm -f "$guest_modpubkey.tmp"
else
	mv "$guest_modpubkey.tmp" "$guest_modpubkey"
fi
if ! kernel=$(guest_kernel keyrings SECONDARY_TRUSTED_KEYRING \
	"SYSTEM_TRUSTED_KEYS=$cert"); then
	fail "keyrings: guest kernel build" "see the make output above"
	finish
fi

mods="$work/payload/modules"
cp "$KDIR/lib/crc7.ko" "$mods/build-key.ko"
"$here/../resign-module.py" "$KDIR/lib/crc-itu-t.ko" "$(testkey clash)/sec" \
	"$mods/clash-key.ko"
"$here/../resign-module.py" "$KDIR/lib/crc8.ko" "$outsider/sec" \
	"$mods/user-keyring-key.ko"
cp "$outsider/pub" "$work/payload/outsider.pub"
gcc -static -O2 -Wall -Wextra -o "$work/payload/keyctl" "$here/keyctl.c"

# The guest puts the outsider's key into its user keyring, then tries the
# secondary keyring with the key and with that keyring.
cat >"$work/payload/setup.sh" <<'SETUP'
#!/bin/sh
secondary=$(awk '$8 == "keyring" && $9 == ".secondary_trusted_keys:" { print $1 }' /proc/keys)
echo "SETUP add-user $(/keyctl add @u /outsider.pub)"
echo "SETUP add-secondary $(/keyctl add "${secondary:-none}" /outsider.pub)"
echo "SETUP link-secondary $(/keyctl link @u "${secondary:-none}")"
SETUP
chmod 0755 "$work/payload/setup.sh"

# boot NAME MODE CASES...: one boot; CASES are "case file module" triples
boot() {
	local name=$1 mode=$2 log="$work/$1.log"
	shift 2
	printf '%s\n' "$@" >"$work/payload/cases.list"
	if [ "$mode" = enforce ]; then
		guest_boot "$kernel" "$work/payload" "$log" module.sig_enforce=1
	else
		guest_boot "$kernel" "$work/payload" "$log"
	fi
}

# setup LOG STEP: what the guest's keyctl answered
setup() {
	grep "^SETUP $2 " "$1" | sed -n 1p | awk '{ print $3 }'
}

build_case="build-key build-key.ko crc7"
clash_case="clash-key clash-key.ko crc_itu_t"
user_case="user-keyring-key user-keyring-key.ko crc8"
if ! boot enforce enforce "$build_case" "$clash_case" "$user_case" ||
	! boot permissive-clash permissive "$build_case" "$clash_case" ||
	! boot permissive-user permissive "$user_case"; then
	fail "keyrings: guest boots" "see the logs in $work"
	finish
fi
enforce=$work/enforce.log
clash=$work/permissive-clash.log
user=$work/permissive-user.log

for log in "$enforce" "$clash"; do
	for id in "$main_id" "$clash_id"; do
		check "keyrings: $(basename "$log" .log): key $id skipped as a repeated key ID" \
			"PGP: Skipped OpenPGP key $id: key ID already in use" \
			"$(grep -o "PGP: Skipped OpenPGP key $id: .*" "$log" | sed -n 1p)"
	done
	check "keyrings: $(basename "$log" .log): one OpenPGP key loaded" 1 \
		"$(grep -c 'PGP: Loaded OpenPGP key' "$log")"
	check "keyrings: $(basename "$log" .log): the certificate is loaded" 1 \
		"$(grep -c "Loaded X.509 cert 'modsign test X.509 with an OpenPGP key ID" "$log")"
done

check "keyrings: enforce: the repeated build key still verifies its modules" \
	"OK 0" "$(guest_result "$enforce" build-key)"
check "keyrings: enforce: the key the certificate's identifier clashes with is refused" \
	"EKEYREJECTED 0" "$(guest_result "$enforce" clash-key)"
check "keyrings: enforce: a key in the user keyring signs nothing" \
	"EKEYREJECTED 0" "$(guest_result "$enforce" user-keyring-key)"
check "keyrings: permissive: the repeated build key, untainted" \
	"OK 0" "$(guest_result "$clash" build-key)"
check "keyrings: permissive: the clashing key's module loads as by an unknown key" \
	"OK 8192" "$(guest_result "$clash" clash-key)"
check "keyrings: permissive: the user keyring key's module loads as by an unknown key" \
	"OK 8192" "$(guest_result "$user" user-keyring-key)"

for log in "$enforce" "$user"; do
	name=$(basename "$log" .log)
	check "keyrings: $name: an OpenPGP key goes into the user keyring" \
		OK "$(setup "$log" add-user)"
	check "keyrings: $name: ... but not into .secondary_trusted_keys" \
		ENOPKG "$(setup "$log" add-secondary)"
	check "keyrings: $name: ... nor can its keyring be linked there" \
		EOPNOTSUPP "$(setup "$log" link-secondary)"
done
for log in "$enforce" "$clash" "$user"; do
	guest_no_splat "keyrings: $(basename "$log" .log): no oops or warning" "$log"
done
finish
