// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the userspace verifier (scripts/modsign: pgp-verify's
 * verify_module(), i.e. the trailer parsing of modsig.c, the signature
 * packet parsing of pgp-packet.c and the checks of verify.c), built from
 * the tree's sources unchanged.
 *
 * Input: a two-octet big-endian length L, L octets of public keyring (as
 * MODPUBKEY, parsed by pgp-key.c), then the module.  Carrying the keyring
 * in the input keeps every crash input self-contained (the seed keys are
 * made afresh at each run) and fuzzes the keyring parser as well.
 */
#include <string.h>

#include "verify.h"
#include "fuzz-common.h"

/* A fixed "now" (2033-05-18) so that an input always gives one outcome. */
#define FUZZ_NOW 2000000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pgp_keyring ring;
	enum verify_outcome v;
	char err[160], detail[256];
	size_t klen;

	if (size < 2)
		return 0;
	klen = (size_t)data[0] << 8 | data[1];
	if (klen > size - 2)
		return 0;
	data += 2;
	size -= 2;

	memset(err, 'X', sizeof(err));
	if (pgp_parse_keyring(data, klen, &ring, err, sizeof(err))) {
		FUZZ_CHECK(memchr(err, 0, sizeof(err)) != NULL,
			   "keyring error message not terminated");
		if (fuzz_reporting())
			fprintf(stderr, "RESULT keyring-refused %s\n", err);
		return 0;
	}
	FUZZ_CHECK(ring.nblocks > 0, "keyring accepted without a key");
	/* As pgp-verify does: only keys the kernel would load count. */
	pgp_apply_trust(&ring, NULL, NULL);

	memset(detail, 'X', sizeof(detail));
	v = verify_module(&ring, data + klen, size - klen, FUZZ_NOW, detail,
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
	if (fuzz_reporting())
		fprintf(stderr, "RESULT %s %s\n", verify_outcome_name(v), detail);
	pgp_free_keyring(&ring);
	return 0;
}
