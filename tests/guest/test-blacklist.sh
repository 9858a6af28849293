#!/bin/bash
# The system blacklist holds a module's hash ("bin:" entry) and the
# kernel refuses that module however it is signed: the hash covers what
# the OpenPGP signature covers (the module body), so re-signing it, with
# another creation time and so other signature bytes, or another signer
# name, changes nothing.  One permissive boot of a guest kernel whose
# blacklist names lib/crc-itu-t.ko's body; crc7 is the control.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=guestlib.sh
. "$here/guestlib.sh"

work=$(guest_workdir guest-blacklist)
mods="$work/payload/modules"

listed="$KDIR/lib/crc-itu-t.ko"
body="$work/crc-itu-t.body"
"$KSRC/scripts/extract-module-sig.pl" -0 "$listed" >"$body" 2>/dev/null
hash=$(sha256sum "$body" | cut -d' ' -f1)
# blacklist_hashes.c #includes the list: C string literals
printf '"bin:%s"\n' "$hash" >"$work/hashes"

cp "$listed" "$mods/listed.ko"
"$here/../resign-module.py" --created $(($(date +%s) - 3600)) "$listed" \
	"$KDIR/modsign.sec" "$mods/listed-resigned.ko"
cp "$KDIR/lib/crc7.ko" "$mods/control.ko"
cmp -s "$mods/listed.ko" "$mods/listed-resigned.ko" &&
	fail "blacklist: the re-signed module differs from the build's" "identical"

kernel=$(guest_kernel blacklist SYSTEM_BLACKLIST_KEYRING \
	"SYSTEM_BLACKLIST_HASH_LIST=$work/hashes")
cat >"$work/payload/cases.list" <<CASES
control control.ko crc7
listed listed.ko crc_itu_t
listed-resigned listed-resigned.ko crc_itu_t
CASES
log="$work/permissive.log"
if ! guest_boot "$kernel" "$work/payload" "$log"; then
	fail "blacklist: guest boot" "see $log"
	finish
fi

check "blacklist: a module not listed loads untainted" "OK 0" "$(guest_result "$log" control)"
check "blacklist: the listed module, signed by the build, is refused" \
	"EKEYREJECTED 0" "$(guest_result "$log" listed)"
check "blacklist: the listed module, re-signed, is refused" \
	"EKEYREJECTED 0" "$(guest_result "$log" listed-resigned)"
for c in listed listed-resigned; do
	if grep "^KLOG $c: " "$log" | grep -F "Module hash $hash is blacklisted" >/dev/null; then
		pass "blacklist: $c: the kernel names the listed hash"
	else
		fail "blacklist: $c: the kernel names the listed hash" \
			"$(grep "^KLOG $c: " "$log" | sed -n 1,3p | tr '\n' '|')"
	fi
done
guest_no_splat "blacklist: no oops or warning" "$log"
finish
