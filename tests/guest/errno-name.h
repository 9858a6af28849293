/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolic name of an errno, for the guest-side test tools: a test
 * compares the exact name the kernel's answer has (EKEYREJECTED, not
 * "Key was rejected by service"), and every tool spells it the same way.
 */
#ifndef MODSIGN_TEST_ERRNO_NAME_H
#define MODSIGN_TEST_ERRNO_NAME_H

#include <errno.h>
#include <stdio.h>

#define ERRNO_NAME(x) { x, #x }
static const struct {
	int err;
	const char *name;
} errno_names[] = {
	ERRNO_NAME(EKEYREJECTED), ERRNO_NAME(EKEYEXPIRED),
	ERRNO_NAME(EKEYREVOKED), ERRNO_NAME(ENOKEY), ERRNO_NAME(EBADMSG),
	ERRNO_NAME(ENOPKG), ERRNO_NAME(ENODATA), ERRNO_NAME(ENOEXEC),
	ERRNO_NAME(EEXIST), ERRNO_NAME(ENOMEM), ERRNO_NAME(EINVAL),
	ERRNO_NAME(EPERM), ERRNO_NAME(EACCES), ERRNO_NAME(ENOENT),
	ERRNO_NAME(ELIBBAD), ERRNO_NAME(ENOMSG), ERRNO_NAME(EFBIG),
	ERRNO_NAME(EOVERFLOW), ERRNO_NAME(EMSGSIZE), ERRNO_NAME(EFAULT),
	ERRNO_NAME(E2BIG), ERRNO_NAME(ENOSPC), ERRNO_NAME(EBUSY),
	ERRNO_NAME(ERANGE), ERRNO_NAME(ENOSYS), ERRNO_NAME(EOPNOTSUPP),
};
#undef ERRNO_NAME

/* The name of @err, or "E<number>" in @buf for one not in the table */
static inline const char *errno_name(int err, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, len, "E%d", err);
	return buf;
}

#endif
