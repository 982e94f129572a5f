// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof diff: what changed between two recordings, per symbol, host and
 * guests, in perf diff's "Baseline  Delta  Shared Object  Symbol" layout.
 * Guests are matched by name (diff_rows.h), so recordings of different
 * boots compare.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "diff_rows.h"
#include "output.h"
#include "session.h"
#include "symopts.h"

struct diff_opts {
	const char *files[2];
	const char *sort; /* NULL: guest,dso,sym, the guest column only with guests */
	bool host;
	bool guest;
	struct symbol_opts sym;
};

static void diff_usage(FILE *out)
{
	fprintf(out, "usage: kvmprof diff [OLD] [NEW] [-s KEYS] [--host] [--guest]\n");
	symopts_synopsis(out, 20);
	fprintf(out,
		"\n"
		"  OLD, NEW           the recordings to compare: by default "
		"perf.data.old and\n"
		"                     perf.data (one file: NEW); with neither and --host "
		"or\n"
		"                     --guest, perf.data.host and perf.data.guest, as\n"
		"                     perf kvm diff\n"
		"  -s, --sort         keys: comm, pid, dso, sym, guest, vcpu, cr3, cpu, "
		"cpumode\n"
		"                     (default guest,dso,sym; the Guest column only when "
		"the\n"
		"                     recordings have guests). Guests match by name.\n"
		"      --host/--guest only host or only guest samples (default both)\n");
	symopts_help(out);
	fprintf(out,
		"\nRows are sorted by the absolute change of their share (|Delta|),\n"
		"largest first; equal changes by Baseline, largest first.\n");
}

enum {
	OPT_HOST = 256,
	OPT_GUEST,
};

static int parse_option(void *opts, int c, const char *arg)
{
	struct diff_opts *o = opts;

	switch (c) {
	case 's':
		o->sort = arg;
		return 0;
	case OPT_HOST:
		o->host = true;
		return 0;
	case OPT_GUEST:
		o->guest = true;
		return 0;
	default:
		return -EINVAL;
	}
}

/* perf diff's defaults (tools/perf/builtin-diff.c data_init()). */
static int choose_files(struct diff_opts *o, int nr, char **args)
{
	if (nr > 2) {
		fprintf(stderr, "kvmprof diff: at most two files, got '%s'\n", args[2]);
		return -EINVAL;
	}
	o->files[DIFF_OLD] = "perf.data.old";
	o->files[DIFF_NEW] = "perf.data";
	if (nr == 2) {
		o->files[DIFF_OLD] = args[0];
		o->files[DIFF_NEW] = args[1];
	} else if (nr == 1) {
		o->files[DIFF_NEW] = args[0];
	} else if (o->host || o->guest) {
		o->files[DIFF_OLD] = "perf.data.host";
		o->files[DIFF_NEW] = "perf.data.guest";
	}
	return 0;
}

static int parse_diff_args(int argc, char **argv, struct diff_opts *o)
{
	static const struct option own[] = {
		{"sort", required_argument, NULL, 's'},
		{"host", no_argument, NULL, OPT_HOST},
		{"guest", no_argument, NULL, OPT_GUEST},
		{"help", no_argument, NULL, 'h'},
		{0},
	};

	if (symopts_getopt("diff", argc, argv, "s:h", own, &o->sym, parse_option, o,
			   diff_usage))
		return -EINVAL;
	return choose_files(o, argc - optind, argv + optind);
}

/* One recording's histogram, added to @t as @side. */
static int read_side(const struct diff_opts *o, int side, struct diff_table *t,
		     struct kp_err *err)
{
	struct session s;
	int ret = session_open(&s, o->files[side], o->sort ? o->sort : "guest,dso,sym",
			       &o->sym, err);

