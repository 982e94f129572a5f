// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof export: a recording's samples, resolved as report resolves them,
 * for other tools: pprof's profile.proto, folded stacks, or an SVG flame
 * graph with one tower per guest.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "export.h"
#include "output.h"
#include "session.h"
#include "symopts.h"

struct export_opts {
	const char *input;
	const char *pprof;
	const char *folded; /* "-": standard output */
	const char *svg;
	bool period;
	bool host;
	bool guest;
	struct symbol_opts sym;
};

static void export_usage(FILE *out)
{
	fprintf(out, "usage: kvmprof export [-i FILE] [--pprof FILE] [--folded [FILE]] "
		     "[--svg FILE]\n"
		     "                      [--period] [--host] [--guest]\n");
	symopts_synopsis(out, 22);
	fprintf(out,
		"\n"
		"  -i, --input        perf.data file (default perf.data)\n"
		"      --pprof FILE   gzip-compressed pprof profile (go tool pprof "
		"FILE)\n"
		"      --folded [FILE]  folded stacks, root first, one line per stack\n"
		"                     (standard output without FILE)\n"
		"      --svg FILE     flame graph, one tower per guest and host command\n"
		"      --period       folded and SVG count event periods, not samples\n"
		"      --host/--guest only host or only guest samples (default both)\n");
	symopts_help(out);
	fprintf(out, "\nAt least one of --pprof, --folded and --svg is needed.\n");
}

enum {
	OPT_PPROF = 256,
	OPT_FOLDED,
	OPT_SVG,
	OPT_PERIOD,
	OPT_HOST,
	OPT_GUEST,
};

static int parse_option(void *opts, int c, const char *arg)
{
	struct export_opts *o = opts;

	switch (c) {
	case 'i':
		o->input = arg;
		return 0;
	case OPT_PPROF:
		o->pprof = arg;
		return 0;
	case OPT_FOLDED:
		o->folded = arg ? arg : "-";
		return 0;
	case OPT_SVG:
		o->svg = arg;
		return 0;
	case OPT_PERIOD:
		o->period = true;
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

static int parse_export_args(int argc, char **argv, struct export_opts *o)
{
	static const struct option own[] = {
		{"input", required_argument, NULL, 'i'},
		{"pprof", required_argument, NULL, OPT_PPROF},
		{"folded", optional_argument, NULL, OPT_FOLDED},
		{"svg", required_argument, NULL, OPT_SVG},
		{"period", no_argument, NULL, OPT_PERIOD},
		{"host", no_argument, NULL, OPT_HOST},
		{"guest", no_argument, NULL, OPT_GUEST},
		{"help", no_argument, NULL, 'h'},
		{0},
	};

	/* "--folded FILE" as well as "--folded=FILE": export takes no operands. */
	if (symopts_getopt("export", argc, argv, "i:h", own, &o->sym, parse_option, o,
			   export_usage))
		return -EINVAL;
	if (optind < argc) {
		fprintf(stderr, "kvmprof export: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	if (!o->pprof && !o->folded && !o->svg) {
		fprintf(stderr, "kvmprof export: say what to write: --pprof, --folded or "
				"--svg\n");
		export_usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* Samples of the file's first event: counts of different events do not add up. */
struct first_event {
	struct export_profile profile;
	const struct pd_evsel *evsel;
	uint64_t skipped;
};

static int take_sample(void *ctx, const struct pd_sample *ps,
		       const struct hist_key *frames, size_t nr, struct kp_err *err)
{
	struct first_event *fe = ctx;

	if (ps->evsel != fe->evsel) {
		fe->skipped++;
		return 0;
	}
	return export_profile_add(&fe->profile, ps, frames, nr, err);
}

static FILE *open_output(const char *path, struct kp_err *err)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		kp_errorf(err, errno, "%s: cannot create", path);
	return f;
}

static int close_output(FILE *f, const char *path, int ret, struct kp_err *err)
{
	bool failed = ferror(f) || (f == stdout ? fflush(f) : fclose(f));

	if (!ret && failed)
		return kp_errorf(err, EIO, "%s: write failed", path);
	if (ret == -ENOMEM)
		return kp_errorf(err, ENOMEM, "out of memory");
	return ret;
}

static int write_folded(const struct export_opts *o, const struct export_profile *p,
			struct kp_err *err)
{
	FILE *f = open_output(o->folded, err);

	if (!f)
		return -EIO;
	return close_output(f, o->folded, export_write_folded(p, o->period, f), err);
}

static int write_svg(const struct export_opts *o, const struct export_profile *p,
		     struct kp_err *err)
{
	struct flame_graph g;
	char title[420], input[256];
	FILE *f;
	int ret = flame_graph_build(p, o->period, &g);

	if (ret)
		return kp_errorf(err, ENOMEM, "out of memory");
	f = open_output(o->svg, err);
	if (!f) {
		flame_graph_release(&g);
		return -EIO;
	}
	sanitize(o->input ? o->input : "perf.data", input, sizeof(input));
	snprintf(title, sizeof(title), "%s of %s, by %s", p->event, input,
		 o->period ? "period" : "samples");
	ret = close_output(f, o->svg, export_write_svg(&g, title, f), err);
	flame_graph_release(&g);
	return ret;
}

static int write_outputs(const struct export_opts *o, const struct export_profile *p,
			 struct kp_err *err)
{
	int ret = 0;

	if (o->pprof)
		ret = export_write_pprof(p, o->pprof, err);
	if (!ret && o->folded)
		ret = write_folded(o, p, err);
	if (!ret && o->svg)
		ret = write_svg(o, p, err);
	return ret;
}

static int export_file(const struct export_opts *o, struct session *s,
		       struct first_event *fe, struct kp_err *err)
{
	int ret = session_open(s, o->input ? o->input : "perf.data", "sym", &o->sym, err);

	if (ret)
		return ret;
	output_unfinished(s, "kvmprof export: warning: ", stderr);
	if (!s->file->nr_evsels)
		return kp_errorf(err, EINVAL, "%s: no events", s->file->path);
	fe->evsel = &s->file->evsels[0];
	export_profile_init(&fe->profile, fe->evsel->name, &o->sym);
	s->want_host = o->host || !o->guest;
	s->want_guest = o->guest || !o->host;
	s->frame_fn = take_sample;
	s->frame_ctx = fe;
	ret = session_process(s, err);
	if (!ret && fe->skipped)
		fprintf(stderr,
			"kvmprof export: %s only: %llu samples of other events left "
			"out\n",
			fe->profile.event, (unsigned long long)fe->skipped);
	return ret ? ret : write_outputs(o, &fe->profile, err);
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o = {0};
	struct first_event fe = {0};
	struct kp_err err = {0};
	struct session s;
	int ret;

	if (parse_export_args(argc, argv, &o))
		return 2;
	ret = export_file(&o, &s, &fe, &err);
	if (ret)
		kp_err_print(stderr, "kvmprof export", &err);
	export_profile_release(&fe.profile);
	session_close(&s);
	return ret ? 1 : 0;
}
