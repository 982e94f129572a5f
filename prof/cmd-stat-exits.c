// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof stat exits record | report | live: VM exits per guest, vCPU and
 * reason with their handling times, and the guest functions causing them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "exits.h"
#include "exits_record.h"
#include "exits_source.h"
#include "record_steps.h"
#include "session.h"

struct exits_opts {
	struct exits_record_opts rec;
	const char *output;
	const char *input;
	enum exits_view view;
	enum exits_sort key;
	uint64_t duration_ns;
	const char *guest;
	int vcpu;
	struct symbol_opts sopts;
	unsigned long count; /* live: intervals, 0 until a signal */
};

static const char *const views[] = {"vmexit", "mmio", "ioport", "msr"};
static const char *const keys[] = {"count", "time", "max", "mean"};

static void usage(FILE *out, const char *sub)
{
	if (!strcmp(sub, "record")) {
		fprintf(out,
			"usage: kvmprof stat exits record [-a] [-p PID] [-o FILE] "
			"[-m PAGES]\n"
			"         [--guests-conf FILE] [--tracefs DIR] [-q] [-- CMD]\n\n"
			"Records kvm:kvm_entry, kvm_exit, kvm_mmio, kvm_pio and kvm_msr "
			"on every\n"
			"CPU, readable by perf kvm stat report too. Formats come from "
			"tracefs.\n\n"
			"  -a, --all-cpus      every process; with a command too, which "
			"then\n"
			"                      only says how long to record (as perf "
			"record -a)\n"
			"  -p, --pid PID       one process\n"
			"  -o, --output FILE   default perf.data.kvm\n"
			"  -m, --mmap-pages N  data pages per CPU ring\n"
			"      --guests-conf FILE  guests.conf, naming guests by their "
			"disks\n"
			"      --tracefs DIR   tracefs (default /sys/kernel/tracing, "
			"else\n"
			"                      /sys/kernel/debug/tracing)\n"
			"  -q, --quiet         no summary\n");
		return;
	}
	fprintf(out,
		"usage: kvmprof stat exits %s [--event vmexit|mmio|ioport|msr]\n"
		"         [-k count|time|max|mean] [--duration USECS] "
		"[--guest-name NAME]\n"
		"         [--vcpu N] [--guestmount DIR] [--guestkallsyms FILE]\n"
		"         [--guestvmlinux FILE] [--guest-slide HEX]%s\n\n"
		"Pairs each exit with the next kvm_entry of its vCPU thread and "
		"prints,\n"
		"per guest and per vCPU, each reason's count, share, time share,\n"
		"min/max/mean time and a log2 latency histogram, then the guest\n"
		"functions causing the exits.\n\n",
		sub,
		!strcmp(sub, "live") ? "\n         [-d SECS] [-n N] [-p PID] [-m PAGES]"
				     : "\n         [-i FILE]");
	if (!strcmp(sub, "live"))
		fprintf(out, "  -d, --delay SECS    record and print every SECS seconds "
			     "(default 3)\n"
			     "  -n N                N intervals, then exit\n"
			     "  -p, --pid PID       one process\n"
			     "  -m, --mmap-pages N  data pages per CPU ring\n");
	else
		fprintf(out, "  -i, --input FILE    default perf.data.kvm\n");
	fprintf(out, "      --event E       vmexit (default), mmio, ioport or msr\n"
		     "  -k, --key K         sort by count (default), time, max or mean\n"
		     "      --duration USECS  first print every exit longer than USECS\n"
		     "      --guest-name NAME, --vcpu N  only that guest or vCPU\n"
		     "      --guestmount DIR, --guestkallsyms FILE, --guestvmlinux FILE\n"
		     "                      guest kernel symbols, as for report\n"
		     "      --guest-slide HEX  the guest kernel's KASLR slide\n");
}

static int pick(const char *arg, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return (int)i;
	return -1;
}

static int parse_number(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || end == s || *end ? -EINVAL : 0;
}

enum {
	OPT_EVENT = 256,
	OPT_DURATION,
	OPT_GUEST,
	OPT_VCPU,
	OPT_GMOUNT,
	OPT_GKALL,
	OPT_GVMLINUX,
	OPT_SLIDE,
	OPT_CONF,
	OPT_TRACEFS
};

