#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# mutate.pl VALID.ko OUTDIR COUNT SEED
# mutate.pl --unsigned BODY.ko OUTDIR COUNT SEED FIRST-ID
#
# Make COUNT (at least the systematic set, about 700) mutants of one validly
# signed module (module-signing.rst layout) in OUTDIR/NNNN.ko, and OUTDIR/manifest
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
# appended and inserted bytes, zero-length signer and key id; the ELF
# header edits listed below, made to the body with the trailer kept (a
# kernel that reads the ELF of a module whose signature it refuses, to
# name it in the log, must survive them); then random multi-byte damage
# to fill up to COUNT.
#
# With --unsigned, the input is a module without signature (the body,
# extract-module-sig.pl -0), and the mutants are numbered from FIRST-ID:
# the body itself, the header edits (about 230), then random damage up
# to COUNT.
# They carry no signature, so an enforcing kernel must refuse every one
# with EKEYREJECTED; a permissive one loads them or refuses them with a
# clean error.  CLASS is what a kernel's ELF checks make of the mutant,
# decided by elf_verdict() below, a model of 6.1's elf_validity_check()
# and setup_load_info() plus the hardening any kernel that reads these
# headers needs (every section's sh_name inside the section name table,
# whatever its type; .modinfo and .gnu.linkonce.this_module inside the
# file, whatever their type, this_module of sizeof(struct module)):
#	intact    the body itself: loads in permissive mode, tainted 'E'
#	elf-bad   the model refuses it: the kernel must say ENOEXEC
#	elf-ok    the model finds nothing wrong (the damage may still make
#	          the kernel refuse the module later, or be harmless)
# The header edits: e_shoff, e_shnum, e_shstrndx, e_shentsize out of range
# and off by one; e_ident, e_type, e_machine; section 0; sh_name past the
# section name table for SHT_NULL, SHT_NOBITS and SHF_ALLOC sections;
# .modinfo as SHT_NOBITS or SHT_NULL pointing outside the file, its
# offset + size wrapping, not NUL-terminated (also ending at a page
# boundary at the end of the file, so that reading one byte too far
# faults); .gnu.linkonce.this_module as SHT_NOBITS or SHT_NULL with a huge
# sh_offset; the section name table without its NUL, past the end, empty;
# the symbol table's link; then random damage to the ELF header and the
# sh_name, sh_type and sh_flags of the section headers (never making a
# new symbol or relocation table, nor an alias of a section the loader
# looks up by name, nor moving the section header table elsewhere inside
# the file, nor changing the flags of .gnu.linkonce.this_module or
# taking SHF_ALLOC from a section (the systematic edits above do): a
# permissive kernel takes an unsigned module's symbols, relocations and
# layout as given, which is not what this test is about).
use strict;
use warnings;
no warnings 'portable';	# 64-bit ELF fields

my $unsigned_mode = @ARGV && $ARGV[0] eq '--unsigned';
shift @ARGV if $unsigned_mode;
my ($in, $outdir, $count, $seed, $first_id) = @ARGV;
die "usage: $0 [--unsigned] MODULE.ko OUTDIR COUNT SEED [FIRST-ID]\n"
	unless defined $seed && (!$unsigned_mode || defined $first_id);
$first_id //= 0;
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

sub flipbit { my ($m, $off, $bit) = @_; substr($m, $off, 1) = chr(ord(substr($m, $off, 1)) ^ (1 << $bit)); return $m }
sub setbyte { my ($m, $off, $v) = @_; substr($m, $off, 1) = chr($v & 0xff); return $m }
sub set16 { my ($m, $off, $v) = @_; substr($m, $off, 2) = pack('n', $v & 0xffff); return $m }
sub set32 { my ($m, $off, $v) = @_; substr($m, $off, 4) = pack('N', $v & 0xffffffff); return $m }
sub byteat { ord(substr($_[0], $_[1], 1)) }

# ---------------------------------------------------------------------------
# ELF64 (little-endian x86-64) section headers, read and written.
use constant { EHDR => 64, SHDR => 64, SHT_NULL => 0, SHT_PROGBITS => 1,
	       SHT_SYMTAB => 2, SHT_STRTAB => 3, SHT_RELA => 4, SHT_NOBITS => 8,
	       SHT_REL => 9, SHT_DYNSYM => 11, SHT_SYMTAB_SHNDX => 18, SHF_ALLOC => 2 };
