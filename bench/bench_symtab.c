// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol table speed: parse time of a kallsyms text file and lookups per
 * second at random text addresses.
 *
 *   bench_symtab KALLSYMS_FILE [LOOKUPS]
 *
 * Prints "parse_ms=<median of 7> parse_cpu_ms=<median of 7> faults=<median
 * of 7> symbols=<n> lookups_per_s=<n>": the wall time of read + parse +
 * index with the file in the page cache (the target is on it), the CPU
 * time (user + system), which a busy neighbour disturbs less, and the
 * minor page faults of the process, its start included.
 *
 * Each parse is timed in a process of its own, with the heap set up as
 * kvmprof's main() sets it up: a report parses a table once, into memory
 * it has never touched, and on these virtual machines a first touch costs
 * about 10 us per 4 KiB. Parses repeated in one process reuse the memory
 * the previous one freed and do not pay that (5-19 ms here, against 45-75
 * ms for a first parse on a plain heap).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "ksym/ksym.h"

#define PARSES 7

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

	if (!st || kp_read_file(path, KP_FILE_MAX, &buf, &len, &err) ||
	    kallsyms_parse(buf, len, path, st, &err)) {
		fprintf(stderr, "bench_symtab: %s\n", st ? err.msg : "out of memory");
		exit(1);
	}
	free(buf);
	*out = st;
	*cpu_ms = (cpu_s() - t0) * 1e3;
	return (now_s() - w0) * 1e3;
}

/* The child: one parse in a fresh process, its times on stdout. */
static int parse_child(const char *path)
{
	struct symtab *st;
	double wall, cpu;

	kp_reuse_large_frees();
	kp_heap_on_huge_pages();
	wall = parse_once(path, &st, &cpu);
	printf("%f %f\n", wall, cpu);
	return 0;
}

/* One parse in a new process: its wall and CPU ms, and its minor faults. */
static void parse_fresh(const char *path, double *wall, double *cpu, double *faults)
{
	struct rusage ru;
	int fds[2], status;
	FILE *in;
	pid_t pid;

	if (pipe(fds) || (pid = fork()) < 0) {
		perror("bench_symtab: fork");
		exit(1);
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl("/proc/self/exe", "bench_symtab", "--parse-once", path,
		      (char *)NULL);
		perror("bench_symtab: exec");
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	if (!in || fscanf(in, "%lf %lf", wall, cpu) != 2) {
		fprintf(stderr, "bench_symtab: the parse of %s failed\n", path);
		exit(1);
	}
	fclose(in);
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "bench_symtab: the parse of %s failed\n", path);
		exit(1);
	}
	*faults = (double)ru.ru_minflt;
}

int main(int argc, char **argv)
{
	double times[PARSES], cpu[PARSES], faults[PARSES], t0, elapsed;
	unsigned long lookups;
	uint64_t *addrs, sink = 0, lo, hi;
	struct symtab *st = NULL;
	unsigned seed = 1;
	double unused;

	if (argc == 3 && !strcmp(argv[1], "--parse-once"))
		return parse_child(argv[2]);
	if (argc < 2) {
		fprintf(stderr, "usage: bench_symtab KALLSYMS [LOOKUPS]\n");
		return 2;
	}
	lookups = argc > 2 ? strtoul(argv[2], NULL, 0) : 20000000UL;
	for (int i = 0; i < PARSES; i++)
		parse_fresh(argv[1], &times[i], &cpu[i], &faults[i]);
	qsort(times, PARSES, sizeof(times[0]), cmp_double);
	qsort(cpu, PARSES, sizeof(cpu[0]), cmp_double);
	qsort(faults, PARSES, sizeof(faults[0]), cmp_double);

	parse_once(argv[1], &st, &unused);
	lo = st->text_start ? st->text_start : st->syms[0].addr;
	hi = st->text_end ? st->text_end : st->syms[st->nr - 1].addr;
	/* Random addresses prepared up front: the loop measures lookups only. */
	addrs = malloc(65536 * sizeof(*addrs));
	if (!addrs)
		return 1;
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
	printf("parse_ms=%.2f parse_cpu_ms=%.2f faults=%.0f symbols=%zu "
	       "lookups_per_s=%.0f sink=%llu\n",
	       times[PARSES / 2], cpu[PARSES / 2], faults[PARSES / 2], st->nr,
	       (double)lookups / elapsed, (unsigned long long)(sink & 1));
	symtab_free(st);
	free(addrs);
	return 0;
}
