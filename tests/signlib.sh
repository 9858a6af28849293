# shellcheck shell=bash
# Making module variants for the tests: signing a copy with a given key,
# and damaging a signed module in one precise place.  The trailer layout
# is FORMAT: body, signer, key id, signature, 12-byte struct
# module_signature (sig_len big-endian in its last 4 bytes), 28-byte magic.

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

# flip_byte IN OUT OFFSET: OUT is IN with the byte at OFFSET inverted
flip_byte() {
	perl -e '
		my ($in, $out, $off) = @ARGV;
		open(my $f, "<:raw", $in) or die "$in: $!\n";
		local $/; my $d = <$f>;
		die "$in: offset $off past the end\n" if $off >= length($d);
		substr($d, $off, 1) = chr(ord(substr($d, $off, 1)) ^ 0xff);
		open(my $o, ">:raw", $out) or die "$out: $!\n"; print $o $d;
	' "$1" "$2" "$3"
}

# set_sig_len IN OUT LEN: OUT is IN with the trailer claiming LEN bytes
set_sig_len() {
	perl -e '
		my ($in, $out, $len) = @ARGV;
		open(my $f, "<:raw", $in) or die "$in: $!\n";
		local $/; my $d = <$f>;
		substr($d, length($d) - 28 - 4, 4) = pack("N", $len);
		open(my $o, ">:raw", $out) or die "$out: $!\n"; print $o $d;
	' "$1" "$2" "$3"
}

# cut_signature IN OUT N: drop N bytes from inside the signature packet
# (just before its last 8) and shrink sig_len to match, so the trailer is
# self-consistent but the packet is shorter than its own header says.
cut_signature() {
	perl -e '
		my ($in, $out, $n) = @ARGV;
		open(my $f, "<:raw", $in) or die "$in: $!\n";
		local $/; my $d = <$f>;
		my $ms = length($d) - 28 - 12;
		my $sig_len = unpack("N", substr($d, $ms + 8, 4));
		die "$in: signature too short to cut\n" if $sig_len < $n + 16;
		substr($d, $ms - 8 - $n, $n) = "";
		substr($d, length($d) - 28 - 4, 4) = pack("N", $sig_len - $n);
		open(my $o, ">:raw", $out) or die "$out: $!\n"; print $o $d;
	' "$1" "$2" "$3"
}
