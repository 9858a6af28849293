/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/string.h>. */
#ifndef FUZZ_SHIM_LINUX_STRING_H
#define FUZZ_SHIM_LINUX_STRING_H

#include <string.h>

/* The kernel's memzero_explicit is a memset the compiler may not drop. */
static inline void memzero_explicit(void *s, size_t count)
{
	explicit_bzero(s, count);
}

#endif
