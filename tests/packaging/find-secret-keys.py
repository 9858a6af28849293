#!/usr/bin/env python3
"""Report secret key material in files: OpenPGP secret key and secret subkey
packets (tags 5 and 7, old and new header formats) found anywhere in the
bytes, ASCII-armored OpenPGP private key blocks, PEM private keys and
gpg-agent private key files.  Members of .tar, .gz and .xz files are
searched too.  One line per finding, "PATH[:MEMBER]: offset N: what";
exit status 1 when anything is found, 0 when nothing is.

A packet counts only when its whole structure holds up (a length no real
key exceeds, version 4, a known public-key algorithm, well-formed MPIs that
end exactly where the secret part begins, a valid S2K usage octet and, for
an unprotected key, secret MPIs and a checksum that end exactly at the end
of the packet): random bytes in a module, a vmlinux.o or a compressed image
do not pass that.

usage: find-secret-keys.py FILE-OR-DIR...
"""
import gzip
import io
import lzma
import os
import re
import sys
import tarfile

TEXT_PATTERNS = [
    # The markers are split in two so that this file is not itself a hit
    # for scanners (this one included) looking for committed key blocks.
    (re.compile(rb"-----BEGIN PGP PRIVATE" rb" KEY BLOCK-----"), "armored OpenPGP private key"),
    (re.compile(rb"-----BEGIN [A-Z0-9 ]*PRIVATE" rb" KEY-----"), "PEM private key"),
    (re.compile(rb"\((?:11:private-key|21:protected-private-key|20:shadowed-private-key)"),
     "gpg-agent private key (canonical S-expression)"),
    (re.compile(rb"^Key: \((?:private-key|protected-private-key)", re.M),
     "gpg-agent private key (extended format)"),
]

PK_RSA = (1, 2, 3)
PK_ELGAMAL = 16
PK_DSA = 17
PK_ECDH = 18
PK_EC = (19, 22)

# RSA-16384, the largest key GnuPG makes, has about 7.2 KiB of secret
# key packet; anything much longer is a misparse of unrelated bytes.
MAX_KEY_PACKET = 10240


def mpi(b, i):
    """Offset after a well-formed MPI at b[i], or None."""
    if i + 2 > len(b):
        return None
    bits = b[i] << 8 | b[i + 1]
    if bits == 0 or bits > 16384:
        return None
    n = (bits + 7) // 8
    if i + 2 + n > len(b):
        return None
    if b[i + 2].bit_length() != (bits - 1) % 8 + 1:
        return None
    return i + 2 + n


# The longest curve OID RFC 9580 names (Curve25519 for ECDH) has 10
# octets; a longer "OID" is unrelated bytes (vmlinux has tables that
# otherwise pass for an ECDSA key packet).
MAX_CURVE_OID = 10


def oid(b, i):
    if i >= len(b) or not 1 <= b[i] <= MAX_CURVE_OID or i + 1 + b[i] > len(b):
        return None
    return i + 1 + b[i]


def public_part_end(body):
    """Offset in BODY (a key packet body) where the public part ends."""
    if len(body) < 6 or body[0] != 4:
        return None
    algo = body[5]
    i = 6
    if algo in PK_RSA:
        count = 2
    elif algo == PK_DSA:
        count = 4
    elif algo == PK_ELGAMAL:
        count = 3
    elif algo in PK_EC or algo == PK_ECDH:
        i = oid(body, i)
        count = 1
    else:
        return None
    for _ in range(count):
        if i is None:
            return None
        i = mpi(body, i)
    if i is None:
        return None
    if algo == PK_ECDH:
        # KDF parameters: length 3, reserved 1, hash, cipher.
        if i + 4 > len(body) or body[i] != 3 or body[i + 1] != 1:
            return None
        i += 4
    return i


