// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof stat: count events, host and guest apart, as perf stat counts.
 *
 *   kvmprof stat [-a | -p PID | -- CMD [ARGS]] [-e EVENTS] [-I MS] [-x SEP]
 *                [--guests-conf FILE]
 *   kvmprof stat exits ...   (cmd-stat-exits.c)
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "guest/guest.h"
#include "perf/perf.h"
#include "stat_print.h"
#include "workload.h"

#define MAX_THREADS 4096 /* threads of a -p process counted */

struct stat_opts {
	bool system_wide;
	pid_t pid;
	const char *events;
	unsigned long interval_ms;
	const char *sep;
	const char *guests_conf;
	char **command;
};

struct stat_run {
	const struct stat_opts *o;
	struct stat_event *evs;
	size_t nr_events;
	struct stat_counter *counters;
	size_t nr_counters;
	struct stat_vms vms;
	struct workload wl;
	int pidfd; /* the command or the -p process: readable when it ends */
	char target[256];
	struct stat_report report;
	struct timespec start;
	bool exec_failed; /* the command could not be run: status 127, as a shell */
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = 1;
}

static void stat_usage(FILE *out)
{
	fprintf(out,
		"usage: kvmprof stat [-a | -p PID | -- COMMAND [ARGS...]] [-e "
		"EVENT[,EVENT]]\n"
		"                    [-I MS] [-x SEP] [--guests-conf FILE]\n"
		"       kvmprof stat exits ...\n\n"
		"Counts events (no sampling), as perf stat does, each split between the\n"
		"host and the guests.\n\n"
		"  -a, --all-cpus        every CPU, until COMMAND ends or Ctrl-C; adds "
		"one\n"
		"                        block per running guest\n"
		"  -p, --pid PID         the threads of one process, until it ends or "
		"Ctrl-C\n"
		"  -e, --event LIST      events, as record names them (default: "
		"task-clock,\n"
		"                        or cpu-clock with -a, context-switches, "
		"cycles,\n"
		"                        instructions)\n"
		"  -I, --interval-print MS  print what was counted every MS "
		"milliseconds\n"
		"  -x, --field-separator SEP  one line per count for machines: value, "
		"unit,\n"
		"                        event, run time (ns), percent counted, part, "
		"guest\n"
		"      --guests-conf FILE  guest list naming QEMUs by the disk they hold "
		"open\n"
		"                        (default " GUESTS_CONF_DEFAULT ")\n\n"
		"Parts: a PMU event (cycles, instructions, ...) is counted twice, host\n"
		"only and guest only (perf's :H and :G). The kernel cannot split a "
		"software\n"
		"event (task-clock, cpu-clock, context-switches, ...): it is printed "
		"whole,\n"
		"as host+guest, and with -a its vcpu-threads part is what the guests' "
		"vCPU\n"
		"threads counted, guest code and the KVM exits those threads handle.\n\n"
		"Guests (-a): the QEMUs running when counting starts, named as record "
		"names\n"
		"them, each with its vCPU threads counted; a guest started later is not\n"
		"counted.\n");
}

/* -I: whole milliseconds, from 10 ms (as perf stat) to an hour. */
static int parse_interval_ms(const char *s, unsigned long *ms)
{
	char *end;

	errno = 0;
	*ms = strtoul(s, &end, 10);
	return errno || end == s || *end || *ms < 10 || *ms > 3600000 ? -EINVAL : 0;
}

static int check_target(const struct stat_opts *o)
{
	if (o->pid && (o->system_wide || o->command)) {
		fprintf(stderr,
			"kvmprof stat: -p cannot be combined with -a or a command\n");
		return -EINVAL;
	}
	if (!o->pid && !o->system_wide && !o->command) {
		fprintf(stderr, "kvmprof stat: nothing to count: give -a, -p PID or a "
				"command\n");
		stat_usage(stderr);
		return -EINVAL;
	}
	if (o->sep && !*o->sep) {
		fprintf(stderr, "kvmprof stat: -x needs a separator\n");
		return -EINVAL;
	}
	return 0;
}

