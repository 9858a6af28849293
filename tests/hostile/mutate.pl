#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# mutate.pl VALID.ko OUTDIR COUNT SEED
#
# Make COUNT (at least the systematic set, about 400) mutants of one validly
# signed module (FORMAT.md layout) in OUTDIR/NNNN.ko, and OUTDIR/manifest
# with one line per mutant:
#
#	ID CLASS DESCRIPTION
#
# CLASS says what the kernel must do with it, decided here by reading the
# mutant the way mod_verify_sig() and pgp_parse_sig() do:
#	signed    the bytes the signature covers, as the mutant's own trailer
#	          delimits them (the body, the hashed part of the packet), or
#	          the signature value (quick-check octets, MPI) differ from the
#	          original, or the trailer cannot be read: must be refused
#	unsigned  all of those are as in the original; only bytes outside them
#	          changed (signer name, key id, unhashed area, header forms):
#	          may load, and does exactly when pgp-verify says "valid"
# The mutations: bit and byte flips in the body, every field of the
# signature packet (header and its length, version, type, algorithms,
# hashed and unhashed area lengths, each subpacket's length, type and
# data, quick check, MPI bit count and value), the information block
# (algo, hash, id_type, signer_len, key_id_len, padding, sig_len: 0,
# off by one, past the file, 0xffffffff), the magic, truncation anywhere,
# appended and inserted bytes, zero-length signer and key id; then random
# multi-byte damage to fill up to COUNT.
use strict;
use warnings;

my ($in, $outdir, $count, $seed) = @ARGV;
die "usage: $0 VALID.ko OUTDIR COUNT SEED\n" unless defined $seed;
srand($seed);

my $MAGIC = "~Module signature appended~\n";
my $orig = do { local $/; open(my $f, '<:raw', $in) or die "$in: $!\n"; <$f> };

# Read a module as the kernel would: undef if it would refuse before the
# RSA check for a reason this script can tell, else the pieces.
sub parse_sig_packet {
	my ($s) = @_;
	return undef if length($s) < 2;
	my $c = ord($s);
	return undef unless $c & 0x80;
	my ($tag, $hl, $len);
	if ($c & 0x40) {
		$tag = $c & 0x3f;
		my $o1 = ord(substr($s, 1, 1));
		if ($o1 < 192) { ($hl, $len) = (2, $o1) }
		elsif ($o1 < 224) { return undef if length($s) < 3; ($hl, $len) = (3, (($o1 - 192) << 8) + ord(substr($s, 2, 1)) + 192) }
		elsif ($o1 == 255) { return undef if length($s) < 6; ($hl, $len) = (6, unpack('N', substr($s, 2, 4))) }
		else { return undef }
	} else {
		$tag = ($c >> 2) & 15;
		my $lt = $c & 3;
		return undef if $lt == 3;
		$hl = 1 + (1, 2, 4)[$lt];
		return undef if length($s) < $hl;
		$len = $lt == 0 ? ord(substr($s, 1, 1)) : $lt == 1 ? unpack('n', substr($s, 1, 2)) : unpack('N', substr($s, 1, 4));
	}
	return undef unless $tag == 2 && $hl + $len == length($s);
	my $b = substr($s, $hl);
	return undef if length($b) < 6;
	my $hashed_len = unpack('n', substr($b, 4, 2));
	return undef if 6 + $hashed_len + 2 > length($b);
	my $ul = unpack('n', substr($b, 6 + $hashed_len, 2));
	my $rest = 8 + $hashed_len + $ul;
	return undef if $rest + 2 + 2 > length($b);
	my $left16 = substr($b, $rest, 2);
	my $mpi = substr($b, $rest + 2);
	return { hdrlen => $hl, hashed => substr($b, 0, 6 + $hashed_len),
		 hashed_len_at => $hl + 4, unhashed_at => $hl + 6 + $hashed_len,
		 unhashed_len => $ul, left16_at => $hl + $rest, left16 => $left16,
		 mpi_at => $hl + $rest + 2, mpi => $mpi };
}

sub parse_module {
	my ($m) = @_;
	my $len = length($m);
	return undef if $len < 28 + 12 || substr($m, $len - 28) ne $MAGIC;
	my $flen = $len - 28;
	my ($algo, $hash, $idt, $slen, $klen, $p0, $p1, $p2, $siglen) =
		unpack('C8N', substr($m, $flen - 12, 12));
	return undef if $siglen + $slen + $klen >= $flen - 12;
	my $sig_at = $flen - 12 - $siglen;
	my $kid_at = $sig_at - $klen;
	my $signer_at = $kid_at - $slen;
	my $sig = parse_sig_packet(substr($m, $sig_at, $siglen));
	return { len => $len, ms_at => $flen - 12, sig_at => $sig_at, siglen => $siglen,
		 kid_at => $kid_at, klen => $klen, signer_at => $signer_at, slen => $slen,
		 body => substr($m, 0, $signer_at), sig => $sig,
		 algo => $algo, hash => $hash, id_type => $idt };
}

