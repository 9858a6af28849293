// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the kernel's OpenPGP key parsing, compiled from the
 * kernel tree unchanged (pgp_library.c, pgp_key_payload.c,
 * pgp_signature.c, lib/crypto/sha1.c) against scripts/modsign/include/.
 *
 * Each input is handed to the two entry points that see untrusted key
 * bytes in the kernel: pgp_parse_key_payload() (add_key(2) of an
 * "asymmetric" key, i.e. any user with a keyring) followed by what
 * pgp_key_preparse() does with the result, and pgp_split_keyring() (the
 * built-in keyring at boot) with the payload reassembly of pgp_preload.c.
 *
 * The kernel verifies the signatures on keys with its crypto API; here
 * the host tools' libcrypto stand-in for it does (ossl_verify_key_sig() of
 * scripts/modsign/ossl.c, on the very pieces of data the kernel's
 * pgp_key_sig_data() says a key signature covers), so that real keys are
 * accepted and the fuzzer reaches every decision after verification.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pgp_parser.h"
#include "ossl.h"
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

	ret = pgp_parse_key_payload(data, len, &p, ossl_verify_key_sig);
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG || ret == -ENOPKG ||
		   ret == -EKEYREJECTED || ret == -EKEYREVOKED,
		   "pgp_parse_key_payload returned %d", ret);
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG || p.reason,
		   "refused a key (%d) without saying why", ret);
	if (ret < 0)
		return ret;
	memcpy(key_id, p.key.key_id, PGP_KEY_ID_SIZE);

	/* Accepted: the documented guarantees must hold. */
	FUZZ_CHECK(p.key.version == 4, "accepted key version %u", p.key.version);
	FUZZ_CHECK(p.key.rsa_n_len == 256 || p.key.rsa_n_len == 384 ||
		   p.key.rsa_n_len == 512,
		   "accepted a %zu-octet RSA modulus", p.key.rsa_n_len);
	FUZZ_CHECK(p.key.rsa_n_len == (p.key.rsa_n_bits + 7) / 8,
		   "modulus length %zu for %u bits", p.key.rsa_n_len,
		   p.key.rsa_n_bits);
	FUZZ_CHECK(fuzz_within(data, len, p.key.rsa_n, p.key.rsa_n_len),
		   "modulus outside the payload");
	FUZZ_CHECK(p.key.rsa_e_len >= 1 && p.key.rsa_e_len < p.key.rsa_n_len &&
		   (p.key.rsa_e[p.key.rsa_e_len - 1] & 1) &&
		   (p.key.rsa_e_len > 1 || p.key.rsa_e[0] >= 3) &&
		   fuzz_within(data, len, p.key.rsa_e, p.key.rsa_e_len),
		   "accepted a bad exponent");
	FUZZ_CHECK(p.key.rsa_n[0] != 0 && p.key.rsa_e[0] != 0,
		   "MPI with a leading zero octet");
	FUZZ_CHECK(!p.uid || fuzz_within(data, len, p.uid, p.uid_len),
		   "user ID outside the payload");
	FUZZ_CHECK(p.is_subkey || !memcmp(&p.key, &p.primary, sizeof(p.key)),
		   "primary key payload for another key");

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

/* pgp_preload_key(): concatenate the pieces and add them as one key. */
static int split_one(void *_ctx, const u8 *primary, size_t primary_len,
		     const u8 *subkey, size_t subkey_len)
{
	struct split_ctx *ctx = _ctx;
	u8 *payload, id[PGP_KEY_ID_SIZE];
	size_t len = primary_len + subkey_len;

	FUZZ_CHECK(primary_len && fuzz_within(ctx->data, ctx->len, primary,
					      primary_len),
		   "primary key section outside the keyring");
	FUZZ_CHECK(!subkey || (subkey_len && fuzz_within(ctx->data, ctx->len,
							 subkey, subkey_len)),
		   "subkey section outside the keyring");
	ctx->keys++;

	payload = kmalloc(len, GFP_KERNEL);
	memcpy(payload, primary, primary_len);
	if (subkey)
		memcpy(payload + primary_len, subkey, subkey_len);
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
