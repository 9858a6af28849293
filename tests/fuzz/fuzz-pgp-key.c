// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the kernel's OpenPGP key parsing, compiled from the
 * kernel tree unchanged (pgp_library.c, pgp_key_payload.c, lib/crypto/sha1.c)
 * against the userspace shim in shim/.
 *
 * Each input is handed to the two entry points that see untrusted key
 * bytes in the kernel: pgp_parse_key_payload() (add_key(2) of an
 * "asymmetric" key, i.e. any user with a keyring) followed by what
 * pgp_key_preparse() does with the result, and pgp_split_keyring() (the
 * built-in keyring at boot) with the payload reassembly of pgp_preload.c.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pgp_parser.h"
#include "fuzz-common.h"

/* Octets of a DER tag-length-value with LEN octets of contents */
static size_t der_tlv_len(size_t len)
{
	return 1 + (len < 0x80 ? 1 : len < 0x100 ? 2 : 3) + len;
}

/* What pgp_key_preparse() does with a payload, minus the key subsystem. */
static int preparse(const u8 *data, size_t len, u8 key_id[PGP_KEY_ID_SIZE])
{
	struct pgp_key_payload p;
	size_t derlen, i, want;
	char *desc;
	u8 *der;
	int ret;

	ret = pgp_parse_key_payload(data, len, &p);
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG || ret == -ENOPKG ||
		   ret == -EKEYREJECTED,
		   "pgp_parse_key_payload returned %d", ret);
	if (ret < 0)
		return ret;
	memcpy(key_id, p.key.key_id, PGP_KEY_ID_SIZE);

	/* Accepted: the documented guarantees must hold. */
	FUZZ_CHECK(p.key.version == 4, "accepted key version %u", p.key.version);
	FUZZ_CHECK(p.key.rsa_n_bits >= PGP_RSA_MIN_BITS &&
		   p.key.rsa_n_bits <= PGP_RSA_MAX_BITS,
		   "accepted %u-bit RSA key", p.key.rsa_n_bits);
	FUZZ_CHECK(p.key.rsa_n_len == (p.key.rsa_n_bits + 7) / 8,
		   "modulus length %zu for %u bits", p.key.rsa_n_len,
		   p.key.rsa_n_bits);
	FUZZ_CHECK(fuzz_within(data, len, p.key.rsa_n, p.key.rsa_n_len),
		   "modulus outside the payload");
	FUZZ_CHECK(p.key.rsa_e_len >= 1 &&
		   fuzz_within(data, len, p.key.rsa_e, p.key.rsa_e_len),
		   "exponent outside the payload");
	FUZZ_CHECK(p.key.rsa_n[0] != 0 && p.key.rsa_e[0] != 0,
		   "MPI with a leading zero octet");
	FUZZ_CHECK(!p.uid || fuzz_within(data, len, p.uid, p.uid_len),
		   "user ID outside the payload");
	if (p.has_sig) {
		FUZZ_CHECK(fuzz_within(data, len, p.sig.hashed,
				       p.sig.hashed_len),
			   "hashed area outside the payload");
		FUZZ_CHECK(!p.sig.rsa_s ||
			   fuzz_within(data, len, p.sig.rsa_s, p.sig.rsa_s_len),
			   "signature MPI outside the payload");
	}

	ret = pgp_rsa_key_to_der(&p.key, &der, &derlen);
	FUZZ_CHECK(ret == 0, "pgp_rsa_key_to_der refused an accepted key: %d",
		   ret);
	/* DER: SEQUENCE { INTEGER n, INTEGER e }, n and e as given. */
	want = der_tlv_len(p.key.rsa_n_len + (p.key.rsa_n[0] >> 7)) +
	       der_tlv_len(p.key.rsa_e_len + (p.key.rsa_e[0] >> 7));
	FUZZ_CHECK(der[0] == 0x30 && derlen == der_tlv_len(want),
		   "DER of %zu octets, expected a %zu-octet SEQUENCE", derlen,
		   der_tlv_len(want));
	FUZZ_CHECK(!memcmp(der + derlen - p.key.rsa_e_len, p.key.rsa_e,
			   p.key.rsa_e_len), "DER does not end in the exponent");
	kfree(der);

	desc = pgp_key_description(&p);
	FUZZ_CHECK(desc != NULL, "no description");
	want = (p.uid ? min_t(size_t, p.uid_len, PGP_DESC_UID_MAX) + 2 : 0) +
	       2 * PGP_KEY_ID_SIZE;
	FUZZ_CHECK(strlen(desc) == want,
		   "description of %zu characters, expected %zu",
		   strlen(desc), want);
	for (i = 0; desc[i]; i++)
		FUZZ_CHECK((u8)desc[i] >= 0x20 && desc[i] != 0x7f,
			   "control character %#x in the description",
			   (u8)desc[i]);
	kfree(desc);
	return 0;
}

