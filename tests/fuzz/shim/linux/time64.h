/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/time64.h>: the kernel's time64_t is s64. */
#ifndef FUZZ_SHIM_LINUX_TIME64_H
#define FUZZ_SHIM_LINUX_TIME64_H

#include <linux/types.h>

typedef s64 time64_t;

#endif
