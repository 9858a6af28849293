#!/usr/bin/env python3
"""The tests' one toolkit for module signature trailers and the OpenPGP
pieces around them: parse a signed module into named parts, edit them,
frame them back (module-signing.rst, "Signature format"):

  body | signer | key ID | signature | struct module_signature | magic

struct module_signature is 12 octets: algo, hash, id_type, signer_len,
key_id_len, three of padding, sig_len (32 bits, big-endian).

Imported by the Python test tools (resign-module.py, craft-key.py), and a
command line for the shell tests:

  modsig.py show MODULE
      one "FIELD VALUE" line per field of the trailer, then the offset
      and length of each part ("part sig OFFSET LENGTH"), and the offset
      of struct module_signature ("info_at OFFSET")

  modsig.py edit IN OUT EDIT...
      OUT is IN with each EDIT applied in turn, to the parts of the
      trailer as IN frames them.  Lengths in the trailer stay as they
      were, so that an edit can make the framing lie, unless --refit:
        --set FIELD=VALUE    a struct module_signature field
        --flip PART:OFFSET   invert one octet of PART (negative OFFSET:
                             from its end); PART is body, signer, key_id,
                             sig or file (the whole file, trailer and all)
        --put PART:OFFSET=VALUE   set one octet of PART
        --cut PART:START:END drop octets START..END-1 of PART
        --truncate N         drop the last N octets of the file
        --refit              signer_len, key_id_len and sig_len follow
                             the parts' lengths after the edits

Exit status: 0, 1 for a file that is not a signed module or an edit
outside its part, 2 for usage.
"""
import argparse
import hashlib
import os
import struct
import sys

MAGIC = b"~Module signature appended~\n"
INFO = struct.Struct(">BBBBB3xI")
INFO_FIELDS = ("algo", "hash", "id_type", "signer_len", "key_id_len", "sig_len")
PARTS = ("body", "signer", "key_id", "sig")

PKEY_ID_PGP = 0  # enum pkey_id_type
PKEY_ID_X509 = 1
PKEY_ID_PKCS7 = 2
MODSIG_ALGO_RSA = 1  # struct module_signature algo, for OpenPGP
PGP_PUBKEY_RSA = 1
PGP_SIG_BINARY = 0x00
SIGNER_MAX = 255  # the longest signer name pgp-sign writes
KEY_ID_SIZE = 8

# name: (OpenPGP hash number, the kernel's (the trailer's hash field),
# PKCS#1 v1.5 DigestInfo prefix)
HASHES = {
    "sha1": (2, 2, "3021300906052b0e03021a05000414"),
    "sha224": (11, 7, "302d300d06096086480165030402040500041c"),
    "sha256": (8, 4, "3031300d060960864801650304020105000420"),
    "sha384": (9, 5, "3041300d060960864801650304020205000430"),
    "sha512": (10, 6, "3051300d060960864801650304020305000440"),
}


class Error(Exception):
    """A file the toolkit cannot take apart, named in the message."""