def secret_part_ok(body, i):
    """Does BODY[i:] look like the secret part of a v4 secret key packet?"""
    if i >= len(body):
        return False
    usage = body[i]
    rest = len(body) - i - 1
    if usage == 0:
        # Unprotected: secret MPIs, then a 16-bit sum of their octets.
        j = i + 1
        while j is not None and j < len(body) - 2:
            j = mpi(body, j)
        if j != len(body) - 2 or j == i + 1:
            return False
        return sum(body[i + 1:j]) & 0xFFFF == int.from_bytes(body[j:], "big")
    if usage in (254, 255):
        # cipher, S2K type (0 simple, 1 salted, 3 iterated, 101 GNU)
        return rest >= 2 and 1 <= body[i + 1] <= 13 and body[i + 2] in (0, 1, 3, 101)
    return 1 <= usage <= 13 and rest >= 8


def packet_at(b, off):
    """(tag, header length, body length) of a tag 5/7 packet header at off."""
    c = b[off]
    if c & 0xC0 == 0x80:  # old format
        tag = (c >> 2) & 0x0F
        if tag not in (5, 7):
            return None
        lt = c & 3
        if lt == 3 or off + 1 + (1, 2, 4)[lt] > len(b):
            return None
        n = (1, 2, 4)[lt]
        length = int.from_bytes(b[off + 1:off + 1 + n], "big")
        return tag, 1 + n, length
    if c in (0xC5, 0xC7):  # new format
        tag = c & 0x3F
        if off + 2 > len(b):
            return None
        o = b[off + 1]
        if o < 192:
            return tag, 2, o
        if o < 224:
            if off + 3 > len(b):
                return None
            return tag, 3, ((o - 192) << 8) + b[off + 2] + 192
        if o == 255 and off + 6 <= len(b):
            return tag, 6, int.from_bytes(b[off + 2:off + 6], "big")
    return None


def scan_bytes(b):
    found = []
    # Candidate header octets: old format tag 5 (0x94-0x96), tag 7
    # (0x9C-0x9E), new format 0xC5, 0xC7, followed by version 4 soon after.
    for m in re.finditer(rb"[\x94-\x96\x9c-\x9e\xc5\xc7]", b):
        off = m.start()
        p = packet_at(b, off)
        if p is None:
            continue
        tag, hlen, length = p
        start = off + hlen
        if length < 10 or length > MAX_KEY_PACKET or start + length > len(b) or b[start] != 4:
            continue
        body = b[start:start + length]
        i = public_part_end(body)
        if i is not None and secret_part_ok(body, i):
            kind = "secret key" if tag == 5 else "secret subkey"
            fmt = "new" if b[off] & 0x40 else "old"
            found.append((off, f"OpenPGP {kind} packet (tag {tag}, {fmt} format, algo {body[5]})"))
    for pattern, what in TEXT_PATTERNS:
        for m in pattern.finditer(b):
            found.append((m.start(), what))
    return found


def members(name, data, depth=0):
    """(name, bytes) of DATA and of whatever it contains."""
    yield name, data
    if depth > 3:
        return
    try:
        if data[:2] == b"\x1f\x8b":
            yield from members(name + ":gunzip", gzip.decompress(data), depth + 1)
        elif data[:6] == b"\xfd7zXZ\x00":
            yield from members(name + ":unxz", lzma.decompress(data), depth + 1)
        elif len(data) > 262 and data[257:262] == b"ustar":
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                for info in tar:
                    if info.isfile():
                        f = tar.extractfile(info)
                        if f is not None:
                            yield from members(f"{name}:{info.name}", f.read(), depth + 1)
    except (OSError, EOFError, lzma.LZMAError, tarfile.TarError):
        pass


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                for n in sorted(names):
                    f = os.path.join(root, n)
                    if os.path.isfile(f) and not os.path.islink(f):
                        yield f
        else:
            yield p


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    hits = 0
    scanned = 0
    for path in files(sys.argv[1:]):
        with open(path, "rb") as f:
            data = f.read()
        for name, b in members(path, data):
            scanned += 1
            for off, what in scan_bytes(b):
                print(f"{name}: offset {off}: {what}")
                hits += 1
    print(f"# {scanned} files and members scanned, {hits} findings", file=sys.stderr)
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
