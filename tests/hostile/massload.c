// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of the hostile-module test: load every module named in a
 * list with finit_module(2), one after the other in one process (a fork
 * and exec per module would cost more than the loads under TCG), and
 * print one short line per module:
 *
 *	M <id> <OK|errno name> <taint mask after>
 *
 * A module that loads is removed again (delete_module) so that the next
 * one, which has the same name, can load too; a failed removal is
 * printed as "RMMOD-FAILED <id> <errno name>".  The list has lines
 * "<id> <path>"; argv[2] is the module name to remove.  A mutant that
 * loads under another name (its .modinfo or this_module changed) is
 * found in /proc/modules and removed too.
 *
 * Before each load the id is written to argv[3], so that when a load
 * kills this process (an oops), the guest script can say which mutant
 * did it and go on with the next.  A load that does not return within
 * 20 seconds (one that waits for a module an oops left half-loaded)
 * ends this process with SIGALRM, which the guest script reports too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <unistd.h>

#include "../guest/errno-name.h"

/* Remove every module in /proc/modules; 0 if none is left. */
static int remove_all(void)
{
	char line[256], name[64];
	int left = 0, tries;

	for (tries = 0; tries < 3; tries++) {
		FILE *f = fopen("/proc/modules", "r");

		if (!f)
			return -1;
		left = 0;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%63s", name) != 1)
				continue;
			left++;
			if (!syscall(SYS_delete_module, name, O_NONBLOCK))
				left--;
		}
		fclose(f);
		if (!left)
			break;
	}
	return left;
}

static void progress(const char *file, unsigned long id)
{
	char buf[32];
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int n;

	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%lu\n", id);
	if (write(fd, buf, n) != n)
		perror(file);
	close(fd);
}

static int tainted(void)
{
	char buf[32] = "";
	int fd = open("/proc/sys/kernel/tainted", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return (int)strtol(buf, NULL, 10);
}

int main(int argc, char **argv)
{
	char line[512], path[480], ebuf[16];
	unsigned long id, n = 0, ok = 0, refused = 0;
	FILE *list;
	int fd, err;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s LIST MODNAME [PROGRESS-FILE]\n", argv[0]);
		return 2;
	}
	list = fopen(argv[1], "r");
	if (!list) {
		perror(argv[1]);
		return 2;
	}
	/* Line-buffered: a guest that dies midway still shows how far it got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), list)) {
		if (sscanf(line, "%lu %479s", &id, path) != 2)
			continue;
		if (argc == 4)
			progress(argv[3], id);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			printf("M %lu OPEN-%s %d\n", id, errno_name(errno, ebuf, sizeof(ebuf)), tainted());
			continue;
		}
		alarm(20);
		err = syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
		alarm(0);
		close(fd);
		n++;
		if (!err) {
			ok++;
			printf("M %lu OK %d\n", id, tainted());
			if (syscall(SYS_delete_module, argv[2], O_NONBLOCK)) {
				err = errno;
				if (remove_all())
					printf("RMMOD-FAILED %lu %s\n", id,
					       errno_name(err, ebuf, sizeof(ebuf)));
			}
		} else {
			refused++;
			printf("M %lu %s %d\n", id, errno_name(err, ebuf, sizeof(ebuf)), tainted());
		}
	}
	fclose(list);
	printf("MASSLOAD tried=%lu loaded=%lu refused=%lu\n", n, ok, refused);
	return 0;
}
