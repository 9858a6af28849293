#!/usr/bin/env python3
"""Make OpenPGP certificates that gpg will not make, from keys gpg made,
for the tests of the kernel's trust rules (Documentation/admin-guide/module-signing.rst,
tests/testkeys.sh).  Signatures are RSA PKCS#1 v1.5 computed here with
Python integers from the unprotected secret key export (no OpenSSL, no
gpg), so a self-signature can be changed and still verify.

usage: craft-key.py OPERATION [ARGS...]

  keyids PUB                 print the 16-hex-digit key ID of each key
                             and subkey packet of PUB, in order
  unbound PUB SEC DPUB DSEC OUTPUB OUTSEC
                             append DPUB's primary key to PUB as a subkey
                             packet with no binding signature, and DSEC's
                             secret primary key to SEC as a secret subkey
  nobacksig PUB SEC OUTPUB   re-sign the first subkey binding (0x18) of
                             PUB with SEC's primary key, without its
                             embedded primary-key binding (0x19)
  critself PUB SEC OUTPUB    add to the first user ID a second, newer
                             self-signature (0x13) that verifies but has an
                             unknown critical hashed subpacket (type 100)
  eddsaself PUB OUTPUB       add to the first user ID a second, newer
                             self-signature with public-key algorithm 22
                             (EdDSA, junk values) and the primary as issuer
  badselfsig PUB OUTPUB      damage the RSA value of every self-signature
                             on the user IDs (its low byte)
  forgedrev PUB SEC OUTPUB   put a key revocation (0x20) right after the
                             primary key packet, signed by SEC's primary
                             key and then damaged in its RSA value's low byte

PUB and SEC are binary exports of one key (gpg --export and
--export-secret-keys, unprotected).  Unchanged packets are copied byte for
byte; new and changed ones get new-format headers.
"""
import hashlib
import os
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import modsig  # noqa: E402  (the tests' trailer and packet toolkit)
from modsig import mpi_bytes  # noqa: E402

PUBKEY_RSA = (1, 3)
# OpenPGP hash number: hashlib name
HASH_NAMES = {number: name for name, (number, _, _) in modsig.HASHES.items()}
T_SIG, T_SECKEY, T_PUBKEY, T_SECSUB, T_UID, T_PUBSUB = 2, 5, 6, 7, 13, 14


def die(msg):
    print(f"craft-key: {msg}", file=sys.stderr)
    sys.exit(1)


class Packet:
    def __init__(self, tag, body, raw=None):
        self.tag, self.body, self.raw = tag, body, raw

    def encode(self):
        if self.raw is not None:
            return self.raw
        return modsig.new_packet_header(self.tag, len(self.body)) + self.body


def read_packets(path):
    with open(path, "rb") as f:
        data = f.read()
    out, off = [], 0
    while off < len(data):
        tag, hlen, length = modsig.packet_header(data, off, path)
        end = off + hlen + length
        if end > len(data):
            die(f"{path}: offset {off}: packet runs past the end")
        out.append(Packet(tag, data[off + hlen:end], data[off:end]))
        off = end
    return out


def write_packets(path, pkts):
    with open(path, "wb") as f:
        f.write(b"".join(p.encode() for p in pkts))


def mpi(data, off):
    return modsig.mpi(data, off, "key packet")


def public_part(body):
    """The public key body of a v4 RSA key or secret key packet, and n."""
    if body[0] != 4 or body[5] not in PUBKEY_RSA:
        die("not a v4 RSA key packet")
    n, off = mpi(body, 6)
    _, off = mpi(body, off)
    return body[:off], n


def fingerprint(body):
    return modsig.fingerprint(public_part(body)[0])


class SecretKey:
    def __init__(self, body):
        self.public, self.n = public_part(body)
        off = len(self.public)
        if body[off] != 0:
            die(f"secret key is protected (S2K usage {body[off]})")
        self.d, _ = mpi(body, off + 1)
        self.fpr = fingerprint(body)


def secret_keys(path):
    return [SecretKey(p.body) for p in read_packets(path) if p.tag in (T_SECKEY, T_SECSUB)]


def rsa_sign(key, hash_algo, data):
    name = HASH_NAMES[hash_algo]
    digest = hashlib.new(name, data).digest()
    return digest, modsig.rsa_sign(key.n, key.d, name, digest)


