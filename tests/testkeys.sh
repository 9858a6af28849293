# shellcheck shell=bash
# Test keys, made once per build directory and reused: each lives in
# $BUILD/test-keys/NAME as pub (binary keyring), sec (unprotected secret
# export, 0600) and fpr (fingerprint of the primary key).  Small RSA keys
# where the size does not matter, because generating them costs seconds.
#
#   subkeyed  RSA-3072 primary (certify, sign) with an RSA-3072 signing subkey
#   expired   RSA-2048, made on 2020-01-01 and expired a day later
#   outsider  RSA-2048, never built into any kernel
#   packager  RSA-4096, a packager's own MODSECKEY/MODPUBKEY for the rpm
#   revoked   RSA-2048, pub carries a key revocation; sec is the export
#             made before it, so modules can still be signed with it
#   subrevoked  RSA-2048 primary with an RSA-2048 signing subkey that pub
#             revokes (sec again from before the revocation)

testkey_dir() {
	echo "$BUILD/test-keys/$1"
}

# gpg_batch HOME ARGS...: gpg in a private home, quietly, no agent left over
gpg_batch() {
	local home=$1
	shift
	gpg --homedir "$home" --batch --quiet --no-tty --pinentry-mode loopback \
		--passphrase '' "$@"
}

# revoke_key HOME FPR: revoke the key FPR in HOME with the revocation
# certificate gpg made when it generated the key (its armour line starts
# with ':' so that it is not imported by mistake)
revoke_key() {
	sed 's/^:-----BEGIN/-----BEGIN/' "$1/openpgp-revocs.d/$2.rev" |
		gpg_batch "$1" --import
}

# revoke_subkey HOME FPR: revoke the first subkey of the key FPR in HOME
# (revkey in --edit-key: reason 0, none given, and an empty comment)
revoke_subkey() {
	printf 'key 1\nrevkey\ny\n0\n\ny\nsave\n' |
		gpg --homedir "$1" --batch --no-tty --pinentry-mode loopback \
			--passphrase '' --command-fd 0 --edit-key "$2" >/dev/null 2>&1
}

testkey() {
	local name=$1 dir home fpr
	dir=$(testkey_dir "$name")
	if [ -s "$dir/sec" ] && [ -s "$dir/pub" ]; then
		echo "$dir"
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	home=$(mktemp -d)
	chmod 0700 "$home"
	case "$name" in
	subkeyed)
		gpg_batch "$home" --quick-gen-key "modsign test subkeyed <subkeyed@test>" rsa3072 cert,sign never
		fpr=$(gpg_batch "$home" --with-colons --list-keys | awk -F: '/^fpr/ { if (!n++) print $10 }')
		gpg_batch "$home" --quick-add-key "$fpr" rsa3072 sign never
		;;
	expired)
		gpg_batch "$home" --faked-system-time 20200101T000000 \
			--quick-gen-key "modsign test expired <expired@test>" rsa2048 sign 1d
		;;
	outsider)
		gpg_batch "$home" --quick-gen-key "modsign test outsider <outsider@test>" rsa2048 sign never
		;;
	packager)
		gpg_batch "$home" --quick-gen-key "modsign test packager <packager@test>" rsa4096 sign never
		;;
	revoked)
		gpg_batch "$home" --quick-gen-key "modsign test revoked <revoked@test>" rsa2048 sign never
		;;
	subrevoked)
		gpg_batch "$home" --quick-gen-key "modsign test subrevoked <subrevoked@test>" rsa2048 cert,sign never
		fpr=$(gpg_batch "$home" --with-colons --list-keys | awk -F: '/^fpr/ { if (!n++) print $10 }')
		gpg_batch "$home" --quick-add-key "$fpr" rsa2048 sign never
		;;
	*)
		echo "testkey: unknown key $name" >&2
		gpgconf --homedir "$home" --kill all
		rm -rf "$home"
		return 1
		;;
	esac
	fpr=$(gpg_batch "$home" --with-colons --list-keys | awk -F: '/^fpr/ { if (!n++) print $10 }')
	echo "$fpr" >"$dir/fpr"
	(umask 077 && gpg_batch "$home" --export-secret-keys >"$dir/sec")
	case "$name" in
	revoked) revoke_key "$home" "$fpr" ;;
	subrevoked) revoke_subkey "$home" "$fpr" ;;
	esac
	gpg_batch "$home" --export >"$dir/pub"
	gpgconf --homedir "$home" --kill all
	rm -rf "$home"
	echo "$dir"
}
