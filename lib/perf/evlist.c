// SPDX-License-Identifier: GPL-2.0
#include "evlist.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fileio.h"

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static int add_cpu_range(int **cpus, size_t *nr, long lo, long hi)
{
	for (long c = lo; c <= hi; c++) {
		int *p = realloc(*cpus, (*nr + 1) * sizeof(int));

		if (!p)
			return -ENOMEM;
		*cpus = p;
		(*cpus)[(*nr)++] = (int)c;
	}
	return 0;
}

int cpus_online(int **cpus, size_t *nr, struct kp_err *err)
{
	const char *path = "/sys/devices/system/cpu/online";
	char *buf, *p, *end;
	size_t len;
	int ret;

	*cpus = NULL;
	*nr = 0;
	ret = kp_read_file(path, 4096, &buf, &len, err);
	if (ret)
		return ret;
	/* "0-3,5,7-8" */
	for (p = buf; *p && *p != '\n';) {
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0 || lo > 8191)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi > 8191)
				goto bad;
		}
		if (add_cpu_range(cpus, nr, lo, hi)) {
			free(buf);
			return kp_errorf(err, ENOMEM, "%s: out of memory", path);
		}
		p = *end == ',' ? end + 1 : end;
	}
	free(buf);
	return *nr ? 0 : kp_errorf(err, EINVAL, "%s: no CPUs online", path);
bad:
	free(buf);
	return kp_errorf(err, EINVAL, "%s: cannot parse CPU list", path);
}

void evlist_init(struct evlist *el, size_t mmap_pages)
{
	memset(el, 0, sizeof(*el));
	el->mmap_pages = mmap_pages;
	el->pid = -1;
	el->wake_fd = -1;
}

int evlist_add(struct evlist *el, const struct perf_event_attr *attr, const char *name)
{
	struct evsel_open *ev = realloc(el->evsels, (el->nr_evsels + 1) * sizeof(*ev));

	if (!ev)
		return -ENOMEM;
	el->evsels = ev;
	ev = &el->evsels[el->nr_evsels++];
	memset(ev, 0, sizeof(*ev));
	ev->attr = *attr;
	ev->attr.size = sizeof(ev->attr);
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	return 0;
}

static int map_ring(struct evlist *el, int fd, int cpu, struct kp_err *err)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (el->mmap_pages + 1) * (size_t)page;
	struct ring *r;
	void *base;

	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return kp_errorf(
			err, errno,
			"mmap of %zu pages for CPU %d: %s (try a smaller -m, or raise "
			"/proc/sys/kernel/perf_event_mlock_kb)",
			el->mmap_pages, cpu, strerror(errno));
	r = &el->rings[el->nr_rings++];
	r->fd = fd;
	r->cpu = cpu;
	r->page = base;
	r->data = (uint8_t *)base + page;
	r->size = el->mmap_pages * (size_t)page;
	/*
	 * The control page faults in at its first store: here, not at the
	 * first wake-up, while the workload runs (12-15 us a fault on these
	 * virtual machines). The tail is 0 already.
	 */
	__atomic_store_n(&r->page->data_tail, 0, __ATOMIC_RELEASE);
	return 0;
}

static int open_one(struct evlist *el, struct evsel_open *ev, size_t slot, int leader,
		    struct kp_err *err)
{
	int cpu = el->cpus[slot];
	int fd = sys_perf_event_open(&ev->attr, el->pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return kp_errorf(err, errno, "cannot open event %s on CPU %d: %s%s",
				 ev->name, cpu, strerror(errno),
				 errno == EACCES || errno == EPERM
					 ? " (needs root or CAP_PERFMON, see "
					   "/proc/sys/kernel/perf_event_paranoid)"
				 : errno == ENOENT || errno == EOPNOTSUPP
					 ? " (event not supported here: no PMU?)"
					 : "");
	ev->fds[slot] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &ev->ids[ev->nr_ids]) == 0)
		ev->nr_ids++;
	if (leader >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, leader))
		return kp_errorf(err, errno,
				 "cannot share CPU %d's ring with event %s: %s", cpu,
				 ev->name, strerror(errno));
	return 0;
}

int evlist_open(struct evlist *el, pid_t pid, struct kp_err *err)
{
	int ret;

	el->pid = pid;
	ret = cpus_online(&el->cpus, &el->nr_cpus, err);
	if (ret)
		return ret;
	el->rings = calloc(el->nr_cpus, sizeof(*el->rings));
	el->scratch = malloc(65536);
	if (!el->rings || !el->scratch)
		return kp_errorf(err, ENOMEM, "out of memory");
	for (size_t e = 0; e < el->nr_evsels; e++) {
		struct evsel_open *ev = &el->evsels[e];

		ev->fds = malloc(el->nr_cpus * sizeof(int));
		ev->ids = calloc(el->nr_cpus, sizeof(uint64_t));
		if (!ev->fds || !ev->ids)
			return kp_errorf(err, ENOMEM, "out of memory");
		for (size_t i = 0; i < el->nr_cpus; i++)
			ev->fds[i] = -1;
	}
	/*
	 * The first event's ring is mapped before the others are pointed at
	 * it: the kernel refuses PERF_EVENT_IOC_SET_OUTPUT into an event that
	 * has no ring yet.
	 */
	for (size_t i = 0; i < el->nr_cpus; i++) {
		ret = open_one(el, &el->evsels[0], i, -1, err);
		if (!ret)
			ret = map_ring(el, el->evsels[0].fds[i], el->cpus[i], err);
		for (size_t e = 1; !ret && e < el->nr_evsels; e++)
			ret = open_one(el, &el->evsels[e], i, el->evsels[0].fds[i], err);
		if (ret)
			return ret;
	}
	return 0;
}

