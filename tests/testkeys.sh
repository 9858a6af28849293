# shellcheck shell=bash
# The one factory of test keys, made once per build directory and reused:
# each lives in $BUILD/test-keys/NAME as pub (binary keyring), sec (secret
# export, 0600; unprotected but for "protected"), fpr (fingerprint of the
# primary key) and home (the GNUPGHOME it was made in, holding it; its
# gpg-agent is stopped once the key is made).  Small RSA keys where the
# size does not matter, because generating them costs seconds.  Key making
# is serialised by a lock, so test scripts may run in parallel.
#
# Keys for the signer (pgp-sign) and the tools' own checks:
#
#   main      RSA-2048, the signing tests' default key
#   other, second, safety-other   RSA-2048 (second: RSA-3072), more keys
#   safety-reselfsig  RSA-2048 primary made 2021-01-01 with a signing
#             subkey of 2021-06-01, the primary's self-signature renewed
#             2022-01-01 and the subkey's binding 2022-06-01
#   safety-rsa2560  RSA-2560: a size the kernel does not take
#   safety-edprimary  Ed25519 primary certifying an RSA-2048 signing subkey
#   protected RSA-2048 whose secret key is protected by the passphrase
#             in $testkey_passphrase
#   selfrevoked  RSA-2048 whose sec export carries its own revocation:
#             pgp-sign must refuse it
#   encrypt   RSA-2048, encryption only; ed25519, dsa: signing keys of
#             algorithms the kernel does not check; rsa8192: RSA-8192,
#             which the kernel's RSA does not take
#
# Keys for the kernel (the guest tests; the signer tests use some too):
#
#   subkeyed  RSA-3072 primary (certify, sign) with an RSA-3072 signing subkey
#   expired   RSA-2048, made on 2020-01-01 and expired a day later
#   outsider  RSA-2048, never built into any kernel
#   packager  RSA-4096, a packager's own MODSECKEY/MODPUBKEY for the rpm
#   extra     RSA-2048, the rpm kernel's MODPUBKEY_EXTRA, which signs nothing
#   revoked   RSA-2048, pub carries a key revocation; sec is the export
#             made before it, so modules can still be signed with it
#   clash     RSA-2048, built into the keyring test's kernel beside an
#             X.509 certificate whose subject key identifier is this key's
#             key ID: not loaded, "key ID already in use"
#   subrevoked  RSA-2048 primary with an RSA-2048 signing subkey that pub
#             revokes (sec again from before the revocation)
#
# Keys the kernel must refuse, or whose forged parts it must ignore, under
# the trust rules (Documentation/admin-guide/module-signing.rst).  The certificates gpg will
# not make are made from gpg's by tests/craft-key.py, which signs with
# Python integers; sec can sign modules with tests/resign-module.py
# (--key HEX picks a subkey).  After each: what the kernel must do with it,
# and its boot log reason ("PGP: Skipped OpenPGP key <key ID>: <reason>").
#
#   rsa1024   RSA-1024 signing key, valid self-signature.  Not loaded:
#             "unsupported key" (modulus below 2048 bits).
#   unbound   RSA-2048 signing primary (valid) with an RSA-2048 subkey
#             packet after it that has no binding signature (the primary
#             key of another generated key); sec holds that subkey's
#             secret.  Primary loaded; the subkey not loaded: "no valid
#             binding signature".
#   nobacksig RSA-2048 primary (certify, sign) with an RSA-2048 signing
#             subkey whose binding signature (0x18) is re-signed without
#             the embedded primary-key binding (0x19) gpg put in it.
#             Primary loaded; the subkey not loaded: "no valid primary-key
#             binding".
#   critself  RSA-2048 signing key with its valid self-signature and a
#             second, newer one that verifies but carries an unknown
#             critical hashed subpacket (type 100).  Fail closed, not
#             loaded: "self-signature cannot be checked".
#   eddsaself RSA-2048 signing key with its valid self-signature and a
#             second, newer "self-signature" of public-key algorithm 22
#             (EdDSA) naming the primary as issuer.  Fail closed, not
#             loaded: "self-signature cannot be checked".
#   badselfsig  RSA-2048 signing key whose only self-signature has a
#             damaged RSA value (quick-check octets intact).  Not loaded:
#             "no valid self-signature".
#   forgedrev RSA-2048 signing key with a key revocation (0x20) after its
#             primary key packet whose RSA value is damaged: the forged
#             revocation does not count, the key is loaded.
#   sha1self  RSA-2048 signing key whose only self-signature uses SHA-1
#             (gpg --cert-digest-algo SHA1).  Fail closed, not loaded:
#             "self-signature cannot be checked".

