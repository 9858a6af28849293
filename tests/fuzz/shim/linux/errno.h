/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/errno.h>: the UAPI header of the same
 * name gives the kernel's own numbers (EBADMSG, ENOPKG, EKEYREJECTED...),
 * so the values the parsers return are exactly those of the kernel.
 * glibc's <errno.h> reaches this file too, hence include_next.
 */
#ifndef FUZZ_SHIM_LINUX_ERRNO_H
#define FUZZ_SHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif
