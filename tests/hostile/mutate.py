#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
mutate.py VALID.ko OUTDIR COUNT SEED
mutate.py --unsigned BODY.ko OUTDIR COUNT SEED FIRST-ID

Make COUNT (at least the systematic set, about 700) mutants of one validly
signed module (module-signing.rst layout) in OUTDIR/NNNN.ko, and OUTDIR/manifest
with one line per mutant:

    ID CLASS DESCRIPTION

CLASS says what the kernel must do with it, decided here by reading the
mutant the way mod_verify_sig() and pgp_parse_sig() do:
    signed    the bytes the signature covers, as the mutant's own trailer
              delimits them (the body, the hashed part of the packet), or
              the signature value (quick-check octets, MPI) differ from the
              original, or the trailer cannot be read: must be refused
    unsigned  all of those are as in the original; only bytes outside them
              changed (signer name, key id, unhashed area, header forms):
              may load, and does exactly when pgp-verify says "valid"
The mutations: bit and byte flips in the body, every field of the
signature packet (header and its length, version, type, algorithms,
hashed and unhashed area lengths, each subpacket's length, type and
data, quick check, MPI bit count and value), the information block
(algo, hash, id_type, signer_len, key_id_len, padding, sig_len: 0,
off by one, past the file, 0xffffffff), the magic, truncation anywhere,
appended and inserted bytes, zero-length signer and key id; the ELF
header edits listed below, made to the body with the trailer kept (a
kernel that reads the ELF of a module whose signature it refuses, to
name it in the log, must survive them); then random multi-byte damage
to fill up to COUNT.

With --unsigned, the input is a module without signature (the body,
extract-module-sig.pl -0), and the mutants are numbered from FIRST-ID:
the body itself, the header edits (about 230), then random damage up
to COUNT.
They carry no signature, so an enforcing kernel must refuse every one
with EKEYREJECTED; a permissive one loads them or refuses them with a
clean error.  CLASS is what a kernel's ELF checks make of the mutant,
decided by elf_verdict() below, a model of 6.1's elf_validity_check()
and setup_load_info() plus the hardening any kernel that reads these
headers needs (every section's sh_name inside the section name table,
whatever its type; .modinfo and .gnu.linkonce.this_module inside the
file, whatever their type, this_module of sizeof(struct module)):
    intact    the body itself: loads in permissive mode, tainted 'E'
    elf-bad   the model refuses it: the kernel must say ENOEXEC
    elf-ok    the model finds nothing wrong (the damage may still make
              the kernel refuse the module later, or be harmless)
