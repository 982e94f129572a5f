// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof record: sample host and guest execution into a perf.data file.
 *
 *   kvmprof record [-a] [-p PID] [-e EVENTS] [-F FREQ | -c PERIOD] [-m PAGES]
 *                  [--host] [--guest] [-o FILE] [-- COMMAND [ARGS]]
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "perf/perf.h"
#include "guest/guest.h"
#include "record_state.h"
#include "workload.h"
#include "ksym/ksym.h"

struct record_opts {
	bool system_wide;
	pid_t pid;
	const char *events;
	unsigned long freq;
	unsigned long period;
	size_t mmap_pages;
	bool host;
	bool guest;
	const char *output;
	const char *guestkallsyms;
	const char *guests_conf;
	bool quiet;
	char **command;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = 1;
}

static void record_usage(FILE *out)
{
	fprintf(out,
		"usage: kvmprof record [-a] [-p PID] [-e EVENT[,EVENT]] [-F FREQ | -c "
		"PERIOD]\n"
		"                      [-m PAGES] [--host] [--guest] [-o FILE] [-q]\n"
		"                      [-- COMMAND [ARGS...]]\n\n"
		"  -a, --all-cpus   sample every CPU (default without -p or a command)\n"
		"  -p, --pid PID    sample one process\n"
		"  -e, --event      cpu-clock (default), task-clock, cycles, "
		"instructions, ...\n"
		"  -F, --freq       samples per second per CPU (default 4000)\n"
		"  -c, --count      sample every PERIOD events instead\n"
		"  -m, --mmap-pages data pages per CPU ring, a power of two (default "
		"128)\n"
		"      --host       host samples only   (default output perf.data.host)\n"
		"      --guest      guest samples only  (default output "
		"perf.data.guest)\n"
		"      --host --guest both              (default output perf.data.kvm)\n"
		"  -o, --output     output file (default perf.data)\n"
		"      --guestkallsyms FILE  a running guest's /proc/kallsyms: records "
		"where\n"
		"                   its kernel runs (as perf kvm record does), for every "
		"guest\n"
		"      --guests-conf FILE  guestfs-mount's guest list, to name guests "
		"without\n"
		"                   -name by the disk they hold open "
		"(default " GUESTS_CONF_DEFAULT ")\n");
}

static int parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || end == s || *end ? -EINVAL : 0;
}