struct split_ctx {
	const u8 *data;
	size_t len;
	unsigned int keys;
	unsigned int accepted;
	char ids[8][2 * PGP_KEY_ID_SIZE + 1];
};

static void check_piece(const struct split_ctx *ctx,
			const struct pgp_packet *pkt, const char *what)
{
	FUZZ_CHECK(fuzz_within(ctx->data, ctx->len, pkt->hdr, pkt->len),
		   "%s packet outside the keyring", what);
	FUZZ_CHECK(pkt->data >= pkt->hdr &&
		   pkt->data + pkt->datalen == pkt->hdr + pkt->len,
		   "%s packet body not at the end of the packet", what);
}

/* pgp_preload_key(): concatenate the pieces and add them as one key. */
static int split_one(void *_ctx, const struct pgp_packet *key,
		     const struct pgp_packet *uid,
		     const struct pgp_packet *sig)
{
	struct split_ctx *ctx = _ctx;
	size_t len;
	u8 *payload, *p, id[PGP_KEY_ID_SIZE];

	check_piece(ctx, key, "key");
	FUZZ_CHECK(key->tag == PGP_PKT_PUBLIC_KEY ||
		   key->tag == PGP_PKT_PUBLIC_SUBKEY,
		   "key piece is a tag %u packet", key->tag);
	if (uid) {
		check_piece(ctx, uid, "user ID");
		FUZZ_CHECK(uid->tag == PGP_PKT_USER_ID,
			   "user ID piece is a tag %u packet", uid->tag);
	}
	if (sig) {
		check_piece(ctx, sig, "signature");
		FUZZ_CHECK(sig->tag == PGP_PKT_SIGNATURE,
			   "signature piece is a tag %u packet", sig->tag);
	}
	ctx->keys++;

	len = key->len + (uid ? uid->len : 0) + (sig ? sig->len : 0);
	payload = kmalloc(len, GFP_KERNEL);
	p = payload;
	memcpy(p, key->hdr, key->len);
	p += key->len;
	if (uid) {
		memcpy(p, uid->hdr, uid->len);
		p += uid->len;
	}
	if (sig)
		memcpy(p, sig->hdr, sig->len);
	if (preparse(payload, len, id) == 0) {
		if (ctx->accepted < ARRAY_SIZE(ctx->ids))
			fuzz_hex(ctx->ids[ctx->accepted], id, sizeof(id));
		ctx->accepted++;
	}
	kfree(payload);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct split_ctx ctx = { .data = data, .len = size };
	char hex[2 * PGP_KEY_ID_SIZE + 1] = "-";
	u8 id[PGP_KEY_ID_SIZE];
	unsigned int i;
	int ret, split;

	ret = preparse(data, size, id);
	if (ret == 0)
		fuzz_hex(hex, id, sizeof(id));

	split = pgp_split_keyring(data, size, split_one, &ctx);
	FUZZ_CHECK(split == 0 || split == -EBADMSG,
		   "pgp_split_keyring returned %d", split);
	if (fuzz_reporting()) {
		fprintf(stderr, "RESULT payload=%d id=%s split=%d keys=%u accepted=%u ids=",
			ret, hex, split, ctx.keys, ctx.accepted);
		for (i = 0; i < ctx.accepted && i < ARRAY_SIZE(ctx.ids); i++)
			fprintf(stderr, "%s%s", i ? "," : "", ctx.ids[i]);
		fputc('\n', stderr);
	}
	return 0;
}