The header edits: e_shoff, e_shnum, e_shstrndx, e_shentsize out of range
and off by one; e_ident, e_type, e_machine; section 0; sh_name past the
section name table for SHT_NULL, SHT_NOBITS and SHF_ALLOC sections;
.modinfo as SHT_NOBITS or SHT_NULL pointing outside the file, its
offset + size wrapping, not NUL-terminated (also ending at a page
boundary at the end of the file, so that reading one byte too far
faults); .gnu.linkonce.this_module as SHT_NOBITS or SHT_NULL with a huge
sh_offset; the section name table without its NUL, past the end, empty;
the symbol table's link; then random damage to the ELF header and the
sh_name, sh_type and sh_flags of the section headers (never making a
new symbol or relocation table, nor an alias of a section the loader
looks up by name, nor moving the section header table elsewhere inside
the file, nor changing the flags of .gnu.linkonce.this_module or
taking SHF_ALLOC from a section (the systematic edits above do): a
permissive kernel takes an unsigned module's symbols, relocations and
layout as given, which is not what this test is about).
"""
import os
import random
import re
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
import modsig  # noqa: E402  (the tests' trailer and packet toolkit)

MAGIC = modsig.MAGIC
# struct module_signature: where each field is, counted from its start,
# and where it starts, counted from the end of a signed module
INFO_AT = dict(algo=0, hash=1, id_type=2, signer_len=3, key_id_len=4, pad=5, sig_len=8)
INFO_FROM_END = len(MAGIC) + modsig.INFO.size
U64MAX = (1 << 64) - 1

EHDR = SHDR = 64
SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA = 0, 1, 2, 3, 4
SHT_NOBITS, SHT_REL, SHT_DYNSYM, SHT_SYMTAB_SHNDX = 8, 9, 11, 18
SHF_ALLOC = 2
WIDTH = {"H": 2, "I": 4, "Q": 8}
EH = dict(e_type=(16, "H"), e_machine=(18, "H"), e_shoff=(40, "Q"),
          e_shentsize=(58, "H"), e_shnum=(60, "H"), e_shstrndx=(62, "H"))
SH = dict(sh_name=(0, "I"), sh_type=(4, "I"), sh_flags=(8, "Q"), sh_addr=(16, "Q"),
          sh_offset=(24, "Q"), sh_size=(32, "Q"), sh_link=(40, "I"))


def die(msg):
    print(f"mutate: {msg}", file=sys.stderr)
    sys.exit(1)


def get(m, off, t):
    return struct.unpack_from("<" + t, m, off)[0]


def put(m, off, t, v):
    w = WIDTH[t]
    return m[:off] + struct.pack("<" + t, v & ((1 << (8 * w)) - 1)) + m[off + w:]


def be(m, off, w):
    return int.from_bytes(m[off:off + w], "big")


def set_be(m, off, w, v):
    return m[:off] + (v & ((1 << (8 * w)) - 1)).to_bytes(w, "big") + m[off + w:]


def flipbit(m, off, bit):
    return m[:off] + bytes([m[off] ^ (1 << bit)]) + m[off + 1:]


def setbyte(m, off, v):
    return m[:off] + bytes([v & 0xFF]) + m[off + 1:]


def rand(n):
    """int(rand(n)) of Perl: 0 <= r < n"""
    return int(random.random() * n)


# ---------------------------------------------------------------------------
# The trailer and the signature packet, read as the kernel would: None if
# it would refuse before the RSA check for a reason this can tell.

def parse_sig_packet(s):
    if len(s) < 2:
        return None
    try:
        tag, hl, length = modsig.packet_header(s, 0, "signature")
    except modsig.Error:
        return None
    if tag != 2 or hl + length != len(s):
        return None
    b = s[hl:]
    if len(b) < 6:
        return None
    hashed_len = be(b, 4, 2)
    if 6 + hashed_len + 2 > len(b):
        return None
    ul = be(b, 6 + hashed_len, 2)
    rest = 8 + hashed_len + ul
    if rest + 2 + 2 > len(b):
        return None
    return dict(hdrlen=hl, hashed=b[:6 + hashed_len], hashed_len_at=hl + 4,
                unhashed_at=hl + 6 + hashed_len, unhashed_len=ul, left16_at=hl + rest,
                left16=b[rest:rest + 2], mpi_at=hl + rest + 2, mpi=b[rest + 2:])


def parse_module(m):
    length = len(m)
    if length < INFO_FROM_END or not m.endswith(MAGIC):
        return None
    ms = length - INFO_FROM_END
    info = dict(zip(modsig.INFO_FIELDS, modsig.INFO.unpack_from(m, ms)))
    if info["sig_len"] + info["signer_len"] + info["key_id_len"] >= ms:
        return None
    sig_at = ms - info["sig_len"]
    kid_at = sig_at - info["key_id_len"]
    signer_at = kid_at - info["signer_len"]
    return dict(len=length, ms_at=ms, sig_at=sig_at, siglen=info["sig_len"], kid_at=kid_at,
                signer_at=signer_at, slen=info["signer_len"], body=m[:signer_at],
                sig=parse_sig_packet(m[sig_at:ms]), id_type=info["id_type"])


# ---------------------------------------------------------------------------
# ELF64 (little-endian x86-64) section headers, read and written.

def eh(m, f):
    return get(m, EH[f][0], EH[f][1])


def set_eh(m, f, v):
    return put(m, EH[f][0], EH[f][1], v)


def sh_at(m, i, f):
    """Section header field of section I, where the mutant's own header says"""
    return eh(m, "e_shoff") + i * SHDR + SH[f][0]


def sh(m, i, f):
    return get(m, sh_at(m, i, f), SH[f][1])


def set_sh(m, i, f, v):
    return put(m, sh_at(m, i, f), SH[f][1], v)


def within(off, size, length):
    """offset + size inside a file of LENGTH bytes, without wrapping"""
    return off <= U64MAX - size and off + size <= length


def cstring(strings, at):
    return strings[at:].split(b"\0", 1)[0]


this_module_size = None  # sizeof(struct module), as the original has it


