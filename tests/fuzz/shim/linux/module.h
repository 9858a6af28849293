/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/module.h>: module metadata is dropped. */
#ifndef FUZZ_SHIM_LINUX_MODULE_H
#define FUZZ_SHIM_LINUX_MODULE_H

#include <linux/export.h>

#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_AUTHOR(x)

#endif
