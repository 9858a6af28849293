#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn gpg-made keys and signatures into fuzzing seeds.  gpg writes old-
format packet headers; the kernel must read both formats, so every seed
is also rewritten with new-format headers of each length form.

  pgpseed.py newfmt IN OUT FORM     headers -> new format; FORM 1, 2 or 5
                                    (octets of length; 1 falls back to 2
                                    and 2 to 5 where the length needs it)
  pgpseed.py payloads IN PREFIX     the key payloads pgp_split_keyring()
                                    would make of a one-key keyring:
                                    PREFIX-0.pgp the primary's, PREFIX-N.pgp
                                    the Nth subkey's
  pgpseed.py module KEYRING BODY SIG SIGNER OUT
                                    an input of the modsig target: be16
                                    keyring length, keyring, then BODY
                                    signed per module-signing.rst with SIG
  pgpseed.py trailer BODY SIG SIGNER OUT
                                    BODY with the trailer of module-signing.rst only
"""
import os
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
import modsig  # noqa: E402  (the tests' trailer and packet toolkit)

T_SIG, T_PUBKEY, T_PUBSUB = 2, 6, 14
SUBPKT_ISSUER, SUBPKT_ISSUER_FPR = 16, 33
# OpenPGP hash number: the kernel's (the trailer's hash field)
KERNEL_HASH = {pgp: kernel for pgp, kernel, _ in modsig.HASHES.values()}


def slurp(path):
    with open(path, "rb") as f:
        return f.read()


def packets(data, path):
    return list(modsig.packets(data, path))


def newhdr(tag, length, form):
    # The two-octet form only encodes 192..8383.
    if form == 1 and length >= 192:
        form = 2
    if form == 2 and length < 192:
        form = 1
    if form == 2 and length >= 8384:
        form = 5
    if form == 1:
        return bytes([0xC0 | tag, length])
    if form == 2:
        v = length - 192
        return bytes([0xC0 | tag, (v >> 8) + 192, v & 0xFF])
    return bytes([0xC0 | tag, 255]) + struct.pack(">I", length)


def oldhdr(tag, length):
    if tag > 15:
        raise modsig.Error(f"tag {tag} has no old-format header")
    if length < 256:
        return bytes([0x80 | tag << 2, length])
    if length < 65536:
        return bytes([0x81 | tag << 2]) + struct.pack(">H", length)
    return bytes([0x82 | tag << 2]) + struct.pack(">I", length)


def subpackets(area):
    o = 0
    while o < len(area):
        n = area[o]
        if n < 192:
            o += 1
        elif n < 255:
            n = ((n - 192) << 8) + area[o + 1] + 192
            o += 2
        else:
            n = struct.unpack(">I", area[o + 1:o + 5])[0]
            o += 5
        yield area[o] & 0x7F, area[o + 1:o + n]
        o += n


def sig_issuer(b):
    """Key ID of a v4 signature's issuer (fingerprint subpacket first, as
    the kernel) and its hash algorithm"""
    version, _, _, hash_algo, hl = struct.unpack(">BBBBH", b[:6])
    if version != 4:
        raise modsig.Error("not a v4 signature")
    ul = struct.unpack(">H", b[6 + hl:8 + hl])[0]
    fpr = kid = None
    for area in (b[6:6 + hl], b[8 + hl:8 + hl + ul]):
        for kind, value in subpackets(area):
            if kind == SUBPKT_ISSUER_FPR and value[:1] == b"\x04":
                fpr = value[1:21]
            if kind == SUBPKT_ISSUER:
                kid = value
    return (fpr[12:20] if fpr is not None else kid), hash_algo


def trailer(body, sig, signer):
    p = packets(sig, "signature")
    if len(p) != 1 or p[0][0] != T_SIG:
        raise modsig.Error("signature file is not one signature packet")
    kid, hash_algo = sig_issuer(p[0][1])
    if kid is None:
        raise modsig.Error("signature without an issuer")
    if hash_algo not in KERNEL_HASH:
        raise modsig.Error(f"hash {hash_algo} has no kernel id")
    return modsig.Signed(body, signer, kid, sig, algo=modsig.MODSIG_ALGO_RSA,
                         hash=KERNEL_HASH[hash_algo], id_type=modsig.PKEY_ID_PGP).frame()


def payloads(path, prefix):
    # As pgp_split_keyring() cuts them: the primary key section (the
    # primary key up to its first subkey), then for each subkey that
    # section followed by the subkey's own.
    primary, subkeys = b"", []
    for tag, b in packets(slurp(path), path):
        pkt = oldhdr(tag, len(b)) + b
        if tag == T_PUBKEY and primary:
            raise modsig.Error(f"{path}: more than one primary key")
        if tag == T_PUBSUB:
            subkeys.append(pkt)
        elif subkeys:
            subkeys[-1] += pkt
        else:
            primary += pkt
    for n, data in enumerate([primary] + [primary + s for s in subkeys]):
        modsig.write_whole(f"{prefix}-{n}.pgp", data)


def main(argv):
    cmd = argv[0] if argv else ""
    if cmd == "newfmt" and len(argv) == 4:
        src, out, form = argv[1], argv[2], int(argv[3])
        modsig.write_whole(out, b"".join(newhdr(t, len(b), form) + b
                                         for t, b in packets(slurp(src), src)))
    elif cmd == "payloads" and len(argv) == 3:
        payloads(argv[1], argv[2])
    elif cmd == "module" and len(argv) == 6:
        ring, body, sig, signer, out = argv[1:]
        r = slurp(ring)
        if len(r) > 65535:
            raise modsig.Error(f"{ring}: keyring longer than 65535 octets")
        modsig.write_whole(out, struct.pack(">H", len(r)) + r +
                           trailer(slurp(body), slurp(sig), os.fsencode(signer)))
    elif cmd == "trailer" and len(argv) == 5:
        body, sig, signer, out = argv[1:]
        modsig.write_whole(out, trailer(slurp(body), slurp(sig), os.fsencode(signer)))
    else:
        print("usage: pgpseed.py newfmt|payloads|module|trailer ARGS...", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (modsig.Error, OSError) as e:
        print(f"pgpseed: {e}", file=sys.stderr)
        sys.exit(1)
