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
import os
import struct
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import modsig  # noqa: E402  (the tests' trailer and packet toolkit)
from modsig import HASHES, PGP_PUBKEY_RSA, SIGNER_MAX, mpi, mpi_bytes  # noqa: E402


def die(msg):
    print(f"resign-module: {msg}", file=sys.stderr)
    sys.exit(1)


def secret_key(path, want):
    """(n, d, fingerprint, signer name) of the secret key or subkey of an
    export whose fingerprint ends with WANT (bytes), or of its primary
    key; the signer name is the first user ID, as pgp-sign takes it."""
    with open(path, "rb") as f:
        data = f.read()
    found, uid = None, None
    for tag, body in modsig.packets(data, path):
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
        fpr = modsig.fingerprint(public)
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
    pgp_hash = HASHES[hash_name][0]
    head = bytes([4, 0x00, PGP_PUBKEY_RSA, pgp_hash])
    head += struct.pack(">H", len(hashed)) + hashed
    digest = hashlib.new(hash_name, body + head + b"\x04\xff" + struct.pack(">I", len(head))).digest()
    s = modsig.rsa_sign(n, d, hash_name, digest)
    packet = head + struct.pack(">H", len(unhashed)) + unhashed + digest[:2] + mpi_bytes(s)
    if len(packet) >= 8384:
        die("signature packet too long for a two-octet length")
    return modsig.new_packet_header(2, len(packet)) + packet


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
    body = modsig.body_of(data, args.module)

    n, d, fpr, name = secret_key(args.seckey, want)
    created = int(time.time()) if args.created is None else args.created
    sig = signature_packet(body, n, d, fpr, created, args.expires, not args.no_issuer_fpr,
                           args.hash)
    modsig.Signed(body, name, fpr[-8:], sig, algo=modsig.MODSIG_ALGO_RSA,
                  hash=HASHES[args.hash][1], id_type=modsig.PKEY_ID_PGP).write(args.out)


if __name__ == "__main__":
    try:
        main()
    except (modsig.Error, OSError) as e:
        die(str(e))
