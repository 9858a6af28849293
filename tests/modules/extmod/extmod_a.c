// SPDX-License-Identifier: GPL-2.0
/* extmod_a: exports one function for extmod_b. */
#include <linux/init.h>
#include <linux/module.h>

int extmod_a_answer(void)
{
	return 42;
}
EXPORT_SYMBOL_GPL(extmod_a_answer);

static int __init extmod_a_init(void)
{
	pr_info("extmod_a: loaded\n");
	return 0;
}

static void __exit extmod_a_exit(void)
{
}

module_init(extmod_a_init);
module_exit(extmod_a_exit);
MODULE_DESCRIPTION("modsign test module exporting a symbol");
MODULE_LICENSE("GPL");