class Signed:
    """A signed module taken apart.  The info fields are as the file says
    them; frame() writes them back unless refit is asked for."""

    def __init__(self, body, signer=b"", key_id=b"", sig=b"", **fields):
        self.body, self.signer, self.key_id, self.sig = body, signer, key_id, sig
        for name in INFO_FIELDS:
            setattr(self, name, fields.get(name, 0))
        self.refit()
        for name, value in fields.items():
            setattr(self, name, value)

    @classmethod
    def parse(cls, data, path="module"):
        if not data.endswith(MAGIC):
            raise Error(f"{path}: no module signature (magic missing)")
        if len(data) < len(MAGIC) + INFO.size:
            raise Error(f"{path}: too short for a signature trailer")
        info_at = len(data) - len(MAGIC) - INFO.size
        fields = dict(zip(INFO_FIELDS, INFO.unpack(data[info_at:info_at + INFO.size])))
        sig_at = info_at - fields["sig_len"]
        key_id_at = sig_at - fields["key_id_len"]
        signer_at = key_id_at - fields["signer_len"]
        if signer_at < 0:
            raise Error(f"{path}: trailer claims more octets than the file has")
        return cls(data[:signer_at], data[signer_at:key_id_at], data[key_id_at:sig_at],
                   data[sig_at:info_at], **fields)

    @classmethod
    def read(cls, path):
        with open(path, "rb") as f:
            return cls.parse(f.read(), path)

    def refit(self):
        """The length fields follow the parts."""
        self.signer_len, self.key_id_len, self.sig_len = (
            len(self.signer), len(self.key_id), len(self.sig))

    def info(self):
        return INFO.pack(*(getattr(self, name) for name in INFO_FIELDS))

    def frame(self):
        return self.body + self.signer + self.key_id + self.sig + self.info() + MAGIC

    def write(self, path):
        write_whole(path, self.frame())

    def sig_packet(self):
        """(header, body) of the signature packet, one packet expected"""
        tag, hlen, length = packet_header(self.sig, 0, "signature")
        if tag != 2 or hlen + length != len(self.sig):
            raise Error("signature: not one signature packet")
        return self.sig[:hlen], self.sig[hlen:]

    def set_sig_packet(self, body, header=None):
        """A new signature packet: BODY under HEADER, or a new-format
        header for its length; sig_len follows."""
        self.sig = (new_packet_header(2, len(body)) if header is None else header) + body
        self.sig_len = len(self.sig)


def write_whole(path, data):
    """Written to a temporary file and renamed: never half a module"""
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def body_of(data, path="module"):
    """The module without its signature, if it has one"""
    return Signed.parse(data, path).body if data.endswith(MAGIC) else data


# ---------------------------------------------------------------------------
# OpenPGP packets (RFC 4880): just what the test tools need.

def packet_header(data, off, path):
    """(tag, header length, body length) of the packet at OFF"""
    if off >= len(data) or not data[off] & 0x80:
        raise Error(f"{path}: offset {off}: not a packet header")
    hdr = data[off]
    if hdr & 0x40:
        if off + 1 >= len(data):
            raise Error(f"{path}: offset {off}: header cut short")
        first = data[off + 1]
        if first < 192:
            return hdr & 0x3F, 2, first
        if first < 224:
            if off + 2 >= len(data):
                raise Error(f"{path}: offset {off}: header cut short")
            return hdr & 0x3F, 3, ((first - 192) << 8) + data[off + 2] + 192
        if first == 255:
            if off + 6 > len(data):
                raise Error(f"{path}: offset {off}: header cut short")
            return hdr & 0x3F, 6, struct.unpack(">I", data[off + 2:off + 6])[0]
        raise Error(f"{path}: offset {off}: partial body length")
    kind = hdr & 3
    if kind == 3:
        raise Error(f"{path}: offset {off}: indeterminate length")
    n = 1 << kind
    if off + 1 + n > len(data):
        raise Error(f"{path}: offset {off}: header cut short")
    return (hdr >> 2) & 0x0F, 1 + n, int.from_bytes(data[off + 1:off + 1 + n], "big")


def new_packet_header(tag, length):
    if length < 192:
        return bytes([0xC0 | tag, length])
    if length < 8384:
        return bytes([0xC0 | tag, ((length - 192) >> 8) + 192, (length - 192) & 0xFF])
    return bytes([0xC0 | tag, 255]) + struct.pack(">I", length)


def packets(data, path):
    """(tag, body) of each packet of a binary OpenPGP stream"""
    off = 0
    while off < len(data):
        tag, hlen, length = packet_header(data, off, path)
        body = data[off + hlen:off + hlen + length]
        if len(body) != length:
            raise Error(f"{path}: offset {off}: packet runs past the end")
        yield tag, body
        off += hlen + length


def mpi(data, off, path):
    """(value, offset after it) of the MPI at OFF"""
    if off + 2 > len(data):
        raise Error(f"{path}: MPI header runs past the end")
    n = (struct.unpack(">H", data[off:off + 2])[0] + 7) // 8
    if off + 2 + n > len(data):
        raise Error(f"{path}: MPI runs past the end")
    return int.from_bytes(data[off + 2:off + 2 + n], "big"), off + 2 + n


