/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/bitops.h>: the rotations lib/crypto/sha1.c uses. */
#ifndef FUZZ_SHIM_LINUX_BITOPS_H
#define FUZZ_SHIM_LINUX_BITOPS_H

#include <linux/types.h>

static inline u32 rol32(u32 word, unsigned int shift)
{
	return (word << (shift & 31)) | (word >> ((-shift) & 31));
}

static inline u32 ror32(u32 word, unsigned int shift)
{
	return (word >> (shift & 31)) | (word << ((-shift) & 31));
}

#endif
