// SPDX-License-Identifier: GPL-2.0
/*
 * floor: the least that signing a set of modules can cost on this
 * machine, one hash of each module's bytes and one bare RSA private-key
 * operation on the digest, in a loop with nothing else in it.
 *
 *	floor -o FILE -l LABEL -k KEY.pem [-e openssl|gcrypt] [-j N] [-w DIR]
 *	      MODULE...
 *
 * The modules are read into memory first; only the loop is timed.  With
 * -e openssl (the default) the digest is signed with EVP_PKEY_sign on a
 * context made once (PKCS#1 v1.5, SHA-256 DigestInfo), which is what
 * libcrypto offers fastest; with -e gcrypt with gcry_pk_sign, which is
 * what gpg-agent does for gpg and for the project's signer without a
 * key file.  Hashing is SHA-256 with libcrypto's EVP_Digest in both
 * (gpg-agent is handed a digest).  With -j N the modules are shared out
 * among N forked workers, module i to worker i mod N.  With -w DIR each
 * module is also written, in the loop, to DIR/BASENAME followed by the
 * signature and as many bytes again as a trailer needs (create, write,
 * close): the least any signer that makes signed files can cost.
 *
 * Appends "LABEL COUNT WALL USER SYS 0" (seconds) to FILE, like btime,
 * and prints the RSA operations per second of the loop to stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <gcrypt.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

struct module {
	const char *name;
	unsigned char *data;
	size_t len;
};

static const char *outdir;

struct engine {
	int gcrypt;
	EVP_PKEY_CTX *ctx;	/* openssl */
	gcry_sexp_t key;	/* gcrypt */
	size_t siglen;
};

static void die(const char *what)
{
	unsigned long e = ERR_get_error();

	fprintf(stderr, "floor: %s%s%s\n", what, e ? ": " : "",
		e ? ERR_error_string(e, NULL) : "");
	exit(1);
}

static void read_module(const char *path, struct module *m)
{
	struct stat st;
	size_t off = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	m->name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	m->len = (size_t)st.st_size;
	m->data = malloc(m->len ? m->len : 1);
	if (!m->data)
		die("out of memory");
	while (off < m->len) {
		n = read(fd, m->data + off, m->len - off);
		if (n <= 0) {
			fprintf(stderr, "floor: %s: short read\n", path);
			exit(1);
		}
		off += (size_t)n;
	}
	close(fd);
}

static gcry_mpi_t mpi(const BIGNUM *b)
{
	unsigned char buf[1024];
	gcry_mpi_t m;
	int n = BN_bn2bin(b, buf);

	if (n <= 0 || gcry_mpi_scan(&m, GCRYMPI_FMT_USG, buf, (size_t)n, NULL))
		die("cannot convert a key number for libgcrypt");
	return m;
}

/* The same RSA key as libgcrypt wants it: p < q, u = p^-1 mod q. */
static gcry_sexp_t gcrypt_key(EVP_PKEY *pkey)
{
	BIGNUM *n = NULL, *e = NULL, *d = NULL, *p = NULL, *q = NULL;
	BIGNUM *u = BN_new();
	BN_CTX *bctx = BN_CTX_new();
	gcry_sexp_t key;

	if (!EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_N, &n) ||
	    !EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_E, &e) ||
	    !EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_D, &d) ||
	    !EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_FACTOR1, &p) ||
	    !EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_FACTOR2, &q) ||
	    !u || !bctx)
		die("not an RSA private key");
	if (BN_cmp(p, q) > 0) {
		BIGNUM *t = p;

		p = q;
		q = t;
	}
	if (!BN_mod_inverse(u, p, q, bctx))
		die("BN_mod_inverse");
	if (gcry_sexp_build(&key, NULL,
			    "(private-key(rsa(n%M)(e%M)(d%M)(p%M)(q%M)(u%M)))",
			    mpi(n), mpi(e), mpi(d), mpi(p), mpi(q), mpi(u)))
		die("gcry_sexp_build");
	if (gcry_pk_testkey(key))
		die("libgcrypt refuses the key");
	BN_free(n);
	BN_free(e);
	BN_clear_free(d);
	BN_clear_free(p);
	BN_clear_free(q);
	BN_clear_free(u);
	BN_CTX_free(bctx);
	return key;
}

static void engine_init(struct engine *eng, const char *keyfile)
{
	EVP_PKEY *pkey;
	FILE *f = fopen(keyfile, "r");

	if (!f) {
		fprintf(stderr, "floor: %s: %s\n", keyfile, strerror(errno));
		exit(1);
	}
	pkey = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!pkey)
		die("cannot read the private key");
	eng->siglen = (size_t)EVP_PKEY_get_size(pkey);
	if (eng->gcrypt) {
		if (!gcry_check_version(GCRYPT_VERSION))
			die("libgcrypt version mismatch");
		gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
		eng->key = gcrypt_key(pkey);
		EVP_PKEY_free(pkey);
		return;
	}
	eng->ctx = EVP_PKEY_CTX_new(pkey, NULL);
	if (!eng->ctx || EVP_PKEY_sign_init(eng->ctx) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_padding(eng->ctx, RSA_PKCS1_PADDING) <= 0 ||
	    EVP_PKEY_CTX_set_signature_md(eng->ctx, EVP_sha256()) <= 0)
		die("cannot make a signing context");
	EVP_PKEY_free(pkey);
}

