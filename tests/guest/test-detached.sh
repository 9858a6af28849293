#!/bin/bash
# Modules signed off the build host load under module.sig_enforce=1.
# The build side (no secret key) makes the manifest of the build's
# stripped modules and attaches the signatures; the signing side, in a
# mount and network namespace of its own where the build tree is an
# empty tmpfs, signs the manifest's digests: with the build's key file,
# and through gpg-agent with a signing subkey the guest kernel also
# holds.  The behaviour table's kernel (guest_table_opts) is the one
# booted, so this costs no kernel build of its own.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=guestlib.sh
. "$here/guestlib.sh"

work=$(guest_workdir guest-detached)
payload=$work/payload
mods=$payload/modules
tools=$KDIR/scripts/modsign
ring=$(guest_keyring)
subkeyed=$(testkey subkeyed)

if ! kernel=$(guest_kernel table "${guest_table_opts[@]}"); then
	fail "detached: the table kernel builds" "see the make output above"
	finish
fi

# sign_elsewhere KEYARGS... -- MANIFEST OUTDIR: pgp-sign --sign-manifest
# where the build tree ($work/tree) cannot be seen.
sign_elsewhere() {
	local args=()
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare --mount --net -- sh -c '
		mount -t tmpfs none "$1" || exit 99
		tree=$1 sign=$2 manifest=$3 out=$4
		shift 4
		exec "$sign" "$@" --sign-manifest "$manifest" --output "$out"' \
		sh "$work/tree" "$tools/pgp-sign" "$1" "$2" "${args[@]}"
}

# One tree per key: the build's stripped crc7 and crc8.
mkdir -p "$work/tree/file/lib" "$work/tree/agent/lib"
cp "$KDIR/lib/crc7.ko.stripped" "$work/tree/file/lib/crc7.ko"
cp "$KDIR/lib/crc8.ko.stripped" "$work/tree/agent/lib/crc8.ko"
(cd "$work/tree/file" && "$tools/pgp-attach" --create "$work/file.manifest" \
	--keyring "$KDIR/modsign.pub" lib/crc7.ko)
(cd "$work/tree/agent" && "$tools/pgp-attach" --create "$work/agent.manifest" \
	--keyring "$subkeyed/pub" lib/crc8.ko)
install -d -m 0700 "$work/signhost"
install -m 0600 "$KDIR/modsign.sec" "$work/signhost/key.sec"
rc=0
sign_elsewhere -k "$work/signhost/key.sec" -- "$work/file.manifest" "$work/file.sigs" || rc=$?
check "detached: the key file signs the manifest elsewhere" 0 "$rc"
rc=0
GNUPGHOME=$subkeyed/home sign_elsewhere -- "$work/agent.manifest" "$work/agent.sigs" || rc=$?
gpgconf --homedir "$subkeyed/home" --kill all >/dev/null 2>&1 || :
check "detached: gpg-agent signs the manifest elsewhere with a subkey" 0 "$rc"
rc=0
(cd "$work/tree/file" && "$tools/pgp-attach" --manifest "$work/file.manifest" \
	--signatures "$work/file.sigs" --keyring "$ring") || rc=$?
(cd "$work/tree/agent" && "$tools/pgp-attach" --manifest "$work/agent.manifest" \
	--signatures "$work/agent.sigs" --keyring "$ring") || rc=$?
check "detached: both attach, checked with the guest kernel's keyring" 0 "$rc"
check "detached: gpgv accepts the detached signatures" "yes yes" \
	"$(gpgv --keyring "$KDIR/modsign.pub" "$work/file.sigs/lib/crc7.ko.sig" \
		"$KDIR/lib/crc7.ko.stripped" >/dev/null 2>&1 && echo yes) $(
		gpgv --keyring "$subkeyed/pub" "$work/agent.sigs/lib/crc8.ko.sig" \
		"$KDIR/lib/crc8.ko.stripped" >/dev/null 2>&1 && echo yes)"
# the build signed crc7 with the same key: only the signature time may
# differ, and it is SOURCE_DATE_EPOCH or now in both
cp "$work/tree/file/lib/crc7.ko" "$mods/crc7-file.ko"
cp "$work/tree/agent/lib/crc8.ko" "$mods/crc8-agent.ko"
cat >"$payload/cases.list" <<CASES
file crc7-file.ko crc7
agent crc8-agent.ko crc8
CASES

log=$work/enforce.log
if ! guest_boot "$kernel" "$payload" "$log" module.sig_enforce=1; then
	fail "detached: guest boot" "see $log"
	finish
fi
check "detached: enforce: the key file's signature loads untainted" "OK 0" \
	"$(guest_result "$log" file)"
check "detached: enforce: the agent's subkey signature loads untainted" "OK 0" \
	"$(guest_result "$log" agent)"
guest_no_splat "detached: no oops or warning" "$log"
finish