static int parse_stat_args(int argc, char **argv, struct stat_opts *o)
{
	static const struct option longopts[] = {
		{"all-cpus", no_argument, NULL, 'a'},
		{"pid", required_argument, NULL, 'p'},
		{"event", required_argument, NULL, 'e'},
		{"interval-print", required_argument, NULL, 'I'},
		{"field-separator", required_argument, NULL, 'x'},
		{"guests-conf", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "+ap:e:I:x:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->system_wide = true;
			break;
		case 'p':
			o->pid = guest_parse_pid(optarg);
			if (o->pid <= 0)
				goto bad;
			break;
		case 'e':
			o->events = optarg;
			break;
		case 'I':
			if (parse_interval_ms(optarg, &o->interval_ms))
				goto bad;
			break;
		case 'x':
			o->sep = optarg;
			break;
		case 'C':
			o->guests_conf = optarg;
			break;
		case 'h':
			stat_usage(stdout);
			exit(0);
		default:
			stat_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc)
		o->command = argv + optind;
	return check_target(o);
bad:
	fprintf(stderr, "kvmprof stat: bad value '%s' for -%c%s\n", optarg, c,
		c == 'I' ? " (milliseconds, at least 10)" : "");
	return -EINVAL;
}

/* Every thread of @pid now; -ESRCH when there is no such process. */
static int threads_of(pid_t pid, struct stat_target *targets, size_t max, size_t *nr,
		      struct kp_err *err)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return kp_errorf(err, ESRCH, "-p %d: no such process", (int)pid);
	*nr = 0;
	while ((de = readdir(d)) && *nr < max) {
		pid_t tid = guest_parse_pid(de->d_name);

		if (tid > 0)
			targets[(*nr)++] = (struct stat_target){.pid = tid, .cpu = -1};
	}
	closedir(d);
	return *nr ? 0 : kp_errorf(err, ESRCH, "-p %d: no such process", (int)pid);
}

static int cpu_targets(struct stat_target **targets, size_t *nr, struct kp_err *err)
{
	int *cpus;
	int ret = cpus_online(&cpus, nr, err);

	if (ret)
		return ret;
	*targets = calloc(*nr, sizeof(**targets));
	for (size_t i = 0; *targets && i < *nr; i++)
		(*targets)[i] = (struct stat_target){.pid = -1, .cpu = cpus[i]};
	free(cpus);
	return *targets ? 0 : kp_errorf(err, ENOMEM, "out of memory");
}

/* Where each counter counts, and how: CPUs, a process's threads, or the command. */
static int targets_of(const struct stat_run *run, struct stat_target **targets,
		      size_t *nr, unsigned *flags, struct kp_err *err)
{
	const struct stat_opts *o = run->o;

	*flags = 0;
	if (o->system_wide)
		return cpu_targets(targets, nr, err);
	if (o->command) {
		*targets = calloc(1, sizeof(**targets));
		if (!*targets)
			return kp_errorf(err, ENOMEM, "out of memory");
		**targets = (struct stat_target){.pid = run->wl.pid, .cpu = -1};
		*nr = 1;
		*flags = STAT_OPEN_ON_EXEC;
		return 0;
	}
	*targets = calloc(MAX_THREADS, sizeof(**targets));
	if (!*targets)
		return kp_errorf(err, ENOMEM, "out of memory");
	*flags = STAT_OPEN_INHERIT | STAT_OPEN_SKIP_GONE;
	return threads_of(o->pid, *targets, MAX_THREADS, nr, err);
}

