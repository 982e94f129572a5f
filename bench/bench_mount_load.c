// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrent readers on guestfs-mount's tree.
 *
 *   bench_mount_load [-t THREADS] [-n READS] [-r REOPEN] FILE...
 *
 * Each FILE is read whole once at the start: that copy is what every later
 * read must return. Then THREADS readers (32) each open every FILE and do
 * READS (10000) preads of a random file, offset and length (1 byte to
 * 64 KiB), comparing the bytes with the copy; every REOPEN (64) reads a
 * reader closes and reopens one of its files, which without FUSE's
 * keep_cache drops the file's page cache, so reads keep reaching the
 * daemon. Prints one line of figures and exits 1 on any error or mismatch.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LEN (64 * 1024)

struct ref {
	const char *path;
	uint8_t *data;
	size_t len;
};

struct reader {
	pthread_t thread;
	uint64_t seed;
	uint64_t *lat_ns; /* one per read */
	uint64_t reads, errors, mismatches;
	char first_error[256];
};

static struct ref *refs;
static size_t nr_refs;
static unsigned nr_reads = 10000, reopen_every = 64;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: each reader its own stream, reproducible from its seed. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static int load_ref(struct ref *r)
{
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 20;
	ssize_t n;

	if (fd < 0)
		return -errno;
	r->data = malloc(cap);
	while (r->data && (n = read(fd, r->data + r->len, cap - r->len)) > 0) {
		uint8_t *grown;

		r->len += (size_t)n;
		if (r->len < cap)
			continue;
		grown = realloc(r->data, cap *= 2);
		if (!grown)
			free(r->data);
		r->data = grown;
	}
	close(fd);
	return r->data ? 0 : -ENOMEM;
}

static void note(struct reader *rd, const char *fmt, const char *path, int e)
{
	if (!rd->first_error[0])
		snprintf(rd->first_error, sizeof(rd->first_error), fmt, path,
			 strerror(e));
}

/* One random read of file @i through @fd, checked against its copy. */
static void one_read(struct reader *rd, int fd, size_t i, uint8_t *buf)
{
	const struct ref *r = &refs[i];
	size_t len = 1 + rnd(&rd->seed) % MAX_LEN;
	size_t off = r->len ? rnd(&rd->seed) % (r->len + 1) : 0;
	size_t want = off + len > r->len ? r->len - off : len;
	uint64_t t0 = now_ns();
	ssize_t n = pread(fd, buf, len, (off_t)off);

	rd->lat_ns[rd->reads++] = now_ns() - t0;
	if (n < 0) {
		rd->errors++;
		note(rd, "%s: pread: %s", r->path, errno);
	} else if ((size_t)n != want || memcmp(buf, r->data + off, want)) {
		rd->mismatches++;
		note(rd, "%s: bytes differ from the first read%.0s", r->path, 0);
	}
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	int *fds = calloc(nr_refs, sizeof(int));
	uint8_t *buf = malloc(MAX_LEN);

	if (!fds || !buf) {
		rd->errors++;
		goto out;
	}
	for (size_t i = 0; i < nr_refs; i++)
		if ((fds[i] = open(refs[i].path, O_RDONLY | O_CLOEXEC)) < 0) {
			rd->errors++;
			note(rd, "%s: open: %s", refs[i].path, errno);
		}
	for (unsigned k = 0; k < nr_reads; k++) {
		size_t i = rnd(&rd->seed) % nr_refs;

		if (k && k % reopen_every == 0) {
			close(fds[i]);
			fds[i] = open(refs[i].path, O_RDONLY | O_CLOEXEC);
		}
		if (fds[i] < 0) {
			rd->errors++;
			note(rd, "%s: open: %s", refs[i].path, errno);
			continue;
		}
		one_read(rd, fds[i], i, buf);
	}
	for (size_t i = 0; i < nr_refs; i++)
		if (fds[i] >= 0)
			close(fds[i]);
out:
	free(fds);
	free(buf);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(struct reader *rds, unsigned nr, double secs)
{
	uint64_t reads = 0, errors = 0, mismatches = 0, *all, k = 0;

	for (unsigned t = 0; t < nr; t++) {
		reads += rds[t].reads;
		errors += rds[t].errors;
		mismatches += rds[t].mismatches;
		if (rds[t].first_error[0])
			fprintf(stderr, "reader %u: %s\n", t, rds[t].first_error);
	}
	all = malloc((reads ? reads : 1) * sizeof(*all));
	for (unsigned t = 0; all && t < nr; t++) {
		memcpy(all + k, rds[t].lat_ns, rds[t].reads * sizeof(*all));
		k += rds[t].reads;
	}
	if (all && reads)
		qsort(all, reads, sizeof(*all), cmp_u64);
	printf("readers %u reads %llu errors %llu mismatches %llu seconds %.2f "
	       "reads/s %.0f p50_us %.0f p99_us %.0f max_us %.0f\n",
	       nr, (unsigned long long)reads, (unsigned long long)errors,
	       (unsigned long long)mismatches, secs, reads / secs,
	       all && reads ? all[reads / 2] / 1e3 : 0,
	       all && reads ? all[reads * 99 / 100] / 1e3 : 0,
	       all && reads ? all[reads - 1] / 1e3 : 0);
	free(all);
}

int main(int argc, char **argv)
{
	unsigned nr_threads = 32, failed = 0;
	struct reader *rds;
	uint64_t t0;
	int c;

	while ((c = getopt(argc, argv, "t:n:r:")) != -1) {
		unsigned v = (unsigned)strtoul(optarg, NULL, 0);

		if (!v)
			goto usage;
		if (c == 't')
			nr_threads = v;
		else if (c == 'n')
			nr_reads = v;
		else if (c == 'r')
			reopen_every = v;
		else
			goto usage;
	}
	nr_refs = (size_t)(argc - optind);
	if (!nr_refs)
		goto usage;
	refs = calloc(nr_refs, sizeof(*refs));
	rds = calloc(nr_threads, sizeof(*rds));
	if (!refs || !rds)
		return 1;
	for (size_t i = 0; i < nr_refs; i++) {
		int e;

		refs[i].path = argv[optind + (int)i];
		if ((e = load_ref(&refs[i]))) {
			fprintf(stderr, "%s: %s\n", refs[i].path, strerror(-e));
			return 1;
		}
	}
	t0 = now_ns();
	for (unsigned t = 0; t < nr_threads; t++) {
		rds[t].seed = 0x9e3779b97f4a7c15ULL * (t + 1);
		rds[t].lat_ns = calloc(nr_reads, sizeof(uint64_t));
		if (!rds[t].lat_ns ||
		    pthread_create(&rds[t].thread, NULL, reader_main, &rds[t]))
			return 1;
	}
	for (unsigned t = 0; t < nr_threads; t++) {
		pthread_join(rds[t].thread, NULL);
		failed |= rds[t].errors || rds[t].mismatches;
	}
	report(rds, nr_threads, (now_ns() - t0) / 1e9);
	return failed ? 1 : 0;
usage:
	fprintf(stderr,
		"usage: bench_mount_load [-t THREADS] [-n READS] [-r REOPEN] FILE...\n");
	return 2;
}