def subpackets(area):
    """(type byte with the critical bit, payload) for each subpacket."""
    out, off = [], 0
    while off < len(area):
        first = area[off]
        if first < 192:
            length, hlen = first, 1
        elif first < 255:
            length, hlen = ((first - 192) << 8) + area[off + 1] + 192, 2
        else:
            length, hlen = struct.unpack(">I", area[off + 1:off + 5])[0], 5
        out.append((area[off + hlen], area[off + hlen + 1:off + hlen + length]))
        off += hlen + length
    return out


def subpacket_bytes(items):
    out = b""
    for kind, payload in items:
        n = len(payload) + 1
        if n < 192:
            out += bytes([n])
        elif n < 8384:
            out += bytes([((n - 192) >> 8) + 192, (n - 192) & 0xFF])
        else:
            out += b"\xff" + struct.pack(">I", n)
        out += bytes([kind]) + payload
    return out


class Sig:
    """A v4 signature packet body taken apart."""

    def __init__(self, body):
        if body[0] != 4:
            die(f"signature version {body[0]}, only v4 is handled")
        self.type, self.pk_algo, self.hash_algo = body[1], body[2], body[3]
        hlen = struct.unpack(">H", body[4:6])[0]
        self.hashed = subpackets(body[6:6 + hlen])
        off = 6 + hlen
        ulen = struct.unpack(">H", body[off:off + 2])[0]
        self.unhashed = subpackets(body[off + 2:off + 2 + ulen])
        self.rest = body[off + 2 + ulen:]  # left16 and the MPIs

    def created(self):
        for kind, payload in self.hashed:
            if kind & 0x7F == 2:
                return struct.unpack(">I", payload)[0]
        die("signature without a hashed creation time")

    def head(self):
        hashed = subpacket_bytes(self.hashed)
        return bytes([4, self.type, self.pk_algo, self.hash_algo]) + \
            struct.pack(">H", len(hashed)) + hashed

    def body(self):
        unhashed = subpacket_bytes(self.unhashed)
        return self.head() + struct.pack(">H", len(unhashed)) + unhashed + self.rest

    def sign(self, key, prefix):
        """Sign over PREFIX (the key/uid framing) with KEY (RSA)."""
        head = self.head()
        digest, s = rsa_sign(key, self.hash_algo,
                             prefix + head + b"\x04\xff" + struct.pack(">I", len(head)))
        self.rest = digest[:2] + mpi_bytes(s)


def key_prefix(body):
    pub, _ = public_part(body)
    return b"\x99" + struct.pack(">H", len(pub)) + pub


def uid_prefix(body):
    return b"\xb4" + struct.pack(">I", len(body)) + body


def set_created(sig, when):
    sig.hashed = [(k, struct.pack(">I", when) if k & 0x7F == 2 else p) for k, p in sig.hashed]


def primary_of(pkts, sec_path):
    primary = pkts[0]
    if primary.tag != T_PUBKEY:
        die("the public key export does not start with a primary key")
    keys = secret_keys(sec_path)
    if not keys or keys[0].fpr != fingerprint(primary.body):
        die(f"{sec_path}: its first key is not the primary key of the certificate")
    return primary, keys[0]


def first_uid_selfsig(pkts):
    """Indexes of the first user ID and of its last self-signature."""
    primary_id = fingerprint(pkts[0].body)[-8:]
    uid = next((i for i, p in enumerate(pkts) if p.tag == T_UID), None)
    if uid is None:
        die("no user ID")
    last = None
    for i in range(uid + 1, len(pkts)):
        if pkts[i].tag != T_SIG:
            break
        sig = Sig(pkts[i].body)
        issuers = [p[-8:] for k, p in sig.hashed + sig.unhashed if k & 0x7F in (16, 33)]
        if 0x10 <= sig.type <= 0x13 and all(x == primary_id for x in issuers):
            last = i
    if last is None:
        die("no self-signature on the first user ID")
    return uid, last


def op_keyids(pub):
    for p in read_packets(pub):
        if p.tag in (T_PUBKEY, T_PUBSUB, T_SECKEY, T_SECSUB):
            print(fingerprint(p.body)[-8:].hex())


def op_unbound(pub, sec, dpub, dsec, outpub, outsec):
    donor_pub = read_packets(dpub)[0]
    donor_sec = read_packets(dsec)[0]
    if donor_pub.tag != T_PUBKEY or donor_sec.tag != T_SECKEY:
        die("the donor exports do not start with a primary key")
    write_packets(outpub, read_packets(pub) + [Packet(T_PUBSUB, donor_pub.body)])
    write_packets(outsec, read_packets(sec) + [Packet(T_SECSUB, donor_sec.body)])