def elf_verdict(m):
    """'' if the checks below pass, else why not.  Each check is one that
    6.1 makes with -ENOEXEC before it reads anything else
    (elf_validity_check, then the symbol table and this_module lookups of
    setup_load_info), or one of the bounds any kernel that looks sections
    up by name needs: the name of every section, whatever its type
    (find_sec reads those of SHF_ALLOC sections, x86's module_finalize()
    those of all, section 0 included), and .modinfo and
    .gnu.linkonce.this_module whatever their type; and
    .gnu.linkonce.this_module with contents of sizeof(struct module), as
    mainline checks since v6.4 (without that check, 6.1 takes a struct
    module from whatever memory follows).  A mutant this refuses must be
    refused with ENOEXEC; one it passes may still be refused later, for
    reasons this does not model."""
    length = len(m)
    if length < EHDR:
        return "shorter than the ELF header"
    if m[:4] != b"\x7fELF":
        return "bad magic"
    if eh(m, "e_type") != 1:
        return "not ET_REL"
    if eh(m, "e_machine") != 62:
        return "not x86-64"
    if eh(m, "e_shentsize") != SHDR:
        return "e_shentsize"
    shoff, shnum, strndx = eh(m, "e_shoff"), eh(m, "e_shnum"), eh(m, "e_shstrndx")
    if shoff >= length or shnum * SHDR > length - shoff:
        return "section headers outside the file"
    if strndx == 0 or strndx >= shnum:
        return "e_shstrndx"
    stroff, strsize = sh(m, strndx, "sh_offset"), sh(m, strndx, "sh_size")
    if not within(stroff, strsize, length):
        return "section name table outside the file"
    if strsize == 0:
        return "empty section name table"
    if m[stroff + strsize - 1] != 0:
        return "section name table not NUL-terminated"
    if sh(m, 0, "sh_type") != SHT_NULL or sh(m, 0, "sh_size") or sh(m, 0, "sh_addr"):
        return "section 0"
    # x86's module_finalize() compares the name of every section, of any
    # type, section 0 included.
    for i in range(shnum):
        if sh(m, i, "sh_name") >= strsize:
            return f"section {i} name past the table"
    strings = m[stroff:stroff + strsize]
    for i in range(1, shnum):
        kind = sh(m, i, "sh_type")
        if kind in (SHT_NULL, SHT_NOBITS):
            continue
        if kind == SHT_SYMTAB:
            link = sh(m, i, "sh_link")
            if link == 0 or link >= shnum:
                return f"section {i} sh_link"
        if not within(sh(m, i, "sh_offset"), sh(m, i, "sh_size"), length):
            return f"section {i} outside the file"
    symtab, found = None, {}
    for i in range(1, shnum):
        if symtab is None and sh(m, i, "sh_type") == SHT_SYMTAB:
            symtab = i
        if not sh(m, i, "sh_flags") & SHF_ALLOC:
            continue
        found.setdefault(cstring(strings, sh(m, i, "sh_name")), i)
    if not symtab:
        return "no symbol table"
    if b".gnu.linkonce.this_module" not in found:
        return "no .gnu.linkonce.this_module"
    for name in (b".modinfo", b".gnu.linkonce.this_module"):
        i = found.get(name)
        if i and not within(sh(m, i, "sh_offset"), sh(m, i, "sh_size"), length):
            return f"{name.decode()} outside the file"
    # As mainline (v6.4) checks it: this_module holds a struct module.
    tm = found[b".gnu.linkonce.this_module"]
    if sh(m, tm, "sh_type") in (SHT_NULL, SHT_NOBITS):
        return ".gnu.linkonce.this_module without contents"
    if this_module_size is not None and sh(m, tm, "sh_size") != this_module_size:
        return ".gnu.linkonce.this_module size"
    return ""


class Section:
    def __init__(self, m, strings, i):
        self.i = i
        self.name = cstring(strings, sh(m, i, "sh_name"))
        self.type = sh(m, i, "sh_type")
        self.flags = sh(m, i, "sh_flags")
        self.offset = sh(m, i, "sh_offset")
        self.size = sh(m, i, "sh_size")

    @property
    def shown(self):
        return self.name.decode("latin-1")


def sections(m):
    """The sections of the original, by name"""
    strndx = eh(m, "e_shstrndx")
    off, size = sh(m, strndx, "sh_offset"), sh(m, strndx, "sh_size")
    strings = m[off:off + size]
    return [Section(m, strings, i) for i in range(eh(m, "e_shnum"))]