	if (!ret) {
		output_unfinished(&s, "kvmprof diff: warning: ", stderr);
		s.want_host = o->host || !o->guest;
		s.want_guest = o->guest || !o->host;
		ret = session_process(&s, err);
	}
	if (!ret && !s.file->nr_evsels)
		ret = kp_errorf(err, EINVAL, "%s: no events", o->files[side]);
	if (!ret) {
		if (side == DIFF_OLD)
			diff_table_init(t, &s.hists[0]);
		if (diff_table_add(t, side, &s.hists[0]))
			ret = kp_errorf(err, ENOMEM, "out of memory");
	}
	session_close(&s);
	return ret;
}

/* The guest column of the default keys says "host" on every row of host-only files. */
static bool shown(const struct diff_opts *o, const struct diff_table *t, size_t key)
{
	return o->sort || t->keys[key] != SORT_GUEST || t->has_guests;
}

static void widths(const struct diff_table *t, int *w)
{
	for (size_t k = 0; k < t->nr_keys; k++) {
		w[k] = (int)strlen(output_header(t->keys[k]));
		for (size_t i = 0; i < t->nr; i++)
			if ((int)strlen(t->rows[i]->cells[k]) > w[k])
				w[k] = (int)strlen(t->rows[i]->cells[k]);
	}
}

static void dots(int n, FILE *out)
{
	for (int i = 0; i < n; i++)
		fputc('.', out);
}

static void header(const struct diff_opts *o, const struct diff_table *t, const int *w,
		   FILE *out)
{
	char old[1024], new[1024];

	sanitize(o->files[DIFF_OLD], old, sizeof(old));
	sanitize(o->files[DIFF_NEW], new, sizeof(new));
	fprintf(out, "# kvmprof diff of %s (baseline) and %s\n#\n", old, new);
	fprintf(out, "# Baseline     Delta");
	for (size_t k = 0; k < t->nr_keys; k++)
		if (shown(o, t, k))
			fprintf(out, "  %-*s", k + 1 < t->nr_keys ? w[k] : 0,
				output_header(t->keys[k]));
	fprintf(out, "\n# ........  ........");
	for (size_t k = 0; k < t->nr_keys; k++)
		if (shown(o, t, k)) {
			fputs("  ", out);
			dots(w[k], out);
		}
	fputs("\n#\n", out);
}

static void row(const struct diff_opts *o, const struct diff_table *t,
		const struct diff_row *r, const int *w, FILE *out)
{
	double delta = diff_delta(t, r);

	if (r->period[DIFF_OLD])
		fprintf(out, "  %7.2f%%", diff_percent(t, r, DIFF_OLD));
	else
		fprintf(out, "%10s", "");
	/* perf diff leaves out changes that round to nothing. */
	if (delta >= 0.005 || delta <= -0.005)
		fprintf(out, "  %+7.2f%%", delta);
	else
		fprintf(out, "%10s", "");
	for (size_t k = 0; k < t->nr_keys; k++)
		if (shown(o, t, k))
			fprintf(out, "  %-*s", k + 1 < t->nr_keys ? w[k] : 0,
				r->cells[k]);
	fputc('\n', out);
}

static void print_diff(const struct diff_opts *o, const struct diff_table *t, FILE *out)
{
	int w[SORT__MAX];

	widths(t, w);
	header(o, t, w, out);
	for (size_t i = 0; i < t->nr; i++)
		row(o, t, t->rows[i], w, out);
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {0};
	struct diff_table t = {0};
	struct kp_err err = {0};
	int ret;

	if (parse_diff_args(argc, argv, &o))
		return 2;
	hashindex_init(&t.index);
	ret = read_side(&o, DIFF_OLD, &t, &err);
	if (!ret)
		ret = read_side(&o, DIFF_NEW, &t, &err);
	if (ret) {
		kp_err_print(stderr, "kvmprof diff", &err);
		diff_table_release(&t);
		return 1;
	}
	diff_table_sort(&t);
	print_diff(&o, &t, stdout);
	diff_table_release(&t);
	return fflush(stdout) ? 1 : 0;
}