/* Per event: host and guest for a PMU event, the whole for a software one. */
static int open_counters(struct stat_run *run, struct kp_err *err)
{
	struct stat_target *targets = NULL;
	size_t nr = 0;
	unsigned flags;
	int ret = targets_of(run, &targets, &nr, &flags, err);

	run->counters = calloc(2 * run->nr_events, sizeof(*run->counters));
	if (!ret && !run->counters)
		ret = kp_errorf(err, ENOMEM, "out of memory");
	for (size_t e = 0; !ret && e < run->nr_events; e++) {
		const struct stat_event *ev = &run->evs[e];
		enum stat_split first = ev->software ? STAT_SPLIT_ALL : STAT_SPLIT_HOST;

		ret = stat_counter_open(&run->counters[run->nr_counters++], ev, first,
					targets, nr, flags, err);
		if (!ret && !ev->software)
			ret = stat_counter_open(&run->counters[run->nr_counters++], ev,
						STAT_SPLIT_GUEST, targets, nr, flags,
						err);
	}
	if (!ret && run->o->pid && run->nr_counters && !run->counters[0].unsupported &&
	    !run->counters[0].nr_fds)
		ret = kp_errorf(err, ESRCH, "-p %d: no such process", (int)run->o->pid);
	free(targets);
	return ret;
}

/*
 * -a: the guests now running, named as record names them. A broken default
 * guests.conf belongs to the daemon: warn, and name by -name only.
 */
