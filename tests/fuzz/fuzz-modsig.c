// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the userspace verifier (scripts/modsign: pgp-verify's
 * keyring_load() and verify_module(), i.e. the trailer parsing of modsig.c
 * and the checks of verify.c around the kernel's own OpenPGP code), built
 * from the tree's sources unchanged.
 *
 * Input: a two-octet big-endian length L, L octets of public keyring (as
 * MODPUBKEY, loaded as the kernel loads it), then the module.  Carrying the keyring
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
	if (fuzz_reporting())
		fprintf(stderr, "RESULT %s %s\n", verify_outcome_name(v), detail);
	keyring_free(&kr);
	return 0;
}
