// SPDX-License-Identifier: GPL-2.0
/* bigmod: a megabyte of read-only data that stripping cannot remove. */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/types.h>

static const u8 bigmod_table[1 << 20] __used = { 1 };

static int __init bigmod_init(void)
{
	pr_info("bigmod: %zu bytes of table\n", sizeof(bigmod_table));
	return 0;
}

static void __exit bigmod_exit(void)
{
}

module_init(bigmod_init);
module_exit(bigmod_exit);
MODULE_DESCRIPTION("modsign test module with a large read-only table");
MODULE_LICENSE("GPL");
