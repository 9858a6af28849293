#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# seckey-scan.pl [--except FILE]... KEYFILE PATH...
#
# Look through every file under PATH for a copy of the secret key in
# KEYFILE (an unprotected gpg --export-secret-keys, as MODSECKEY):
#   - a secret key or subkey packet (tag 5 or 7, old-format header of any
#     length type, or new-format header of any length form) whose body
#     starts with one of the key's public parts, and
#   - the raw octets of any of its secret MPIs (d, p, q, u), in whatever
#     container they might have ended up.
# Prints "FILE: what" per find; exit status 1 if anything was found.
use strict;
use warnings;
use File::Find;

my %except;
while (@ARGV && $ARGV[0] eq '--except') {
	shift;
	my $e = shift // die "--except needs a file\n";
	$except{$e} = 1;
}
my ($keyfile, @paths) = @ARGV;
die "usage: $0 [--except FILE]... KEYFILE PATH...\n" unless @paths;
my $k = do { local $/; open(my $f, '<:raw', $keyfile) or die "$keyfile: $!\n"; <$f> };

sub mpi {
	my ($d, $o) = @_;
	my $bits = unpack('n', substr($d, $o, 2));
	my $n = int(($bits + 7) / 8);
	return (substr($d, $o + 2, $n), $o + 2 + $n);
}

my (@pubparts, @secrets);
my $off = 0;
while ($off < length($k)) {
	my $c = ord(substr($k, $off, 1));
	die "$keyfile: not OpenPGP at $off\n" unless $c & 0x80;
	my ($tag, $hl, $len);
	if ($c & 0x40) {
		$tag = $c & 0x3f;
		my $o1 = ord(substr($k, $off + 1, 1));
		($hl, $len) = $o1 < 192 ? (2, $o1) : $o1 < 224 ? (3, (($o1 - 192) << 8) + ord(substr($k, $off + 2, 1)) + 192)
			: (6, unpack('N', substr($k, $off + 2, 4)));
	} else {
		$tag = ($c >> 2) & 15;
		my $lt = $c & 3;
		$hl = 1 + (1, 2, 4)[$lt];
		$len = $lt == 0 ? ord(substr($k, $off + 1, 1)) : $lt == 1 ? unpack('n', substr($k, $off + 1, 2)) : unpack('N', substr($k, $off + 1, 4));
	}
	my $b = substr($k, $off + $hl, $len);
	if (($tag == 5 || $tag == 7) && ord($b) == 4 && ord(substr($b, 5, 1)) <= 3) {
		# v4 RSA: version, time, algo, n, e; then s2k usage 0 and d, p, q, u
		my $o = 6;
		(undef, $o) = mpi($b, $o);
		(undef, $o) = mpi($b, $o);
		push @pubparts, substr($b, 0, $o);
		die "$keyfile: secret key is protected; give an unprotected export\n" if ord(substr($b, $o, 1)) != 0;
		$o++;
		for my $name (qw(d p q u)) {
			my $v;
			($v, $o) = mpi($b, $o);
			push @secrets, [$name, $v] if length($v) >= 64;
		}
	}
	$off += $hl + $len;
}
die "$keyfile: no unprotected RSA secret key in it\n" unless @secrets;

my $found = 0;
find({ no_chdir => 1, wanted => sub {
	return unless -f $_ && !-l $_;
	my $file = $_;
	return if $except{$file};
	open(my $f, '<:raw', $file) or return;
	local $/;
	my $d = <$f> // '';
	for my $s (@secrets) {
		if (index($d, $s->[1]) >= 0) {
			print "$file: secret MPI $s->[0]\n";
			$found = 1;
		}
	}
	for my $p (@pubparts) {
		my $at = 0;
		while (($at = index($d, $p, $at)) >= 0) {
			# Headers that could precede the body: old format tag 5/7
			# (length types 0-2), new format 0xc5/0xc7 (1, 2, 5 octets).
			for my $hl (2, 3, 5, 6) {
				next if $at < $hl;
				my $c = ord(substr($d, $at - $hl, 1));
				my $old = ($c & 0xc0) == 0x80 && (($c >> 2) & 15) =~ /^(5|7)$/ && (1 + (1, 2, 4, 0)[$c & 3]) == $hl;
				my $new = ($c == 0xc5 || $c == 0xc7) &&
					($hl == 2 ? ord(substr($d, $at - 1, 1)) < 192 :
					 $hl == 3 ? (ord(substr($d, $at - 2, 1)) >= 192 && ord(substr($d, $at - 2, 1)) < 224) :
					 $hl == 6 ? ord(substr($d, $at - 5, 1)) == 255 : 0);
				if ($old || $new) {
					printf "%s: secret key packet (%s format, tag %d) at %d\n", $file,
						$old ? 'old' : 'new', $old ? ($c >> 2) & 15 : $c & 0x3f, $at - $hl;
					$found = 1;
				}
			}
			$at++;
		}
	}
} }, @paths);
exit($found ? 1 : 0);