def header_edits(b, path):
    """(description, edited body) pairs: the systematic ELF header and
    section header edits"""
    e = []
    length = len(b)
    shoff, shnum, strndx = eh(b, "e_shoff"), eh(b, "e_shnum"), eh(b, "e_shstrndx")
    secs = sections(b)
    by = {}
    for s in secs:
        by.setdefault(s.name, s)
    strsize = secs[strndx].size
    mi = by.get(b".modinfo") or die(f"{path}: no .modinfo")
    tm = by.get(b".gnu.linkonce.this_module") or die(f"{path}: no .gnu.linkonce.this_module")
    text = next((s for s in secs if s.type == SHT_PROGBITS and s.flags & SHF_ALLOC
                 and s is not mi and s is not tm), None)
    nonalloc = next((s for s in secs if s.i and not s.flags & SHF_ALLOC
                     and s.type == SHT_PROGBITS), None)
    symtab = next((s for s in secs if s.type == SHT_SYMTAB), None)
    if not (text and nonalloc and symtab):
        die(f"{path}: no allocated PROGBITS, non-allocated PROGBITS or symbol table section")
    add = e.append

    # ELF header.
    for v in (0, 1, 63, 64, shoff - 64, shoff - 1, shoff + 1, shoff + 64, length - 1, length,
              length + 1, length - shnum * SHDR + 1, 0x7FFFFFFFFFFFFFFF, U64MAX, U64MAX - 63,
              shoff + (1 << 32)):
        add((f"e_shoff {v} (was {shoff})", set_eh(b, "e_shoff", v)))
    for v in (0, 1, 2, shnum - 1, shnum + 1, shnum + 2, 0x7FFF, 0xFF00, 0xFFFF):
        add((f"e_shnum {v} (was {shnum})", set_eh(b, "e_shnum", v)))
    add(("e_shoff at the end less one header, e_shnum + 1",
         set_eh(set_eh(b, "e_shoff", length - shnum * SHDR), "e_shnum", shnum + 1)))
    for v in (0, 1, strndx - 1, strndx + 1, shnum - 1, shnum, shnum + 1, 0xFF00, 0xFFFF):
        add((f"e_shstrndx {v} (was {strndx})", set_eh(b, "e_shstrndx", v)))
    for v in (0, 1, 40, 63, 65, 128, 0xFFFF):
        add((f"e_shentsize {v}", set_eh(b, "e_shentsize", v)))
    add(("e_ident class 1 (ELF32)", setbyte(b, 4, 1)))
    add(("e_ident data 2 (big-endian)", setbyte(b, 5, 2)))
    add(("e_ident magic byte 1 flipped", flipbit(b, 1, 0)))
    for v in (0, 2, 3, 0xFFFF):
        add((f"e_type {v}", set_eh(b, "e_type", v)))
    for v in (0, 3, 183):
        add((f"e_machine {v}", set_eh(b, "e_machine", v)))

    # Section 0.
    add(("section 0 sh_type PROGBITS", set_sh(b, 0, "sh_type", SHT_PROGBITS)))
    add(("section 0 sh_size 1", set_sh(b, 0, "sh_size", 1)))
    add(("section 0 sh_addr 1", set_sh(b, 0, "sh_addr", 1)))
    add(("section 0 sh_name 0xffffffff", set_sh(b, 0, "sh_name", 0xFFFFFFFF)))
    add(("section 0 SHF_ALLOC, sh_name 0xffffffff",
         set_sh(set_sh(b, 0, "sh_flags", SHF_ALLOC), 0, "sh_name", 0xFFFFFFFF)))

    # sh_name past the section name table, for sections of each kind
    # turned into SHT_NULL and SHT_NOBITS or kept as they are.
    kinds = ((SHT_NULL, "SHT_NULL"), (SHT_NOBITS, "SHT_NOBITS"), (None, "own type"))
    for s in (text, mi, tm, nonalloc, symtab):
        for kind, shown in kinds:
            for n in (strsize, strsize + 1, 0x10000, 0x7FFFFFFF, 0xFFFFFFFF):
                m = set_sh(b, s.i, "sh_name", n)
                if kind is not None:
                    m = set_sh(m, s.i, "sh_type", kind)
                add((f"{s.shown} as {shown}, sh_name {n} (table {strsize})", m))
    for kind, shown in kinds[:2]:
        for n in (strsize, 0xFFFFFFFF):
            m = set_sh(b, nonalloc.i, "sh_flags", nonalloc.flags | SHF_ALLOC)
            m = set_sh(set_sh(m, nonalloc.i, "sh_type", kind), nonalloc.i, "sh_name", n)
            add((f"{nonalloc.shown} made SHF_ALLOC {shown}, sh_name {n}", m))

    # .modinfo and .gnu.linkonce.this_module of another type, anywhere.
    where = ((length, 1), (length - 1, 2), (length + 4096, 16), (1 << 40, 16),
             (0xFFFFFFFFFFFF0000, 0x20000), (0xFFFFFFFFFFFFFFF0, 0x10),
             (mi.offset, U64MAX - mi.offset + 2), (mi.offset, length),
             (mi.offset, 0x7FFFFFFFFFFFFFFF))
    for s in (mi, tm):
        for kind, shown in ((SHT_NOBITS, "SHT_NOBITS"), (SHT_NULL, "SHT_NULL"),
                            (SHT_PROGBITS, "SHT_PROGBITS")):
            if kind != s.type:
                add((f"{s.shown} as {shown} in place", set_sh(b, s.i, "sh_type", kind)))
            for off, size in where:
                m = set_sh(b, s.i, "sh_type", kind)
                m = set_sh(set_sh(m, s.i, "sh_offset", off), s.i, "sh_size", size)
                add((f"{s.shown} as {shown}, sh_offset 0x{off & U64MAX:x} "
                     f"sh_size 0x{size & U64MAX:x} (file 0x{length:x})", m))
    for v in (0, 1, tm.size - 1):
        add((f".gnu.linkonce.this_module sh_size {v}", set_sh(b, tm.i, "sh_size", v)))

    # .modinfo not NUL-terminated: in place, and as the last bytes of a
    # file that ends at a page boundary, so that one byte too far faults.
    add((".modinfo sh_size - 1 (last NUL dropped)", set_sh(b, mi.i, "sh_size", mi.size - 1)))
    add((".modinfo last byte 'x'", setbyte(b, mi.offset + mi.size - 1, ord("x"))))
    add((".modinfo sh_size 0", set_sh(b, mi.i, "sh_size", 0)))
    for tail in (b"name", b"name=crc7", b"nam", b"license=GPL\0name", b"x\0name=" + b"A" * 64):
        for kind, shown in ((SHT_PROGBITS, "SHT_PROGBITS"), (SHT_NOBITS, "SHT_NOBITS")):
            pad = (4096 - (length + len(tail)) % 4096) % 4096
            m = b + b"U" * pad + tail
            m = set_sh(m, mi.i, "sh_type", kind)
            m = set_sh(set_sh(m, mi.i, "sh_offset", len(m) - len(tail)), mi.i, "sh_size", len(tail))
            tail_shown = tail.decode().replace("\0", "\\0")
            add((f".modinfo {shown} '{tail_shown}' unterminated at the end of a page-sized file", m))

    # The section name table.
    st = secs[strndx]
    add(("section name table last byte 'x'", setbyte(b, st.offset + st.size - 1, ord("x"))))
    for v in (0, 1, st.size - 1, st.size + 1, length, U64MAX):
        add((f"section name table sh_size {v}", set_sh(b, strndx, "sh_size", v)))
    for v in (length - st.size + 1, length, 1 << 40, U64MAX - 8):
        add((f"section name table sh_offset {v}", set_sh(b, strndx, "sh_offset", v)))
    for kind, shown in kinds[:2][::-1]:
        add((f"section name table as {shown}", set_sh(b, strndx, "sh_type", kind)))
        add((f"section name table as {shown} at sh_offset 2^40",
             set_sh(set_sh(b, strndx, "sh_type", kind), strndx, "sh_offset", 1 << 40)))
    pad = (4096 - (length + 16) % 4096) % 4096
    m = b + b"U" * pad + b"S" * 16
    m = set_sh(set_sh(m, strndx, "sh_offset", len(m) - 16), strndx, "sh_size", 16)
    add(("section name table unterminated at the end of a page-sized file", m))

    # Offset + size wrapping, and the symbol table.
    add((f"{text.shown} sh_size wraps sh_offset + sh_size",
         set_sh(b, text.i, "sh_size", U64MAX - text.offset + 2)))
    add((f"{text.shown} sh_offset 2^64 - 8", set_sh(b, text.i, "sh_offset", U64MAX - 7)))
    add((f"{text.shown} as SHT_NOBITS at sh_offset 2^40",
         set_sh(set_sh(b, text.i, "sh_type", SHT_NOBITS), text.i, "sh_offset", 1 << 40)))
    for v in (0, shnum, 0xFFFFFFFF):
        add((f"symbol table sh_link {v}", set_sh(b, symtab.i, "sh_link", v)))
    add(("symbol table as SHT_NULL", set_sh(b, symtab.i, "sh_type", SHT_NULL)))
    add(("symbol table sh_size wraps", set_sh(b, symtab.i, "sh_size", U64MAX - symtab.offset + 1)))
    return e