static int take_option(struct exits_opts *o, int c, const char *arg)
{
	unsigned long v;
	int i;

	switch (c) {
	case 'a':
		o->rec.system_wide = true;
		return 0;
	case 'q':
		o->rec.quiet = true;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case 'i':
		o->input = arg;
		return 0;
	case 'p':
		return parse_number(arg, &v) || !v ? -EINVAL : (o->rec.pid = (pid_t)v, 0);
	case 'm':
		if (parse_number(arg, &v) || !v || (v & (v - 1)))
			return -EINVAL;
		o->rec.mmap_pages = v;
		return 0;
	case 'd':
		return parse_number(arg, &v) || !v ? -EINVAL : (o->rec.seconds = v, 0);
	case 'n':
		return parse_number(arg, &o->count);
	case 'k':
		i = pick(arg, keys, 4);
		return i < 0 ? -EINVAL : (o->key = (enum exits_sort)i, 0);
	case OPT_EVENT:
		i = pick(arg, views, 4);
		return i < 0 ? -EINVAL : (o->view = (enum exits_view)i, 0);
	case OPT_DURATION:
		return parse_number(arg, &v) ? -EINVAL : (o->duration_ns = v * 1000, 0);
	case OPT_GUEST:
		o->guest = arg;
		return 0;
	case OPT_VCPU:
		return parse_number(arg, &v) ? -EINVAL : (o->vcpu = (int)v, 0);
	case OPT_GMOUNT:
		o->sopts.guestmount = arg;
		return 0;
	case OPT_GKALL:
		o->sopts.guestkallsyms = arg;
		return 0;
	case OPT_GVMLINUX:
		o->sopts.guestvmlinux = arg;
		return 0;
	case OPT_CONF:
		o->rec.guests_conf = arg;
		return 0;
	case OPT_TRACEFS:
		o->rec.tracefs = arg;
		return 0;
	case OPT_SLIDE:
		o->sopts.has_guest_slide = true;
		o->sopts.guest_slide = strtoll(arg, NULL, 16);
		return 0;
	}
	return -EINVAL;
}

static int parse_args(int argc, char **argv, const char *sub, struct exits_opts *o)
{
	static const struct option longopts[] = {
		{"all-cpus", no_argument, NULL, 'a'},
		{"pid", required_argument, NULL, 'p'},
		{"output", required_argument, NULL, 'o'},
		{"input", required_argument, NULL, 'i'},
		{"mmap-pages", required_argument, NULL, 'm'},
		{"delay", required_argument, NULL, 'd'},
		{"key", required_argument, NULL, 'k'},
		{"quiet", no_argument, NULL, 'q'},
		{"event", required_argument, NULL, OPT_EVENT},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"guest-name", required_argument, NULL, OPT_GUEST},
		{"vcpu", required_argument, NULL, OPT_VCPU},
		{"guestmount", required_argument, NULL, OPT_GMOUNT},
		{"guestkallsyms", required_argument, NULL, OPT_GKALL},
		{"guestvmlinux", required_argument, NULL, OPT_GVMLINUX},
		{"guest-slide", required_argument, NULL, OPT_SLIDE},
		{"guests-conf", required_argument, NULL, OPT_CONF},
		{"tracefs", required_argument, NULL, OPT_TRACEFS},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int c;

	o->vcpu = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+ap:o:i:m:d:k:n:qh", longopts, NULL)) !=
	       -1) {
		if (c == 'h') {
			usage(stdout, sub);
			exit(0);
		}
		if (c == '?' || take_option(o, c, optarg)) {
			if (c != '?')
				fprintf(stderr, "kvmprof stat exits %s: bad value '%s'\n",
					sub, optarg);
			usage(stderr, sub);
			return -EINVAL;
		}
	}
	if (optind < argc)
		o->rec.command = argv + optind;
	return 0;
}

struct report_ctx {
	struct session s;
	struct exits_source src;
	struct exits x;
};

static const char *resolve(void *ctx, int pid, uint64_t rip)
{
	const struct ksym *sym =
		session_guest_kernel_sym(&((struct report_ctx *)ctx)->s, pid, rip);

	return sym ? sym->name : NULL;
}

