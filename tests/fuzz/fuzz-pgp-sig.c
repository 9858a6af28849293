// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the kernel's OpenPGP signature parsing, compiled from
 * the kernel tree unchanged (pgp_library.c, pgp_signature.c,
 * lib/crypto/sha1.c) against scripts/modsign/include/.
 *
 * The input is the signature section of a module as mod_verify_pgp_sig()
 * hands it over: pgp_parse_sig_packet() and then every check
 * verify_pgp_signature() makes before the RSA operation.  The packet
 * walker pgp_parse_packets() is also run over the input with the packet
 * parsers, so old- and new-format headers of every tag are covered.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pgp_parser.h"
#include "fuzz-common.h"

static int check_sig(const u8 *data, size_t len,
		     const struct pgp_sig_params *sig)
{
	const struct pgp_hash_algo_info *hash;
	u8 trailer[PGP_SIG_TRAILER_SIZE], *digest, *s;
	static const size_t modlens[] = { 256, 384, 512 };
	size_t i;
	int ret, params;

	FUZZ_CHECK(sig->version == 4, "accepted signature version %u",
		   sig->version);
	FUZZ_CHECK(sig->hashed_len >= 6 &&
		   fuzz_within(data, len, sig->hashed, sig->hashed_len),
		   "hashed part outside the packet");
	FUZZ_CHECK(sig->hashed[0] == 4, "hashed part does not start at the version");
	FUZZ_CHECK(sig->rsa_s && sig->rsa_s_len >= 1 &&
		   fuzz_within(data, len, sig->rsa_s, sig->rsa_s_len),
		   "signature MPI outside the packet");
	FUZZ_CHECK(sig->rsa_s + sig->rsa_s_len == data + len,
		   "packet does not end with the signature MPI");

	pgp_sig_trailer(sig, trailer);
	FUZZ_CHECK(trailer[0] == 4 && trailer[1] == 0xff &&
		   ((size_t)trailer[2] << 24 | (size_t)trailer[3] << 16 |
		    (size_t)trailer[4] << 8 | trailer[5]) == sig->hashed_len,
		   "v4 trailer does not give the hashed length");

	params = pgp_sig_check_params(sig, &hash);
	ret = params;
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG || ret == -ENOPKG,
		   "pgp_sig_check_params returned %d", ret);
	if (ret == 0) {
		FUZZ_CHECK(pgp_sig_issuer_key_id(sig) != NULL,
			   "accepted a signature without an issuer");
		FUZZ_CHECK(hash == pgp_hash_algo_info(sig->hash_algo) &&
			   hash->digest_size >= 20 && hash->digest_size <= 64,
			   "bad hash algorithm info");
		/* Exactly digest_size octets, so an over-read is caught. */
		digest = calloc(1, hash->digest_size);
		memcpy(digest, sig->hash_left, 2);
		FUZZ_CHECK(pgp_sig_check_digest(sig, digest) == 0,
			   "quick check refused its own octets");
		digest[1] ^= 1;
		FUZZ_CHECK(pgp_sig_check_digest(sig, digest) == -EKEYREJECTED,
			   "quick check accepted other octets");
		free(digest);
	}

	for (i = 0; i < ARRAY_SIZE(modlens); i++) {
		ret = pgp_sig_pad_mpi(sig, modlens[i], &s);
		if (sig->rsa_s_len > modlens[i]) {
			FUZZ_CHECK(ret == -EBADMSG,
				   "padded a %zu-octet signature to %zu: %d",
				   sig->rsa_s_len, modlens[i], ret);
			continue;
		}
		FUZZ_CHECK(ret == 0, "pgp_sig_pad_mpi returned %d", ret);
		FUZZ_CHECK(!memcmp(s + modlens[i] - sig->rsa_s_len, sig->rsa_s,
				   sig->rsa_s_len),
			   "padded signature does not end in the MPI");
		kfree(s);
	}

	/* Signed 64-bit time arithmetic on 32-bit fields: any overflow is UB. */
	ret = pgp_sig_check_time(sig, 0, sig->creation_time);
	FUZZ_CHECK(ret == 0 || ret == -EKEYEXPIRED, "check_time %d", ret);
	ret = pgp_sig_check_time(sig, sig->creation_time + 1, (time64_t)INT64_MAX);
	FUZZ_CHECK(ret == -EKEYEXPIRED, "key expired at creation + 1 passed");
	/* (A key expiry of 0 means "never", hence creation time 0 is left out.) */
	if (sig->creation_time) {
		ret = pgp_sig_check_time(sig, sig->creation_time,
					 sig->creation_time - 1);
		FUZZ_CHECK(ret == -EKEYEXPIRED,
			   "signature made when the key expired passed");
	}
	return params;
}

static int walk_one(void *ctx, const struct pgp_packet *pkt)
{
	const u8 **bounds = ctx;
	struct pgp_key_data key;
	struct pgp_sig_params sig;
	int ret;

	FUZZ_CHECK(fuzz_within(bounds[0], bounds[1] - bounds[0], pkt->hdr,
			       pkt->len) &&
		   pkt->data + pkt->datalen == pkt->hdr + pkt->len,
		   "packet outside the input");
	switch (pkt->tag) {
	case PGP_PKT_SIGNATURE:
		ret = pgp_parse_sig(pkt, &sig);
		FUZZ_CHECK(ret == 0 || ret == -EBADMSG || ret == -ENOPKG,
			   "pgp_parse_sig returned %d", ret);
		if (ret == 0)
			check_sig(pkt->data, pkt->datalen, &sig);
		break;
	case PGP_PKT_PUBLIC_KEY:
	case PGP_PKT_PUBLIC_SUBKEY:
		ret = pgp_parse_public_key(pkt, &key);
		FUZZ_CHECK(ret == 0 || ret == -EBADMSG || ret == -ENOPKG,
			   "pgp_parse_public_key returned %d", ret);
		break;
	default:
		break;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const u8 *bounds[2] = { data, data + size };
	struct pgp_sig_params sig;
	struct pgp_packet pkt;
	const u8 *p = data, *issuer;
	size_t left = size;
	char hex[2 * PGP_KEY_ID_SIZE + 1] = "-";
	int ret, params = 1;

	ret = pgp_parse_sig_packet(data, size, &sig);
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG || ret == -ENOPKG,
		   "pgp_parse_sig_packet returned %d", ret);
	if (ret == 0) {
		/* A lone packet: its body ends where the input ends. */
		FUZZ_CHECK(pgp_next_packet(&p, &left, &pkt) == 0 && left == 0,
			   "lone signature packet not reread");
		params = check_sig(pkt.data, pkt.datalen, &sig);
		issuer = pgp_sig_issuer_key_id(&sig);
		if (issuer)
			fuzz_hex(hex, issuer, PGP_KEY_ID_SIZE);
	}
	if (fuzz_reporting())
		fprintf(stderr, "RESULT sig=%d params=%d hash=%u issuer=%s\n",
			ret, params, ret == 0 ? sig.hash_algo : 0, hex);

	ret = pgp_parse_packets(data, size, walk_one, bounds);
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG,
		   "pgp_parse_packets returned %d", ret);
	return 0;
}