static int ioctl_all(struct evlist *el, unsigned long req)
{
	for (size_t e = 0; e < el->nr_evsels; e++)
		for (size_t i = 0; i < el->nr_cpus; i++)
			if (el->evsels[e].fds && el->evsels[e].fds[i] >= 0 &&
			    ioctl(el->evsels[e].fds[i], req, 0))
				return -errno;
	return 0;
}

int evlist_enable(struct evlist *el)
{
	return ioctl_all(el, PERF_EVENT_IOC_ENABLE);
}

int evlist_disable(struct evlist *el)
{
	return ioctl_all(el, PERF_EVENT_IOC_DISABLE);
}

/* Consume one ring from data_tail to data_head; @done before it is released. */
static long drain_ring(struct evlist *el, struct ring *r, record_fn fn, ring_done_fn done,
		       void *ctx)
{
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail;
	size_t mask = r->size - 1;
	long n = 0;
	int ret = 0;

	while (tail < head) {
		const struct perf_event_header *h = (void *)(r->data + (tail & mask));
		size_t off = tail & mask, size;

		/* The header itself may straddle the end of the ring. */
		if (off + sizeof(*h) > r->size) {
			size_t first = r->size - off;

			memcpy(el->scratch, r->data + off, first);
			memcpy(el->scratch + first, r->data, sizeof(*h) - first);
			h = (void *)el->scratch;
		}
		size = h->size;
		if (size < sizeof(*h) || size > head - tail)
			break;
		if (off + size > r->size) {
			size_t first = r->size - off;

			memcpy(el->scratch, r->data + off, first);
			memcpy(el->scratch + first, r->data, size - first);
			h = (void *)el->scratch;
		} else {
			h = (void *)(r->data + off);
		}
		ret = fn(ctx, h);
		tail += size;
		n++;
		if (ret)
			break;
	}
	if (done && !ret)
		ret = done(ctx);
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
	return ret ? ret : n;
}

long evlist_drain_each(struct evlist *el, record_fn fn, ring_done_fn done, void *ctx)
{
	long total = 0;

	for (size_t i = 0; i < el->nr_rings; i++) {
		long n = drain_ring(el, &el->rings[i], fn, done, ctx);

		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

static long pass_ring(struct ring *r, ring_bytes_fn fn, void *ctx)
{
	uint64_t tail = r->page->data_tail;
	size_t off = tail & (r->size - 1), len, first = r->size - off;
	int ret;

	r->passed = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	len = r->passed - tail;
	if (!len)
		return 0;
	/* The kernel moves data_head past whole records only: no record is cut. */
	if (len <= first)
		ret = fn(ctx, r->data + off, len, NULL, 0);
	else
		ret = fn(ctx, r->data + off, first, r->data, len - first);
	return ret ? ret : (long)len;
}

long evlist_pass_each(struct evlist *el, ring_bytes_fn fn, ring_done_fn done, void *ctx)
{
	long total = 0;
	int ret;

	for (size_t i = 0; i < el->nr_rings; i++) {
		long n = pass_ring(&el->rings[i], fn, ctx);

		if (n < 0)
			return n;
		total += n;
	}
	if (!total)
		return 0;
	ret = done(ctx);
	if (ret)
		return ret;
	for (size_t i = 0; i < el->nr_rings; i++)
		__atomic_store_n(&el->rings[i].page->data_tail, el->rings[i].passed,
				 __ATOMIC_RELEASE);
	return total;
}

long evlist_drain(struct evlist *el, record_fn fn, void *ctx)
{
	return evlist_drain_each(el, fn, NULL, ctx);
}

/* At most this many rings are polled at once; the rest are read all the same. */
#define EVLIST_POLL_MAX 1024

int evlist_poll(struct evlist *el, int timeout_ms, const sigset_t *sigmask)
{
	struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000};
	struct pollfd pfd[EVLIST_POLL_MAX + 1];
	struct ring *polled[EVLIST_POLL_MAX];
	size_t n = 0, live = 0, hung = 0;
	int ret;

	/* A hung-up ring is ready for ever: it would turn the wait into a spin. */
	for (size_t i = 0; i < el->nr_rings; i++) {
		if (el->rings[i].hung_up)
			continue;
		live++;
		if (n == EVLIST_POLL_MAX)
			continue;
		polled[n] = &el->rings[i];
		pfd[n++] = (struct pollfd){.fd = el->rings[i].fd, .events = POLLIN};
	}
	el->hung_up = !live;
	el->woken = false;
	if (!live)
		return 0;
	pfd[n] = (struct pollfd){.fd = el->wake_fd, .events = POLLIN};
	ret = ppoll(pfd, n + (el->wake_fd >= 0), timeout_ms < 0 ? NULL : &ts, sigmask);
	for (size_t i = 0; ret > 0 && i < n; i++) {
		if (pfd[i].revents & (POLLHUP | POLLERR)) {
			polled[i]->hung_up = true;
			hung++;
		}
	}
	el->hung_up = hung == live;
	el->woken = ret > 0 && el->wake_fd >= 0 && (pfd[n].revents & POLLIN);
	return ret;
}

void evlist_close(struct evlist *el)
{
	long page = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < el->nr_rings; i++)
		munmap(el->rings[i].page, el->rings[i].size + (size_t)page);
	for (size_t e = 0; e < el->nr_evsels; e++) {
		for (size_t i = 0; el->evsels[e].fds && i < el->nr_cpus; i++)
			if (el->evsels[e].fds[i] >= 0)
				close(el->evsels[e].fds[i]);
		free(el->evsels[e].fds);
		free(el->evsels[e].ids);
	}
	free(el->evsels);
	free(el->cpus);
	free(el->rings);
	free(el->scratch);
	memset(el, 0, sizeof(*el));
}
