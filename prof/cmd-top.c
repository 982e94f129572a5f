// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof top: where the host and its guests spend CPU time right now, as
 * perf kvm top shows it, guest kernel functions named.
 *
 * The events are record's (evsetup.c), the model is report's (session.c,
 * fed live by session_live.c), the screen is top_layout.c's lines drawn
 * by top_term.c.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "evsetup.h"
#include "guest_names.h"
#include "session.h"
#include "top_frame.h"
#include "top_term.h"

#define DRAIN_MS   100
#define STDIO_ROWS 40
#define DECAY_NUM  7 /* perf top ages each row by 7/8 per refresh */
#define DECAY_DEN  8

struct top_opts {
	struct event_opts ev;
	pid_t pid;
	double delay; /* seconds between refreshes */
	long count;   /* -n: refreshes to print, 0: until interrupted */
	bool stdio;   /* plain text to stdout */
	bool zero;    /* -z: empty the table at each refresh instead of aging it */
	const char *sort;
	const char *guest_name;
	const char *guests_conf;
	struct symbol_opts sym;
};

struct top {
	struct top_opts *o;
	struct evlist el;
	struct session s;
	struct guest_namer namer;
	struct top_view view;
	struct top_counts counts;
	struct top_frame frame;
	bool interactive;
	char sort[64];
	char help[TOP_LINE_MAX];
};

static volatile sig_atomic_t stop_requested, resized;

static void on_stop(int sig)
{
	stop_requested = 1;
}

static void on_winch(int sig)
{
	resized = 1;
}

static void top_usage(FILE *out)
{
	fprintf(out,
		"usage: kvmprof top [-d SECS] [-p PID] [-e EVENTS] [-F FREQ] [-s KEYS]\n"
		"                   [--host] [--guest] [--guest-name NAME] [-z]\n"
		"                   [--stdio] [-n N] [--guestmount DIR]\n"
		"                   [--guestkallsyms FILE] [--guestvmlinux FILE]\n"
		"                   [--guestmodules FILE] [--guests-conf FILE]\n\n"
		"  -d, --delay SECS    refresh every SECS seconds (default 2)\n"
		"  -p, --pid PID       one process (default: every CPU, every process)\n"
		"  -e, --event EVENTS  cpu-clock (default), cycles, ...: as record; the\n"
		"                      first is shown\n"
		"  -F, --freq FREQ     samples per second per CPU (default 4000)\n"
		"  -s, --sort KEYS     report's keys: comm, pid, dso, sym, guest, vcpu, "
		"cr3,\n"
		"                      cpu, cpumode (default guest,dso,sym)\n"
		"      --host/--guest  only host or only guest samples (default both)\n"
		"      --guest-name NAME  only that guest's samples (and the host's "
		"with\n"
		"                      --host)\n"
		"  -z, --zero          empty the table at each refresh; by default each\n"
		"                      refresh ages every row by 7/8, as perf top does, "
		"and\n"
		"                      drops the rows that reach zero\n"
		"      --stdio         plain text to stdout, each refresh after the "
		"last,\n"
		"                      until interrupted (also when stdout is no "
		"terminal)\n"
		"  -n, --count N       print N refreshes, then exit (implies --stdio)\n"
		"      --guestmount DIR, --guestkallsyms FILE, --guestvmlinux FILE,\n"
		"      --guestmodules FILE  guest kernel symbols, as for report "
		"(default\n"
		"                      %s)\n"
		"      --guests-conf FILE  guests.conf, to name guests by their disks\n"
		"                      (default " GUESTS_CONF_DEFAULT ")\n\n"
		"keys on the terminal: q quit, h show/hide host samples, g show/hide\n"
		"guest samples, s next sort keys (the table starts over)\n",
		GUEST_MOUNT_DEFAULT);
}

enum {
	OPT_STDIO = 256,
	OPT_HOST,
	OPT_GUEST,
	OPT_GUEST_NAME,
	OPT_GUESTMOUNT,
	OPT_GUESTKALLSYMS,
	OPT_GUESTVMLINUX,
	OPT_GUESTMODULES,
	OPT_GUESTS_CONF,
};

static int parse_number(const char *arg, double min, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	return errno || end == arg || *end || *v < min ? -EINVAL : 0;
}