def mpi_bytes(value):
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return struct.pack(">H", value.bit_length()) + raw


def fingerprint(public_body):
    """The v4 fingerprint of a public key packet body"""
    return hashlib.sha1(b"\x99" + struct.pack(">H", len(public_body)) + public_body).digest()


def rsa_sign(n, d, hash_name, digest):
    """RSA PKCS#1 v1.5 with Python integers, independent of OpenSSL and gpg"""
    k = (n.bit_length() + 7) // 8
    t = bytes.fromhex(HASHES[hash_name][2]) + digest
    em = b"\x00\x01" + b"\xff" * (k - len(t) - 3) + b"\x00" + t
    return pow(int.from_bytes(em, "big"), d, n)


# ---------------------------------------------------------------------------
# Command line

def octet_range(data, start, end, what):
    lo = start + len(data) if start < 0 else start
    hi = end + len(data) if end < 0 else end
    if not 0 <= lo <= hi <= len(data):
        raise Error(f"{start}:{end} is outside {what} ({len(data)} octets)")
    return lo, hi


def edit_part(data, kind, spec, what):
    """DATA with one --flip, --put or --cut of SPEC applied"""
    if kind == "cut":
        start, _, end = spec.partition(":")
        lo, hi = octet_range(data, int(start, 0), int(end, 0), what)
        return data[:lo] + data[hi:]
    where, _, value = spec.partition("=")
    off = int(where, 0)
    lo, _ = octet_range(data, off, off + 1 if off != -1 else len(data), what)
    new = data[lo] ^ 0xFF if kind == "flip" else int(value, 0)
    return data[:lo] + bytes([new]) + data[lo + 1:]


def edit(s, edits, refit):
    """The file S frames once EDITS are applied: those on the parts and
    fields first, then the refit, then those on the whole file"""
    on_file = []
    for kind, arg in edits:
        if kind == "set":
            name, _, value = arg.partition("=")
            if name not in INFO_FIELDS or not value:
                raise Error(f"--set {arg}: not FIELD=VALUE, FIELD one of {', '.join(INFO_FIELDS)}")
            setattr(s, name, int(value, 0))
            continue
        part, _, spec = arg.partition(":")
        if kind == "truncate" or part == "file":
            on_file.append((kind, arg if kind == "truncate" else spec))
            continue
        if part not in PARTS:
            raise Error(f"--{kind} {arg}: PART is not one of {', '.join(PARTS + ('file',))}")
        setattr(s, part, edit_part(getattr(s, part), kind, spec, part))
    if refit:
        s.refit()
    data = s.frame()
    for kind, spec in on_file:
        if kind == "truncate":
            n = int(spec, 0)
            if not 0 <= n <= len(data):
                raise Error(f"--truncate {spec}: the file has {len(data)} octets")
            data = data[:len(data) - n]
        else:
            data = edit_part(data, kind, spec, "the file")
    return data


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    show = sub.add_parser("show")
    show.add_argument("module")
    ed = sub.add_parser("edit")
    ed.add_argument("input")
    ed.add_argument("output")
    for kind in ("set", "flip", "put", "cut", "truncate"):
        ed.add_argument(f"--{kind}", action="append", default=[],
                        type=lambda v, k=kind: (k, v), dest="edits")
    ed.add_argument("--refit", action="store_true")
    args = ap.parse_args()
    try:
        if args.cmd == "show":
            s = Signed.read(args.module)
            for name in INFO_FIELDS:
                print(name, getattr(s, name))
            off = 0
            for part in PARTS:
                print("part", part, off, len(getattr(s, part)))
                off += len(getattr(s, part))
            print("info_at", off)
            return 0
        data = edit(Signed.read(args.input), args.edits, args.refit)
    except (Error, ValueError) as e:
        print(f"modsig: {getattr(args, 'input', getattr(args, 'module', ''))}: {e}",
              file=sys.stderr)
        return 1
    write_whole(args.output, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