testkeys_crafter="$(dirname "${BASH_SOURCE[0]}")/craft-key.py"

# The passphrase of the "protected" key
# shellcheck disable=SC2034 # used by the scripts that source this
testkey_passphrase='correct horse battery staple'

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

# craft_key OPERATION ARGS...: tests/craft-key.py (see its usage)
craft_key() {
	python3 "$testkeys_crafter" "$@"
}

# testkey_ids NAME: the key IDs of NAME's primary key and subkeys, in
# order, 16 lower-case hex digits each (from the packets themselves: gpg
# would not list a subkey without a binding signature); makes the key
# first if need be
testkey_ids() {
	local dir
	dir=$(testkey "$1") || return 1
	craft_key keyids "$dir/pub"
}

# first_fpr HOME: the fingerprint of the first key in HOME
first_fpr() {
	gpg_batch "$1" --with-colons --list-keys | awk -F: '/^fpr/ { if (!n++) print $10 }'
}

# testkey_craft NAME HOME DIR FPR: turn DIR/pub.new (and DIR/sec) as gpg
# exported them into the certificate gpg will not make, for the keys that
# need it (tests/craft-key.py).  A changed secret is written under umask
# 077 and renamed over the old one.
testkey_craft() {
	local name=$1 home=$2 dir=$3 fpr=$4 donor
	case "$name" in
	unbound)
		gpg_batch "$home" --quick-gen-key "modsign test unbound donor <donor@test>" \
			rsa2048 sign never || return 1
		donor=$(gpg_batch "$home" --with-colons --list-keys |
			awk -F: -v p="$fpr" '/^fpr/ && $10 != p { print $10; exit }')
		[ -n "$donor" ] || return 1
		gpg_batch "$home" --export "$donor" >"$home/donor.pub" || return 1
		(umask 077 && gpg_batch "$home" --export-secret-keys "$donor" >"$home/donor.sec" &&
			craft_key unbound "$dir/pub.new" "$dir/sec" "$home/donor.pub" \
				"$home/donor.sec" "$dir/pub.crafted" "$dir/sec.new") || return 1
		chmod 0644 "$dir/pub.crafted" && mv "$dir/sec.new" "$dir/sec" || return 1
		;;
	nobacksig | critself | forgedrev)
		craft_key "$name" "$dir/pub.new" "$dir/sec" "$dir/pub.crafted" || return 1
		;;
	eddsaself | badselfsig)
		craft_key "$name" "$dir/pub.new" "$dir/pub.crafted" || return 1
		;;
	*) return 0 ;;
	esac
	mv "$dir/pub.crafted" "$dir/pub.new"
}

# testkey NAME: make NAME if need be, and print its directory
testkey() {
	local rc=0
	mkdir -p "$BUILD/test-keys"
	chmod 0700 "$BUILD/test-keys"
	{
		flock 9
		testkey_locked "$1" || rc=$?
	} 9>"$BUILD/test-keys/.lock"
	return "$rc"
}