my $P = parse_module($orig) or die "$in: not a module with a readable OpenPGP signature\n";
die "$in: signature packet unreadable\n" unless $P->{sig};
die "$in: id_type $P->{id_type} is not PGP\n" unless $P->{id_type} == 0;

sub classify {
	my ($m) = @_;
	my $q = parse_module($m);
	return 'signed' unless $q && $q->{sig};
	return 'signed' unless $q->{body} eq $P->{body};
	for my $k (qw(hashed left16 mpi)) {
		return 'signed' unless $q->{sig}{$k} eq $P->{sig}{$k};
	}
	return 'unsigned';
}

my @mutants;
sub add {
	my ($what, $m) = @_;
	return if $m eq $orig;
	push @mutants, [$what, $m];
}

sub flipbit { my ($m, $off, $bit) = @_; substr($m, $off, 1) = chr(ord(substr($m, $off, 1)) ^ (1 << $bit)); return $m }
sub setbyte { my ($m, $off, $v) = @_; substr($m, $off, 1) = chr($v & 0xff); return $m }
sub set16 { my ($m, $off, $v) = @_; substr($m, $off, 2) = pack('n', $v & 0xffff); return $m }
sub set32 { my ($m, $off, $v) = @_; substr($m, $off, 4) = pack('N', $v & 0xffffffff); return $m }
sub byteat { ord(substr($_[0], $_[1], 1)) }

my $S = $P->{sig};
my $sa = $P->{sig_at};
my $ms = $P->{ms_at};
my $blen = length($P->{body});

# Body: bit flips spread over it (ELF header, sections, the end), bytes set.
for my $i (0 .. 159) {
	my $off = $i < 64 ? $i : int(rand($blen));
	add("body bit flip at $off", flipbit($orig, $off, int(rand(8))));
}
add("body last byte flipped", flipbit($orig, $blen - 1, 0));
for my $i (0 .. 19) {
	my $off = int(rand($blen));
	add("body byte $off set to 0", setbyte($orig, $off, 0));
}
# Signer name and key id (neither is covered by the signature).
for my $off ($P->{signer_at} .. $P->{kid_at} - 1) {
	add("signer byte " . ($off - $P->{signer_at}) . " flipped", flipbit($orig, $off, int(rand(8))));
}
for my $off ($P->{kid_at} .. $sa - 1) {
	add("key id byte " . ($off - $P->{kid_at}) . " flipped", flipbit($orig, $off, int(rand(8))));
}
# Signature packet: the header and every field, then every byte in turn.
add("packet tag octet $_ ", setbyte($orig, $sa, $_)) for (0x00, 0x7f, 0x88, 0x8b, 0xc0, 0xc1, 0xc3, 0xff);
for my $d (-2, -1, 1, 2, 128) {
	my $m = $orig;
	my $hl = $S->{hdrlen};
	if ($hl == 2) { $m = setbyte($m, $sa + 1, byteat($m, $sa + 1) + $d) }
	elsif ($hl == 3 && byteat($m, $sa) & 0x40) { $m = setbyte($m, $sa + 2, byteat($m, $sa + 2) + $d) }
	elsif ($hl == 3) { $m = set16($m, $sa + 1, unpack('n', substr($m, $sa + 1, 2)) + $d) }
	else { $m = set32($m, $sa + $hl - 4, unpack('N', substr($m, $sa + $hl - 4, 4)) + $d) }
	add("packet length $d", $m);
}
add("packet length octet $_", setbyte($orig, $sa + 1, $_)) for (0, 191, 192, 223, 224, 254, 255);
for my $f (0 .. 3) {
	add("packet field $f = $_", setbyte($orig, $sa + $S->{hdrlen} + $f, $_)) for (0, 1, 2, 3, 5, 17, 22, 99, 255);
}
for my $v (0, 1, length($S->{hashed}) - 7, length($S->{hashed}) - 5, 0x7fff, 0xffff) {
	add("hashed area length $v", set16($orig, $sa + $S->{hashed_len_at}, $v));
}
for my $v (0, 1, $S->{unhashed_len} - 1, $S->{unhashed_len} + 1, 0xffff) {
	add("unhashed area length $v", set16($orig, $sa + $S->{unhashed_at}, $v));
}
# Each subpacket of both areas: length octet, type (and critical bit), data.
for my $area ([$sa + $S->{hdrlen} + 6, length($S->{hashed}) - 6, 'hashed'],
	      [$sa + $S->{unhashed_at} + 2, $S->{unhashed_len}, 'unhashed']) {
	my ($at, $alen, $name) = @$area;
	my $o = 0;
	while ($o < $alen) {
		my $l = byteat($orig, $at + $o);
		last if $l >= 192;
		my $t = byteat($orig, $at + $o + 1);
		add("$name subpacket $t length $_", setbyte($orig, $at + $o, $_)) for (0, 1, $l - 1, $l + 1, 191, 192, 255);
		add("$name subpacket $t type $_", setbyte($orig, $at + $o + 1, $_)) for ($t | 0x80, 0, 2, 3, 9, 16, 27, 33, 0x7f, 0xff);
		for my $j (2 .. $l) {
			add("$name subpacket $t data byte " . ($j - 2) . " flipped", flipbit($orig, $at + $o + $j, int(rand(8))));
		}
		$o += 1 + $l;
	}
}
add("quick check byte $_ flipped", flipbit($orig, $sa + $S->{left16_at} + $_, int(rand(8)))) for (0, 1);
my $bits = unpack('n', $S->{mpi});
add("MPI bit count $_", set16($orig, $sa + $S->{mpi_at}, $_)) for (0, 1, $bits - 8, $bits - 1, $bits + 1, $bits + 8, 0xffff);
my $mlen = length($S->{mpi}) - 2;
for my $j (0, 1, 2, $mlen - 2, $mlen - 1, map { int(rand($mlen)) } 1 .. 12) {
	add("MPI byte $j flipped", flipbit($orig, $sa + $S->{mpi_at} + 2 + $j, int(rand(8))));
}
# Information block.
add("info algo $_", setbyte($orig, $ms + 0, $_)) for (0, 2, 255);
add("info hash $_", setbyte($orig, $ms + 1, $_)) for (0, 2, 3, 5, 6, 7, 8, 19, 20, 255);
add("info id_type $_", setbyte($orig, $ms + 2, $_)) for (1, 2, 3, 255);
add("info signer_len $_", setbyte($orig, $ms + 3, $_)) for (0, 1, $P->{slen} - 1, $P->{slen} + 1, 255);
add("info key_id_len $_", setbyte($orig, $ms + 4, $_)) for (0, 1, 7, 9, 20, 255);
add("info pad $_ set", setbyte($orig, $ms + 5 + $_, 1)) for (0, 1, 2);
my $sl = $P->{siglen};
add("info sig_len $_", set32($orig, $ms + 8, $_))
	for (0, 1, $sl - 1, $sl + 1, $sl + 8, $P->{len}, $P->{len} - 40, $P->{len} - 41, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff0);