my $U64MAX = ~0;
my %EH = (e_type => [16, 'v'], e_machine => [18, 'v'], e_shoff => [40, 'Q<'],
	  e_shentsize => [58, 'v'], e_shnum => [60, 'v'], e_shstrndx => [62, 'v']);
my %SH = (sh_name => [0, 'V'], sh_type => [4, 'V'], sh_flags => [8, 'Q<'],
	  sh_addr => [16, 'Q<'], sh_offset => [24, 'Q<'], sh_size => [32, 'Q<'],
	  sh_link => [40, 'V']);
my %WIDTH = ('v' => 2, 'V' => 4, 'Q<' => 8);
my %MASK = ('v' => 0xffff, 'V' => 0xffffffff, 'Q<' => $U64MAX);

sub eh { my ($m, $f) = @_; my ($o, $t) = @{$EH{$f}}; return unpack($t, substr($m, $o, $WIDTH{$t})) }
sub set_eh { my ($m, $f, $v) = @_; my ($o, $t) = @{$EH{$f}}; substr($m, $o, $WIDTH{$t}) = pack($t, $v & $MASK{$t}); return $m }
# Section header field of section I, where the mutant's own header says.
sub sh_at { my ($m, $i, $f) = @_; return eh($m, 'e_shoff') + $i * SHDR + $SH{$f}[0] }
sub sh { my ($m, $i, $f) = @_; my $t = $SH{$f}[1]; return unpack($t, substr($m, sh_at($m, $i, $f), $WIDTH{$t})) }
sub set_sh { my ($m, $i, $f, $v) = @_; my $t = $SH{$f}[1]; substr($m, sh_at($m, $i, $f), $WIDTH{$t}) = pack($t, $v & $MASK{$t}); return $m }

# offset + size inside a file of LEN bytes, without wrapping
sub within { my ($off, $size, $len) = @_; return $off <= $U64MAX - $size && $off + $size <= $len }

# sizeof(struct module), as the original has it (set in --unsigned mode)
my $this_module_size;

# elf_verdict(IMAGE): '' if the checks below pass, else why not.  Each
# check is one that 6.1 makes with -ENOEXEC before it reads anything else
# (elf_validity_check, then the symbol table and this_module lookups of
# setup_load_info), or one of the bounds any kernel that looks sections
# up by name needs: the name of every section, whatever its type (find_sec
# reads those of SHF_ALLOC sections, x86's module_finalize() those of all,
# section 0 included), and .modinfo and .gnu.linkonce.this_module
# whatever their type;
# and .gnu.linkonce.this_module with contents of sizeof(struct module),
# as mainline checks since v6.4 (without that check, 6.1 takes a struct
# module from whatever memory follows).
# A mutant this refuses must be refused with ENOEXEC; one it passes may
# still be refused later, for reasons this does not model.
sub elf_verdict {
	my ($m) = @_;
	my $len = length($m);
	return 'shorter than the ELF header' if $len < EHDR;
	return 'bad magic' if substr($m, 0, 4) ne "\x7fELF";
	return 'not ET_REL' if eh($m, 'e_type') != 1;
	return 'not x86-64' if eh($m, 'e_machine') != 62;
	return 'e_shentsize' if eh($m, 'e_shentsize') != SHDR;
	my ($shoff, $shnum, $strndx) = (eh($m, 'e_shoff'), eh($m, 'e_shnum'), eh($m, 'e_shstrndx'));
	return 'section headers outside the file' if $shoff >= $len || $shnum * SHDR > $len - $shoff;
	return 'e_shstrndx' if $strndx == 0 || $strndx >= $shnum;
	my ($stroff, $strsize) = (sh($m, $strndx, 'sh_offset'), sh($m, $strndx, 'sh_size'));
	return 'section name table outside the file' unless within($stroff, $strsize, $len);
	return 'empty section name table' if $strsize == 0;
	return 'section name table not NUL-terminated' if substr($m, $stroff + $strsize - 1, 1) ne "\0";
	return 'section 0' if sh($m, 0, 'sh_type') != SHT_NULL || sh($m, 0, 'sh_size') || sh($m, 0, 'sh_addr');
	# x86's module_finalize() compares the name of every section, of any
	# type, section 0 included.
	for my $i (0 .. $shnum - 1) {
		return "section $i name past the table" if sh($m, $i, 'sh_name') >= $strsize;
	}
	my $strings = substr($m, $stroff, $strsize);
	my ($symtab, %found);
	for my $i (1 .. $shnum - 1) {
		my $type = sh($m, $i, 'sh_type');
		next if $type == SHT_NULL || $type == SHT_NOBITS;
		if ($type == SHT_SYMTAB) {
			my $link = sh($m, $i, 'sh_link');
			return "section $i sh_link" if $link == 0 || $link >= $shnum;
		}
		return "section $i outside the file"
			unless within(sh($m, $i, 'sh_offset'), sh($m, $i, 'sh_size'), $len);
	}
	for my $i (1 .. $shnum - 1) {
		my $type = sh($m, $i, 'sh_type');
		$symtab //= $i if $type == SHT_SYMTAB;
		next unless sh($m, $i, 'sh_flags') & SHF_ALLOC;
		my $name = substr($strings, sh($m, $i, 'sh_name'));
		$name =~ s/\0.*//s;
		$found{$name} //= $i;
	}
	return 'no symbol table' unless $symtab;
	return 'no .gnu.linkonce.this_module' unless $found{'.gnu.linkonce.this_module'};
	for my $s ('.modinfo', '.gnu.linkonce.this_module') {
		my $i = $found{$s} or next;
		return "$s outside the file" unless within(sh($m, $i, 'sh_offset'), sh($m, $i, 'sh_size'), $len);
	}
	# As mainline (v6.4) checks it: this_module holds a struct module.
	my $tm = $found{'.gnu.linkonce.this_module'};
	return '.gnu.linkonce.this_module without contents'
		if sh($m, $tm, 'sh_type') == SHT_NULL || sh($m, $tm, 'sh_type') == SHT_NOBITS;
	return '.gnu.linkonce.this_module size' if defined $this_module_size && sh($m, $tm, 'sh_size') != $this_module_size;
	return '';
}