NAMED_BY_THE_LOADER = re.compile(rb"^(\.init|\.exit|__|\.data\.\.|\.gnu\.linkonce|\.modinfo)")


def random_header_damage(b):
    """1-4 random bytes in the ELF header or the sh_name, sh_type and
    sh_flags of the section headers.  A result that makes a new symbol or
    relocation table, or gives a section the name of another one, is
    drawn again (see the top)."""
    secs = sections(b)
    names = {s.name for s in secs}
    shoff = eh(b, "e_shoff")
    spots = list(range(EHDR)) + [shoff + s.i * SHDR + k for s in secs for k in range(16)]
    st = secs[eh(b, "e_shstrndx")]
    strings = b[st.offset:st.offset + st.size]
    while True:
        m = b
        offs = [spots[rand(len(spots))] for _ in range(1 + rand(4))]
        for off in offs:
            m = setbyte(m, off, rand(256))
        if redraw(m, b, secs, names, shoff, strings):
            continue
        return "random header bytes at " + ",".join(map(str, offs)), m


def redraw(m, b, secs, names, shoff, strings):
    # A section header table moved inside the file is read as garbage
    # headers, symbol tables among them (see the top).
    newoff = eh(m, "e_shoff")
    if newoff != shoff and newoff < len(b):
        return True
    for s in secs:
        name, kind, flags = struct.unpack_from("<IIQ", m, shoff + s.i * SHDR)
        # 6.1 writes to struct module wherever this_module's flags put
        # it, read-only memory too.
        if s.name == b".gnu.linkonce.this_module" and flags != s.flags:
            return True
        # Nor does it check that what relocations and symbols point into
        # is still allocated.
        if s.flags & SHF_ALLOC and not flags & SHF_ALLOC:
            return True
        if kind != s.type and kind in (SHT_SYMTAB, SHT_RELA, SHT_REL, SHT_DYNSYM,
                                        SHT_SYMTAB_SHNDX):
            return True
        if name == sh(b, s.i, "sh_name") or name >= len(strings):
            continue
        new = cstring(strings, name)
        if new in names or NAMED_BY_THE_LOADER.match(new):
            return True
    return False


