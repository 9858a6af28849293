// SPDX-License-Identifier: GPL-2.0
/*
 * btime: run a command and append how long it took to a results file.
 *
 *	btime -o FILE -l LABEL -n COUNT [-a PID]... -- COMMAND [ARG]...
 *
 * Appends one line "LABEL COUNT WALL USER SYS DAEMON" (seconds) to FILE:
 * the wall-clock time (CLOCK_MONOTONIC) from fork to the end of the wait,
 * the user and system CPU time of the command and every descendant it
 * waited for, and the CPU time the daemons given with -a (gpg-agent,
 * which is not a child of anything it serves) spent meanwhile, from
 * /proc/PID/stat.  Exits with the command's status.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define MAX_DAEMONS 8

static double ts(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

static double tv(const struct timeval *t)
{
	return (double)t->tv_sec + (double)t->tv_usec / 1e6;
}

/* utime + stime of PID in seconds, or a negative number if it is gone. */
static double daemon_cpu(pid_t pid)
{
	unsigned long long ut, st;
	char path[64], buf[1024], *p;
	size_t n;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command name may hold spaces: fields count from its ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	for (i = 0; i < 11 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *label = NULL, *count = "1";
	pid_t daemons[MAX_DAEMONS], pid;
	double before[MAX_DAEMONS], dcpu = 0, after;
	struct timespec t0, t1;
	struct rusage ru;
	int nd = 0, c, status, i;
	FILE *f;

	while ((c = getopt(argc, argv, "+o:l:n:a:")) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'l':
			label = optarg;
			break;
		case 'n':
			count = optarg;
			break;
		case 'a':
			if (nd == MAX_DAEMONS) {
				fprintf(stderr, "btime: too many -a\n");
				return 2;
			}
			daemons[nd++] = (pid_t)atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!out || !label || optind >= argc) {
		fprintf(stderr,
			"usage: btime -o FILE -l LABEL -n COUNT [-a PID]... -- COMMAND...\n");
		return 2;
	}
	for (i = 0; i < nd; i++)
		before[i] = daemon_cpu(daemons[i]);
	fflush(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("btime: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "btime: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("btime: waitpid");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_CHILDREN, &ru);
	for (i = 0; i < nd; i++) {
		after = daemon_cpu(daemons[i]);
		if (before[i] < 0 || after < 0) {
			fprintf(stderr, "btime: daemon %d is gone\n",
				(int)daemons[i]);
			return 1;
		}
		dcpu += after - before[i];
	}
	f = fopen(out, "a");
	if (!f) {
		fprintf(stderr, "btime: %s: %s\n", out, strerror(errno));
		return 1;
	}
	fprintf(f, "%s %s %.6f %.6f %.6f %.6f\n", label, count,
		ts(&t1) - ts(&t0), tv(&ru.ru_utime), tv(&ru.ru_stime), dcpu);
	if (fclose(f)) {
		fprintf(stderr, "btime: %s: %s\n", out, strerror(errno));
		return 1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	fprintf(stderr, "btime: %s killed by signal %d\n", argv[optind],
		WTERMSIG(status));
	return 1;
}