# The sections of the original, by name.
sub sections {
	my ($m) = @_;
	my $strndx = eh($m, 'e_shstrndx');
	my $strings = substr($m, sh($m, $strndx, 'sh_offset'), sh($m, $strndx, 'sh_size'));
	my @s;
	for my $i (0 .. eh($m, 'e_shnum') - 1) {
		my $name = substr($strings, sh($m, $i, 'sh_name'));
		$name =~ s/\0.*//s;
		push @s, { i => $i, name => $name, type => sh($m, $i, 'sh_type'),
			   flags => sh($m, $i, 'sh_flags'), offset => sh($m, $i, 'sh_offset'),
			   size => sh($m, $i, 'sh_size') };
	}
	return @s;
}

# header_edits(BODY): [description, edited body] pairs, the systematic
# ELF header and section header edits.
sub header_edits {
	my ($b) = @_;
	my @e;
	my $len = length($b);
	my ($shoff, $shnum, $strndx) = (eh($b, 'e_shoff'), eh($b, 'e_shnum'), eh($b, 'e_shstrndx'));
	my @secs = sections($b);
	my %by = map { $_->{name} => $_ } reverse @secs;
	my $strsize = $secs[$strndx]{size};
	my $mi = $by{'.modinfo'} or die "$in: no .modinfo\n";
	my $tm = $by{'.gnu.linkonce.this_module'} or die "$in: no .gnu.linkonce.this_module\n";
	my ($text) = grep { $_->{type} == SHT_PROGBITS && ($_->{flags} & SHF_ALLOC) && $_ != $mi && $_ != $tm } @secs;
	my ($nonalloc) = grep { $_->{i} && !($_->{flags} & SHF_ALLOC) && $_->{type} == SHT_PROGBITS } @secs;
	my ($symtab) = grep { $_->{type} == SHT_SYMTAB } @secs;
	die "$in: no allocated PROGBITS, non-allocated PROGBITS or symbol table section\n"
		unless $text && $nonalloc && $symtab;
	my $add = sub { push @e, [@_] };

	# ELF header.
	for my $v (0, 1, 63, 64, $shoff - 64, $shoff - 1, $shoff + 1, $shoff + 64, $len - 1, $len, $len + 1,
		   $len - $shnum * SHDR + 1, 0x7fffffffffffffff, $U64MAX, $U64MAX - 63, $shoff + (1 << 32)) {
		$add->("e_shoff $v (was $shoff)", set_eh($b, 'e_shoff', $v));
	}
	for my $v (0, 1, 2, $shnum - 1, $shnum + 1, $shnum + 2, 0x7fff, 0xff00, 0xffff) {
		$add->("e_shnum $v (was $shnum)", set_eh($b, 'e_shnum', $v));
	}
	$add->("e_shoff at the end less one header, e_shnum + 1",
	       set_eh(set_eh($b, 'e_shoff', $len - $shnum * SHDR), 'e_shnum', $shnum + 1));
	for my $v (0, 1, $strndx - 1, $strndx + 1, $shnum - 1, $shnum, $shnum + 1, 0xff00, 0xffff) {
		$add->("e_shstrndx $v (was $strndx)", set_eh($b, 'e_shstrndx', $v));
	}
	$add->("e_shentsize $_", set_eh($b, 'e_shentsize', $_)) for (0, 1, 40, 63, 65, 128, 0xffff);
	$add->("e_ident class 1 (ELF32)", setbyte($b, 4, 1));
	$add->("e_ident data 2 (big-endian)", setbyte($b, 5, 2));
	$add->("e_ident magic byte 1 flipped", flipbit($b, 1, 0));
	$add->("e_type $_", set_eh($b, 'e_type', $_)) for (0, 2, 3, 0xffff);
	$add->("e_machine $_", set_eh($b, 'e_machine', $_)) for (0, 3, 183);

	# Section 0.
	$add->("section 0 sh_type PROGBITS", set_sh($b, 0, 'sh_type', SHT_PROGBITS));
	$add->("section 0 sh_size 1", set_sh($b, 0, 'sh_size', 1));
	$add->("section 0 sh_addr 1", set_sh($b, 0, 'sh_addr', 1));
	$add->("section 0 sh_name 0xffffffff", set_sh($b, 0, 'sh_name', 0xffffffff));
	$add->("section 0 SHF_ALLOC, sh_name 0xffffffff",
	       set_sh(set_sh($b, 0, 'sh_flags', SHF_ALLOC), 0, 'sh_name', 0xffffffff));

	# sh_name past the section name table, for sections of each kind
	# turned into SHT_NULL and SHT_NOBITS or kept as they are.
	my @names = ($strsize, $strsize + 1, 0x10000, 0x7fffffff, 0xffffffff);
	for my $s ($text, $mi, $tm, $nonalloc, $symtab) {
		for my $t ([SHT_NULL, 'SHT_NULL'], [SHT_NOBITS, 'SHT_NOBITS'], [undef, 'own type']) {
			for my $n (@names) {
				my $m = set_sh($b, $s->{i}, 'sh_name', $n);
				$m = set_sh($m, $s->{i}, 'sh_type', $t->[0]) if defined $t->[0];
				$add->("$s->{name} as $t->[1], sh_name $n (table $strsize)", $m);
			}
		}
	}
	for my $t ([SHT_NULL, 'SHT_NULL'], [SHT_NOBITS, 'SHT_NOBITS']) {
		for my $n ($strsize, 0xffffffff) {
			my $m = set_sh($b, $nonalloc->{i}, 'sh_flags', $nonalloc->{flags} | SHF_ALLOC);
			$m = set_sh(set_sh($m, $nonalloc->{i}, 'sh_type', $t->[0]), $nonalloc->{i}, 'sh_name', $n);
			$add->("$nonalloc->{name} made SHF_ALLOC $t->[1], sh_name $n", $m);
		}
	}

	# .modinfo and .gnu.linkonce.this_module of another type, anywhere.
	my @where = ([$len, 1], [$len - 1, 2], [$len + 4096, 16], [1 << 40, 16],
		     [0xffffffffffff0000, 0x20000], [0xfffffffffffffff0, 0x10],
		     [$mi->{offset}, $U64MAX - $mi->{offset} + 2], [$mi->{offset}, $len],
		     [$mi->{offset}, 0x7fffffffffffffff]);
	for my $s ($mi, $tm) {
		for my $t ([SHT_NOBITS, 'SHT_NOBITS'], [SHT_NULL, 'SHT_NULL'], [SHT_PROGBITS, 'SHT_PROGBITS']) {
			$add->("$s->{name} as $t->[1] in place", set_sh($b, $s->{i}, 'sh_type', $t->[0]))
				if $t->[0] != $s->{type};
			for my $w (@where) {
				my $m = set_sh($b, $s->{i}, 'sh_type', $t->[0]);
				$m = set_sh(set_sh($m, $s->{i}, 'sh_offset', $w->[0]), $s->{i}, 'sh_size', $w->[1]);
				$add->(sprintf('%s as %s, sh_offset 0x%x sh_size 0x%x (file 0x%x)',
					       $s->{name}, $t->[1], $w->[0] & $U64MAX, $w->[1] & $U64MAX, $len), $m);
			}
		}
	}
	$add->(".gnu.linkonce.this_module sh_size $_", set_sh($b, $tm->{i}, 'sh_size', $_)) for (0, 1, $tm->{size} - 1);

	# .modinfo not NUL-terminated: in place, and as the last bytes of a
	# file that ends at a page boundary, so that one byte too far faults.
	$add->(".modinfo sh_size - 1 (last NUL dropped)", set_sh($b, $mi->{i}, 'sh_size', $mi->{size} - 1));
	$add->(".modinfo last byte 'x'", setbyte($b, $mi->{offset} + $mi->{size} - 1, ord('x')));
	$add->(".modinfo sh_size 0", set_sh($b, $mi->{i}, 'sh_size', 0));
	for my $tail ('name', 'name=crc7', 'nam', "license=GPL\0name", "x\0name=" . ('A' x 64)) {
		for my $t ([SHT_PROGBITS, 'SHT_PROGBITS'], [SHT_NOBITS, 'SHT_NOBITS']) {
			my $pad = (4096 - ($len + length($tail)) % 4096) % 4096;
			my $m = $b . ('U' x $pad) . $tail;
			$m = set_sh($m, $mi->{i}, 'sh_type', $t->[0]);
			$m = set_sh(set_sh($m, $mi->{i}, 'sh_offset', length($m) - length($tail)), $mi->{i}, 'sh_size', length($tail));
			(my $shown = $tail) =~ s/\0/\\0/g;
			$add->(".modinfo $t->[1] '$shown' unterminated at the end of a page-sized file", $m);
		}
	}

	# The section name table.
	my $st = $secs[$strndx];
	$add->("section name table last byte 'x'", setbyte($b, $st->{offset} + $st->{size} - 1, ord('x')));
	$add->("section name table sh_size $_", set_sh($b, $strndx, 'sh_size', $_))
		for (0, 1, $st->{size} - 1, $st->{size} + 1, $len, $U64MAX);
	$add->("section name table sh_offset $_", set_sh($b, $strndx, 'sh_offset', $_))
		for ($len - $st->{size} + 1, $len, 1 << 40, $U64MAX - 8);
	for my $t ([SHT_NOBITS, 'SHT_NOBITS'], [SHT_NULL, 'SHT_NULL']) {
		$add->("section name table as $t->[1]", set_sh($b, $strndx, 'sh_type', $t->[0]));
		$add->("section name table as $t->[1] at sh_offset 2^40",
		       set_sh(set_sh($b, $strndx, 'sh_type', $t->[0]), $strndx, 'sh_offset', 1 << 40));
	}
	{
		my $pad = (4096 - ($len + 16) % 4096) % 4096;
		my $m = $b . ('U' x $pad) . ('S' x 16);
		$m = set_sh(set_sh($m, $strndx, 'sh_offset', length($m) - 16), $strndx, 'sh_size', 16);
		$add->("section name table unterminated at the end of a page-sized file", $m);
	}

	# Offset + size wrapping, and the symbol table.
	$add->("$text->{name} sh_size wraps sh_offset + sh_size",
	       set_sh($b, $text->{i}, 'sh_size', $U64MAX - $text->{offset} + 2));
	$add->("$text->{name} sh_offset 2^64 - 8", set_sh($b, $text->{i}, 'sh_offset', $U64MAX - 7));
	$add->("$text->{name} as SHT_NOBITS at sh_offset 2^40",
	       set_sh(set_sh($b, $text->{i}, 'sh_type', SHT_NOBITS), $text->{i}, 'sh_offset', 1 << 40));
	$add->("symbol table sh_link $_", set_sh($b, $symtab->{i}, 'sh_link', $_)) for (0, $shnum, 0xffffffff);
	$add->("symbol table as SHT_NULL", set_sh($b, $symtab->{i}, 'sh_type', SHT_NULL));
	$add->("symbol table sh_size wraps", set_sh($b, $symtab->{i}, 'sh_size', $U64MAX - $symtab->{offset} + 1));
	return @e;
}

