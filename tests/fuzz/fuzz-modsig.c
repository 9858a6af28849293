// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the userspace verifier (scripts/modsign: pgp-verify's
 * keyring_load() and verify_module(), i.e. the trailer parsing of modsig.c
 * and the checks of verify.c around the kernel's own OpenPGP code), built
 * from the tree's sources unchanged.
 *
 * verify_module_parts() (pgp-attach's check of a module it has not
 * written yet) must agree with verify_module() wherever the trailer part
 * holds the whole signature: split at the start, in the body and where
 * the body ends, with and without the body's SHA-256 state given.
 *
 * Input: a two-octet big-endian length L, L octets of public keyring (as
 * MODPUBKEY, loaded as the kernel loads it), then the module.  Carrying the keyring
 * in the input keeps every crash input self-contained (the seed keys are
 * made afresh at each run) and fuzzes the keyring parser as well.
 */
#include <string.h>

#include "modsig.h"
#include "verify.h"
#include "fuzz-common.h"

/* A fixed "now" (2033-05-18) so that an input always gives one outcome. */
#define FUZZ_NOW 2000000000ull

/* buf split at k, with the hash of buf[0..k) given if hashed */
static void check_split(const struct keyring *kr, const u8 *buf, size_t len,
			size_t k, bool hashed, enum verify_outcome want,
			const char *want_detail)
{
	EVP_MD_CTX *ctx = NULL;
	enum verify_outcome v;
	char detail[256];

	if (hashed) {
		ctx = EVP_MD_CTX_new();
		FUZZ_CHECK(ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
			   EVP_DigestUpdate(ctx, buf, k), "SHA-256 failed");
	}
	v = verify_module_parts(kr, buf, k, ctx, buf + k, len - k, FUZZ_NOW,
				detail, sizeof(detail));
	EVP_MD_CTX_free(ctx);
	FUZZ_CHECK(v == want && !strcmp(detail, want_detail),
		   "split at %zu%s: %s \"%s\", joined: %s \"%s\"", k,
		   hashed ? " (hash given)" : "", verify_outcome_name(v), detail,
		   verify_outcome_name(want), want_detail);
}

static void check_parts(const struct keyring *kr, const u8 *buf, size_t len,
			enum verify_outcome want, const char *want_detail)
{
	struct modsig ms;

	check_split(kr, buf, len, 0, false, want, want_detail);
	if (modsig_parse(buf, len, &ms) != MODSIG_FOUND)
		return;
	check_split(kr, buf, len, ms.body_len / 2, false, want, want_detail);
	check_split(kr, buf, len, ms.body_len, false, want, want_detail);
	check_split(kr, buf, len, ms.body_len, true, want, want_detail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct keyring kr;
	enum verify_outcome v;
	char detail[256];
	size_t klen, i;
	int ret;

	if (size < 2)
		return 0;
	klen = (size_t)data[0] << 8 | data[1];
	if (klen > size - 2)
		return 0;
	data += 2;
	size -= 2;

	ret = keyring_load(data, klen, &kr);
	FUZZ_CHECK(ret <= 0, "keyring_load returned %d", ret);
	for (i = 0; i < kr.nkeys; i++)
		FUZZ_CHECK(!kr.keys[i].err || kr.keys[i].skip_reason,
			   "key %zu refused without a reason", i);
	if (ret) {
		if (fuzz_reporting())
			fprintf(stderr, "RESULT keyring-refused %d\n", ret);
		keyring_free(&kr);
		return 0;
	}

	memset(detail, 'X', sizeof(detail));
	v = verify_module(&kr, data + klen, size - klen, FUZZ_NOW, detail,
			  sizeof(detail));
	FUZZ_CHECK(memchr(detail, 0, sizeof(detail)) != NULL,
		   "outcome detail not terminated");
	switch (v) {
	case V_VALID:
	case V_UNSIGNED:
	case V_UNKNOWN_KEY:
	case V_BAD_SIGNATURE:
	case V_EXPIRED_KEY:
	case V_UNSUPPORTED:
	case V_CORRUPT:
	case V_PKCS7:
		FUZZ_CHECK(strcmp(verify_outcome_name(v), "error") != 0,
			   "outcome %d without a name", v);
		break;
	default:
		FUZZ_FAIL("verify_module returned %d", v);
	}
	check_parts(&kr, data + klen, size - klen, v, detail);
	if (fuzz_reporting())
		fprintf(stderr, "RESULT %s %s\n", verify_outcome_name(v), detail);
	keyring_free(&kr);
	return 0;
}
