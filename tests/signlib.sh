# shellcheck shell=bash
# Making module variants for the tests: signing a copy with a given key.
# Damaging a signed module in one precise place is tests/modsig.py's job.

modsign_signer() {
	echo "$KDIR/scripts/modsign/pgp-sign"
}

# sign_copy IN OUT SECKEY [SIGNER-OPTION...]
sign_copy() {
	local in=$1 out=$2 sec=$3
	shift 3
	cp "$in" "$out"
	"$(modsign_signer)" --secret-key "$sec" "$@" "$out"
}

# key_fingerprints KEYRING: the fingerprints of its keys and subkeys, in
# order.  gpg reads the file in a throwaway home: with --no-options it
# will not create a missing ~/.gnupg, as on a fresh machine, and fails.
key_fingerprints() {
	local home rc=0
	home=$(mktemp -d)
	gpg --homedir "$home" --no-options --no-autostart --with-colons \
		--show-keys "$1" 2>/dev/null | awk -F: '/^fpr/ {print $10}' || rc=$?
	rm -rf "$home"
	return "$rc"
}