# random_header_damage(BODY): 1-4 random bytes in the ELF header or the
# sh_name, sh_type and sh_flags of the section headers.  A result that
# makes a new symbol or relocation table, or gives a section the name of
# another one, is drawn again (see the top).
sub random_header_damage {
	my ($b) = @_;
	my @secs = sections($b);
	my %names = map { $_->{name} => 1 } @secs;
	my $shoff = eh($b, 'e_shoff');
	my @spots = (0 .. EHDR - 1);
	for my $s (@secs) {
		push @spots, map { $shoff + $s->{i} * SHDR + $_ } 0 .. 15;
	}
	my $strndx = eh($b, 'e_shstrndx');
	my $strings = substr($b, $secs[$strndx]{offset}, $secs[$strndx]{size});
      DRAW: while (1) {
		my $m = $b;
		my @offs = map { $spots[int(rand(@spots))] } 1 .. 1 + int(rand(4));
		$m = setbyte($m, $_, int(rand(256))) for @offs;
		# A section header table moved inside the file is read as
		# garbage headers, symbol tables among them (see the top).
		my $newoff = eh($m, 'e_shoff');
		next DRAW if $newoff != $shoff && $newoff < length($b);
		for my $s (@secs) {
			my $at = $shoff + $s->{i} * SHDR;
			my ($name, $type, $flags) = unpack('VVQ<', substr($m, $at, 16));
			# 6.1 writes to struct module wherever this_module's
			# flags put it, read-only memory too.
			next DRAW if $s->{name} eq '.gnu.linkonce.this_module' && $flags != $s->{flags};
			# Nor does it check that what relocations and symbols
			# point into is still allocated.
			next DRAW if ($s->{flags} & SHF_ALLOC) && !($flags & SHF_ALLOC);
			next DRAW if $type != $s->{type} &&
				grep { $type == $_ } (SHT_SYMTAB, SHT_RELA, SHT_REL, SHT_DYNSYM, SHT_SYMTAB_SHNDX);
			next unless $name != sh($b, $s->{i}, 'sh_name') && $name < length($strings);
			(my $new = substr($strings, $name)) =~ s/\0.*//s;
			next DRAW if $names{$new} || $new =~ /^(\.init|\.exit|__|\.data\.\.|\.gnu\.linkonce|\.modinfo)/;
		}
		return ("random header bytes at " . join(',', @offs), $m);
	}
}

