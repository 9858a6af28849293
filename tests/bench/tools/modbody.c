// SPDX-License-Identifier: GPL-2.0
/*
 * modbody: write the bodies of signed modules, without their signature
 * trailers, into a directory.
 *
 *	modbody OUTDIR MODULE...
 *
 * OUTDIR/BASENAME gets the body of each MODULE: the module with its
 * "~Module signature appended~\n" trailer (struct module_signature, the
 * signature and the signer and key id fields it counts) removed, as
 * scripts/extract-module-sig.pl -0 would print it.  A module without a
 * trailer is copied whole; one whose trailer does not fit is an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define MAGIC		"~Module signature appended~\n"
#define MAGIC_LEN	(sizeof(MAGIC) - 1)
#define INFO_LEN	12

static int write_all(int fd, const unsigned char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The length of the body of BUF, or (size_t)-1 if the trailer is bad. */
static size_t body_len(const unsigned char *buf, size_t len)
{
	const unsigned char *info;
	size_t sig_len, extra;

	if (len < MAGIC_LEN + INFO_LEN ||
	    memcmp(buf + len - MAGIC_LEN, MAGIC, MAGIC_LEN))
		return len;
	info = buf + len - MAGIC_LEN - INFO_LEN;
	/* algo, hash, id_type, signer_len, key_id_len, pad[3], be32 sig_len */
	sig_len = (size_t)info[8] << 24 | (size_t)info[9] << 16 |
		  (size_t)info[10] << 8 | info[11];
	extra = sig_len + info[3] + info[4] + INFO_LEN + MAGIC_LEN;
	if (extra > len)
		return (size_t)-1;
	return len - extra;
}

static int one(const char *outdir, const char *path)
{
	char *copy, *out;
	unsigned char *buf;
	struct stat st;
	size_t blen;
	int fd, ofd, ret = 1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "modbody: %s: %s\n", path, strerror(errno));
		return 1;
	}
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "modbody: %s: %s\n", path, strerror(errno));
		return 1;
	}
	blen = body_len(buf, (size_t)st.st_size);
	if (blen == (size_t)-1) {
		fprintf(stderr, "modbody: %s: signature trailer does not fit\n",
			path);
		goto out;
	}
	copy = strdup(path);
	if (!copy || asprintf(&out, "%s/%s", outdir, basename(copy)) < 0) {
		free(copy);
		goto out;
	}
	free(copy);
	ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (ofd < 0 || write_all(ofd, buf, blen) || close(ofd)) {
		fprintf(stderr, "modbody: %s: %s\n", out, strerror(errno));
		if (ofd >= 0)
			close(ofd);
	} else {
		ret = 0;
	}
	free(out);
out:
	munmap(buf, (size_t)st.st_size);
	return ret;
}

int main(int argc, char **argv)
{
	int i, ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: modbody OUTDIR MODULE...\n");
		return 2;
	}
	for (i = 2; i < argc; i++)
		ret |= one(argv[1], argv[i]);
	return ret;
}
