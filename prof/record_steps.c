// SPDX-License-Identifier: GPL-2.0
#include "record_steps.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "evsetup.h"
#include "guest/guest.h"

volatile sig_atomic_t record_stop_requested;

static void on_signal(int sig)
{
	record_stop_requested = 1;
}

/* A child ended: record_loop() reaps the workload; its wait is cut short. */
static volatile sig_atomic_t child_exited;

static void on_child(int sig)
{
	child_exited = 1;
}

void record_catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal}, chld = {.sa_handler = on_child};

	/* The flag's page faults in now, not in the handler at the workload's end. */
	child_exited = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &chld, NULL);
	signal(SIGPIPE, SIG_IGN);
}

uint64_t record_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void record_set_features(struct pd_writer *w, int argc, char **argv, size_t nr_cpus)
{
	struct utsname u;
	char full[] = "kvmprof";
	char **args = calloc((size_t)argc + 1, sizeof(char *));

	if (uname(&u) == 0) {
		pd_writer_set_string(w, PD_FEAT_HOSTNAME, u.nodename);
		pd_writer_set_string(w, PD_FEAT_OSRELEASE, u.release);
		pd_writer_set_string(w, PD_FEAT_ARCH, u.machine);
	}
	pd_writer_set_string(w, PD_FEAT_VERSION, kp_version_line);
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

int record_open_output(struct record_state *rs, const char *path, struct evlist *el,
		       struct kp_err *err)
{
	int ret = pd_writer_create(path, &rs->writer, err);
	struct pd_evsel *evs = NULL;

	/* Without the guest context bit: it is stripped from every sample. */
	if (!ret && evsetup_file_evsels(el, &evs))
		ret = kp_errorf(err, ENOMEM, "out of memory");
	for (size_t e = 0; !ret && e < el->nr_evsels; e++)
		if (pd_writer_add_evsel(rs->writer, &evs[e].attr, evs[e].name, evs[e].ids,
					evs[e].nr_ids))
			ret = kp_errorf(err, ENOMEM, "out of memory");
	free(evs);
	return ret ? ret : pd_writer_begin_data(rs->writer, err);
}

/*
 * Asks the kernel only after a SIGCHLD, or once the rings hung up: a
 * system call at each wake-up costs. Hung up, the workload is past the
 * end of its events, in its exit: waiting for it is short.
 */
static int child_done(pid_t child, int *status, const struct evlist *el)
{
	if (child <= 0 || !(child_exited || el->hung_up))
		return 0;
	child_exited = 0;
	return waitpid(child, status, el->hung_up ? 0 : WNOHANG) == child;
}

/*
 * How long the recorder sleeps between reads of the rings when the kernel
 * does not wake it first (a ring half full). The workload's end and a
 * signal to stop interrupt the sleep (record_catch_signals()). Waking every
 * 100 ms cost the recorder 2 ms of CPU over a 2 s workload on these virtual
 * machines, half of what it used while the workload ran; a second still
 * reads a guest's samples while its process, named from them, is likely
 * alive. Rings written unread have no guest to name: the kernel alone
 * wakes the recorder then, for the rings or for KVM coming up.
 */
#define RECORD_WAIT_MS 1000

/* The wait for the rings: RECORD_WAIT_MS (or none), or up to the deadline. */
static int wait_ms(const struct record_state *rs, uint64_t deadline_ns)
{
	int wait = rs->unread ? -1 : RECORD_WAIT_MS;
	uint64_t now, left_ms;

	if (!deadline_ns)
		return wait;
	now = record_now_ns();
	left_ms = now < deadline_ns ? (deadline_ns - now) / 1000000 + 1 : 0;
	return wait < 0 || left_ms < (uint64_t)wait ? (int)left_ms : wait;
}

/*
 * One pass over the rings, ended by a round marker when it found records:
 * unread while KVM stays unloaded, record by record from the pass after
 * the wait that its watch ended. Returns 0 or a negative errno.
 */
static int drain_rings(struct record_state *rs, struct evlist *el)
{
	long n;

	if (rs->unread && el->woken && kvm_watch_check(rs->kvm_watch))
		record_state_end_unread(rs);
	if (rs->unread) {
		n = evlist_pass_each(el, record_state_on_ring_bytes,
				     record_state_end_pass, rs);
	} else {
		n = evlist_drain_each(el, record_state_on_record, record_state_ring_done,
				      rs);
		if (n > 0 && record_state_finish_round(rs))
			n = -EIO;
	}
	return n < 0 ? (int)n : 0;
}

/*
 * The signals that end the wait are blocked but during it: one that comes
 * after the checks is taken as the wait starts (ppoll()), not after it.
 */
static void block_stop_signals(sigset_t *waiting)
{
	sigset_t stop;

	sigemptyset(&stop);
	sigaddset(&stop, SIGCHLD);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, waiting);
}

int record_loop(struct record_state *rs, struct evlist *el, pid_t child,
		int *child_status, uint64_t deadline_ns)
{
	sigset_t waiting;
	int ret = 0;

	block_stop_signals(&waiting);
	while (!record_stop_requested && !ret) {
		/* Every ring hung up (the task of -p exited): nothing more can come. */
		if (child_done(child, child_status, el) || el->hung_up)
			break;
		if (deadline_ns && record_now_ns() >= deadline_ns)
			break;
		el->wake_fd = rs->unread ? rs->kvm_watch : -1;
		evlist_poll(el, wait_ms(rs, deadline_ns), &waiting);
		ret = drain_rings(rs, el);
	}
	sigprocmask(SIG_SETMASK, &waiting, NULL);
	if (ret)
		return ret;
	evlist_disable(el);
	return drain_rings(rs, el);
}
