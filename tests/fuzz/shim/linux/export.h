/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/export.h>: every symbol is linked directly. */
#ifndef FUZZ_SHIM_LINUX_EXPORT_H
#define FUZZ_SHIM_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)

#endif
