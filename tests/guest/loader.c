// SPDX-License-Identifier: GPL-2.0
/*
 * Load one module with finit_module(2) and say what the kernel answered.
 * With -c the file is a compressed module the kernel decompresses itself
 * (MODULE_INIT_COMPRESSED_FILE, CONFIG_MODULE_DECOMPRESS).
 *
 * Prints "OK" or the errno's symbolic name (EKEYREJECTED, EBADMSG, ...)
 * on one line and exits 0 or with the errno, so a test can compare the
 * exact outcome rather than a translated message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errno-name.h"

/* <linux/module.h>; the build host's headers may predate it. */
#define LOADER_MODULE_INIT_COMPRESSED_FILE 4

int main(int argc, char **argv)
{
	const char *params;
	unsigned int flags = 0;
	char buf[16];
	int fd, err;

	if (argc > 1 && strcmp(argv[1], "-c") == 0) {
		flags = LOADER_MODULE_INIT_COMPRESSED_FILE;
		argc--;
		argv++;
	}
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s [-c] MODULE [PARAMS]\n", argv[0]);
		return 2;
	}
	params = argc > 2 ? argv[2] : "";
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (syscall(SYS_finit_module, fd, params, flags) == 0) {
		puts("OK");
		return 0;
	}
	err = errno;
	puts(errno_name(err, buf, sizeof(buf)));
	return err;
}