# Magic, truncation, extension.
add("magic byte $_ flipped", flipbit($orig, $P->{len} - 28 + $_, 0)) for (0, 13, 27);
for my $cut (1, 2, 28, 29, 40, 41, $P->{len} - $sa, $P->{len} - $P->{signer_at},
	     map { int(rand($P->{len} - 1)) + 1 } 1 .. 25) {
	add("truncated by $cut", substr($orig, 0, $P->{len} - $cut));
}
add("truncated inside the packet, trailer kept", substr($orig, 0, $sa + 10) . substr($orig, $ms));
add("appended 1 byte", $orig . "\0");
add("appended a second magic", $orig . $MAGIC);
add("byte inserted before the signer", substr($orig, 0, $blen) . "X" . substr($orig, $blen));
add("byte inserted in the body", substr($orig, 0, 100) . "X" . substr($orig, 100));
add("body byte removed", substr($orig, 0, 100) . substr($orig, 101));
# Zero-length fields, each made consistent with the information block.
{
	my $m = substr($orig, 0, $blen) . substr($orig, $P->{kid_at});
	add("signer removed, signer_len 0", setbyte($m, length($m) - 40 + 3, 0));
	$m = substr($orig, 0, $P->{kid_at}) . substr($orig, $sa);
	add("key id removed, key_id_len 0", setbyte($m, length($m) - 40 + 4, 0));
	$m = substr($orig, 0, $sa) . substr($orig, $ms);
	add("signature removed, sig_len 0", set32($m, length($m) - 40 + 8, 0));
	$m = substr($orig, 0, $blen) . ("Z" x 200) . substr($orig, $P->{kid_at});
	add("signer of 200 bytes, signer_len 200", setbyte($m, length($m) - 40 + 3, 200));
	add("body only (trailer stripped)", $P->{body});
	add("nothing but the trailer", substr($orig, $blen));
}
# Random damage: 1-8 bytes anywhere in the trailer or the whole file.
while (@mutants < $count) {
	my $m = $orig;
	my $n = 1 + int(rand(8));
	my $lo = rand() < 0.7 ? $P->{signer_at} : 0;
	my @offs = map { $lo + int(rand($P->{len} - $lo)) } 1 .. $n;
	$m = setbyte($m, $_, int(rand(256))) for @offs;
	add("random bytes at " . join(',', @offs), $m);
}

open(my $man, '>', "$outdir/manifest") or die "$outdir/manifest: $!\n";
my %n;
for my $i (0 .. $#mutants) {
	my ($what, $m) = @{$mutants[$i]};
	my $file = sprintf('%s/%04d.ko', $outdir, $i);
	open(my $o, '>:raw', $file) or die "$file: $!\n";
	print $o $m;
	close($o) or die "$file: $!\n";
	my $c = classify($m);
	$n{$c}++;
	print $man "$i $c $what\n";
}
close($man) or die "$outdir/manifest: $!\n";
printf "mutate: %d mutants, %d signed, %d unsigned\n", scalar(@mutants), $n{signed} // 0, $n{unsigned} // 0;
