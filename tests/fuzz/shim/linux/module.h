/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/module.h>: module metadata is dropped. */
#ifndef FUZZ_SHIM_LINUX_MODULE_H
#define FUZZ_SHIM_LINUX_MODULE_H

#include <linux/export.h>

/* As include/linux/moduleparam.h has it */
#define MODULE_NAME_LEN (64 - sizeof(unsigned long))

#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_AUTHOR(x)

#endif