/* Write the module and a trailer-sized tail after its signature. */
static void write_one(const struct module *m, const unsigned char *sig,
		      size_t slen)
{
	static const unsigned char trailer[1024];
	char path[4096];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", outdir, m->name) >=
	    sizeof(path))
		die("output path too long");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, m->data, m->len) != (ssize_t)m->len ||
	    write(fd, sig, slen) != (ssize_t)slen ||
	    write(fd, trailer, slen / 4 + 100) != (ssize_t)(slen / 4 + 100) ||
	    close(fd)) {
		fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void sign_one(struct engine *eng, const struct module *m)
{
	unsigned char digest[32], sig[1024];
	size_t slen = sizeof(sig);
	gcry_sexp_t data, res;
	unsigned int dlen;

	if (!EVP_Digest(m->data, m->len, digest, &dlen, EVP_sha256(), NULL))
		die("EVP_Digest");
	if (!eng->gcrypt) {
		if (EVP_PKEY_sign(eng->ctx, sig, &slen, digest, dlen) <= 0 ||
		    slen != eng->siglen)
			die("EVP_PKEY_sign");
	} else {
		if (gcry_sexp_build(&data, NULL,
				    "(data(flags pkcs1)(hash sha256 %b))",
				    (int)dlen, digest) ||
		    gcry_pk_sign(&res, data, eng->key))
			die("gcry_pk_sign");
		gcry_sexp_release(res);
		gcry_sexp_release(data);
		slen = eng->siglen;
	}
	if (outdir)
		write_one(m, sig, slen);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double tv(const struct timeval *t)
{
	return (double)t->tv_sec + (double)t->tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *label = NULL, *keyfile = NULL;
	struct engine eng = { 0 };
	struct module *mods;
	struct rusage r0, r1;
	double t0, t1, user, sys;
	long jobs = 1, j;
	size_t n, i;
	int c, status, failed = 0;
	FILE *f;

	while ((c = getopt(argc, argv, "o:l:k:e:j:w:")) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'l':
			label = optarg;
			break;
		case 'k':
			keyfile = optarg;
			break;
		case 'e':
			eng.gcrypt = !strcmp(optarg, "gcrypt");
			if (!eng.gcrypt && strcmp(optarg, "openssl")) {
				fprintf(stderr, "floor: -e openssl|gcrypt\n");
				return 2;
			}
			break;
		case 'w':
			outdir = optarg;
			break;
		case 'j':
			jobs = strtol(optarg, NULL, 10);
			if (jobs < 1 || jobs > 64)
				return 2;
			break;
		default:
			return 2;
		}
	}
	if (!out || !label || !keyfile || optind >= argc) {
		fprintf(stderr,
			"usage: floor -o FILE -l LABEL -k KEY.pem [-e openssl|gcrypt] [-j N] [-w DIR] MODULE...\n");
		return 2;
	}
	n = (size_t)(argc - optind);
	mods = calloc(n, sizeof(*mods));
	if (!mods)
		die("out of memory");
	for (i = 0; i < n; i++)
		read_module(argv[optind + i], &mods[i]);
	engine_init(&eng, keyfile);
	/* one untimed operation, so that lazy set-up is not in the loop */
	sign_one(&eng, &mods[0]);

	fflush(NULL);
	getrusage(RUSAGE_SELF, &r0);
	t0 = now();
	if (jobs == 1) {
		for (i = 0; i < n; i++)
			sign_one(&eng, &mods[i]);
		t1 = now();
		getrusage(RUSAGE_SELF, &r1);
		user = tv(&r1.ru_utime) - tv(&r0.ru_utime);
		sys = tv(&r1.ru_stime) - tv(&r0.ru_stime);
	} else {
		for (j = 0; j < jobs; j++) {
			pid_t pid = fork();

			if (pid < 0)
				die("fork");
			if (pid == 0) {
				for (i = (size_t)j; i < n; i += (size_t)jobs)
					sign_one(&eng, &mods[i]);
				_exit(0);
			}
		}
		for (j = 0; j < jobs; j++) {
			if (wait(&status) < 0)
				die("wait");
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				failed = 1;
		}
		t1 = now();
		getrusage(RUSAGE_CHILDREN, &r1);
		user = tv(&r1.ru_utime);
		sys = tv(&r1.ru_stime);
		if (failed)
			die("a worker failed");
	}
	f = fopen(out, "a");
	if (!f || fprintf(f, "%s %zu %.6f %.6f %.6f 0\n", label, n, t1 - t0,
			  user, sys) < 0 || fclose(f)) {
		fprintf(stderr, "floor: %s: %s\n", out, strerror(errno));
		return 1;
	}
	printf("%s: %zu modules, %.1f signatures/s\n", label, n,
	       (double)n / (t1 - t0));
	return 0;
}
