// SPDX-License-Identifier: GPL-2.0
#include "exits.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perf/exitreason.h"

/* What a vCPU thread is in the middle of. */
struct exits_thread {
	int pid;
	int vcpu;
	bool pending; /* a begin seen, its end not yet */
	bool has_key;
	uint64_t begin;
	uint64_t key;
	uint32_t info;
	int isa;
	uint64_t rip;	   /* the guest RIP of the pending event */
	uint64_t exit_rip; /* the last kvm_exit's, for MMIO, port and MSR events */
	int exit_isa;
};

/* Kernel addresses are in the upper half; user space's below. */
#define GUEST_KERNEL_START 0x8000000000000000ULL

static const char guest_user[] = "[guest user]";
static const char unknown_func[] = "[unknown]";

void exits_init(struct exits *x, enum exits_view view)
{
	memset(x, 0, sizeof(*x));
	x->view = view;
	x->only_vcpu = -1;
	hashmap_init(&x->threads);
}

unsigned exits_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned b = 0;

	while (us && b < EXITS_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	return b;
}

static struct exits_thread *thread_of(struct exits *x, int tid)
{
	uint64_t key = hash_u64((uint64_t)(uint32_t)tid);
	struct exits_thread *t = hashmap_get(&x->threads, key);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t || hashmap_put(&x->threads, key, t)) {
		free(t);
		return NULL;
	}
	t->vcpu = -1;
	return t;
}

static struct exits_stat *stat_of(struct exits_stats *st, uint64_t key, uint32_t info,
				  int isa)
{
	struct exits_stat *s;

	for (size_t i = 0; i < st->nr; i++)
		if (st->v[i].key == key && st->v[i].info == info)
			return &st->v[i];
	if (st->nr == st->alloc) {
		size_t alloc = st->alloc ? st->alloc * 2 : 16;

		s = realloc(st->v, alloc * sizeof(*s));
		if (!s)
			return NULL;
		st->v = s;
		st->alloc = alloc;
	}
	s = &st->v[st->nr++];
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->info = info;
	s->isa = isa;
	s->min_ns = UINT64_MAX;
	return s;
}

static int stat_add(struct exits_stats *st, const struct exits_thread *t, uint64_t ns)
{
	struct exits_stat *s = stat_of(st, t->key, t->info, t->isa);

	if (!s)
		return -ENOMEM;
	s->count++;
	s->total_ns += ns;
	if (ns < s->min_ns)
		s->min_ns = ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->hist[exits_bucket(ns)]++;
	return 0;
}

static struct exits_guest *guest_of(struct exits *x, int pid)
{
	struct exits_guest *g, **gs;

	for (size_t i = 0; i < x->nr_guests; i++)
		if (x->guests[i]->pid == pid)
			return x->guests[i];
	gs = realloc(x->guests, (x->nr_guests + 1) * sizeof(*gs));
	if (!gs)
		return NULL;
	x->guests = gs;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->pid = pid;
	hashmap_init(&g->funcs);
	if (x->name)
		x->name(x->ctx, pid, g->name, sizeof(g->name));
	else
		snprintf(g->name, sizeof(g->name), "pid %d", pid);
	x->guests[x->nr_guests++] = g;
	return g;
}

static struct exits_vcpu *vcpu_of(struct exits_guest *g, int vcpu)
{
	struct exits_vcpu *v;

	for (size_t i = 0; i < g->nr_vcpus; i++)
		if (g->vcpus[i].vcpu == vcpu)
			return &g->vcpus[i];
	v = realloc(g->vcpus, (g->nr_vcpus + 1) * sizeof(*v));
	if (!v)
		return NULL;
	g->vcpus = v;
	v = &v[g->nr_vcpus++];
	memset(v, 0, sizeof(*v));
	v->vcpu = vcpu;
	return v;
}

