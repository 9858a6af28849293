#!/usr/bin/python3
"""Explain every difference between two unpacked kernel packages.

    repro-diff.py EXTRACT-VMLINUX DIR-A DIR-B [KEYRING-A KEYRING-B]

DIR-A and DIR-B are the same package of two builds, unpacked (a deb's
control area in DEBIAN/).  KEYRING-A and KEYRING-B are the two builds'
public keyrings, the ones built into their kernels; without them, the
keyring each package ships is taken (a debug package ships none).
Every path of either is classed, one line each:

    same       PATH   byte-identical
    signature  PATH   a module whose signature differs, and nothing else:
                      the bodies before the signature trailers are identical
    keyring    PATH   a copy of each build's public keyring: the shipped one
                      (modsign-pubkeys.gpg), the headers' certs/pgp_pubkeys.gpg
    built-in   PATH   vmlinuz (decompressed) or a debug package's vmlinux:
                      the kernels are identical but for the built-in public
                      keyring, which is each build's keyring, at the same
                      place and of the same size, and the kernel's build-id,
                      a hash over all of it
    build-id   PATH-A PATH-B
                      a debug package's link named by a build-id, to a file
                      classed built-in: each build's link has that kernel's id
    checksums  PATH   a deb's DEBIAN/md5sums, differing only on the lines of
                      files classed above as signature, keyring or built-in
    DIFFERS    PATH   anything else, with the reason

The exit status is 0 when there is no DIFFERS line, 1 otherwise, 2 on
bad usage.  The last line counts each class.
"""
import os
import struct
import subprocess
import sys

MAGIC = b"~Module signature appended~\n"
SIGINFO = struct.Struct(">BBBBB3xI")  # struct module_signature
KEYRING = "modsign-pubkeys.gpg"
KEYRING_COPIES = (KEYRING, "pgp_pubkeys.gpg")


def files_under(top):
    found = set()
    for root, _dirs, names in os.walk(top):
        for name in names:
            found.add(os.path.relpath(os.path.join(root, name), top))
    return found


def read(path):
    with open(path, "rb") as f:
        return f.read()


def module_body(data):
    """The module without its signature trailer, or None if it has none."""
    if not data.endswith(MAGIC) or len(data) < len(MAGIC) + SIGINFO.size:
        return None
    end = len(data) - len(MAGIC)
    fields = SIGINFO.unpack_from(data, end - SIGINFO.size)
    signer_len, key_id_len, sig_len = fields[3], fields[4], fields[5]
    total = SIGINFO.size + signer_len + key_id_len + sig_len
    if total > end:
        return None
    return data[: end - total]