static int parse_option(struct top_opts *o, int c, const char *arg)
{
	double v;

	switch (c) {
	case 'd':
		if (parse_number(arg, 0.1, &o->delay))
			return -EINVAL;
		break;
	case 'p':
	case 'F':
	case 'n':
		if (parse_number(arg, 1, &v) || v > 1e9 || v != (long)v)
			return -EINVAL;
		if (c == 'p')
			o->pid = (pid_t)v;
		else if (c == 'F')
			o->ev.freq = (unsigned long)v;
		else
			o->count = (long)v;
		break;
	case 'e':
		o->ev.events = arg;
		break;
	case 's':
		o->sort = arg;
		break;
	case 'z':
		o->zero = true;
		break;
	case OPT_STDIO:
		o->stdio = true;
		break;
	case OPT_HOST:
		o->ev.host = true;
		break;
	case OPT_GUEST:
		o->ev.guest = true;
		break;
	case OPT_GUEST_NAME:
		o->guest_name = arg;
		break;
	case OPT_GUESTMOUNT:
		o->sym.guestmount = arg;
		break;
	case OPT_GUESTKALLSYMS:
		o->sym.guestkallsyms = arg;
		break;
	case OPT_GUESTVMLINUX:
		o->sym.guestvmlinux = arg;
		break;
	case OPT_GUESTMODULES:
		o->sym.guestmodules = arg;
		break;
	case OPT_GUESTS_CONF:
		o->guests_conf = arg;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int parse_top_args(int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
		{"delay", required_argument, NULL, 'd'},
		{"pid", required_argument, NULL, 'p'},
		{"event", required_argument, NULL, 'e'},
		{"freq", required_argument, NULL, 'F'},
		{"sort", required_argument, NULL, 's'},
		{"count", required_argument, NULL, 'n'},
		{"zero", no_argument, NULL, 'z'},
		{"stdio", no_argument, NULL, OPT_STDIO},
		{"host", no_argument, NULL, OPT_HOST},
		{"guest", no_argument, NULL, OPT_GUEST},
		{"guest-name", required_argument, NULL, OPT_GUEST_NAME},
		{"guestmount", required_argument, NULL, OPT_GUESTMOUNT},
		{"guestkallsyms", required_argument, NULL, OPT_GUESTKALLSYMS},
		{"guestvmlinux", required_argument, NULL, OPT_GUESTVMLINUX},
		{"guestmodules", required_argument, NULL, OPT_GUESTMODULES},
		{"guests-conf", required_argument, NULL, OPT_GUESTS_CONF},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int c;

	o->delay = 2;
	o->sort = "guest,dso,sym";
	while ((c = getopt_long(argc, argv, "d:p:e:F:s:n:zh", longopts, NULL)) != -1) {
		if (c == 'h') {
			top_usage(stdout);
			exit(0);
		}
		if (c == '?' || parse_option(o, c, optarg)) {
			if (c != '?')
				fprintf(stderr, "kvmprof top: bad value '%s' for -%c\n",
					optarg, c < 256 ? c : '-');
			top_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "kvmprof top: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	o->ev.system_wide = !o->pid;
	return 0;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The sort keys 's' steps through: each ends at the symbol. */
static const char *next_sort(const char *cur)
{
	static const char *const cycle[] = {"guest,dso,sym", "comm,dso,sym", "dso,sym",
					    "guest,sym", "sym"};
	size_t n = sizeof(cycle) / sizeof(cycle[0]);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(cur, cycle[i]))
			return cycle[(i + 1) % n];
	return cycle[0];
}

static void update_help(struct top *t)
{
	if (!t->interactive) {
		t->view.keys_help = NULL;
		return;
	}
	snprintf(t->help, sizeof(t->help),
		 "q quit  h host: %s  g guests: %s  s sort: %s  (%s every %g s)",
		 t->view.show_host ? "shown" : "hidden",
		 t->view.show_guest ? "shown" : "hidden", t->sort,
		 t->o->zero ? "emptied" : "aged 7/8", t->o->delay);
	t->view.keys_help = t->help;
}

static int show(struct top *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int width, height;

	if (!t->interactive) {
		struct top_frame f = t->frame;

		if (f.nr_rows > STDIO_ROWS)
			f.nr_rows = STDIO_ROWS;
		top_layout(&f, 0, 0, stdout);
		putchar('\n');
		return fflush(stdout) ? -EIO : 0;
	}
	out = open_memstream(&text, &len);
	if (!out)
		return -ENOMEM;
	top_term_size(&width, &height);
	top_layout(&t->frame, width, height, out);
	fclose(out);
	top_term_draw(text, len);
	free(text);
	return 0;
}

/* A new interval: count it, show it, then age (or empty) the table. */
static int refresh(struct top *t)
{
	int ret;

	update_help(t);
	ret = top_frame_fill(&t->frame, &t->s, &t->view, &t->counts, now_seconds());
	if (!ret)
		ret = show(t);
	if (!ret)
		ret = session_decay(&t->s, t->o->zero ? 0 : DECAY_NUM,
				    t->o->zero ? 1 : DECAY_DEN);
	return ret;
}

/* Between refreshes the headline stays; the rows follow the keys. */
static int redraw(struct top *t)
{
	int ret;

	update_help(t);
	ret = top_frame_table(&t->frame, &t->s, &t->view);
	return ret ? ret : show(t);
}

/* 1 when the key asks to quit. */
static int on_key(struct top *t, int key, struct kp_err *err)
{
	switch (key) {
	case 'q':
	case 'Q':
		return 1;
	case 'h':
		t->view.show_host = !t->view.show_host;
		break;
	case 'g':
		t->view.show_guest = !t->view.show_guest;
		break;
	case 's':
		snprintf(t->sort, sizeof(t->sort), "%s", next_sort(t->sort));
		if (session_set_sort(&t->s, t->sort, err))
			return -err->code;
		break;
	default:
		return 0;
	}
	return redraw(t);
}

/* Wait up to DRAIN_MS for a key (or a signal), then take what the rings hold. */
static int step(struct top *t, struct kp_err *err)
{
	long n;
	int ret = 0;

	if (t->interactive) {
		int key = top_term_key(DRAIN_MS);

		if (key >= 0)
			ret = on_key(t, key, err);
	} else {
		poll(NULL, 0, DRAIN_MS);
	}
	if (ret)
		return ret;
	n = evlist_drain(&t->el, session_live_record, &t->s);
	if (n < 0)
		return kp_errorf(err, (int)-n, "reading the rings: %s",
				 strerror((int)-n));
	return session_live_flush(&t->s, err);
}

static int top_loop(struct top *t, struct kp_err *err)
{
	double next = now_seconds() + t->o->delay;
	long shown = 0;
	int ret = 0;

	while (!stop_requested && !ret) {
		ret = step(t, err);
		if (!ret && resized && t->interactive) {
			resized = 0;
			ret = redraw(t);
		}
		if (ret || now_seconds() < next)
			continue;
		next += t->o->delay;
		ret = refresh(t);
		if (!ret && t->o->count && ++shown >= t->o->count)
			break;
	}
	return ret > 0 ? 0 : ret;
}

/* What ran before sampling began, as record synthesizes it. */
static void synthesize(struct top *t)
{
	struct kp_err kerr = {0};

	synth_processes(&t->s.synth, t->o->pid ? t->o->pid : -1);
	if (synth_kernel_mmap(&t->s.synth, &kerr))
		fprintf(stderr, "kvmprof top: no host kernel map: %s\n", kerr.msg);
}

static int open_session(struct top *t, struct kp_err *err)
{
	struct top_opts *o = t->o;
	bool want_host = o->ev.host || !o->ev.guest;
	bool want_guest = o->ev.guest || !o->ev.host;
	bool ctx = false;
	char why[160];
	int ret;

	if (o->guest_name) {
		want_host = o->ev.host; /* the guest's samples, the host's when asked */
		want_guest = true;
		o->ev.host = o->ev.guest = false;
	}
	ret = evsetup_add_events(&o->ev, &t->el, err);
	if (!ret && want_guest)
		ctx = evsetup_guest_ctx(&t->el, why, sizeof(why));
	if (!ret)
		ret = evlist_open(&t->el, o->pid ? o->pid : -1, err);
	if (!ret)
		ret = session_open_live(&t->s, &t->el, ctx, &t->namer, t->sort, &o->sym,
					err);
	if (ret)
		return ret;
	t->s.want_host = want_host;
	t->s.want_guest = want_guest;
	t->s.only_guest = o->guest_name;
	t->view = (struct top_view){.show_host = true,
				    .show_guest = true,
				    .event = t->el.evsels[0].name,
				    .freq = o->ev.freq ? o->ev.freq : 4000};
	return 0;
}

static int start(struct top *t, struct kp_err *err)
{
	int ret;

	t->frame.rows = calloc(TOP_ROWS_MAX, sizeof(*t->frame.rows));
	if (!t->frame.rows)
		return kp_errorf(err, ENOMEM, "out of memory");
	ret = guest_namer_open(&t->namer, t->o->guests_conf, "kvmprof top", err);
	if (!ret)
		ret = open_session(t, err);
	if (ret)
		return ret;
	synthesize(t);
	if (evlist_enable(&t->el))
		return kp_errorf(err, errno, "cannot enable events: %s", strerror(errno));
	t->counts.time = now_seconds();
	if (t->interactive && top_term_enter())
		t->interactive = false;
	return 0;
}

static int run_top(struct top_opts *o)
{
	static struct top t; /* large: the frame's rows live on the heap */
	struct kp_err err = {0};
	int ret;

	t.o = o;
	snprintf(t.sort, sizeof(t.sort), "%s", o->sort);
	t.interactive =
		!o->stdio && !o->count && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	evlist_init(&t.el, 128);
	ret = start(&t, &err);
	if (!ret)
		ret = top_loop(&t, &err);
	top_term_restore();
	evlist_close(&t.el);
	if (t.s.file)
		session_close(&t.s);
	guest_namer_release(&t.namer);
	top_counts_release(&t.counts);
	free(t.frame.rows);
	if (ret) {
		kp_err_print(stderr, "kvmprof top", &err);
		return 1;
	}
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = {0};
	struct sigaction stop = {.sa_handler = on_stop};
	struct sigaction winch = {.sa_handler = on_winch};

	if (parse_top_args(argc, argv, &o))
		return 2;
	/* No SA_RESTART: a signal ends the wait at once. */
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);
	sigaction(SIGWINCH, &winch, NULL);
	signal(SIGPIPE, SIG_IGN);
	return run_top(&o);
}