static const char *function_of(struct exits *x, int pid, uint64_t rip)
{
	const char *name;

	if (rip < GUEST_KERNEL_START)
		return guest_user;
	name = x->resolve ? x->resolve(x->ctx, pid, rip) : NULL;
	return name ? name : unknown_func;
}

static int count_function(struct exits *x, struct exits_guest *g,
			  const struct exits_thread *t, uint64_t ns)
{
	const char *name = function_of(x, g->pid, t->rip);
	uint64_t key = hash_u64((uintptr_t)name);
	struct exits_func *f = hashmap_get(&g->funcs, key);

	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f || hashmap_put(&g->funcs, key, f)) {
			free(f);
			return -ENOMEM;
		}
		f->name = name;
	}
	f->count++;
	return stat_add(&f->reasons, t, ns);
}

static void print_duration(struct exits *x, const struct exits_guest *g,
			   const struct exits_thread *t, uint64_t end, uint64_t ns)
{
	char reason[EXIT_REASON_NAME_MAX + 32];
	struct exits_stat s = {.key = t->key, .info = t->info, .isa = t->isa};

	exits_key_name(x->view, &s, reason, sizeof(reason));
	fprintf(x->duration_out,
		"%" PRIu64 ".%06" PRIu64 " guest %s (pid %d), vcpu %d: %s took %" PRIu64
		"us, at %s (rip %#" PRIx64 ")\n",
		end / 1000000000, end % 1000000000 / 1000, g->name, g->pid, t->vcpu,
		reason, ns / 1000, function_of(x, g->pid, t->rip), t->rip);
}

/* A begin and its end, @ns apart: count it where the filters let it. */
static int account(struct exits *x, const struct exits_thread *t, uint64_t end,
		   uint64_t ns)
{
	struct exits_guest *g;
	struct exits_vcpu *v;

	if (x->only_vcpu >= 0 && t->vcpu != x->only_vcpu)
		return 0;
	g = guest_of(x, t->pid);
	if (!g)
		return -ENOMEM;
	if (x->only_guest && strcmp(x->only_guest, g->name))
		return 0;
	v = vcpu_of(g, t->vcpu);
	if (!v || stat_add(&g->all, t, ns) || stat_add(&v->stats, t, ns) ||
	    count_function(x, g, t, ns))
		return -ENOMEM;
	g->count++;
	g->total_ns += ns;
	if (x->duration_ns && ns > x->duration_ns && x->duration_out)
		print_duration(x, g, t, end, ns);
	return 0;
}

/* Does @e begin an event of the view? Its key, when it has one, in *t. */
static bool is_begin(enum exits_view view, const struct exits_event *e, bool *has_key)
{
	*has_key = true;
	switch (view) {
	case EXITS_VMEXIT:
		return e->kind == EV_EXIT;
	case EXITS_MMIO:
		/* A read starts at the exit, its address known only at kvm_mmio. */
		*has_key = e->kind == EV_MMIO;
		return e->kind == EV_EXIT ||
		       (e->kind == EV_MMIO && e->info == KVM_TRACE_MMIO_WRITE);
	case EXITS_IOPORT:
		return e->kind == EV_PIO;
	case EXITS_MSR:
		return e->kind == EV_MSR;
	}
	return false;
}

static bool is_end(enum exits_view view, const struct exits_event *e)
{
	if (view == EXITS_MMIO && e->kind == EV_MMIO)
		return e->info == KVM_TRACE_MMIO_READ;
	return e->kind == EV_ENTRY;
}

static void begin(struct exits *x, struct exits_thread *t, const struct exits_event *e,
		  bool has_key)
{
	/* The previous one never saw its entry (lost, or the recording began). */
	if (t->pending && t->has_key)
		x->unpaired++;
	t->pending = true;
	t->begin = e->time;
	t->has_key = has_key;
	t->key = has_key ? e->key : 0;
	t->info = has_key ? e->info : 0;
	t->isa = e->kind == EV_EXIT ? e->isa : t->exit_isa;
	t->rip = t->exit_rip;
}

