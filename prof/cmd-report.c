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
};

static void report_usage(FILE *out)
{
	fprintf(out, "usage: kvmprof report [-i FILE] [--stdio] [-s KEYS] [-n] "
		     "[--percent-limit PCT]\n"
		     "                      [--showcpuutilization] [--host] [--guest]\n");
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
};

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
		{"help", no_argument, NULL, 'h'},
		{0},
	};

	o->out.header = true;
	if (symopts_getopt("report", argc, argv, "i:s:nh", own, &o->sym, parse_option, o,
			   report_usage))
		return -EINVAL;
	if (optind < argc) {
		fprintf(stderr, "kvmprof report: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
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
	if (!ret) {
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
