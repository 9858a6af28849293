// SPDX-License-Identifier: GPL-2.0
/*
 * Load one module with finit_module(2) and say what the kernel answered.
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

struct errno_name {
	int err;
	const char *name;
};

#define E(x) { x, #x }
static const struct errno_name errno_names[] = {
	E(EKEYREJECTED), E(EKEYEXPIRED), E(EKEYREVOKED), E(ENOKEY),
	E(EBADMSG), E(ENOPKG), E(ENODATA), E(ENOEXEC), E(EEXIST),
	E(ENOMEM), E(EINVAL), E(EPERM), E(EACCES), E(ENOENT),
	E(ELIBBAD), E(ENOMSG), E(EFBIG), E(EOVERFLOW), E(EMSGSIZE),
	E(EFAULT), E(E2BIG), E(ENOSPC), E(EBUSY),
};

static const char *errno_name(int err)
{
	size_t i;

	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *params = argc > 2 ? argv[2] : "";
	const char *name;
	int fd, err;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s MODULE [PARAMS]\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (syscall(SYS_finit_module, fd, params, 0) == 0) {
		puts("OK");
		return 0;
	}
	err = errno;
	name = errno_name(err);
	if (name)
		puts(name);
	else
		printf("E%d\n", err);
	return err;
}