static int open_guests(struct stat_run *run, struct kp_err *err)
{
	const char *path =
		run->o->guests_conf ? run->o->guests_conf : GUESTS_CONF_DEFAULT;
	struct guest_namer names;
	int ret = guest_namer_load(&names, path, run->o->guests_conf != NULL, err);

	if (ret && !run->o->guests_conf) {
		fprintf(stderr,
			"kvmprof stat: warning: %s; guests are named by -name only\n",
			err->msg);
		kp_err_clear(err);
		ret = 0;
	}
	if (!ret)
		ret = stat_vms_open(&run->vms, &names, run->evs, run->nr_events, err);
	guest_namer_release(&names);
	return ret;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void each_counter(struct stat_run *run, void (*fn)(const struct stat_counter *c))
{
	for (size_t i = 0; i < run->nr_counters; i++)
		fn(&run->counters[i]);
}

/* Counting starts: counters enabled, or the command exec'd (enable_on_exec). */
static int start_counting(struct stat_run *run, struct kp_err *err)
{
	bool on_exec = run->o->command && !run->o->system_wide;

	clock_gettime(CLOCK_MONOTONIC, &run->start);
	stat_vms_enable(&run->vms);
	if (!on_exec)
		each_counter(run, stat_counter_enable);
	if (!run->o->command)
		return 0;
	run->exec_failed = workload_start(&run->wl, err) != 0;
	return run->exec_failed ? -err->code : 0;
}

/* The command or the -p process, as a descriptor poll() sees end (Linux 5.3). */
static int watch_target(struct stat_run *run, struct kp_err *err)
{
	pid_t pid = run->o->command ? run->wl.pid : run->o->pid;

	run->pidfd = -1;
	if (pid <= 0)
		return 0;
	run->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (run->pidfd >= 0)
		return 0;
	if (errno == ESRCH)
		return kp_errorf(err, ESRCH, "pid %d: no such process", (int)pid);
	return kp_errorf(err, errno, "cannot watch pid %d: pidfd_open: %s", (int)pid,
			 strerror(errno));
}

/* Wait up to @ms for the command or the -p process to end: true when it did. */
static bool target_ended(const struct stat_run *run, int ms)
{
	struct pollfd p = {.fd = run->pidfd, .events = POLLIN};

	if (run->pidfd < 0) { /* -a alone: until a signal */
		poll(NULL, 0, ms);
		return false;
	}
	return poll(&p, 1, ms) == 1;
}

static int ms_until(const struct stat_run *run, double when)
{
	double left = when - seconds_since(&run->start);

	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* Until the target ends or a signal; with -I, print what each interval counted. */
static int count_loop(struct stat_run *run)
{
	double interval = (double)run->o->interval_ms / 1000, last = 0, next = interval;
	int ret = 0;

	while (!stop_requested && !ret) {
		int ms = interval > 0 ? ms_until(run, next) : -1;
		double now;

		if (target_ended(run, ms))
			break;
		now = seconds_since(&run->start);
		if (interval > 0 && now >= next) {
			ret = stat_report_print(&run->report, now, (now - last) * 1e9);
			last = now;
			next += interval;
		}
	}
	if (!ret && interval > 0) {
		double now = seconds_since(&run->start);

		/* The last part of an interval, unless it is too short to matter. */
		if (now - last > 0.001)
			ret = stat_report_print(&run->report, now, (now - last) * 1e9);
	}
	return ret;
}

/* The command's exit status as a shell gives it; killed when counting was stopped. */
static int reap_command(struct stat_run *run)
{
	int status = 0;

	if (run->wl.pid <= 0)
		return 0;
	if (stop_requested && waitpid(run->wl.pid, &status, WNOHANG) == 0)
		kill(run->wl.pid, SIGTERM);
	while (waitpid(run->wl.pid, &status, 0) < 0 && errno == EINTR)
		;
	run->wl.pid = -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void describe_target(struct stat_run *run)
{
	size_t n = 0;

	if (run->o->system_wide) {
		snprintf(run->target, sizeof(run->target), "'system wide'");
		return;
	}
	if (run->o->pid) {
		snprintf(run->target, sizeof(run->target), "process id '%d'",
			 (int)run->o->pid);
		return;
	}
	for (char **a = run->o->command; *a && n + 2 < sizeof(run->target); a++)
		n += (size_t)snprintf(run->target + n, sizeof(run->target) - n, "%s%s",
				      a == run->o->command ? "'" : " ", *a);
	if (n + 2 < sizeof(run->target))
		snprintf(run->target + n, sizeof(run->target) - n, "'");
}

static int prepare(struct stat_run *run, struct kp_err *err)
{
	int ret = stat_events_parse(run->o->events, run->o->system_wide, &run->evs,
				    &run->nr_events, err);

	if (!ret && run->o->command)
		ret = workload_prepare(run->o->command, &run->wl, err);
	if (!ret)
		ret = open_counters(run, err);
	if (!ret && run->o->system_wide)
		ret = open_guests(run, err);
	if (!ret)
		ret = watch_target(run, err);
	describe_target(run);
	run->report = (struct stat_report){
		.out = stderr,
		.target = run->target,
		.sep = run->o->sep,
		.interval = run->o->interval_ms > 0,
		.evs = run->evs,
		.nr_events = run->nr_events,
		.counters = run->counters,
		.nr_counters = run->nr_counters,
		.vms = run->o->system_wide ? &run->vms : NULL,
	};
	return ret;
}

static void release(struct stat_run *run)
{
	for (size_t i = 0; i < run->nr_counters; i++)
		stat_counter_close(&run->counters[i]);
	free(run->counters);
	stat_vms_close(&run->vms);
	workload_release(&run->wl);
	if (run->pidfd >= 0)
		close(run->pidfd);
	free(run->evs);
}

static int run_stat(const struct stat_opts *o)
{
	struct stat_run run = {
		.o = o, .pidfd = -1, .wl = {.pid = -1, .go_fd = -1, .err_fd = -1}};
	struct kp_err err = {0};
	int ret = prepare(&run, &err), status = 1;

	if (!ret)
		ret = start_counting(&run, &err);
	if (!ret)
		ret = count_loop(&run);
	if (!ret) {
		double elapsed = seconds_since(&run.start);

		each_counter(&run, stat_counter_disable);
		stat_vms_disable(&run.vms);
		if (!run.report.interval)
			ret = stat_report_print(&run.report, elapsed, elapsed * 1e9);
		stat_report_elapsed(&run.report, elapsed);
	}
	if (ret) {
		/* A command still held exits when its go pipe closes; a running one is
		 * stopped. */
		workload_release(&run.wl);
		stop_requested = 1;
	}
	status = reap_command(&run);
	if (ret) {
		if (!err.msg[0])
			kp_errorf(&err, -ret, "%s", strerror(-ret));
		kp_err_print(stderr, "kvmprof stat", &err);
		status = run.exec_failed ? 127 : 1;
	}
	release(&run);
	return status;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = {0};
	struct sigaction sa = {.sa_handler = on_signal};

	if (argc > 1 && !strcmp(argv[1], "exits"))
		return cmd_stat_exits(argc - 1, argv + 1);
	if (parse_stat_args(argc, argv, &o))
		return 2;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return run_stat(&o);
}
