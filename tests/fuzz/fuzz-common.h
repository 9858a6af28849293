/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the fuzz targets.  A target checks what the code under test
 * promises (return values, pointers into the input) and calls FUZZ_FAIL
 * when a promise is broken: abort() makes libFuzzer keep the input as a
 * crash, the same as a sanitizer report would.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_FAIL(...) do {						\
		fprintf(stderr, "FUZZ-INVARIANT %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	} while (0)

#define FUZZ_CHECK(cond, ...) do {					\
		if (!(cond))						\
			FUZZ_FAIL(__VA_ARGS__);				\
	} while (0)

/*
 * With FUZZ_REPORT=1 in the environment a target prints one "RESULT ..."
 * line per input saying what the code under test made of it, so that the
 * test can check the seeds are accepted (a fuzzer whose seeds are all
 * refused early would only ever explore the error paths).
 */
static int fuzz_report = -1;

static inline int fuzz_reporting(void)
{
	if (fuzz_report < 0) {
		const char *e = getenv("FUZZ_REPORT");

		fuzz_report = e && *e == '1';
	}
	return fuzz_report;
}

static inline void fuzz_hex(char *out, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex[p[i] >> 4];
		out[2 * i + 1] = hex[p[i] & 15];
	}
	out[2 * n] = 0;
}

/* [p, p + n) lies within [buf, buf + len) */
static inline int fuzz_within(const void *buf, size_t len, const void *p,
			      size_t n)
{
	const unsigned char *b = buf, *q = p;

	return q >= b && q <= b + len && n <= (size_t)(b + len - q);
}

#endif
