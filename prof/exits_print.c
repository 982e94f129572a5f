// SPDX-License-Identifier: GPL-2.0
/* The tables of kvmprof stat exits: per guest, per vCPU, and guest functions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "exits.h"
#include "perf/exitreason.h"

#define TOP_FUNCTIONS 20
#define FUNC_REASONS  3

static const char *const view_titles[] = {"VM-EXIT", "MMIO Access", "IO Port Access",
					  "MSR Access"};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static void print_histogram(enum exits_view view, const struct exits_stats *st, FILE *out)
{
	char name[EXIT_REASON_NAME_MAX + 32];

	fprintf(out, "\n  latency (us)  <1 1-2 2-4 4-8 ... : count per bucket\n");
	for (size_t i = 0; i < st->nr; i++) {
		const struct exits_stat *s = &st->v[i];

		exits_key_name(view, s, name, sizeof(name));
		fprintf(out, "  %20s ", name);
		for (unsigned b = 0; b < EXITS_BUCKETS; b++) {
			if (!s->hist[b])
				continue;
			if (b == 0)
				fprintf(out, " <1:%" PRIu64, s->hist[b]);
			else
				fprintf(out, " %llu-%llu:%" PRIu64, 1ULL << (b - 1),
					1ULL << b, s->hist[b]);
		}
		fputc('\n', out);
	}
}

static void print_table(enum exits_view view, struct exits_stats *st, enum exits_sort key,
			FILE *out)
{
	char name[EXIT_REASON_NAME_MAX + 32];
	uint64_t count = 0, total = 0;

	exits_stats_sort(st, key);
	for (size_t i = 0; i < st->nr; i++) {
		count += st->v[i].count;
		total += st->v[i].total_ns;
	}
	fprintf(out, "%20s %10s %9s %9s %11s %11s %11s\n", view_titles[view], "Samples",
		"Samples%", "Time%", "Min Time", "Max Time", "Avg time");
	for (size_t i = 0; i < st->nr; i++) {
		const struct exits_stat *s = &st->v[i];

		exits_key_name(view, s, name, sizeof(name));
		fprintf(out,
			"%20s %10" PRIu64 " %8.2f%% %8.2f%% %9.2fus %9.2fus %9.2fus\n",
			name, s->count, pct(s->count, count), pct(s->total_ns, total),
			us(s->min_ns), us(s->max_ns), us(s->total_ns / s->count));
	}
	fprintf(out, "\nTotal Samples:%" PRIu64 ", Total events handled time:%.2fus.\n",
		count, us(total));
	print_histogram(view, st, out);
}

static int compare_funcs(const void *a, const void *b)
{
	const struct exits_func *x = *(const struct exits_func *const *)a;
	const struct exits_func *y = *(const struct exits_func *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void print_func(enum exits_view view, struct exits_func *f, uint64_t total,
		       FILE *out)
{
	char name[EXIT_REASON_NAME_MAX + 32];

	exits_stats_sort(&f->reasons, EXITS_BY_COUNT);
	fprintf(out, "%10" PRIu64 " %7.2f%%  %-36s ", f->count, pct(f->count, total),
		f->name);
	for (size_t i = 0; i < f->reasons.nr && i < FUNC_REASONS; i++) {
		exits_key_name(view, &f->reasons.v[i], name, sizeof(name));
		fprintf(out, "%s%s %" PRIu64, i ? ", " : "", name, f->reasons.v[i].count);
	}
	fputc('\n', out);
}

static void print_functions(enum exits_view view, const struct exits_guest *g, FILE *out)
{
	struct exits_func **fs = calloc(g->funcs.nr + 1, sizeof(*fs));
	size_t n = 0;

	if (!fs)
		return;
	for (size_t i = 0; i < g->funcs.cap; i++)
		if (g->funcs.keys[i])
			fs[n++] = g->funcs.vals[i];
	qsort(fs, n, sizeof(*fs), compare_funcs);
	fprintf(out, "\nTop guest functions causing exits, guest %s:\n\n", g->name);
	fprintf(out, "%10s %8s  %-36s %s\n", "Count", "Share", "Function",
		"Reasons (most first)");
	for (size_t i = 0; i < n && i < TOP_FUNCTIONS; i++)
		print_func(view, fs[i], g->count, out);
	free(fs);
}

static int compare_guests(const void *a, const void *b)
{
	const struct exits_guest *x = *(const struct exits_guest *const *)a;
	const struct exits_guest *y = *(const struct exits_guest *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->pid - y->pid;
}

static int compare_vcpus(const void *a, const void *b)
{
	return ((const struct exits_vcpu *)a)->vcpu -
	       ((const struct exits_vcpu *)b)->vcpu;
}

static void print_guest(struct exits *x, struct exits_guest *g, enum exits_sort key,
			FILE *out)
{
	const char *isa = g->all.nr ? exit_isa_name(g->all.v[0].isa) : "unknown";

	fprintf(out, "\nAnalyze events for guest %s (pid %d), all VCPUs (%s):\n\n",
		g->name, g->pid, x->view == EXITS_VMEXIT ? isa : view_titles[x->view]);
	print_table(x->view, &g->all, key, out);
	qsort(g->vcpus, g->nr_vcpus, sizeof(*g->vcpus), compare_vcpus);
	for (size_t i = 0; i < g->nr_vcpus; i++) {
		fprintf(out, "\nAnalyze events for guest %s (pid %d), VCPU %d:\n\n",
			g->name, g->pid, g->vcpus[i].vcpu);
		print_table(x->view, &g->vcpus[i].stats, key, out);
	}
	print_functions(x->view, g, out);
}

void exits_print(struct exits *x, enum exits_sort key, FILE *out)
{
	qsort(x->guests, x->nr_guests, sizeof(*x->guests), compare_guests);
	for (size_t i = 0; i < x->nr_guests; i++)
		if (x->guests[i]->count)
			print_guest(x, x->guests[i], key, out);
	if (!x->nr_guests)
		fprintf(out, "\nNo %s events paired with an entry.\n",
			view_titles[x->view]);
	if (x->unpaired)
		fprintf(out,
			"\n%" PRIu64
			" events without their kvm_entry (lost, or cut off by the "
			"recording's start or end).\n",
			x->unpaired);
}
