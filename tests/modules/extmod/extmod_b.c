// SPDX-License-Identifier: GPL-2.0
/* extmod_b: needs extmod_a's symbol. */
#include <linux/init.h>
#include <linux/module.h>

int extmod_a_answer(void);

static int __init extmod_b_init(void)
{
	pr_info("extmod_b: extmod_a says %d\n", extmod_a_answer());
	return 0;
}

static void __exit extmod_b_exit(void)
{
}

module_init(extmod_b_init);
module_exit(extmod_b_exit);
MODULE_DESCRIPTION("modsign test module using extmod_a");
MODULE_LICENSE("GPL");
