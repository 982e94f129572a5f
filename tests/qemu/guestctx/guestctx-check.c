// SPDX-License-Identifier: GPL-2.0
/*
 * guestctx-check: sample cpu-clock on every CPU with PERF_SAMPLE_GUEST_CTX
 * and report what the kernel put in the samples, for the kernel series'
 * integration test (tests/integration/50-kernel-series.sh).
 *
 *   guestctx-check [-x] [-t SECONDS] [-p PERIOD_NS]
 *   guestctx-check -P
 *
 * -P only tries to open events, with and without the bit, and prints
 * "perm: TARGET bit=0|1: ok|EACCES|..." for TARGET cpu-wide (every task
 * on CPU 0), self (this process, user space only) and pid1 (init): the
 * caller compares who may open what with and without the bit.
 *
 * -x sets exclude_guest: cpu-clock still samples in the guest, and those
 * samples must then carry an all-zero context.
 *
 * Prints "key: value" lines, then one line per distinct guest context:
 *
 *   probe-next-bit: EINVAL      sample_type bit 26 is still rejected
 *   open: ok                    PERF_SAMPLE_GUEST_CTX is accepted
 *   samples: N                  all PERF_RECORD_SAMPLEs read
 *   bad-size: N                 samples whose size is not the expected 48 bytes
 *   guest-samples: N            misc GUEST_KERNEL or GUEST_USER
 *   host-samples: N             any other cpumode
 *   host-nonzero: N             host samples with a non-zero guest context
 *   guest-nonzero: N            guest samples with a non-zero context
 *   guest-reserved-nonzero: N   guest samples whose ctx.reserved is not 0
 *   lost: N                     samples the kernel reported lost
 *   ctx: pid=P vcpu=V cr3=0x.. lstar=0x.. mode=kernel|user ip2m=0x.. n=N
 *
 * pid is the sample's PERF_SAMPLE_TID pid (the VMM); cr3 and lstar are the
 * context's x86 pt_root and kernel_entry.
 *
 * ip2m is the sample's guest IP rounded down to 2 MiB, so that the caller can
 * match address spaces (CR3) with the code that ran in them.
 *
 * The judging is left to the caller, which knows the guest.  Needs root (or
 * perf_event_paranoid <= 0) and a kernel with the series: on others the open
 * fails with EINVAL and the program exits 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The ABI of the kernel series (v2), for headers that predate it. */
#ifndef PERF_SAMPLE_GUEST_CTX
#define PERF_SAMPLE_GUEST_CTX (1U << 25)
struct perf_sample_guest_ctx {
	uint32_t vcpu_id;
	uint32_t reserved;
	uint64_t pt_root;
	uint64_t kernel_entry;
};
#endif

#define DATA_PAGES 64
#define MAX_CPUS   64
#define MAX_CTX	   64

/* The record for IP | TID | GUEST_CTX, in the kernel's output order. */
struct sample {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
	struct perf_sample_guest_ctx ctx; /* last: no AUX asked for */
};

struct ctx_count {
	uint32_t pid;
	struct perf_sample_guest_ctx ctx;
	int user;
	uint64_t ip2m;
	unsigned long n;
};

static struct ctx_count ctxs[MAX_CTX];
static int nctx, ctx_overflow;
static unsigned long samples, bad_size, guest, host, host_nonzero, guest_nonzero,
	reserved_nonzero, lost;

static int perf_open(struct perf_event_attr *attr, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static const char *open_result(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1,
			      PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return "ok";
	}
	return errno == EACCES ? "EACCES" : errno == EPERM ? "EPERM" : strerror(errno);
}

/* The same opens with and without the bit, as the calling user. */
static int probe_permissions(struct perf_event_attr *attr)
{
	static const struct {
		const char *name;
		pid_t pid;
		int cpu;
		int user_only;
	} targets[] = {
		{"cpu-wide", -1, 0, 0},
		{"self", 0, -1, 1},
		{"pid1", 1, -1, 0},
	};

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		for (int bit = 0; bit <= 1; bit++) {
			struct perf_event_attr a = *attr;

			a.exclude_kernel = (unsigned int)targets[i].user_only;
			a.exclude_hv = (unsigned int)targets[i].user_only;
			if (!bit)
				a.sample_type &= ~PERF_SAMPLE_GUEST_CTX;
			printf("perm: %s bit=%d: %s\n", targets[i].name, bit,
			       open_result(&a, targets[i].pid, targets[i].cpu));
		}
	}
	return 0;
}

static void count_ctx(uint32_t pid, const struct perf_sample_guest_ctx *c, int user,
		      uint64_t ip)
{
	uint64_t ip2m = ip & ~0x1fffffULL;

	for (int i = 0; i < nctx; i++) {
		if (ctxs[i].pid == pid && !memcmp(&ctxs[i].ctx, c, sizeof(*c)) &&
		    ctxs[i].user == user && ctxs[i].ip2m == ip2m) {
			ctxs[i].n++;
			return;
		}
	}
	if (nctx == MAX_CTX) {
		ctx_overflow = 1;
		return;
	}
	ctxs[nctx].pid = pid;
	ctxs[nctx].ctx = *c;
	ctxs[nctx].user = user;
	ctxs[nctx].ip2m = ip2m;
	ctxs[nctx++].n = 1;
}