static int end(struct exits *x, struct exits_thread *t, const struct exits_event *e)
{
	if (!t->pending)
		return 0;
	if (!t->has_key && e->kind == EV_MMIO) {
		t->has_key = true;
		t->key = e->key;
		t->info = e->info;
	}
	if (!t->has_key)
		return 0; /* an exit that was no MMIO: wait for the next begin */
	t->pending = false;
	if (e->time < t->begin)
		return 0;
	return account(x, t, e->time, e->time - t->begin);
}

int exits_add(struct exits *x, const struct exits_event *e)
{
	struct exits_thread *t = thread_of(x, e->tid);
	bool has_key;

	if (!t)
		return -ENOMEM;
	x->events++;
	t->pid = e->pid;
	if (e->vcpu >= 0)
		t->vcpu = e->vcpu;
	if (e->kind == EV_EXIT) {
		t->exit_rip = e->guest_rip;
		t->exit_isa = e->isa;
	}
	if (is_begin(x->view, e, &has_key)) {
		begin(x, t, e, has_key);
		return 0;
	}
	return is_end(x->view, e) ? end(x, t, e) : 0;
}

static void stats_release(struct exits_stats *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}

static void guest_release(struct exits_guest *g)
{
	for (size_t i = 0; i < g->funcs.cap; i++) {
		struct exits_func *f = g->funcs.vals[i];

		if (!g->funcs.keys[i])
			continue;
		stats_release(&f->reasons);
		free(f);
	}
	hashmap_release(&g->funcs);
	for (size_t i = 0; i < g->nr_vcpus; i++)
		stats_release(&g->vcpus[i].stats);
	free(g->vcpus);
	stats_release(&g->all);
	free(g);
}

void exits_release(struct exits *x)
{
	for (size_t i = 0; i < x->threads.cap; i++)
		if (x->threads.keys[i])
			free(x->threads.vals[i]);
	hashmap_release(&x->threads);
	for (size_t i = 0; i < x->nr_guests; i++)
		guest_release(x->guests[i]);
	free(x->guests);
	memset(x, 0, sizeof(*x));
}

static uint64_t sort_value(const struct exits_stat *s, enum exits_sort key)
{
	switch (key) {
	case EXITS_BY_TIME:
		return s->total_ns;
	case EXITS_BY_MAX:
		return s->max_ns;
	case EXITS_BY_MEAN:
		return s->count ? s->total_ns / s->count : 0;
	case EXITS_BY_COUNT:
		break;
	}
	return s->count;
}

static int compare_stats(const void *a, const void *b, void *arg)
{
	const struct exits_stat *x = a, *y = b;
	enum exits_sort key = *(const enum exits_sort *)arg;
	uint64_t vx = sort_value(x, key), vy = sort_value(y, key);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->info < y->info ? -1 : x->info > y->info;
}

void exits_stats_sort(struct exits_stats *st, enum exits_sort key)
{
	if (st->nr > 1)
		qsort_r(st->v, st->nr, sizeof(*st->v), compare_stats, &key);
}

void exits_key_name(enum exits_view view, const struct exits_stat *s, char *buf,
		    size_t size)
{
	switch (view) {
	case EXITS_VMEXIT:
		exit_reason_format(s->isa, (uint32_t)s->key, buf, size);
		break;
	case EXITS_MMIO:
		snprintf(buf, size, "%#" PRIx64 ":%s", s->key,
			 s->info == KVM_TRACE_MMIO_WRITE ? "W" : "R");
		break;
	case EXITS_IOPORT:
		snprintf(buf, size, "%#" PRIx64 ":%s", s->key, s->info ? "POUT" : "PIN");
		break;
	case EXITS_MSR:
		snprintf(buf, size, "%#" PRIx64 ":%s", s->key, s->info ? "W" : "R");
		break;
	}
}
