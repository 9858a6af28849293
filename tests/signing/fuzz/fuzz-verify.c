// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the parsers of scripts/modsign that see untrusted
 * bytes: the module trailer and signature packet (verify_module()), key
 * rings (pgp_parse_keyring()) and gpg-agent's S-expressions
 * (sexp_find()).  The keyring to check against is $FUZZ_KEYRING.
 */
#include <stdlib.h>

#include "sexp.h"
#include "verify.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t len);

static struct pgp_keyring ring;

static void load_ring(void)
{
	static int done;
	char err[160];
	const char *path = getenv("FUZZ_KEYRING");
	size_t klen;
	u8 *k;

	if (done++ || !path || read_file(path, &k, &klen))
		return;
	if (pgp_parse_keyring(k, klen, &ring, err, sizeof(err)))
		abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t len)
{
	struct pgp_keyring r;
	char detail[256], err[160];
	const u8 *v;
	size_t vlen;

	load_ring();
	verify_module(&ring, data, len, 0, detail, sizeof(detail));
	if (!pgp_parse_keyring(data, len, &r, err, sizeof(err)))
		pgp_free_keyring(&r);
	sexp_find(data, len, "s", &v, &vlen);
	return 0;
}
