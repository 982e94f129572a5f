// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol table speed: parse time of a kallsyms text file and lookups per
 * second at random text addresses.
 *
 *   bench_symtab KALLSYMS_FILE [LOOKUPS]
 *
 * Prints "parse_ms=<median of 7> parse_cpu_ms=<median of 7> symbols=<n>
 * lookups_per_s=<n>": the wall time of read + parse + index with the file
 * in the page cache (the target is on it), and the process's CPU time
 * (user + system, page faults included), which a busy neighbour disturbs
 * less.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/base.h"
#include "ksym/ksym.h"

static double clock_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static double cpu_s(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Read + parse + sort, as a report pays it: wall ms, and CPU ms in @cpu_ms. */
static double parse_once(const char *path, struct symtab **out, double *cpu_ms)
{
	struct kp_err err = {0};
	double t0 = cpu_s(), w0 = now_s();
	char *buf;
	size_t len;
	struct symtab *st = symtab_new();

	if (kp_read_file(path, KP_FILE_MAX, &buf, &len, &err) ||
	    kallsyms_parse(buf, len, path, st, &err)) {
		fprintf(stderr, "bench_symtab: %s\n", err.msg);
		exit(1);
	}
	free(buf);
	*out = st;
	*cpu_ms = (cpu_s() - t0) * 1e3;
	return (now_s() - w0) * 1e3;
}

int main(int argc, char **argv)
{
	double times[7], cpu[7], t0, elapsed;
	unsigned long lookups = argc > 2 ? strtoul(argv[2], NULL, 0) : 20000000UL;
	uint64_t *addrs, sink = 0, lo, hi;
	struct symtab *st = NULL;
	unsigned seed = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_symtab KALLSYMS [LOOKUPS]\n");
		return 2;
	}
	for (int i = 0; i < 7; i++) {
		symtab_free(st);
		times[i] = parse_once(argv[1], &st, &cpu[i]);
	}
	qsort(times, 7, sizeof(times[0]), cmp_double);
	qsort(cpu, 7, sizeof(cpu[0]), cmp_double);
	lo = st->text_start ? st->text_start : st->syms[0].addr;
	hi = st->text_end ? st->text_end : st->syms[st->nr - 1].addr;
	/* Random addresses prepared up front: the loop measures lookups only. */
	addrs = malloc(65536 * sizeof(*addrs));
	for (int i = 0; i < 65536; i++)
		addrs[i] =
			lo + ((uint64_t)rand_r(&seed) << 31 ^ (uint64_t)rand_r(&seed)) %
				     (hi - lo);
	t0 = now_s();
	for (unsigned long i = 0; i < lookups; i++) {
		const struct ksym *s = symtab_lookup(st, addrs[i & 65535], 0, NULL);

		sink += (uintptr_t)s;
	}
	elapsed = now_s() - t0;
	printf("parse_ms=%.2f parse_cpu_ms=%.2f symbols=%zu lookups_per_s=%.0f "
	       "sink=%llu\n",
	       times[3], cpu[3], st->nr, (double)lookups / elapsed,
	       (unsigned long long)(sink & 1));
	symtab_free(st);
	free(addrs);
	return 0;
}
