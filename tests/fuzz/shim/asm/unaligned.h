/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <asm/unaligned.h>: byte-wise, so no alignment UB. */
#ifndef FUZZ_SHIM_ASM_UNALIGNED_H
#define FUZZ_SHIM_ASM_UNALIGNED_H

#include <linux/types.h>

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static inline u16 get_unaligned_be16(const void *p)
{
	const u8 *b = p;

	return (u16)(b[0] << 8 | b[1]);
}

#endif
