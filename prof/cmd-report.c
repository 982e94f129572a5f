// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof report: where the time went, host and guests, from a perf.data
 * file written by kvmprof record, perf record or perf kvm record.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "output.h"
#include "session.h"
#include "symopts.h"

struct report_opts {
	const char *input;
	const char *sort;
	bool host;
	bool guest;
	struct symbol_opts sym;
	struct output_opts out;
	int children;	  /* --children 1, --no-children 0, neither -1 */
	int caller_order; /* -g caller 1 (perf's default), -g callee 0 */
};

static void report_usage(FILE *out)
{
	fprintf(out, "usage: kvmprof report [-i FILE] [--stdio] [-s KEYS] [-n] "
		     "[--percent-limit PCT]\n"
		     "                      [--showcpuutilization] [--host] [--guest]\n"
		     "                      [-g [graph,PCT,caller|callee]] [--children | "
		     "--no-children]\n");
	symopts_synopsis(out, 22);
	fprintf(out,
		"\n"
		"  -i, --input        perf.data file (default perf.data)\n"
		"  -s, --sort         keys: comm, pid, dso, sym, guest, vcpu, cr3, cpu, "
		"cpumode\n"
		"                     (default comm,dso,sym)\n"
		"  -n, --show-nr-samples   add a Samples column\n"
		"      --percent-limit PCT  hide rows under PCT percent\n"
		"      --showcpuutilization  add sys, usr, guest sys, guest usr columns\n"
		"  -g, --call-graph [graph,PCT,caller|callee]  each row's call chains "
		"(from\n"
		"                     record -g) as a tree; branches under PCT percent "
		"(0.5)\n"
		"                     hidden; from the outermost caller down (caller, "
		"the\n"
		"                     default) or from the row up (callee). Only perf's "
		"graph mode.\n"
		"      --children     Children (with callees) and Self columns, sorted "
		"by\n"
		"                     Children (default with -g)\n"
		"      --no-children  one Overhead column, the samples' own addresses "
		"only\n"
		"      --no-header    no '#' header lines\n"
		"      --host/--guest only host or only guest samples (default both)\n");
	symopts_help(out);
	fprintf(out, "      --stdio        text output (the only output; accepted for "
		     "perf users)\n");
}

enum {
	OPT_STDIO = 256,
	OPT_HOST,
	OPT_GUEST,
	OPT_PERCENT_LIMIT,
	OPT_CPUUTIL,
	OPT_NO_HEADER,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
};

/*
 * perf's -g print spec, the part kvmprof draws: "graph", a threshold in
 * percent and "caller" or "callee", in any order, comma-separated.
 */
static int parse_chain_spec(const char *spec, struct report_opts *o)
{
	char buf[128], *save = NULL, *tok, *end;

	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf))
		return -EINVAL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double pct;

		if (!strcmp(tok, "graph"))
			continue;
		if (!strcmp(tok, "caller") || !strcmp(tok, "callee")) {
			o->caller_order = !strcmp(tok, "caller");
			continue;
		}
		pct = strtod(tok, &end);
		if (end == tok || *end || pct < 0 || pct > 100)
			return -EINVAL;
		o->out.chain_percent = pct;
	}
	return 0;
}

static int parse_option(void *opts, int c, const char *arg)
{
	struct report_opts *o = opts;
	char *end;

	switch (c) {
	case 'i':
		o->input = arg;
		break;
	case 's':
		o->sort = arg;
		break;
	case 'n':
		o->out.show_samples = true;
		break;
	case OPT_STDIO:
		break;
	case OPT_HOST:
		o->host = true;
		break;
	case OPT_GUEST:
		o->guest = true;
		break;
	case OPT_CPUUTIL:
		o->out.cpu_utilization = true;
		break;
	case OPT_NO_HEADER:
		o->out.header = false;
		break;
	case OPT_CHILDREN:
		o->children = 1;
		break;
	case OPT_NO_CHILDREN:
		o->children = 0;
		break;
	case 'g':
		o->out.graph = true;
		return arg ? parse_chain_spec(arg, o) : 0;
	case OPT_PERCENT_LIMIT:
		o->out.percent_limit = strtod(arg, &end);
		if (end == arg || *end || o->out.percent_limit < 0)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int parse_report_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option own[] = {
		{"input", required_argument, NULL, 'i'},
		{"sort", required_argument, NULL, 's'},
		{"show-nr-samples", no_argument, NULL, 'n'},
		{"stdio", no_argument, NULL, OPT_STDIO},
		{"host", no_argument, NULL, OPT_HOST},
		{"guest", no_argument, NULL, OPT_GUEST},
		{"percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT},
		{"showcpuutilization", no_argument, NULL, OPT_CPUUTIL},
		{"no-header", no_argument, NULL, OPT_NO_HEADER},
		/* As perf: -g takes a print spec, also as the next word. */
		{"call-graph", optional_argument, NULL, 'g'},
		{"children", no_argument, NULL, OPT_CHILDREN},
		{"no-children", no_argument, NULL, OPT_NO_CHILDREN},
		{"help", no_argument, NULL, 'h'},
		{0},
	};

	o->out.header = true;
	o->out.chain_percent = 0.5;
	o->children = -1;
	o->caller_order = 1;
	if (symopts_getopt("report", argc, argv, "i:s:ng::h", own, &o->sym, parse_option,
			   o, report_usage))
		return -EINVAL;
	if (optind < argc) {
		fprintf(stderr, "kvmprof report: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* perf's defaults: -g brings --children, and its trees are in caller order. */
static void chain_defaults(struct report_opts *o, struct session_chains *c)
{
	o->out.children = o->children == 1 || (o->children == -1 && o->out.graph);
	c->children = o->out.children;
	c->graph = o->out.graph;
	c->caller_order = o->caller_order != 0;
}

static bool has_callchains(const struct pd_file *f)
{
	for (size_t i = 0; i < f->nr_evsels; i++)
		if (f->evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {0};
	struct session s;
	struct kp_err err = {0};
	int ret;

	if (parse_report_args(argc, argv, &o))
		return 2;
	ret = session_open(&s, o.input ? o.input : "perf.data",
			   o.sort ? o.sort : "comm,dso,sym", &o.sym, &err);
	/* Said before the work: a short report should not look like a whole one. */
	if (!ret)
		output_unfinished(&s, "kvmprof report: warning: ", stderr);
	if (!ret && o.out.graph && !has_callchains(s.file))
		ret = kp_errorf(
			&err, EINVAL,
			"-g: %s has no call chains (record with kvmprof record -g)",
			s.file->path);
	if (!ret) {
		chain_defaults(&o, &s.chains);
		s.want_host = o.host || !o.guest;
		s.want_guest = o.guest || !o.host;
		ret = session_process(&s, &err);
	}
	if (ret) {
		kp_err_print(stderr, "kvmprof report", &err);
		session_close(&s);
		return 1;
	}
	output_report(&s, &o.out, stdout);
	session_close(&s);
	return fflush(stdout) ? 1 : 0;
}