def op_nobacksig(pub, sec, outpub):
    pkts = read_packets(pub)
    primary, key = primary_of(pkts, sec)
    sub = next((i for i, p in enumerate(pkts) if p.tag == T_PUBSUB), None)
    if sub is None:
        die("no subkey")
    i = sub + 1
    if i >= len(pkts) or pkts[i].tag != T_SIG or Sig(pkts[i].body).type != 0x18:
        die("the first subkey is not followed by its binding signature")
    sig = Sig(pkts[i].body)
    sig.hashed = [(k, p) for k, p in sig.hashed if k & 0x7F != 32]
    sig.unhashed = [(k, p) for k, p in sig.unhashed if k & 0x7F != 32]
    sig.sign(key, key_prefix(primary.body) + key_prefix(pkts[sub].body))
    pkts[i] = Packet(T_SIG, sig.body())
    write_packets(outpub, pkts)


def op_critself(pub, sec, outpub):
    pkts = read_packets(pub)
    primary, key = primary_of(pkts, sec)
    uid, last = first_uid_selfsig(pkts)
    sig = Sig(pkts[last].body)
    set_created(sig, sig.created() + 1)
    sig.hashed.append((100 | 0x80, b"modsign test: must be understood"))
    sig.sign(key, key_prefix(primary.body) + uid_prefix(pkts[uid].body))
    pkts.insert(last + 1, Packet(T_SIG, sig.body()))
    write_packets(outpub, pkts)


def op_eddsaself(pub, outpub):
    pkts = read_packets(pub)
    uid, last = first_uid_selfsig(pkts)
    sig = Sig(pkts[last].body)
    set_created(sig, sig.created() + 1)
    sig.pk_algo = 22
    # left16, then EdDSA's r and s: 256-bit junk (nothing can verify it)
    junk = hashlib.sha512(b"modsign eddsaself").digest()
    sig.rest = junk[:2] + mpi_bytes(int.from_bytes(junk[:32], "big") | 1 << 255) + \
        mpi_bytes(int.from_bytes(junk[32:], "big") | 1 << 255)
    pkts.insert(last + 1, Packet(T_SIG, sig.body()))
    write_packets(outpub, pkts)


def damage_rsa(sig):
    """Invert the low byte of the RSA value; left16 stays as it was."""
    s, end = mpi(sig.rest, 2)
    if end != len(sig.rest):
        die("signature has more than one MPI")
    sig.rest = sig.rest[:2] + mpi_bytes(s ^ 0xFF)


def op_badselfsig(pub, outpub):
    pkts = read_packets(pub)
    n = 0
    where = None
    for i, p in enumerate(pkts):
        if p.tag in (T_UID, T_PUBSUB):
            where = p.tag
        elif p.tag == T_SIG and where == T_UID and 0x10 <= Sig(p.body).type <= 0x13:
            sig = Sig(p.body)
            damage_rsa(sig)
            pkts[i] = Packet(T_SIG, sig.body())
            n += 1
    if not n:
        die("no self-signature to damage")
    write_packets(outpub, pkts)


def op_forgedrev(pub, sec, outpub):
    pkts = read_packets(pub)
    primary, key = primary_of(pkts, sec)
    _, last = first_uid_selfsig(pkts)
    created = Sig(pkts[last].body).created() + 1
    sig = Sig(bytes([4, 0x20, 1, 8, 0, 0, 0, 0]))
    sig.hashed = [(33, b"\x04" + key.fpr), (2, struct.pack(">I", created)),
                  (29, b"\x02" + b"modsign test: forged")]  # reason: compromised
    sig.unhashed = [(16, key.fpr[-8:])]
    sig.sign(key, key_prefix(primary.body))
    damage_rsa(sig)
    pkts.insert(1, Packet(T_SIG, sig.body()))
    write_packets(outpub, pkts)


OPS = {
    "keyids": (op_keyids, 1),
    "unbound": (op_unbound, 6),
    "nobacksig": (op_nobacksig, 3),
    "critself": (op_critself, 3),
    "eddsaself": (op_eddsaself, 2),
    "badselfsig": (op_badselfsig, 2),
    "forgedrev": (op_forgedrev, 3),
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in OPS or len(sys.argv) - 2 != OPS[sys.argv[1]][1]:
        print(__doc__[__doc__.index("usage:"):], file=sys.stderr)
        sys.exit(2)
    OPS[sys.argv[1]][0](*sys.argv[2:])


if __name__ == "__main__":
    try:
        main()
    except modsig.Error as e:
        die(str(e))
