#!/usr/bin/env python3
"""Re-sign a module with a signature packet made here, with the choices
pgp-sign never makes, so that the kernel's handling of signatures from
other OpenPGP implementations can be tried:

  --no-issuer-fpr     name the issuer by its 8-byte key ID only (an issuer
                      key ID subpacket in the unhashed area, as PGP 2 to 8
                      and many other tools write), so the kernel must find
                      the key by key ID rather than by fingerprint
  --created EPOCH     signature creation time (default: now)
  --expires SECONDS   a signature expiration time subpacket: the signature
                      stops being valid SECONDS after its creation
  --hash NAME         sha1, sha224, sha256 (default), sha384 or sha512: the
                      packet's hash algorithm and the trailer's hash field
                      (pgp-sign refuses sha1 and sha224)
  --key HEX           sign with the key or subkey of SECRET-KEY whose
                      fingerprint ends with HEX (a fingerprint or key ID),
                      even one that no binding signature makes a signing
                      key (default: the primary key)

usage: resign-module.py [OPTIONS] MODULE SECRET-KEY OUT

MODULE is a module, signed or not: a signature it carries is dropped, and
the module is signed as pgp-sign does it (module-signing.rst, "Signature format"), signer name the first
user ID of SECRET-KEY (at most 255 octets), key ID that of the signing key.
With the defaults and pgp-sign's creation time, OUT is pgp-sign's output
byte for byte.  SECRET-KEY is an unprotected secret key export.  The
signature is RSA PKCS#1 v1.5, computed here with Python integers,
independently of pgp-sign, OpenSSL and gpg.  The module is not otherwise
checked: that is the kernel's job in the tests.
"""
import argparse
import hashlib
import struct
import sys
import time

MAGIC = b"~Module signature appended~\n"
SIG_INFO_LEN = 12
PKEY_ID_PGP = 0  # enum pkey_id_type
MODSIG_ALGO_RSA = 1  # struct module_signature algo
PGP_PUBKEY_RSA = 1
SIGNER_MAX = 255  # MODSIG_SIGNER_MAX
# name: (OpenPGP number, the kernel's number (trailer), PKCS#1 DigestInfo)
HASHES = {
    "sha1": (2, 2, "3021300906052b0e03021a05000414"),
    "sha224": (11, 7, "302d300d06096086480165030402040500041c"),
    "sha256": (8, 4, "3031300d060960864801650304020105000420"),
    "sha384": (9, 5, "3041300d060960864801650304020205000430"),
    "sha512": (10, 6, "3051300d060960864801650304020305000440"),
}


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


def secret_key(path, want):
    """(n, d, fingerprint, signer name) of the secret key or subkey of an
    export whose fingerprint ends with WANT (bytes), or of its primary
    key; the signer name is the first user ID, as pgp-sign takes it."""
    with open(path, "rb") as f:
        data = f.read()
    found, uid = None, None
    for tag, body in packets(data, path):
        if tag == 13 and uid is None:
            uid = body
        if tag not in (5, 7):
            continue
        if body[0] != 4 or body[5] != PGP_PUBKEY_RSA:
            if found is None and want is None:
                die(f"{path}: primary key is not a v4 RSA key")
            continue
        n, off = mpi(body, 6, path)
        _, off = mpi(body, off, path)
        public = body[:off]
        fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(public)) + public).digest()
        if found is not None or (want is not None and not fpr.endswith(want)):
            continue
        if body[off] != 0:
            die(f"{path}: secret key is protected (S2K usage {body[off]})")
        d, _ = mpi(body, off + 1, path)
        found = (n, d, fpr)
    if found is None:
        die(f"{path}: no secret key" + (f" {want.hex()}" if want else ""))
    name = uid or b""
    if len(name) > SIGNER_MAX:
        cut = SIGNER_MAX
        while cut and name[cut] & 0xC0 == 0x80:
            cut -= 1
        name = name[:cut]
    return found + (name,)


def subpacket(kind, payload):
    # All of ours are shorter than 192 bytes: one-octet lengths.
    return bytes([len(payload) + 1, kind]) + payload


def signature_packet(body, n, d, fpr, created, expires, with_fpr, hash_name):
    hashed = subpacket(2, struct.pack(">I", created))
    if expires is not None:
        hashed += subpacket(3, struct.pack(">I", expires))
    if with_fpr:
        hashed += subpacket(33, b"\x04" + fpr)
    unhashed = subpacket(16, fpr[-8:])
    pgp_hash, _, digest_info = HASHES[hash_name]
    head = bytes([4, 0x00, PGP_PUBKEY_RSA, pgp_hash])
    head += struct.pack(">H", len(hashed)) + hashed
    digest = hashlib.new(hash_name, body + head + b"\x04\xff" + struct.pack(">I", len(head))).digest()
    k = (n.bit_length() + 7) // 8
    t = bytes.fromhex(digest_info) + digest
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
    ap.add_argument("--hash", choices=sorted(HASHES), default="sha256")
    ap.add_argument("--key", type=str)
    ap.add_argument("module")
    ap.add_argument("seckey")
    ap.add_argument("out")
    args = ap.parse_args()

    want = None
    if args.key is not None:
        try:
            want = bytes.fromhex(args.key.removeprefix("0x").removeprefix("0X").replace(" ", ""))
        except ValueError:
            die(f"--key {args.key}: not a fingerprint or key ID")
        if len(want) not in (8, 20):
            die(f"--key {args.key}: not a fingerprint or key ID")

    with open(args.module, "rb") as f:
        data = f.read()
    body = data
    if data.endswith(MAGIC):
        if len(data) < len(MAGIC) + SIG_INFO_LEN:
            die(f"{args.module}: trailer too short")
        info_at = len(data) - len(MAGIC) - SIG_INFO_LEN
        _, _, _, signer_len, key_id_len, sig_len = struct.unpack(
            ">BBBBB3xI", data[info_at:info_at + SIG_INFO_LEN])
        framing = signer_len + key_id_len + sig_len
        if framing > info_at:
            die(f"{args.module}: trailer claims more bytes than the file has")
        body = data[:info_at - framing]

    n, d, fpr, name = secret_key(args.seckey, want)
    created = int(time.time()) if args.created is None else args.created
    sig = signature_packet(body, n, d, fpr, created, args.expires, not args.no_issuer_fpr,
                           args.hash)
    info = struct.pack(">BBBBB3xI", MODSIG_ALGO_RSA, HASHES[args.hash][1], PKEY_ID_PGP,
                       len(name), 8, len(sig))
    with open(args.out, "wb") as f:
        f.write(body + name + fpr[-8:] + sig + info + MAGIC)


if __name__ == "__main__":
    main()
