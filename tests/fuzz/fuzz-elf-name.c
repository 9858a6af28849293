// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the kernel's reader of the name of a module it has
 * not verified (for the log line of a module whose signature it refuses),
 * compiled unchanged from the tree (kernel/module/unverified_name.c).
 * Its contract:
 *
 *	int module_unverified_name(const void *image, size_t len,
 *				   char name[MODULE_NAME_LEN]);
 *
 * (MODULE_NAME_LEN is 56 on 64-bit) returns 0 and a NUL-terminated printable name of at most 55 characters,
 * the value of the "name=" entry of .modinfo, or a negative errno; it
 * never reads outside [image, image + len) and never writes outside
 * name[0..55].
 *
 * Input: the module image, as the kernel holds it (libFuzzer gives it in
 * a buffer of exactly that size, so ASan sees a read one byte past it).
 * The name goes to a heap buffer of exactly 56 bytes, so ASan sees a
 * write past it too.  Checked here: the return value is 0 or an errno;
 * on 0 the name is terminated within 56 bytes, printable, not empty,
 * and taken from the image ("name=" followed by it occurs in the image).
 *
 * Built with -fno-sanitize=alignment: the kernel reads ELF headers at
 * whatever offset the image gives, which x86 allows (and the kernel's
 * UBSAN does not check by default).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"

#define MODSIG_NAME_SIZE 56

/* The kernel's declaration, kernel/module/unverified_name.h, minus its includes */
int module_unverified_name(const void *image, size_t len,
			   char name[MODSIG_NAME_SIZE]);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(MODSIG_NAME_SIZE);
	char key[5 + MODSIG_NAME_SIZE];
	const char *end;
	size_t n, i;
	int rc;

	if (!name)
		return 0;
	memset(name, 0xa5, MODSIG_NAME_SIZE);
	rc = module_unverified_name(data, size, name);
	if (rc) {
		FUZZ_CHECK(rc < 0 && rc >= -4095, "returned %d, neither 0 nor -errno", rc);
		if (fuzz_reporting())
			fprintf(stderr, "RESULT error %d\n", rc);
		free(name);
		return 0;
	}
	end = memchr(name, 0, MODSIG_NAME_SIZE);
	FUZZ_CHECK(end != NULL, "name not NUL-terminated within %d bytes", MODSIG_NAME_SIZE);
	n = end - name;
	FUZZ_CHECK(n > 0, "returned 0 with an empty name");
	for (i = 0; i < n; i++)
		FUZZ_CHECK(name[i] > 0x20 && name[i] < 0x7f,
			   "name byte %zu is 0x%02x, not printable", i, (unsigned char)name[i]);
	memcpy(key, "name=", 5);
	memcpy(key + 5, name, n);
	FUZZ_CHECK(memmem(data, size, key, 5 + n) != NULL,
		   "name '%s' is not the value of a name= entry of the image", name);
	if (fuzz_reporting())
		fprintf(stderr, "RESULT name %s\n", name);
	free(name);
	return 0;
}