static void handle(const unsigned char *rec)
{
	const struct perf_event_header *h = (const void *)rec;
	static const struct perf_sample_guest_ctx zero;
	struct perf_sample_guest_ctx c;
	struct sample s;
	unsigned int mode;

	if (h->type == PERF_RECORD_LOST) {
		uint64_t n;

		memcpy(&n, rec + sizeof(*h) + sizeof(uint64_t), sizeof(n));
		lost += n;
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	samples++;
	if (h->size != sizeof(s)) {
		bad_size++;
		return;
	}
	memcpy(&s, rec, sizeof(s));
	c = s.ctx;
	mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    mode == PERF_RECORD_MISC_GUEST_USER) {
		guest++;
		if (memcmp(&c, &zero, sizeof(c)))
			guest_nonzero++;
		if (c.reserved)
			reserved_nonzero++;
		count_ctx(s.pid, &c, mode == PERF_RECORD_MISC_GUEST_USER, s.ip);
	} else {
		host++;
		if (memcmp(&c, &zero, sizeof(c)))
			host_nonzero++;
	}
}

/* Read every complete record from one ring buffer. */
static void drain(struct perf_event_mmap_page *pg, size_t page)
{
	unsigned char *data = (unsigned char *)pg + page;
	size_t size = DATA_PAGES * page;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	unsigned char buf[1 << 16];

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % size, first;

		first = size - off < sizeof(h) ? size - off : sizeof(h);
		memcpy(&h, data + off, first);
		memcpy((unsigned char *)&h + first, data, sizeof(h) - first);
		if (h.size < sizeof(h))
			break;
		first = size - off < h.size ? size - off : h.size;
		memcpy(buf, data + off, first);
		memcpy(buf + first, data, h.size - first);
		handle(buf);
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000, /* ns: 1 ms */
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_GUEST_CTX,
		.disabled = 1,
		.wakeup_events = 1,
	};
	struct perf_event_mmap_page *rings[MAX_CPUS];
	struct pollfd pfd[MAX_CPUS];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	double seconds = 3, end;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), opt, fd;

	while ((opt = getopt(argc, argv, "t:p:Px")) != -1) {
		switch (opt) {
		case 'P':
			return probe_permissions(&attr);
		case 'x':
			attr.exclude_guest = 1;
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'p':
			attr.sample_period = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: guestctx-check [-x] [-t SECONDS] [-p "
					"PERIOD_NS] | -P\n");
			return 2;
		}
	}
	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;

	/* The bit after the new one must stay unknown: PERF_SAMPLE_MAX moved by one. */
	attr.sample_type |= 1ULL << 26;
	fd = perf_open(&attr, 0);
	printf("probe-next-bit: %s\n",
	       fd < 0 ? (errno == EINVAL ? "EINVAL" : strerror(errno)) : "accepted");
	if (fd >= 0)
		close(fd);
	attr.sample_type &= ~(1ULL << 26);

	for (int cpu = 0; cpu < ncpu; cpu++) {
		fd = perf_open(&attr, cpu);
		if (fd < 0) {
			printf("open: %s (cpu %d)\n",
			       errno == EINVAL ? "EINVAL" : strerror(errno), cpu);
			return 1;
		}
		rings[cpu] = mmap(NULL, (DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE,
				  MAP_SHARED, fd, 0);
		if (rings[cpu] == MAP_FAILED) {
			printf("open: mmap: %s\n", strerror(errno));
			return 1;
		}
		pfd[cpu] = (struct pollfd){.fd = fd, .events = POLLIN};
	}
	printf("open: ok\n");
	for (int cpu = 0; cpu < ncpu; cpu++)
		ioctl(pfd[cpu].fd, PERF_EVENT_IOC_ENABLE, 0);
	end = now() + seconds;
	while (now() < end) {
		poll(pfd, (nfds_t)ncpu, 100);
		for (int cpu = 0; cpu < ncpu; cpu++)
			drain(rings[cpu], page);
	}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		ioctl(pfd[cpu].fd, PERF_EVENT_IOC_DISABLE, 0);
		drain(rings[cpu], page);
	}

	printf("samples: %lu\nbad-size: %lu\nguest-samples: %lu\nhost-samples: %lu\n"
	       "host-nonzero: %lu\nguest-nonzero: %lu\nguest-reserved-nonzero: %lu\n"
	       "lost: %lu\n",
	       samples, bad_size, guest, host, host_nonzero, guest_nonzero,
	       reserved_nonzero, lost);
	if (ctx_overflow)
		printf("ctx-overflow: more than %d distinct contexts\n", MAX_CTX);
	for (int i = 0; i < nctx; i++)
		printf("ctx: pid=%" PRIu32 " vcpu=%" PRIu32 " cr3=%#" PRIx64
		       " lstar=%#" PRIx64 " mode=%s ip2m=%#" PRIx64 " n=%lu\n",
		       ctxs[i].pid, ctxs[i].ctx.vcpu_id, (uint64_t)ctxs[i].ctx.pt_root,
		       (uint64_t)ctxs[i].ctx.kernel_entry,
		       ctxs[i].user ? "user" : "kernel", ctxs[i].ip2m, ctxs[i].n);
	return 0;
}
