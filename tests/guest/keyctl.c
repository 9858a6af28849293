// SPDX-License-Identifier: GPL-2.0
/*
 * The two keyctl(1) operations the keyring test needs, for a busybox
 * guest that has no keyutils:
 *
 *	keyctl add KEYRING FILE    add_key("asymmetric", FILE's bytes)
 *	keyctl link KEY KEYRING    keyctl(KEYCTL_LINK)
 *
 * KEY and KEYRING are "@u" (the user keyring) or a serial number in hex,
 * as /proc/keys prints it.  Prints "OK" or the errno's symbolic name and
 * exits 0 or 1, so a test compares the exact answer of the kernel; a
 * usage or file error exits 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errno-name.h"

#define KEY_SPEC_USER_KEYRING	-4
#define KEYCTL_LINK		8

/* Room for any key file the test hands in (certificates are a few KiB). */
#define KEY_FILE_MAX		65536

static int parse_serial(const char *arg, long *serial)
{
	char *end;

	if (strcmp(arg, "@u") == 0) {
		*serial = KEY_SPEC_USER_KEYRING;
		return 0;
	}
	errno = 0;
	*serial = strtol(arg, &end, 16);
	if (errno || end == arg || *end || *serial <= 0 || *serial > 0x7fffffff) {
		fprintf(stderr, "keyctl: %s is not @u or a key serial in hex\n", arg);
		return -1;
	}
	return 0;
}

static int read_key_file(const char *path, unsigned char *buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		fprintf(stderr, "keyctl: %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, KEY_FILE_MAX, f);
	if (ferror(f) || !feof(f) || n == 0) {
		fprintf(stderr, "keyctl: %s: %s\n", path,
			ferror(f) ? "read error" : n ? "larger than 64 KiB" : "empty");
		fclose(f);
		return -1;
	}
	fclose(f);
	*len = n;
	return 0;
}

static int report(long ret)
{
	char buf[16];

	if (ret >= 0) {
		puts("OK");
		return 0;
	}
	puts(errno_name(errno, buf, sizeof(buf)));
	return 1;
}

int main(int argc, char **argv)
{
	static unsigned char data[KEY_FILE_MAX];
	long ring, key;
	size_t len;

	if (argc == 4 && strcmp(argv[1], "add") == 0) {
		if (parse_serial(argv[2], &ring) || read_key_file(argv[3], data, &len))
			return 2;
		return report(syscall(SYS_add_key, "asymmetric", NULL, data, len, ring));
	}
	if (argc == 4 && strcmp(argv[1], "link") == 0) {
		if (parse_serial(argv[2], &key) || parse_serial(argv[3], &ring))
			return 2;
		return report(syscall(SYS_keyctl, KEYCTL_LINK, key, ring));
	}
	fprintf(stderr, "usage: %s add KEYRING FILE | link KEY KEYRING\n", argv[0]);
	return 2;
}
