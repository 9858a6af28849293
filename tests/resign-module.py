#!/usr/bin/env python3
"""Re-sign an OpenPGP-signed module with a signature packet made here, with
the choices pgp-sign never makes, so that the kernel's handling of
signatures from other OpenPGP implementations can be tried:

  --no-issuer-fpr     name the issuer by its 8-byte key ID only (an issuer
                      key ID subpacket in the unhashed area, as PGP 2 to 8
                      and many other tools write), so the kernel must find
                      the key by key ID rather than by fingerprint
  --created EPOCH     signature creation time (default: now)
  --expires SECONDS   a signature expiration time subpacket: the signature
                      stops being valid SECONDS after its creation

usage: resign-module.py [OPTIONS] SIGNED-MODULE SECRET-KEY OUT

SIGNED-MODULE is a module signed by pgp-sign with SECRET-KEY's primary key;
its body and trailer framing (signer name, key ID) are kept and only the
signature packet is replaced.  SECRET-KEY is an unprotected secret key
export.  The signature is RSA PKCS#1 v1.5 over SHA-256, computed here with
Python integers, independently of pgp-sign, OpenSSL and gpg.  The module
is not otherwise checked: that is the kernel's job in the tests.
"""
import argparse
import hashlib
import struct
import sys
import time

MAGIC = b"~Module signature appended~\n"
SIG_INFO_LEN = 12
PKEY_ID_PGP = 0  # enum pkey_id_type
PGP_PUBKEY_RSA = 1
PGP_HASH_SHA256 = 8
HASH_ALGO_SHA256 = 4  # the kernel's number, in the trailer
SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")


def die(msg):
    print(f"resign-module: {msg}", file=sys.stderr)
    sys.exit(1)


def packets(data, path):
    """(tag, body) for each packet of a binary OpenPGP stream."""
    off = 0
    while off < len(data):
        hdr = data[off]
        if not hdr & 0x80:
            die(f"{path}: offset {off}: not a packet header")
        if hdr & 0x40:
            tag = hdr & 0x3F
            first = data[off + 1]
            if first < 192:
                length, hlen = first, 2
            elif first < 224:
                length, hlen = ((first - 192) << 8) + data[off + 2] + 192, 3
            elif first == 255:
                length, hlen = struct.unpack(">I", data[off + 2:off + 6])[0], 6
            else:
                die(f"{path}: offset {off}: partial length in a key")
        else:
            tag = (hdr >> 2) & 0x0F
            kind = hdr & 3
            if kind == 3:
                die(f"{path}: offset {off}: indeterminate length in a key")
            n = 1 << kind
            length = int.from_bytes(data[off + 1:off + 1 + n], "big")
            hlen = 1 + n
        body = data[off + hlen:off + hlen + length]
        if len(body) != length:
            die(f"{path}: offset {off}: packet runs past the end")
        yield tag, body
        off += hlen + length


def mpi(data, off, path):
    bits = struct.unpack(">H", data[off:off + 2])[0]
    n = (bits + 7) // 8
    if off + 2 + n > len(data):
        die(f"{path}: MPI runs past the end of the key packet")
    return int.from_bytes(data[off + 2:off + 2 + n], "big"), off + 2 + n


def mpi_bytes(value):
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return struct.pack(">H", value.bit_length()) + raw


def primary_secret_key(path):
    """(n, d, key ID) of the first secret key packet of an export."""
    with open(path, "rb") as f:
        data = f.read()
    for tag, body in packets(data, path):
        if tag != 5:
            continue
        if body[0] != 4 or body[5] != PGP_PUBKEY_RSA:
            die(f"{path}: primary key is not a v4 RSA key")
        n, off = mpi(body, 6, path)
        _, off = mpi(body, off, path)
        public = body[:off]
        if body[off] != 0:
            die(f"{path}: secret key is protected (S2K usage {body[off]})")
        d, _ = mpi(body, off + 1, path)
        fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(public)) + public).digest()
        return n, d, fpr
    die(f"{path}: no secret key packet")


def subpacket(kind, payload):
    # All of ours are shorter than 192 bytes: one-octet lengths.
    return bytes([len(payload) + 1, kind]) + payload


def signature_packet(body, n, d, fpr, created, expires, with_fpr):
    hashed = subpacket(2, struct.pack(">I", created))
    if expires is not None:
        hashed += subpacket(3, struct.pack(">I", expires))
    if with_fpr:
        hashed += subpacket(33, b"\x04" + fpr)
    unhashed = subpacket(16, fpr[-8:])
    head = bytes([4, 0x00, PGP_PUBKEY_RSA, PGP_HASH_SHA256])
    head += struct.pack(">H", len(hashed)) + hashed
    digest = hashlib.sha256(body + head + b"\x04\xff" + struct.pack(">I", len(head))).digest()
    k = (n.bit_length() + 7) // 8
    t = SHA256_DIGEST_INFO + digest
    em = b"\x00\x01" + b"\xff" * (k - len(t) - 3) + b"\x00" + t
    s = pow(int.from_bytes(em, "big"), d, n)
    packet = head + struct.pack(">H", len(unhashed)) + unhashed + digest[:2] + mpi_bytes(s)
    if len(packet) >= 8384:
        die("signature packet too long for a two-octet length")
    if len(packet) < 192:
        return bytes([0xC2, len(packet)]) + packet
    length = len(packet) - 192
    return bytes([0xC2, (length >> 8) + 192, length & 0xFF]) + packet


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-issuer-fpr", action="store_true")
    ap.add_argument("--created", type=int)
    ap.add_argument("--expires", type=int)
    ap.add_argument("module")
    ap.add_argument("seckey")
    ap.add_argument("out")
    args = ap.parse_args()

    with open(args.module, "rb") as f:
        data = f.read()
    if not data.endswith(MAGIC) or len(data) < len(MAGIC) + SIG_INFO_LEN:
        die(f"{args.module}: not a signed module")
    info_at = len(data) - len(MAGIC) - SIG_INFO_LEN
    algo, hash_algo, id_type, signer_len, key_id_len, sig_len = struct.unpack(
        ">BBBBB3xI", data[info_at:info_at + SIG_INFO_LEN])
    if id_type != PKEY_ID_PGP:
        die(f"{args.module}: not an OpenPGP signature (id_type {id_type})")
    if hash_algo != HASH_ALGO_SHA256:
        die(f"{args.module}: hash {hash_algo} in the trailer, only SHA-256 is made here")
    framing = signer_len + key_id_len + sig_len
    if framing > info_at:
        die(f"{args.module}: trailer claims more bytes than the file has")
    body = data[:info_at - framing]
    names = data[info_at - framing:info_at - sig_len]

    n, d, fpr = primary_secret_key(args.seckey)
    if key_id_len == 8 and names[-8:] != fpr[-8:]:
        die(f"{args.module}: signed by key ID {names[-8:].hex()}, not {args.seckey}'s {fpr[-8:].hex()}")
    created = int(time.time()) if args.created is None else args.created
    sig = signature_packet(body, n, d, fpr, created, args.expires, not args.no_issuer_fpr)
    info = struct.pack(">BBBBB3xI", algo, hash_algo, id_type, signer_len, key_id_len, len(sig))
    with open(args.out, "wb") as f:
        f.write(body + names + sig + info + MAGIC)


if __name__ == "__main__":
    main()