static int parse_record_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{"all-cpus", no_argument, NULL, 'a'},
		{"pid", required_argument, NULL, 'p'},
		{"event", required_argument, NULL, 'e'},
		{"freq", required_argument, NULL, 'F'},
		{"count", required_argument, NULL, 'c'},
		{"mmap-pages", required_argument, NULL, 'm'},
		{"output", required_argument, NULL, 'o'},
		{"host", no_argument, NULL, 'H'},
		{"guest", no_argument, NULL, 'G'},
		{"guestkallsyms", required_argument, NULL, 'K'},
		{"guests-conf", required_argument, NULL, 'C'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	unsigned long v;
	int c;

	while ((c = getopt_long(argc, argv, "+ap:e:F:c:m:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->system_wide = true;
			break;
		case 'p':
			if (parse_ulong(optarg, &v) || !v)
				goto bad;
			o->pid = (pid_t)v;
			break;
		case 'e':
			o->events = optarg;
			break;
		case 'F':
			if (parse_ulong(optarg, &o->freq) || !o->freq)
				goto bad;
			break;
		case 'c':
			if (parse_ulong(optarg, &o->period) || !o->period)
				goto bad;
			break;
		case 'm':
			if (parse_ulong(optarg, &v) || !v || (v & (v - 1)))
				goto bad;
			o->mmap_pages = v;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'H':
			o->host = true;
			break;
		case 'G':
			o->guest = true;
			break;
		case 'K':
			o->guestkallsyms = optarg;
			break;
		case 'C':
			o->guests_conf = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			record_usage(stdout);
			exit(0);
		default:
			record_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc)
		o->command = argv + optind;
	if (!o->pid && !o->command)
		o->system_wide = true;
	if (o->pid && (o->system_wide || o->command)) {
		fprintf(stderr,
			"kvmprof record: -p cannot be combined with -a or a command\n");
		return -EINVAL;
	}
	return 0;
bad:
	fprintf(stderr, "kvmprof record: bad value '%s' for -%c\n", optarg, c);
	return -EINVAL;
}

/* perf kvm's default names, so that perf users find their files. */
static const char *default_output(const struct record_opts *o)
{
	if (o->host && o->guest)
		return "perf.data.kvm";
	if (o->guest)
		return "perf.data.guest";
	if (o->host)
		return "perf.data.host";
	return "perf.data";
}

static void fill_attr(const struct record_opts *o, struct perf_event_attr *attr)
{
	attr->size = sizeof(*attr);
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (o->period) {
		attr->sample_period = o->period;
	} else {
		attr->freq = 1;
		attr->sample_freq = o->freq ? o->freq : 4000;
	}
	attr->disabled = 1;
	attr->sample_id_all = 1;
	attr->exclude_guest = o->host && !o->guest;
	attr->exclude_host = o->guest && !o->host;
	if (!o->system_wide) {
		attr->inherit = 1;
		attr->enable_on_exec = o->command != NULL;
	}
}

static int add_events(const struct record_opts *o, struct evlist *el, struct kp_err *err)
{
	char *list = strdup(o->events ? o->events : "cpu-clock"), *save = NULL, *name;
	int ret = 0;

	if (!list)
		return kp_errorf(err, ENOMEM, "out of memory");
	for (name = strtok_r(list, ",", &save); name && !ret;
	     name = strtok_r(NULL, ",", &save)) {
		struct perf_event_attr attr = {0};

		ret = evname_parse(name, &attr, err);
		if (ret)
			break;
		fill_attr(o, &attr);
		/* Process and mapping records are needed once, from the first event. */
		attr.mmap = attr.comm = attr.task = el->nr_evsels == 0;
		ret = evlist_add(el, &attr, name)
			      ? kp_errorf(err, ENOMEM, "out of memory")
			      : 0;
	}
	free(list);
	return ret;
}

static void set_features(struct pd_writer *w, int argc, char **argv, size_t nr_cpus)
{
	struct utsname u;
	char full[] = "kvmprof";
	char **args = calloc((size_t)argc + 1, sizeof(char *));

	if (uname(&u) == 0) {
		pd_writer_set_string(w, PD_FEAT_HOSTNAME, u.nodename);
		pd_writer_set_string(w, PD_FEAT_OSRELEASE, u.release);
		pd_writer_set_string(w, PD_FEAT_ARCH, u.machine);
	}
	pd_writer_set_string(w, PD_FEAT_VERSION, KVMPROF_VERSION);
	pd_writer_set_nrcpus(w, (uint32_t)sysconf(_SC_NPROCESSORS_CONF),
			     (uint32_t)nr_cpus);
	if (args) {
		args[0] = full;
		for (int i = 0; i < argc; i++)
			args[i + 1] = argv[i];
		pd_writer_set_cmdline(w, argc + 1, args);
		free(args);
	}
}

static int open_output(struct record_state *rs, const char *path, struct evlist *el,
		       struct kp_err *err)
{
	int ret = pd_writer_create(path, &rs->writer, err);

	for (size_t e = 0; !ret && e < el->nr_evsels; e++) {
		/* The guest context is stripped from every sample before writing. */
		struct perf_event_attr attr = el->evsels[e].attr;

		attr.sample_type &= ~PERF_SAMPLE_GUEST_CTX;
		if (pd_writer_add_evsel(rs->writer, &attr, el->evsels[e].name,
					el->evsels[e].ids, el->evsels[e].nr_ids))
			ret = kp_errorf(err, ENOMEM, "out of memory");
	}
	return ret ? ret : pd_writer_begin_data(rs->writer, err);
}

/*
 * Ask for per-sample guest context when the kernel has the kvmprof series:
 * it probes, because only a kernel with the series accepts the bit.
 */
static void request_guest_ctx(struct record_state *rs, struct evlist *el)
{
	struct guestctx_host host;
	int probe;

	if (!rs->want_guest || !el->nr_evsels)
		return;
	probe = guestctx_probe(&el->evsels[0].attr);
	if (probe != 1) {
		guestctx_host_probe(&host);
		guestctx_explain(probe, &host, rs->ctx_why, sizeof(rs->ctx_why));
		return;
	}
	for (size_t e = 0; e < el->nr_evsels; e++)
		el->evsels[e].attr.sample_type |= PERF_SAMPLE_GUEST_CTX;
	rs->guest_ctx = true;
}

/*
 * The host kernel's symbols travel in the file: a report elsewhere, or after
 * modules changed, still names the kernel functions this recording saw.
 */
static void embed_host_symbols(struct record_state *rs, bool quiet)
{
	struct kp_err err = {0};
	struct symtab *st;
	void *blob;
	size_t len;

	if (symsrc_load_file("/proc/kallsyms", SYMSRC_MAX_DEFAULT, &st, NULL, &err)) {
		if (!quiet)
			fprintf(stderr,
				"kvmprof record: host kernel symbols not embedded: %s\n",
				err.msg);
		return;
	}
	if (!ksymblob_encode(st, &blob, &len)) {
		pd_writer_set_feature(rs->writer, PD_FEAT_KVMPROF_KSYMS, blob, len);
		free(blob);
	}
	symtab_free(st);
}

/*
 * A guest's runtime kallsyms says where its kernel runs: record it as perf
 * kvm does, a map for the default guest (pid 0) whose pgoff is _text's
 * runtime address, so a report with any table of that kernel finds the slide.
 */
static int synth_default_guest(struct record_state *rs, const char *path)
{
	struct kp_err err = {0};
	const struct ksym *text;
	struct symtab *st;
	int ret;

	if (symsrc_load_file(path, SYMSRC_MAX_DEFAULT, &st, NULL, &err)) {
		fprintf(stderr, "kvmprof record: --guestkallsyms: %s\n", err.msg);
		return -EINVAL;
	}
	text = symtab_find(st, "_text");
	if (!text) {
		fprintf(stderr, "kvmprof record: --guestkallsyms: %s has no _text\n",
			path);
		symtab_free(st);
		return -EINVAL;
	}
	ret = synth_guest_kernel_mmap(&rs->synth, 0, "_text", text->addr);
	symtab_free(st);
	return ret;
}

static int synthesize(struct record_state *rs, const struct record_opts *o, pid_t target)
{
	struct kp_err kerr = {0};
	int ret;

	ret = synth_processes(&rs->synth, o->system_wide ? -1 : target);
	if (!ret && o->guestkallsyms)
		ret = synth_default_guest(rs, o->guestkallsyms);
	if (ret)
		return ret;
	/* Without kernel addresses (kptr_restrict) kernel samples stay unnamed: say so.
	 */
	if (synth_kernel_mmap(&rs->synth, &kerr) && !o->quiet)
		fprintf(stderr, "kvmprof record: no host kernel map: %s\n", kerr.msg);
	else
		embed_host_symbols(rs, o->quiet);
	return 0;
}

static int child_done(pid_t child, int *status)
{
	return child > 0 && waitpid(child, status, WNOHANG) == child;
}

static int record_loop(struct record_state *rs, struct evlist *el, pid_t child,
		       int *child_status)
{
	long n;

	while (!stop_requested) {
		if (child_done(child, child_status))
			break;
		evlist_poll(el, 100);
		n = evlist_drain(el, record_state_on_record, rs);
		if (n < 0)
			return (int)n;
		if (n > 0 && record_state_finish_round(rs))
			return -EIO;
	}
	evlist_disable(el);
	n = evlist_drain(el, record_state_on_record, rs);
	return n < 0 ? (int)n : record_state_finish_round(rs);
}

/*
 * A broken default guests.conf belongs to the daemon: warn and name guests by
 * -name only. One given with --guests-conf must be right.
 */
static int load_guests(struct record_state *rs, const struct record_opts *o,
		       struct kp_err *err)
{
	const char *path = o->guests_conf ? o->guests_conf : GUESTS_CONF_DEFAULT;
	int ret = record_state_load_guests(rs, path, o->guests_conf != NULL, err);

	if (ret && !o->guests_conf) {
		fprintf(stderr,
			"kvmprof record: warning: %s; guests are named by -name only\n",
			err->msg);
		memset(err, 0, sizeof(*err));
		ret = 0;
	}
	return ret;
}

static int run_record(struct record_opts *o, int argc, char **argv)
{
	struct record_state rs;
	struct evlist el;
	struct kp_err err = {0};
	const char *path = o->output ? o->output : default_output(o);
	struct workload wl = {.pid = -1, .go_fd = -1, .err_fd = -1};
	pid_t child = -1, target = o->pid;
	int status = 0, ret;

	record_state_init(&rs, o->host, o->guest);
	evlist_init(&el, o->mmap_pages ? o->mmap_pages : 128);
	ret = load_guests(&rs, o, &err);
	if (!ret)
		ret = add_events(o, &el, &err);
	if (!ret && o->command) {
		ret = workload_prepare(o->command, &wl, &err);
		child = target = wl.pid;
	}
	if (!ret)
		request_guest_ctx(&rs, &el);
	if (!ret)
		ret = evlist_open(&el, o->system_wide ? -1 : target, &err);
	if (!ret)
		ret = open_output(&rs, path, &el, &err);
	if (!ret) {
		record_state_set_synth(&rs, &el.evsels[0].attr);
		ret = synthesize(&rs, o, target);
		if (ret)
			kp_errorf(&err, -ret, "synthesizing process records: %s",
				  strerror(-ret));
	}
	if (!ret && evlist_enable(&el))
		ret = kp_errorf(&err, errno, "cannot enable events: %s", strerror(errno));
	if (!ret && child > 0)
		ret = workload_start(&wl, &err);
	workload_release(&wl);
	if (!ret)
		ret = record_loop(&rs, &el, child, &status);
	if (!ret) {
		set_features(rs.writer, argc, argv, el.nr_cpus);
		ret = record_state_write_guests(&rs, &err);
		if (!ret)
			ret = record_state_write_contexts(&rs, &err);
		if (!ret)
			ret = record_state_write_build_ids(&rs, &err);
	}
	if (!ret)
		ret = pd_writer_finish(rs.writer, &err);
	else if (rs.writer)
		pd_writer_abort(rs.writer);
	rs.writer = NULL;
	if (child > 0 && !WIFEXITED(status) && !WIFSIGNALED(status)) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	evlist_close(&el);
	if (ret) {
		fprintf(stderr, "kvmprof record: %s\n",
			err.msg[0] ? err.msg : strerror(-ret));
		record_state_release(&rs);
		return 1;
	}
	if (!o->quiet)
		record_state_print_summary(&rs, path, stderr);
	record_state_release(&rs);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {0};
	struct sigaction sa = {.sa_handler = on_signal};

	if (parse_record_args(argc, argv, &o))
		return 2;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return run_record(&o, argc, argv);
}