def write_mutants(outdir, first_id, mutants, classify):
    counts = {}
    with open(os.path.join(outdir, "manifest"), "w") as man:
        for i, (what, m) in enumerate(mutants):
            mid = first_id + i
            with open(os.path.join(outdir, f"{mid:04d}.ko"), "wb") as f:
                f.write(m)
            c, note = classify(i, m)
            counts[c] = counts.get(c, 0) + 1
            man.write(f"{mid} {c} {what}{note}\n")
    return counts


def unsigned_mutants(orig, path, outdir, count, first_id):
    global this_module_size
    if orig.endswith(MAGIC):
        die(f"{path}: has a signature; give the body (extract-module-sig.pl -0)")
    this_module_size = next(s.size for s in sections(orig)
                            if s.name == b".gnu.linkonce.this_module")
    why = elf_verdict(orig)
    if why:
        die(f"{path}: the model refuses the unmutated body: {why}")
    u = [("the body unchanged", orig)]
    seen = {orig}
    for what, m in header_edits(orig, path):
        if m not in seen:
            seen.add(m)
            u.append((what, m))
    while len(u) < count:
        what, m = random_header_damage(orig)
        if m not in seen:
            seen.add(m)
            u.append((what, m))

    def classify(i, m):
        why = elf_verdict(m)
        return ("intact" if i == 0 else "elf-bad" if why else "elf-ok"), (f" [{why}]" if why else "")

    n = write_mutants(outdir, first_id, u, classify)
    print(f"mutate: {len(u)} unsigned mutants, {n.get('elf-bad', 0)} the model refuses (ELF), "
          f"{n.get('elf-ok', 0)} it passes, {n.get('intact', 0)} intact")