/* The guest table's name, else (files of perf kvm stat record) "PID/COMM". */
static void guest_name(void *ctx, int pid, char *name, size_t size)
{
	struct report_ctx *r = ctx;
	const struct machine *m = session_guest(&r->s, pid);

	if (m && strcmp(m->name, "-"))
		snprintf(name, size, "%s", m->name);
	else
		snprintf(name, size, "%d/%s", pid, session_comm(&r->s, pid, pid));
}

static int on_sample(void *ctx, const struct pd_sample *ps, struct kp_err *err)
{
	struct report_ctx *r = ctx;
	struct exits_event e;

	if (exits_source_decode(&r->src, ps, &e) != 1)
		return 0;
	return exits_add(&r->x, &e) ? kp_errorf(err, ENOMEM, "out of memory") : 0;
}

static void setup_exits(struct report_ctx *r, const struct exits_opts *o)
{
	exits_init(&r->x, o->view);
	r->x.only_vcpu = o->vcpu;
	r->x.only_guest = o->guest;
	r->x.duration_ns = o->duration_ns;
	r->x.duration_out = stdout;
	r->x.resolve = resolve;
	r->x.name = guest_name;
	r->x.ctx = r;
}

static int report_file(const struct exits_opts *o, const char *path, struct kp_err *err)
{
	struct report_ctx *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return kp_errorf(err, ENOMEM, "out of memory");
	ret = session_open(&r->s, path, "sym", &o->sopts, err);
	if (!ret)
		ret = exits_source_open(&r->src, r->s.file, err);
	if (!ret) {
		setup_exits(r, o);
		r->s.sample_fn = on_sample;
		r->s.sample_ctx = r;
		ret = session_process(&r->s, err);
	}
	if (!ret)
		exits_print(&r->x, o->key, stdout);
	exits_release(&r->x);
	exits_source_release(&r->src);
	session_close(&r->s);
	free(r);
	return ret;
}

/* Each interval is recorded into a file of its own, then reported like a file. */
static int live(struct exits_opts *o, int argc, char **argv, struct kp_err *err)
{
	char dir[] = "/tmp/kvmprof-exits.XXXXXX", path[64];
	int ret = 0;

	if (!mkdtemp(dir))
		return kp_errorf(err, errno, "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	if (!o->rec.seconds)
		o->rec.seconds = 3;
	o->rec.quiet = true;
	for (unsigned long i = 0; !ret && (!o->count || i < o->count); i++) {
		ret = exits_record(&o->rec, path, argc, argv, err);
		if (!ret) {
			printf("\n=== kvmprof stat exits live: interval %lu, %llus ===\n",
			       i + 1, (unsigned long long)o->rec.seconds);
			ret = report_file(o, path, err);
			fflush(stdout);
		}
		unlink(path);
		if (record_stop_requested)
			break;
	}
	rmdir(dir);
	return ret;
}

int cmd_stat_exits(int argc, char **argv)
{
	struct exits_opts o = {0};
	struct kp_err err = {0};
	const char *sub = argc > 1 ? argv[1] : "";
	int ret;

	if (strcmp(sub, "record") && strcmp(sub, "report") && strcmp(sub, "live")) {
		bool help = !strcmp(sub, "--help") || !strcmp(sub, "-h");

		fprintf(help ? stdout : stderr,
			"usage: kvmprof stat exits record|report|live [--help]\n\n"
			"subcommands:\n"
			"  record  record VM exits into perf.data.kvm\n"
			"  report  exits per guest, vCPU and reason, and the guest "
			"functions\n"
			"          causing them\n"
			"  live    the same, refreshed from the running guests\n");
		return help ? 0 : 2;
	}
	if (parse_args(argc - 1, argv + 1, sub, &o))
		return 2;
	record_catch_signals();
	if (!strcmp(sub, "record"))
		ret = exits_record(&o.rec, o.output ? o.output : "perf.data.kvm", argc,
				   argv, &err);
	else if (!strcmp(sub, "report"))
		ret = report_file(&o, o.input ? o.input : "perf.data.kvm", &err);
	else
		ret = live(&o, argc, argv, &err);
	if (ret) {
		kp_err_print(stderr, "kvmprof stat exits", &err);
		return 1;
	}
	return 0;
}
