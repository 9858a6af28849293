/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/types.h>, just enough to compile the
 * kernel's OpenPGP parsers unchanged into a fuzzer.  Only types: any
 * behaviour the parsers rely on must stay the kernel's own.
 */
#ifndef FUZZ_SHIM_LINUX_TYPES_H
#define FUZZ_SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
/* long long, as in the kernel (int-ll64.h), so %lld matches */
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s8 __s8;
typedef s16 __s16;
typedef s32 __s32;
typedef s64 __s64;
typedef u16 __be16;
typedef u32 __be32;
typedef unsigned int gfp_t;

#endif
