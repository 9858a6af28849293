/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/kernel.h>: printk helpers, min/max,
 * ARRAY_SIZE and fls, with the kernel's semantics.
 */
#ifndef FUZZ_SHIM_LINUX_KERNEL_H
#define FUZZ_SHIM_LINUX_KERNEL_H

#include <stdio.h>
#include <linux/types.h>

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

/*
 * The messages are compiled (so the format strings are still checked
 * against their arguments) but printed only with -DFUZZ_PRINTK: at a
 * million executions a second the fuzzer would spend its time writing.
 */
#ifdef FUZZ_PRINTK
#define fuzz_printk(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)
#else
#define fuzz_printk(fmt, ...) \
	do { if (0) fprintf(stderr, fmt, ##__VA_ARGS__); } while (0)
#endif
#define pr_debug(fmt, ...)  fuzz_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_devel(fmt, ...)  fuzz_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)   fuzz_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...) fuzz_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)   fuzz_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)    fuzz_printk(pr_fmt(fmt), ##__VA_ARGS__)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The kernel's min() refuses mixed types at compile time; so does this. */
#define min(a, b) ({						\
	__typeof__(a) _a = (a);					\
	__typeof__(b) _b = (b);					\
	(void)(&_a == &_b);					\
	_a < _b ? _a : _b; })
#define max(a, b) ({						\
	__typeof__(a) _a = (a);					\
	__typeof__(b) _b = (b);					\
	(void)(&_a == &_b);					\
	_a > _b ? _a : _b; })
#define min_t(type, a, b) ({ type _a = (a); type _b = (b); _a < _b ? _a : _b; })
#define max_t(type, a, b) ({ type _a = (a); type _b = (b); _a > _b ? _a : _b; })

/* fls(0) = 0, fls(1) = 1, fls(0x80000000) = 32, as in the kernel */
static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#endif
