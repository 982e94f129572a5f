// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof record: sample host and guest execution into a perf.data file.
 *
 *   kvmprof record [-a] [-p PID] [-e EVENTS] [-F FREQ | -c PERIOD] [-m PAGES]
 *                  [-g | --call-graph fp] [--host] [--guest] [-o FILE]
 *                  [-- COMMAND [ARGS]]
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
#include "evsetup.h"
#include "record_state.h"
#include "record_steps.h"
#include "workload.h"
#include "ksym/ksym.h"

struct record_opts {
	struct event_opts ev;
	pid_t pid;
	size_t mmap_pages;
	const char *output;
	const char *guestkallsyms;
	const char *guests_conf;
	bool quiet;
	char **command;
};

static void record_usage(FILE *out)
{
	fprintf(out,
		"usage: kvmprof record [-a] [-p PID] [-e EVENT[,EVENT]] [-F FREQ | -c "
		"PERIOD]\n"
		"                      [-m PAGES] [-g | --call-graph fp] [--host] "
		"[--guest]\n"
		"                      [-o FILE] [-q] [-- COMMAND [ARGS...]]\n\n"
		"  -a, --all-cpus   sample every CPU (default without -p or a command)\n"
		"  -p, --pid PID    sample one process\n"
		"  -e, --event      cpu-clock (default), task-clock, cycles, "
		"instructions, ...\n"
		"  -F, --freq       samples per second per CPU (default 4000)\n"
		"  -c, --count      sample every PERIOD events instead\n"
		"  -m, --mmap-pages data pages per CPU ring, a power of two (default "
		"128)\n"
		"  -g               record call chains (frame pointers), as "
		"--call-graph fp\n"
		"      --call-graph fp  call chains by frame pointers, up to "
		"kernel.perf_event_max_stack\n"
		"                   frames (127 by default); dwarf and lbr are not "
		"supported\n"
		"      --host       host samples only   (default output perf.data.host)\n"
		"      --guest      guest samples only  (default output "
		"perf.data.guest)\n"
		"      --host --guest both              (default output perf.data.kvm)\n"
		"  -o, --output     output file (default perf.data)\n"
		"  -q, --quiet      no summary, no warnings\n"
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

/* Only frame pointers: dwarf needs user stack copies and an unwinder. */
static int parse_call_graph(const char *mode)
{
	if (!strcmp(mode, "fp"))
		return 0;
	fprintf(stderr,
		"kvmprof record: --call-graph %s is not supported: only fp (frame "
		"pointers; build programs with -fno-omit-frame-pointer)\n",
		mode);
	return -EINVAL;
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
		{"call-graph", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	unsigned long v;
	int c;

	while ((c = getopt_long(argc, argv, "+ap:e:F:c:m:o:qgh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->ev.system_wide = true;
			break;
		case 'p':
			if (parse_ulong(optarg, &v) || !v)
				goto bad;
			o->pid = (pid_t)v;
			break;
		case 'e':
			o->ev.events = optarg;
			break;
		case 'F':
			if (parse_ulong(optarg, &o->ev.freq) || !o->ev.freq)
				goto bad;
			break;
		case 'c':
			if (parse_ulong(optarg, &o->ev.period) || !o->ev.period)
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
			o->ev.host = true;
			break;
		case 'G':
			o->ev.guest = true;
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
		case 'g':
			o->ev.callchain = true;
			break;
		case 'R':
			if (parse_call_graph(optarg))
				return -EINVAL;
			o->ev.callchain = true;
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
		o->ev.system_wide = true;
	if (o->pid && (o->ev.system_wide || o->command)) {
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
	if (o->ev.host && o->ev.guest)
		return "perf.data.kvm";
	if (o->ev.guest)
		return "perf.data.guest";
	if (o->ev.host)
		return "perf.data.host";
	return "perf.data";
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

	ret = synth_processes(&rs->synth, o->ev.system_wide ? -1 : target);
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

/*
 * Without KVM no sample is a guest's: the rings can go to the file unread
 * until a watch sees KVM come up. Filtering by --host or --guest needs
 * each record read. The watch is set before the check, so that KVM cannot
 * come up between the two unseen. Returns the watch, or -1 to read the
 * records as they come (KVM is up, or nothing can be watched).
 */
static int watch_for_unread(const struct record_state *rs)
{
	int fd;

	if (!rs->want_host || !rs->want_guest)
		return -1;
	fd = kvm_watch_open();
	if (fd >= 0 && kvm_is_loaded()) {
		close(fd);
		fd = -1;
	}
	return fd;
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
	bool unread;

	o->ev.enable_on_exec = o->command != NULL;
	record_state_init(&rs, o->ev.host, o->ev.guest);
	evlist_init(&el, o->mmap_pages ? o->mmap_pages : 128);
	ret = guest_namer_open(&rs.namer, o->guests_conf, "kvmprof record", &err);
	if (!ret)
		ret = evsetup_add_events(&o->ev, &el, &err);
	if (!ret)
		evsetup_single_event(&el);
	if (!ret && o->command) {
		ret = workload_prepare(o->command, &wl, &err);
		child = target = wl.pid;
	}
	rs.kvm_watch = watch_for_unread(&rs);
	unread = rs.kvm_watch >= 0;
	if (unread)
		snprintf(rs.ctx_why, sizeof(rs.ctx_why),
			 "KVM was not loaded when the recording started");
	else if (!ret && rs.want_guest)
		rs.guest_ctx = evsetup_guest_ctx(&el, rs.ctx_why, sizeof(rs.ctx_why));
	if (!ret)
		ret = evlist_open(&el, o->ev.system_wide ? -1 : target, &err);
	if (!ret)
		ret = record_open_output(&rs, path, &el, &err);
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
	if (!ret && unread)
		record_state_begin_unread(&rs);
	if (!ret)
		ret = record_loop(&rs, &el, child, &status, 0);
	if (!ret)
		ret = record_state_read_back(&rs, &err);
	if (!ret) {
		record_set_features(rs.writer, argc, argv, el.nr_cpus);
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

	if (parse_record_args(argc, argv, &o))
		return 2;
	record_catch_signals();
	return run_record(&o, argc, argv);
}
