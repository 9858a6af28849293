// SPDX-License-Identifier: GPL-2.0
/*
 * loadbench: time finit_module(2) in the guest, for the same modules
 * signed in different ways.
 *
 *	loadbench ROUNDS LIST DIR... [-u DIR]
 *
 * LIST has one "FILE MODULE-NAME" line per module.  An order in which
 * they load (dependencies, also those through the crypto API, first) is
 * found first by trying them from the first DIR in passes until all
 * have loaded; they are unloaded again.  Each round loads every module
 * from each DIR in turn (the DIR that goes first changes every round),
 * timing each finit_module with CLOCK_MONOTONIC, and unloads them again
 * in reverse order (untimed).  After a signed DIR's round the kernel must
 * not be tainted: a module whose signature was not accepted would set
 * TAINT_UNSIGNED_MODULE (E).  The modules of -u DIR (unsigned, a
 * baseline) are loaded in rounds of their own after all the others, as
 * the taint they set stays.  Round 0 warms up and is reported apart.
 *
 * Prints "ROUND DIR N NS" per round and DIR (N = round, NS = the sum of
 * the finit_module times), "MODULE DIR FILE NS" per module (summed over
 * the timed rounds), and "LOADBENCH-END" or "LOADBENCH-ERROR ...".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define MAX_MODS	256
#define MAX_DIRS	8

struct mod {
	char file[128];
	char name[64];
	long long ns[MAX_DIRS];
};

static struct mod mods[MAX_MODS];
static int nmods;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int error(const char *what, const char *detail)
{
	printf("LOADBENCH-ERROR %s: %s\n", what, detail);
	fflush(stdout);
	return 1;
}

static long tainted(void)
{
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");
	long t = -1;

	if (f) {
		if (fscanf(f, "%ld", &t) != 1)
			t = -1;
		fclose(f);
	}
	return t;
}

static int mod_path(char *buf, size_t len, const char *dir, const char *file)
{
	if ((size_t)snprintf(buf, len, "%s/%s", dir, file) < len)
		return 0;
	return error(dir, "path too long");
}

/* Load every module from DIR; returns the total ns, or -1. */
static long long load_all(const char *dir, int d, int timed)
{
	long long total = 0, t0, t1;
	char path[512];
	int i, fd;
	long r;

	for (i = 0; i < nmods; i++) {
		if (mod_path(path, sizeof(path), dir, mods[i].file))
			return -1;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			error(path, strerror(errno));
			return -1;
		}
		t0 = now_ns();
		r = syscall(SYS_finit_module, fd, "", 0);
		t1 = now_ns();
		if (r) {
			error(path, strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
		total += t1 - t0;
		if (timed)
			mods[i].ns[d] += t1 - t0;
	}
	return total;
}

static int unload_all(void)
{
	int i;

	for (i = nmods - 1; i >= 0; i--)
		if (syscall(SYS_delete_module, mods[i].name, O_NONBLOCK))
			return error(mods[i].name, strerror(errno));
	return 0;
}

static int run(int rounds, char **dirs, int ndirs, int first, int signed_)
{
	long long ns;
	int r, k, d;

	for (r = 0; r <= rounds; r++) {
		for (k = 0; k < ndirs; k++) {
			d = (k + r) % ndirs;
			ns = load_all(dirs[d], first + d, r > 0);
			if (ns < 0)
				return 1;
			if (signed_ && tainted() != 0) {
				char t[32];

				snprintf(t, sizeof(t), "tainted=%ld", tainted());
				return error(dirs[d], t);
			}
			if (unload_all())
				return 1;
			printf("ROUND %s %d %lld\n", dirs[d], r, ns);
		}
		fflush(stdout);
	}
	return 0;
}

/* Find an order in which the modules of DIR load, and sort them so. */
static int discover(const char *dir)
{
	static struct mod sorted[MAX_MODS];
	int done[MAX_MODS] = { 0 }, n = 0, progress = 1, i, fd;
	char path[512];

	while (n < nmods && progress) {
		progress = 0;
		for (i = 0; i < nmods; i++) {
			if (done[i])
				continue;
			if (mod_path(path, sizeof(path), dir, mods[i].file))
				return 1;
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				return error(path, strerror(errno));
			if (!syscall(SYS_finit_module, fd, "", 0)) {
				done[i] = 1;
				sorted[n++] = mods[i];
				progress = 1;
			}
			close(fd);
		}
	}
	if (n < nmods) {
		for (i = 0; i < nmods; i++)
			if (!done[i])
				return error(mods[i].file, "does not load");
	}
	memcpy(mods, sorted, sizeof(mods[0]) * nmods);
	printf("ORDER");
	for (i = 0; i < nmods; i++)
		printf(" %s", mods[i].name);
	printf("\n");
	return unload_all();
}

int main(int argc, char **argv)
{
	char *dirs[MAX_DIRS], *unsigned_dir = NULL, line[256];
	int rounds, ndirs = 0, i, d;
	FILE *f;

	if (argc < 4) {
		fprintf(stderr, "usage: loadbench ROUNDS LIST DIR... [-u DIR]\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "-u") && i + 1 < argc)
			unsigned_dir = argv[++i];
		else if (ndirs < MAX_DIRS - 1)
			dirs[ndirs++] = argv[i];
	}
	f = fopen(argv[2], "r");
	if (!f)
		return error(argv[2], strerror(errno));
	while (fgets(line, sizeof(line), f) && nmods < MAX_MODS) {
		if (sscanf(line, "%127s %63s", mods[nmods].file,
			   mods[nmods].name) == 2)
			nmods++;
	}
	fclose(f);
	if (!nmods)
		return error(argv[2], "no modules");
	if (tainted() != 0)
		return error("start", "kernel already tainted");
	if (discover(dirs[0]))
		return 1;
	if (run(rounds, dirs, ndirs, 0, 1))
		return 1;
	if (unsigned_dir) {
		dirs[ndirs] = unsigned_dir;
		if (run(rounds, dirs + ndirs, 1, ndirs, 0))
			return 1;
		ndirs++;
	}
	for (d = 0; d < ndirs; d++)
		for (i = 0; i < nmods; i++)
			printf("MODULE %s %s %lld\n", dirs[d], mods[i].file,
			       mods[i].ns[d]);
	printf("LOADBENCH-END\n");
	return 0;
}
