#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# Turn gpg-made keys and signatures into fuzzing seeds.  gpg writes old-
# format packet headers; the kernel must read both formats, so every seed
# is also rewritten with new-format headers of each length form.
#
#   pgpseed.pl newfmt IN OUT FORM     headers -> new format; FORM 1, 2 or 5
#                                     (octets of length; 1 falls back to 2
#                                     and 2 to 5 where the length needs it)
#   pgpseed.pl payloads IN PREFIX     the key payloads pgp_split_keyring()
#                                     would make of a one-key keyring:
#                                     PREFIX-0.pgp the primary's, PREFIX-N.pgp
#                                     the Nth subkey's
#   pgpseed.pl module KEYRING BODY SIG SIGNER OUT
#                                     an input of the modsig target: be16
#                                     keyring length, keyring, then BODY
#                                     signed per module-signing.rst with SIG
#   pgpseed.pl trailer BODY SIG SIGNER OUT
#                                     BODY with the trailer of module-signing.rst only
use strict;
use warnings;

sub slurp {
	my ($f) = @_;
	open(my $h, '<:raw', $f) or die "$f: $!\n";
	local $/;
	my $d = <$h>;
	return $d;
}

sub spew {
	my ($f, $d) = @_;
	open(my $h, '>:raw', $f) or die "$f: $!\n";
	print $h $d or die "$f: $!\n";
	close($h) or die "$f: $!\n";
}

# Split into [tag, body] pairs; dies on what the kernel would refuse.
sub packets {
	my ($d) = @_;
	my @p;
	my $off = 0;
	while ($off < length($d)) {
		my $c = ord(substr($d, $off, 1));
		die "bad packet tag octet at $off\n" unless $c & 0x80;
		my ($tag, $hl, $len);
		if ($c & 0x40) {
			$tag = $c & 0x3f;
			my $o1 = ord(substr($d, $off + 1, 1));
			if ($o1 < 192) {
				($hl, $len) = (2, $o1);
			} elsif ($o1 < 224) {
				($hl, $len) = (3, (($o1 - 192) << 8) + ord(substr($d, $off + 2, 1)) + 192);
			} elsif ($o1 == 255) {
				($hl, $len) = (6, unpack('N', substr($d, $off + 2, 4)));
			} else {
				die "partial length at $off\n";
			}
		} else {
			$tag = ($c >> 2) & 0x0f;
			my $lt = $c & 3;
			die "indeterminate length at $off\n" if $lt == 3;
			$hl = 1 + (1, 2, 4)[$lt];
			$len = $lt == 0 ? ord(substr($d, $off + 1, 1)) :
			       $lt == 1 ? unpack('n', substr($d, $off + 1, 2)) :
			       unpack('N', substr($d, $off + 1, 4));
		}
		die "packet at $off runs past the end\n" if $off + $hl + $len > length($d);
		push @p, [$tag, substr($d, $off + $hl, $len)];
		$off += $hl + $len;
	}
	return @p;
}

sub newhdr {
	my ($tag, $len, $form) = @_;
	# The two-octet form only encodes 192..8383.
	$form = 2 if $form == 1 && $len >= 192;
	$form = 1 if $form == 2 && $len < 192;
	$form = 5 if $form == 2 && $len >= 8384;
	my $h = chr(0xc0 | $tag);
	return $h . chr($len) if $form == 1;
	if ($form == 2) {
		my $v = $len - 192;
		return $h . chr(($v >> 8) + 192) . chr($v & 0xff);
	}
	return $h . chr(255) . pack('N', $len);
}

sub oldhdr {
	my ($tag, $len) = @_;
	die "tag $tag has no old-format header\n" if $tag > 15;
	return chr(0x80 | $tag << 2) . chr($len) if $len < 256;
	return chr(0x81 | $tag << 2) . pack('n', $len) if $len < 65536;
	return chr(0x82 | $tag << 2) . pack('N', $len);
}

# Key id of a v4 signature's issuer: fingerprint subpacket first, as the kernel.
sub sig_issuer {
	my ($b) = @_;
	my ($ver, $type, $pk, $hash, $hl) = unpack('CCCCn', $b);
	die "not a v4 signature\n" unless $ver == 4;
	my $ul = unpack('n', substr($b, 6 + $hl, 2));
	my ($fpr, $kid);
	for my $area (substr($b, 6, $hl), substr($b, 8 + $hl, $ul)) {
		my $o = 0;
		while ($o < length($area)) {
			my $l = ord(substr($area, $o, 1));
			if ($l < 192) { $o += 1; }
			elsif ($l < 255) { $l = (($l - 192) << 8) + ord(substr($area, $o + 1, 1)) + 192; $o += 2; }
			else { $l = unpack('N', substr($area, $o + 1, 4)); $o += 5; }
			my $t = ord(substr($area, $o, 1)) & 0x7f;
			my $v = substr($area, $o + 1, $l - 1);
			$fpr = substr($v, 1, 20) if $t == 33 && ord($v) == 4;
			$kid = $v if $t == 16;
			$o += $l;
		}
	}
	return (defined $fpr ? substr($fpr, 12, 8) : $kid, $hash);
}

my %kernel_hash = (2 => 2, 8 => 4, 9 => 5, 10 => 6, 11 => 7);

sub trailer {
	my ($body, $sig, $signer) = @_;
	my @p = packets($sig);
	die "signature file is not one signature packet\n" unless @p == 1 && $p[0][0] == 2;
	my ($kid, $hash) = sig_issuer($p[0][1]);
	die "signature without an issuer\n" unless defined $kid;
	die "hash $hash has no kernel id\n" unless exists $kernel_hash{$hash};
	return $body . $signer . $kid . $sig .
	       pack('CCCCCx3N', 1, $kernel_hash{$hash}, 0, length($signer), 8, length($sig)) .
	       "~Module signature appended~\n";
}

my $cmd = shift @ARGV // '';
if ($cmd eq 'newfmt') {
	my ($in, $out, $form) = @ARGV;
	spew($out, join('', map { newhdr($_->[0], length($_->[1]), $form) . $_->[1] } packets(slurp($in))));
} elsif ($cmd eq 'payloads') {
	# As pgp_split_keyring() cuts them: the primary key section (the
	# primary key up to its first subkey), then for each subkey that
	# section followed by the subkey's own.
	my ($in, $prefix) = @ARGV;
	my ($primary, @subkeys) = ('');
	for my $p (packets(slurp($in))) {
		my ($tag, $b) = @$p;
		my $pkt = oldhdr($tag, length($b)) . $b;
		die "$in: more than one primary key\n" if $tag == 6 && length($primary);
		if ($tag == 14) {
			push @subkeys, $pkt;
		} elsif (@subkeys) {
			$subkeys[-1] .= $pkt;
		} else {
			$primary .= $pkt;
		}
	}
	my $n = 0;
	spew(sprintf('%s-%d.pgp', $prefix, $n++), $primary);
	spew(sprintf('%s-%d.pgp', $prefix, $n++), $primary . $_) for @subkeys;
} elsif ($cmd eq 'module') {
	my ($ring, $body, $sig, $signer, $out) = @ARGV;
	my $r = slurp($ring);
	die "keyring longer than 65535 octets\n" if length($r) > 65535;
	spew($out, pack('n', length($r)) . $r . trailer(slurp($body), slurp($sig), $signer));
} elsif ($cmd eq 'trailer') {
	my ($body, $sig, $signer, $out) = @ARGV;
	spew($out, trailer(slurp($body), slurp($sig), $signer));
} else {
	die "usage: $0 newfmt|payloads|module|trailer ARGS...\n";
}