testkey_locked() {
	local name=$1 dir home fpr
	dir=$(testkey_dir "$name")
	if [ -s "$dir/sec" ] && [ -s "$dir/pub" ]; then
		echo "$dir"
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	home=$dir/home
	mkdir -m 0700 "$home"
	case "$name" in
	main | other | safety-other | selfrevoked | safety-rsa2560 | second | extra | encrypt | ed25519 | dsa)
		local algo=rsa2048 usage=sign
		case "$name" in
		safety-rsa2560) algo=rsa2560 ;;
		second) algo=rsa3072 ;;
		encrypt) usage=encr ;;
		ed25519) algo=ed25519 ;;
		dsa) algo=dsa2048 ;;
		esac
		gpg_batch "$home" --quick-gen-key "Test $name <$name@modsign.test>" "$algo" "$usage" never
		;;
	rsa8192)
		# --quick-gen-key caps RSA at 4096 bits; a parameter file does not
		printf '%s\n' '%no-protection' 'Key-Type: RSA' 'Key-Length: 8192' \
			'Key-Usage: sign' "Name-Real: Test $name" 'Expire-Date: 0' \
			'%commit' >"$home/params"
		gpg_batch "$home" --enable-large-rsa --generate-key "$home/params"
		;;
	protected)
		gpg --homedir "$home" --batch --quiet --no-tty --pinentry-mode loopback \
			--passphrase "$testkey_passphrase" \
			--quick-gen-key "Test $name <$name@modsign.test>" rsa2048 sign never
		;;
	safety-reselfsig)
		# created 2021-01-01, signing subkey 2021-06-01, primary
		# self-signature renewed 2022-01-01, subkey binding 2022-06-01
		gpg_batch "$home" --faked-system-time 20210101T000000 \
			--quick-gen-key "Test $name <$name@modsign.test>" rsa2048 cert,sign never
		fpr=$(first_fpr "$home")
		gpg_batch "$home" --faked-system-time 20210601T000000 \
			--quick-add-key "$fpr" rsa2048 sign never
		local sub
		sub=$(gpg_batch "$home" --with-colons --list-keys | awk -F: '/^fpr/ { if (n++ == 1) print $10 }')
		gpg_batch "$home" --faked-system-time 20220101T000000 \
			--quick-set-expire "$fpr" 0
		gpg_batch "$home" --faked-system-time 20220601T000000 \
			--quick-set-expire "$fpr" 0 "$sub"
		;;
	safety-edprimary)
		# an Ed25519 primary certifying an RSA-2048 signing subkey
		gpg_batch "$home" --quick-gen-key "Test $name <$name@modsign.test>" ed25519 cert never
		gpg_batch "$home" --quick-add-key "$(first_fpr "$home")" rsa2048 sign never
		;;
	revoked | outsider | clash | rsa1024)
		local algo=rsa2048
		[ "$name" != rsa1024 ] || algo=rsa1024
		gpg_batch "$home" --quick-gen-key "modsign test $name <$name@test>" "$algo" sign never
		;;
	subkeyed)
		gpg_batch "$home" --quick-gen-key "modsign test subkeyed <subkeyed@test>" rsa3072 cert,sign never
		gpg_batch "$home" --quick-add-key "$(first_fpr "$home")" rsa3072 sign never
		;;
	expired)
		gpg_batch "$home" --faked-system-time 20200101T000000 \
			--quick-gen-key "modsign test expired <expired@test>" rsa2048 sign 1d
		;;
	packager)
		gpg_batch "$home" --quick-gen-key "modsign test packager <packager@test>" rsa4096 sign never
		;;
	subrevoked)
		gpg_batch "$home" --quick-gen-key "modsign test subrevoked <subrevoked@test>" rsa2048 cert,sign never
		gpg_batch "$home" --quick-add-key "$(first_fpr "$home")" rsa2048 sign never
		;;
	nobacksig)
		gpg_batch "$home" --quick-gen-key "modsign test $name <$name@test>" rsa2048 cert,sign never
		gpg_batch "$home" --quick-add-key "$(first_fpr "$home")" rsa2048 sign never
		;;
	sha1self)
		gpg_batch "$home" --cert-digest-algo SHA1 \
			--quick-gen-key "modsign test $name <$name@test>" rsa2048 sign never
		;;
	unbound | critself | eddsaself | badselfsig | forgedrev)
		gpg_batch "$home" --quick-gen-key "modsign test $name <$name@test>" rsa2048 sign never
		;;
	*)
		echo "testkey: unknown key $name" >&2
		rm -rf "$dir"
		return 1
		;;
	esac
	fpr=$(first_fpr "$home")
	if [ -z "$fpr" ]; then
		echo "testkey: gpg made no $name key" >&2
		gpgconf --homedir "$home" --kill all
		rm -rf "$dir"
		return 1
	fi
	echo "$fpr" >"$dir/fpr"
	case "$name" in
	revoked) ;;
	selfrevoked) revoke_key "$home" "$fpr" ;;
	esac
	if [ "$name" = protected ]; then
		(umask 077 && gpg --homedir "$home" --batch --quiet --no-tty \
			--pinentry-mode loopback --passphrase "$testkey_passphrase" \
			--export-secret-keys "$fpr" >"$dir/sec")
	else
		(umask 077 && gpg_batch "$home" --export-secret-keys "$fpr" >"$dir/sec")
	fi
	case "$name" in
	revoked) revoke_key "$home" "$fpr" ;;
	subrevoked) revoke_subkey "$home" "$fpr" ;;
	esac
	gpg_batch "$home" --export "$fpr" >"$dir/pub.new"
	if ! testkey_craft "$name" "$home" "$dir" "$fpr"; then
		echo "testkey: cannot make the $name certificate" >&2
		gpgconf --homedir "$home" --kill all
		rm -rf "$dir"
		return 1
	fi
	# pub last: a key with both files is complete
	mv "$dir/pub.new" "$dir/pub"
	gpgconf --homedir "$home" --kill all
	echo "$dir"
}
