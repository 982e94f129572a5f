/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-sample guest context from the kvmprof kernel series
 * (kernel/patches): which VM, vCPU and guest address space a sample came
 * from, and the guest kernel's syscall entry (its runtime entry_SYSCALL_64,
 * which gives the guest's KASLR slide with no agent inside it).
 *
 * The kernel writes struct perf_sample_guest_ctx in each sample when
 * PERF_SAMPLE_GUEST_CTX is requested, after CODE_PAGE_SIZE and before AUX;
 * kvmprof asks for neither, so it is the sample's last field. Kernels
 * without the series, or without KVM, refuse the bit with EINVAL; at
 * perf_event_paranoid > 1 it needs CAP_PERFMON (EACCES). kvmprof record
 * strips the field from what it writes, so perf can read the file, and
 * keeps the contexts, as struct guest_ctx, in its own feature.
 */
#ifndef KVMPROF_GUESTCTX_H
#define KVMPROF_GUESTCTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define PERF_SAMPLE_GUEST_CTX (1ULL << 25)

/* The kernel's record (uapi linux/perf_event.h of the series, v2). */
struct perf_sample_guest_ctx {
	uint32_t vcpu_id;
	uint32_t reserved;
	uint64_t pt_root;      /* x86: CR3 */
	uint64_t kernel_entry; /* x86: MSR_LSTAR */
};

/*
 * A sample's guest context as kvmprof keeps it: the kernel's fields plus
 * the VM, which the kernel leaves to PERF_SAMPLE_TID. This is also the
 * on-disk layout of PD_FEAT_KVMPROF_CTX, unchanged since the first series
 * (whose kernel record had this very layout), so old files read as before.
 */
struct guest_ctx {
	uint32_t pid; /* the VMM process (tgid) owning the VM */
	uint32_t vcpu_id;
	uint64_t cr3;
	uint64_t lstar;
};

/* The context of a sample by VMM @pid, from the kernel's record. */
static inline struct guest_ctx
guest_ctx_from_sample(const struct perf_sample_guest_ctx *k, uint32_t pid)
{
	return (struct guest_ctx){pid, k->vcpu_id, k->pt_root, k->kernel_entry};
}

struct perf_event_header;

/*
 * Take the kernel's context off the end of sample @ev of VMM @pid (it is
 * the last field: kvmprof asks for no AUX) so that what remains has the
 * sample_type perf knows. Returns the shortened copy, made in @buf (room
 * for @ev->size bytes), and sets @ctx; a sample too short to hold a
 * context is returned as it is, with @ctx zeroed.
 */
const struct perf_event_header *guestctx_strip(const struct perf_event_header *ev,
					       uint32_t pid, struct guest_ctx *ctx,
					       uint8_t *buf);

/*
 * Does the running kernel accept PERF_SAMPLE_GUEST_CTX for @attr-like
 * events? 1 yes; -EINVAL when the bit alone is refused; -EACCES when the
 * bit is not permitted; another negative errno when even the event without
 * the bit cannot be opened.
 */
struct perf_event_attr;
int guestctx_probe(const struct perf_event_attr *attr);

/* What the host offers, for explaining a refused probe. */
struct guestctx_host {
	bool has_kvm; /* KVM is in this kernel (built in or as a module) */
	int paranoid; /* perf_event_paranoid, or INT_MIN when unknown */
};

/* The facts of the running host: /dev/kvm, /sys/module/kvm, modules.*. */
void guestctx_host_probe(struct guestctx_host *h);

/*
 * Why there is no guest context, in one line, for a probe result other
 * than 1: a kernel without the series, one without KVM (so without
 * CONFIG_GUEST_PERF_EVENTS), or no permission.
 */
void guestctx_explain(int probe, const struct guestctx_host *h, char *buf, size_t len);

/*
 * The distinct contexts of a recording and, for every sample in file order,
 * which one it had (0: none, i + 1: ctxs[i]). Stored zstd-compressed in the
 * PD_FEAT_KVMPROF_CTX feature.
 */
struct guestctx_table {
	struct guest_ctx *ctxs;
	size_t nr_ctxs;
	uint32_t *per_sample;
	size_t nr_samples;
	size_t alloc_samples;
};

/* Append one sample's context (NULL or all-zero: none). */
int guestctx_table_add(struct guestctx_table *t, const struct guest_ctx *c);
int guestctx_table_encode(const struct guestctx_table *t, void **out, size_t *len);
/*
 * Decode the table of a file whose data section has @data_size bytes: its
 * raw size is capped at guestctx_raw_max(@data_size), so that a small file
 * cannot make a huge one.
 */
int guestctx_table_decode(const void *buf, size_t len, uint64_t data_size,
			  const char *what, struct guestctx_table *t, struct kp_err *err);
size_t guestctx_raw_max(uint64_t data_size);
/* Context of sample number @ordinal (in file order), or NULL. */
const struct guest_ctx *guestctx_of(const struct guestctx_table *t, size_t ordinal);
void guestctx_table_release(struct guestctx_table *t);

#endif
