/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events being recorded: one perf_event_open() per event per CPU, one
 * mmap ring per CPU (later events of a CPU write into its first event's ring
 * through PERF_EVENT_IOC_SET_OUTPUT), drained in user space.
 */
#ifndef KVMPROF_EVLIST_H
#define KVMPROF_EVLIST_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

struct evsel_open {
	struct perf_event_attr attr;
	char name[64];
	int *fds;      /* one per CPU slot */
	uint64_t *ids; /* PERF_EVENT_IOC_ID of each fd */
	size_t nr_ids;
};

struct ring {
	int fd;
	int cpu;
	struct perf_event_mmap_page *page;
	uint8_t *data;
	size_t size;	 /* data area, a power of two */
	uint64_t passed; /* data_head as handed over by evlist_pass_each() */
	bool hung_up;	 /* its events are gone (their task exited): not polled */
};

struct evlist {
	struct evsel_open *evsels;
	size_t nr_evsels;
	int *cpus;
	size_t nr_cpus;
	pid_t pid; /* -1: every process */
	struct ring *rings;
	size_t nr_rings;
	size_t mmap_pages; /* data pages per ring, a power of two */
	uint8_t *scratch;  /* a record that wraps around the ring is copied here */
	bool hung_up;	   /* every ring has hung up: no record can come */
	int wake_fd;	   /* polled beside the rings when >= 0 (evlist_poll()) */
	bool woken;	   /* wake_fd was readable in the last evlist_poll() */
};

/* Online CPUs from /sys/devices/system/cpu/online. */
int cpus_online(int **cpus, size_t *nr, struct kp_err *err);

void evlist_init(struct evlist *el, size_t mmap_pages);
int evlist_add(struct evlist *el, const struct perf_event_attr *attr, const char *name);

/*
 * Open every event on every online CPU for @pid (-1 for all processes),
 * disabled, and map the rings. Errors name the event and the CPU.
 */
int evlist_open(struct evlist *el, pid_t pid, struct kp_err *err);
int evlist_enable(struct evlist *el);
int evlist_disable(struct evlist *el);

typedef int (*record_fn)(void *ctx, const struct perf_event_header *ev);

/* Hand every complete record in every ring to @fn; returns records read or -errno. */
long evlist_drain(struct evlist *el, record_fn fn, void *ctx);

/*
 * Called once a ring's records have all been handed over, before the ring
 * takes their room back: until then a record handed to the record_fn stays
 * where it is (one that straddles the ring's end is a copy, good until the
 * next record). Nonzero stops the drain and is returned.
 */
typedef int (*ring_done_fn)(void *ctx);

/* evlist_drain(), with @done (or NULL) after each ring. */
long evlist_drain_each(struct evlist *el, record_fn fn, ring_done_fn done, void *ctx);

/*
 * A ring's unread bytes, whole records as the kernel wrote them: @a, and
 * @b when they wrap around the ring's end (else NULL and 0). They stay
 * where they are until the function returns 0, or a negative errno to stop.
 */
typedef int (*ring_bytes_fn)(void *ctx, const void *a, size_t alen, const void *b,
			     size_t blen);

/*
 * Hand each ring's unread bytes to @fn without reading a record, as perf
 * record writes its rings, then call @done once (when there were any),
 * and only then let the kernel reuse the rings: what @fn was handed can
 * go out in one write. Returns the bytes handed over, or the negative
 * errno @fn or @done returned.
 */
long evlist_pass_each(struct evlist *el, ring_bytes_fn fn, ring_done_fn done, void *ctx);

/*
 * ppoll() on the ring fds with @sigmask (NULL: the current one) in force
 * while it waits; returns as ppoll() does. A ring that hangs up is not
 * polled again: it would be ready at once, every time, and a signal
 * unblocked only for the wait would stay pending (ppoll() delivers one
 * only when it interrupts the wait). Once all have hung up, el->hung_up
 * is set and nothing is polled. el->wake_fd, when set, is polled too:
 * el->woken says whether it was readable.
 */
int evlist_poll(struct evlist *el, int timeout_ms, const sigset_t *sigmask);

void evlist_close(struct evlist *el);

/* perf_event_open(2) has no glibc wrapper. */
int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			unsigned long flags);

#endif