if ($unsigned_mode) {
	die "$in: has a signature; give the body (extract-module-sig.pl -0)\n"
		if substr($orig, -length($MAGIC)) eq $MAGIC;
	$this_module_size = (grep { $_->{name} eq '.gnu.linkonce.this_module' } sections($orig))[0]{size};
	die "$in: the model refuses the unmutated body: " . elf_verdict($orig) . "\n" if elf_verdict($orig);
	my @u = (["the body unchanged", $orig]);
	my %seen = ($orig => 1);
	for my $e (header_edits($orig)) {
		push @u, $e unless $seen{$e->[1]}++;
	}
	while (@u < $count) {
		my ($what, $m) = random_header_damage($orig);
		push @u, [$what, $m] unless $seen{$m}++;
	}
	open(my $man, '>', "$outdir/manifest") or die "$outdir/manifest: $!\n";
	my %n;
	for my $i (0 .. $#u) {
		my ($what, $m) = @{$u[$i]};
		my $id = $first_id + $i;
		my $file = sprintf('%s/%04d.ko', $outdir, $id);
		open(my $o, '>:raw', $file) or die "$file: $!\n";
		print $o $m;
		close($o) or die "$file: $!\n";
		my $why = elf_verdict($m);
		my $c = $i == 0 ? 'intact' : $why ? 'elf-bad' : 'elf-ok';
		$n{$c}++;
		print $man "$id $c $what" . ($why ? " [$why]" : '') . "\n";
	}
	close($man) or die "$outdir/manifest: $!\n";
	printf "mutate: %d unsigned mutants, %d the model refuses (ELF), %d it passes, %d intact\n",
		scalar(@u), $n{'elf-bad'} // 0, $n{'elf-ok'} // 0, $n{intact} // 0;
	exit 0;
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
# ELF header edits to the body, the trailer kept.
{
	my $trailer = substr($orig, $blen);
	add("signed body, $_->[0]", $_->[1] . $trailer) for header_edits($P->{body});
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