def signed_mutants(orig, path, outdir, count):
    P = parse_module(orig)
    if not P:
        die(f"{path}: not a module with a readable OpenPGP signature")
    if not P["sig"]:
        die(f"{path}: signature packet unreadable")
    if P["id_type"] != modsig.PKEY_ID_PGP:
        die(f"{path}: id_type {P['id_type']} is not PGP")
    mutants = []

    def add(what, m):
        if m != orig:
            mutants.append((what, m))

    S, sa, ms, total = P["sig"], P["sig_at"], P["ms_at"], P["len"]
    blen = len(P["body"])

    # Body: bit flips spread over it (ELF header, sections, the end), bytes set.
    for i in range(160):
        off = i if i < 64 else rand(blen)
        add(f"body bit flip at {off}", flipbit(orig, off, rand(8)))
    add("body last byte flipped", flipbit(orig, blen - 1, 0))
    for _ in range(20):
        off = rand(blen)
        add(f"body byte {off} set to 0", setbyte(orig, off, 0))
    # Signer name and key id (neither is covered by the signature).
    for off in range(P["signer_at"], P["kid_at"]):
        add(f"signer byte {off - P['signer_at']} flipped", flipbit(orig, off, rand(8)))
    for off in range(P["kid_at"], sa):
        add(f"key id byte {off - P['kid_at']} flipped", flipbit(orig, off, rand(8)))
    # Signature packet: the header and every field, then every byte in turn.
    for v in (0x00, 0x7F, 0x88, 0x8B, 0xC0, 0xC1, 0xC3, 0xFF):
        add(f"packet tag octet {v} ", setbyte(orig, sa, v))
    hl = S["hdrlen"]
    for d in (-2, -1, 1, 2, 128):
        if hl == 2:
            m = setbyte(orig, sa + 1, orig[sa + 1] + d)
        elif hl == 3 and orig[sa] & 0x40:
            m = setbyte(orig, sa + 2, orig[sa + 2] + d)
        elif hl == 3:
            m = set_be(orig, sa + 1, 2, be(orig, sa + 1, 2) + d)
        else:
            m = set_be(orig, sa + hl - 4, 4, be(orig, sa + hl - 4, 4) + d)
        add(f"packet length {d}", m)
    for v in (0, 191, 192, 223, 224, 254, 255):
        add(f"packet length octet {v}", setbyte(orig, sa + 1, v))
    for f in range(4):
        for v in (0, 1, 2, 3, 5, 17, 22, 99, 255):
            add(f"packet field {f} = {v}", setbyte(orig, sa + hl + f, v))
    hashed_len = len(S["hashed"])
    for v in (0, 1, hashed_len - 7, hashed_len - 5, 0x7FFF, 0xFFFF):
        add(f"hashed area length {v}", set_be(orig, sa + S["hashed_len_at"], 2, v))
    ul = S["unhashed_len"]
    for v in (0, 1, ul - 1, ul + 1, 0xFFFF):
        add(f"unhashed area length {v}", set_be(orig, sa + S["unhashed_at"], 2, v))
    # Each subpacket of both areas: length octet, type (and critical bit), data.
    for at, alen, name in ((sa + hl + 6, hashed_len - 6, "hashed"),
                           (sa + S["unhashed_at"] + 2, ul, "unhashed")):
        o = 0
        while o < alen:
            sl = orig[at + o]
            if sl >= 192:
                break
            t = orig[at + o + 1]
            for v in (0, 1, sl - 1, sl + 1, 191, 192, 255):
                add(f"{name} subpacket {t} length {v}", setbyte(orig, at + o, v))
            for v in (t | 0x80, 0, 2, 3, 9, 16, 27, 33, 0x7F, 0xFF):
                add(f"{name} subpacket {t} type {v}", setbyte(orig, at + o + 1, v))
            for j in range(2, sl + 1):
                add(f"{name} subpacket {t} data byte {j - 2} flipped",
                    flipbit(orig, at + o + j, rand(8)))
            o += 1 + sl
    for k in (0, 1):
        add(f"quick check byte {k} flipped", flipbit(orig, sa + S["left16_at"] + k, rand(8)))
    bits = be(S["mpi"], 0, 2)
    for v in (0, 1, bits - 8, bits - 1, bits + 1, bits + 8, 0xFFFF):
        add(f"MPI bit count {v}", set_be(orig, sa + S["mpi_at"], 2, v))
    mlen = len(S["mpi"]) - 2
    for j in [0, 1, 2, mlen - 2, mlen - 1] + [rand(mlen) for _ in range(12)]:
        add(f"MPI byte {j} flipped", flipbit(orig, sa + S["mpi_at"] + 2 + j, rand(8)))
    # Information block.
    for field, values in (("algo", (0, 2, 255)), ("hash", (0, 2, 3, 5, 6, 7, 8, 19, 20, 255)),
                          ("id_type", (1, 2, 3, 255)),
                          ("signer_len", (0, 1, P["slen"] - 1, P["slen"] + 1, 255)),
                          ("key_id_len", (0, 1, 7, 9, 20, 255))):
        for v in values:
            add(f"info {field} {v}", setbyte(orig, ms + INFO_AT[field], v))
    for k in range(3):
        add(f"info pad {k} set", setbyte(orig, ms + INFO_AT["pad"] + k, 1))
    sl = P["siglen"]
    for v in (0, 1, sl - 1, sl + 1, sl + 8, total, total - INFO_FROM_END,
              total - INFO_FROM_END - 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFF0):
        add(f"info sig_len {v}", set_be(orig, ms + INFO_AT["sig_len"], 4, v))
    # Magic, truncation, extension.
    for k in (0, 13, 27):
        add(f"magic byte {k} flipped", flipbit(orig, total - len(MAGIC) + k, 0))
    for cut in ([1, 2, len(MAGIC), len(MAGIC) + 1, INFO_FROM_END, INFO_FROM_END + 1,
                 total - sa, total - P["signer_at"]] + [rand(total - 1) + 1 for _ in range(25)]):
        add(f"truncated by {cut}", orig[:total - cut])
    add("truncated inside the packet, trailer kept", orig[:sa + 10] + orig[ms:])
    add("appended 1 byte", orig + b"\0")
    add("appended a second magic", orig + MAGIC)
    add("byte inserted before the signer", orig[:blen] + b"X" + orig[blen:])
    add("byte inserted in the body", orig[:100] + b"X" + orig[100:])
    add("body byte removed", orig[:100] + orig[101:])

    # Zero-length fields, each made consistent with the information block.
    def info_byte(m, field, v):
        return setbyte(m, len(m) - INFO_FROM_END + INFO_AT[field], v)

    add("signer removed, signer_len 0", info_byte(orig[:blen] + orig[P["kid_at"]:], "signer_len", 0))
    add("key id removed, key_id_len 0", info_byte(orig[:P["kid_at"]] + orig[sa:], "key_id_len", 0))
    m = orig[:sa] + orig[ms:]
    add("signature removed, sig_len 0", set_be(m, len(m) - INFO_FROM_END + INFO_AT["sig_len"], 4, 0))
    add("signer of 200 bytes, signer_len 200",
        info_byte(orig[:blen] + b"Z" * 200 + orig[P["kid_at"]:], "signer_len", 200))
    add("body only (trailer stripped)", P["body"])
    add("nothing but the trailer", orig[blen:])
    # ELF header edits to the body, the trailer kept.
    trailer = orig[blen:]
    for what, m in header_edits(P["body"], path):
        add(f"signed body, {what}", m + trailer)
    # Random damage: 1-8 bytes anywhere in the trailer or the whole file.
    while len(mutants) < count:
        lo = P["signer_at"] if random.random() < 0.7 else 0
        offs = [lo + rand(total - lo) for _ in range(1 + rand(8))]
        m = orig
        for off in offs:
            m = setbyte(m, off, rand(256))
        add("random bytes at " + ",".join(map(str, offs)), m)

    def classify(i, m):
        q = parse_module(m)
        if not q or not q["sig"] or q["body"] != P["body"]:
            return "signed", ""
        if any(q["sig"][k] != S[k] for k in ("hashed", "left16", "mpi")):
            return "signed", ""
        return "unsigned", ""

    n = write_mutants(outdir, 0, mutants, classify)
    print(f"mutate: {len(mutants)} mutants, {n.get('signed', 0)} signed, "
          f"{n.get('unsigned', 0)} unsigned")


def main():
    args = sys.argv[1:]
    unsigned = bool(args) and args[0] == "--unsigned"
    if unsigned:
        args = args[1:]
    if len(args) != (5 if unsigned else 4):
        die("usage: mutate.py [--unsigned] MODULE.ko OUTDIR COUNT SEED [FIRST-ID]")
    path, outdir, count, seed = args[0], args[1], int(args[2]), int(args[3])
    random.seed(seed)
    with open(path, "rb") as f:
        orig = f.read()
    if unsigned:
        unsigned_mutants(orig, path, outdir, count, int(args[4]))
    else:
        signed_mutants(orig, path, outdir, count)


if __name__ == "__main__":
    main()
