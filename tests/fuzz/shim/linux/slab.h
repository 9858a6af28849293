/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/slab.h>.  kmalloc is malloc, so
 * AddressSanitizer sees every allocation the parsers make: an overrun of
 * a kmalloc'd buffer or a leak is reported as in the kernel with KASAN
 * and kmemleak, only much faster.
 */
#ifndef FUZZ_SHIM_LINUX_SLAB_H
#define FUZZ_SHIM_LINUX_SLAB_H

#include <stdlib.h>
#include <linux/types.h>

#define GFP_KERNEL 0u

static inline void *kmalloc(size_t size, gfp_t flags)
{
	(void)flags;
	/* kmalloc(0) returns ZERO_SIZE_PTR, never a usable buffer */
	return malloc(size ? size : 1);
}

static inline void *kzalloc(size_t size, gfp_t flags)
{
	(void)flags;
	return calloc(1, size ? size : 1);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

#endif