def vmlinux(extract, path):
    out = subprocess.run([extract, path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=False).stdout
    return out if out.startswith(b"\x7fELF") else None


def find_keyring(top):
    for rel in files_under(top):
        if os.path.basename(rel) == KEYRING:
            return read(os.path.join(top, rel))
    return None


# An ELF note: namesz 4, descsz 20 (SHA-1), NT_GNU_BUILD_ID, "GNU"
BUILD_ID_NOTE = struct.pack("<III", 4, 20, 3) + b"GNU\0"


def blank(data, at, size):
    return data[:at] + bytes(size) + data[at + size:]


def explain_kernels(ka, kb, ring_a, ring_b):
    """Two kernel ELF images: the same but for the keyring and build-id?"""
    if ring_a is None or ring_b is None:
        return "DIFFERS", "no keyring to look for in the kernel"
    if len(ka) != len(kb):
        return "DIFFERS", "the kernels differ in size (%d, %d)" % (len(ka), len(kb))
    at_a, at_b = ka.find(ring_a), kb.find(ring_b)
    if at_a < 0 or at_b < 0:
        return "DIFFERS", "a build's keyring is not in its kernel"
    if at_a != at_b or len(ring_a) != len(ring_b):
        return "DIFFERS", "the built-in keyrings differ in place or size"
    ring_at = at_a
    ka, kb = blank(ka, at_a, len(ring_a)), blank(kb, at_b, len(ring_b))
    # every copy of the build-id note (the kernel keeps one in .notes too)
    ids = 0
    at_a, at_b = ka.find(BUILD_ID_NOTE), kb.find(BUILD_ID_NOTE)
    while at_a >= 0 or at_b >= 0:
        if at_a != at_b:
            return "DIFFERS", "the build-id notes are not at the same places"
        at = at_a + len(BUILD_ID_NOTE)
        ka, kb = blank(ka, at, 20), blank(kb, at, 20)
        ids += 1
        at_a, at_b = ka.find(BUILD_ID_NOTE, at), kb.find(BUILD_ID_NOTE, at)
    if ka != kb:
        return "DIFFERS", "the kernels differ outside the built-in keyring and the build-id"
    return "built-in", "keyring of %d bytes at offset %d, and %d build-id notes" % (
        len(ring_a), ring_at, ids)


def explain_vmlinuz(extract, a, b, ring_a, ring_b):
    ka, kb = vmlinux(extract, a), vmlinux(extract, b)
    if ka is None or kb is None:
        return "DIFFERS", "the kernel image could not be decompressed"
    return explain_kernels(ka, kb, ring_a, ring_b)


def link_target(top, rel):
    """Where the link at REL points, relative to TOP."""
    return os.path.normpath(os.path.join(os.path.dirname(rel),
                                         os.readlink(os.path.join(top, rel))))


def pair_build_id_links(top_a, top_b, only_a, only_b, built_in):
    """Pairs of build-id links, one only in each tree, that point to the
    same file classed built-in and differ only in the build-id they name
    (the suffix after it, .debug or .N.debug, is the same)."""
    def links(top, only):
        found = {}
        for rel in only:
            if "/.build-id/" not in "/" + rel or not os.path.islink(os.path.join(top, rel)):
                continue
            target = link_target(top, rel)
            if target not in built_in:
                continue
            name = os.path.basename(rel)
            suffix = name[38:] if len(name) >= 38 else None
            found.setdefault((target, suffix), []).append(rel)
        return found
    la, lb = links(top_a, only_a), links(top_b, only_b)
    pairs = []
    for key in sorted(set(la) & set(lb)):
        if len(la[key]) == 1 and len(lb[key]) == 1:
            pairs.append((la[key][0], lb[key][0]))
    return pairs


def explain_md5sums(a, b, explained):
    la, lb = read(a).decode().splitlines(), read(b).decode().splitlines()
    if len(la) != len(lb):
        return "DIFFERS", "different files listed"
    for x, y in zip(la, lb):
        if x == y:
            continue
        name = x.split(None, 1)[-1]
        if name != y.split(None, 1)[-1] or name not in explained:
            return "DIFFERS", "the checksum of %s differs" % name
    return "checksums", "only for files explained above"


def main():
    if len(sys.argv) not in (4, 6):
        print("usage: repro-diff.py EXTRACT-VMLINUX DIR-A DIR-B [KEYRING-A KEYRING-B]",
              file=sys.stderr)
        return 2
    extract, top_a, top_b = sys.argv[1:4]
    fa, fb = files_under(top_a), files_under(top_b)
    if len(sys.argv) == 6:
        ring_a, ring_b = read(sys.argv[4]), read(sys.argv[5])
    else:
        ring_a, ring_b = find_keyring(top_a), find_keyring(top_b)
    counts = {}
    explained = set()
    later = []
    only_a, only_b = fa - fb, fb - fa
    for rel in sorted(fa | fb):
        a, b = os.path.join(top_a, rel), os.path.join(top_b, rel)
        if rel in only_a or rel in only_b:
            later.append(rel)
            continue
        elif os.path.islink(a) or os.path.islink(b):
            same = os.path.islink(a) and os.path.islink(b) and os.readlink(a) == os.readlink(b)
            cls, why = ("same", "") if same else ("DIFFERS", "symbolic links differ")
        elif read(a) == read(b):
            cls, why = "same", ""
        elif rel == "DEBIAN/md5sums":
            later.append(rel)
            continue
        elif os.path.basename(rel) in KEYRING_COPIES:
            if ring_a is not None and read(a) == ring_a and read(b) == ring_b:
                cls, why = "keyring", "each build's own public key"
            else:
                cls, why = "DIFFERS", "not each build's own keyring"
        elif rel.endswith(".ko"):
            ba, bb = module_body(read(a)), module_body(read(b))
            if ba is None or bb is None:
                cls, why = "DIFFERS", "a module without a signature trailer"
            elif ba != bb:
                cls, why = "DIFFERS", "the module bodies differ"
            else:
                cls, why = "signature", ""
        elif os.path.basename(rel).startswith("vmlinuz-"):
            cls, why = explain_vmlinuz(extract, a, b, ring_a, ring_b)
        elif os.path.basename(rel) == "vmlinux" and read(a)[:4] == b"\x7fELF":
            cls, why = explain_kernels(read(a), read(b), ring_a, ring_b)
        else:
            cls, why = "DIFFERS", "contents differ"
        if cls in ("signature", "keyring", "built-in"):
            explained.add(rel)
        counts[cls] = counts.get(cls, 0) + 1
        print("%-10s %s%s" % (cls, rel, ": " + why if why else ""))
    built_in = {rel for rel in explained if os.path.basename(rel) == "vmlinux"}
    paired = set()
    for rel_a, rel_b in pair_build_id_links(top_a, top_b, only_a, only_b, built_in):
        paired.update((rel_a, rel_b))
        counts["build-id"] = counts.get("build-id", 0) + 1
        print("%-10s %s %s: a link to %s named by each build's id" % (
            "build-id", rel_a, rel_b, link_target(top_a, rel_a)))
    for rel in later:
        if rel in paired:
            continue
        if rel in only_a or rel in only_b:
            cls, why = "DIFFERS", "only in " + (top_a if rel in only_a else top_b)
        else:
            cls, why = explain_md5sums(os.path.join(top_a, rel), os.path.join(top_b, rel),
                                       explained)
        counts[cls] = counts.get(cls, 0) + 1
        print("%-10s %s: %s" % (cls, rel, why))
    print(" ".join("%s=%d" % (k, counts[k]) for k in sorted(counts)))
    return 1 if "DIFFERS" in counts else 0


if __name__ == "__main__":
    sys.exit(main())
