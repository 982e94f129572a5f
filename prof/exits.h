/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmprof stat exits: VM exits (or MMIO, port I/O, MSR accesses) paired
 * with the next kvm_entry of the same vCPU thread, as perf kvm stat pairs
 * them, and counted per guest, per vCPU and per reason with their times
 * and a log2 latency histogram; and the guest function each exit came
 * from. Independent of where the events come from: report and live feed
 * it decoded events (exits_source.h).
 */
#ifndef KVMPROF_EXITS_H
#define KVMPROF_EXITS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/base.h"

enum exits_view { EXITS_VMEXIT, EXITS_MMIO, EXITS_IOPORT, EXITS_MSR };
enum exits_sort { EXITS_BY_COUNT, EXITS_BY_TIME, EXITS_BY_MAX, EXITS_BY_MEAN };

enum exits_kind { EV_EXIT, EV_ENTRY, EV_MMIO, EV_PIO, EV_MSR };

/* kvm_mmio's type: a write starts at kvm_mmio, a read ends there. */
#define KVM_TRACE_MMIO_READ  1
#define KVM_TRACE_MMIO_WRITE 2

/* One tracepoint sample, its fields read through the recorded format. */
struct exits_event {
	enum exits_kind kind;
	uint64_t time; /* ns */
	int pid;       /* the VMM process: the guest */
	int tid;       /* the vCPU thread */
	int vcpu;      /* -1 when the event has none */
	int isa;       /* kvm_exit: enum kvm_isa */
	uint64_t key;  /* exit reason, MMIO gpa, port or MSR index */
	uint32_t info; /* MMIO type, port/MSR direction */
	uint64_t guest_rip;
};

/* Latency buckets: [0,1) us, [1,2), [2,4), ... the last one open-ended. */
#define EXITS_BUCKETS 20

struct exits_stat {
	uint64_t key;
	uint32_t info;
	int isa;
	uint64_t count;
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t hist[EXITS_BUCKETS];
};

struct exits_stats {
	struct exits_stat *v;
	size_t nr;
	size_t alloc;
};

/* What a guest function caused: how many exits, for which reasons. */
struct exits_func {
	const char *name; /* a symbol table's, or a static placeholder */
	uint64_t count;
	struct exits_stats reasons;
};

struct exits_vcpu {
	int vcpu;
	struct exits_stats stats;
};

struct exits_guest {
	int pid;
	char name[64];
	struct exits_stats all; /* every vCPU */
	struct exits_vcpu *vcpus;
	size_t nr_vcpus;
	struct hashmap funcs; /* name pointer -> struct exits_func */
	uint64_t count;
	uint64_t total_ns;
};

/* The guest function at a guest RIP, for the tables: NULL when unknown. */
typedef const char *(*exits_resolve_fn)(void *ctx, int pid, uint64_t rip);
/* The guest's name for the tables. */
typedef void (*exits_name_fn)(void *ctx, int pid, char *name, size_t size);

struct exits {
	enum exits_view view;
	int only_vcpu; /* -1: every vCPU */
	const char *only_guest;
	uint64_t duration_ns; /* 0: no --duration lines */
	FILE *duration_out;
	exits_resolve_fn resolve;
	exits_name_fn name;
	void *ctx;
	struct hashmap threads; /* tid -> struct exits_thread */
	struct exits_guest **guests;
	size_t nr_guests;
	uint64_t unpaired; /* a begin whose end never came, or an end with no begin */
	uint64_t events;
};

void exits_init(struct exits *x, enum exits_view view);
/* Take one event, in time order. */
int exits_add(struct exits *x, const struct exits_event *e);
void exits_release(struct exits *x);

/* The log2 microsecond bucket of @ns. */
unsigned exits_bucket(uint64_t ns);
/* Sort @st by @key, largest first; equal ones by key code. */
void exits_stats_sort(struct exits_stats *st, enum exits_sort key);
/* "HLT", "0xfed00000:W", "0x3f8:POUT", "0x10:R" for the view. */
void exits_key_name(enum exits_view view, const struct exits_stat *s, char *buf,
		    size_t size);

/* The tables of every guest, as README.md "kvmprof stat exits" shows them. */
void exits_print(struct exits *x, enum exits_sort key, FILE *out);

#endif
