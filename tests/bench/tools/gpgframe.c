// SPDX-License-Identifier: GPL-2.0
/*
 * gpgframe: sign one module the way a script would with gpg, one gpg
 * run per module: "gpg --detach-sign" of the body, then the signature
 * framed as module-signing.rst says (body, signer name, key id, the packet gpg
 * made, struct module_signature, magic) into OUT.
 *
 *	gpgframe HOMEDIR KEY SIGNER KEYID-HEX BODY OUT
 *
 * gpg's output comes through a pipe, so the only cost besides gpg (and
 * its agent) is this small process and one write of OUT: the cheapest
 * framing there is, so that the comparison is gpg's own cost.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define MAGIC		"~Module signature appended~\n"
#define MAGIC_LEN	(sizeof(MAGIC) - 1)
#define SIG_MAX		4096

static int fail(const char *what, const char *detail)
{
	fprintf(stderr, "gpgframe: %s: %s\n", what, detail);
	return 1;
}

static int keyid_parse(const char *hex, unsigned char id[8])
{
	unsigned int b;
	int i;

	if (strlen(hex) != 16)
		return -1;
	for (i = 0; i < 8; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		id[i] = (unsigned char)b;
	}
	return 0;
}

/* Run gpg and collect the detached signature it prints. */
static ssize_t gpg_sign(char **argv, unsigned char *sig, size_t max)
{
	size_t len = 0;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		n = read(fds[0], sig + len, max - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == max)
			break;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) || n < 0 || !len ||
	    len == max)
		return -1;
	return (ssize_t)len;
}

int main(int argc, char **argv)
{
	unsigned char sig[SIG_MAX], keyid[8], info[12] = { 0 };
	char *gpg[] = { "gpg", "--homedir", NULL, "--batch", "--no-tty",
			"--quiet", "--digest-algo", "SHA256", "--local-user",
			NULL, "--output", "-", "--detach-sign", NULL, NULL };
	const char *signer, *body, *out;
	struct iovec iov[5];
	struct stat st;
	unsigned char *map;
	size_t slen, want;
	ssize_t n;
	int fd;

	if (argc != 7) {
		fprintf(stderr,
			"usage: gpgframe HOMEDIR KEY SIGNER KEYID-HEX BODY OUT\n");
		return 2;
	}
	signer = argv[3];
	body = argv[5];
	out = argv[6];
	if (keyid_parse(argv[4], keyid) || strlen(signer) > 255)
		return fail(argv[4], "bad key id or signer name");
	gpg[2] = argv[1];
	gpg[9] = argv[2];
	gpg[13] = (char *)body;
	n = gpg_sign(gpg, sig, sizeof(sig));
	if (n < 0)
		return fail(body, "gpg --detach-sign failed");
	slen = (size_t)n;

	fd = open(body, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return fail(body, strerror(errno));
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return fail(body, strerror(errno));

	/* struct module_signature: algo RSA, hash sha256, id_type PGP */
	info[0] = 1;
	info[1] = 4;
	info[2] = 0;
	info[3] = (unsigned char)strlen(signer);
	info[4] = 8;
	info[8] = (unsigned char)(slen >> 24);
	info[9] = (unsigned char)(slen >> 16);
	info[10] = (unsigned char)(slen >> 8);
	info[11] = (unsigned char)slen;
	iov[0] = (struct iovec){ map, (size_t)st.st_size };
	iov[1] = (struct iovec){ (void *)signer, strlen(signer) };
	iov[2] = (struct iovec){ keyid, sizeof(keyid) };
	iov[3] = (struct iovec){ sig, slen };
	iov[4] = (struct iovec){ info, sizeof(info) };
	want = (size_t)st.st_size + strlen(signer) + sizeof(keyid) + slen +
	       sizeof(info);

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail(out, strerror(errno));
	/* a regular file takes a writev of this size whole */
	n = writev(fd, iov, 5);
	if (n < 0 || (size_t)n != want ||
	    write(fd, MAGIC, MAGIC_LEN) != (ssize_t)MAGIC_LEN || close(fd))
		return fail(out, n < 0 ? strerror(errno) : "short write");
	munmap(map, (size_t)st.st_size);
	return 0;
}
