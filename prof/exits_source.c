// SPDX-License-Identifier: GPL-2.0
#include "exits_source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perf/exitreason.h"

static const struct {
	const char *name;
	enum exits_kind kind;
} kvm_events[] = {
	{"kvm_exit", EV_EXIT}, {"kvm_entry", EV_ENTRY}, {"kvm_mmio", EV_MMIO},
	{"kvm_pio", EV_PIO},   {"kvm_msr", EV_MSR},
};

static bool kind_of(const struct tp_format *fmt, enum exits_kind *kind)
{
	if (strcmp(fmt->system, "kvm"))
		return false;
	for (size_t i = 0; i < sizeof(kvm_events) / sizeof(kvm_events[0]); i++)
		if (!strcmp(fmt->name, kvm_events[i].name)) {
			*kind = kvm_events[i].kind;
			return true;
		}
	return false;
}

/* Which kvm event each evsel is; true when both kvm_exit and kvm_entry are there. */
static bool match_evsels(struct exits_source *src)
{
	bool exit = false, entry = false;

	for (size_t i = 0; i < src->file->nr_evsels; i++) {
		const struct perf_event_attr *a = &src->file->evsels[i].attr;
		struct exits_source_evsel *ev = &src->evsels[i];

		if (a->type != PERF_TYPE_TRACEPOINT)
			continue;
		ev->fmt = tracingdata_event(&src->td, a->config);
		ev->known = ev->fmt && kind_of(ev->fmt, &ev->kind);
		exit |= ev->known && ev->kind == EV_EXIT;
		entry |= ev->known && ev->kind == EV_ENTRY;
	}
	return exit && entry;
}

int exits_source_open(struct exits_source *src, const struct pd_file *f,
		      struct kp_err *err)
{
	int ret;

	memset(src, 0, sizeof(*src));
	src->file = f;
	src->cpuid_isa = exit_isa_of_cpuid(f->cpuid);
	if (!f->tracing_data)
		return kp_errorf(
			err, ENOENT,
			"%s: no tracing data: not recorded by kvmprof stat exits "
			"record or perf kvm stat record",
			f->path);
	ret = tracingdata_read(f->tracing_data, f->tracing_data_size, f->path, &src->td,
			       err);
	if (ret)
		return ret;
	src->evsels = calloc(f->nr_evsels ? f->nr_evsels : 1, sizeof(*src->evsels));
	if (!src->evsels)
		return kp_errorf(err, ENOMEM, "out of memory");
	if (!match_evsels(src))
		return kp_errorf(err, ENOENT,
				 "%s: no kvm:kvm_exit and kvm:kvm_entry events", f->path);
	return 0;
}

static uint64_t field_or(const struct tp_format *fmt, const struct pd_sample *ps,
			 const char *name, uint64_t dflt)
{
	uint64_t v;

	return tp_format_value(fmt, name, ps->raw, ps->raw_size, &v) ? v : dflt;
}

/* The fields of each kind: the key, its qualifier, the vCPU. */
static bool decode_fields(const struct exits_source *src, const struct tp_format *fmt,
			  const struct pd_sample *ps, struct exits_event *e)
{
	e->vcpu = (int)field_or(fmt, ps, "vcpu_id", (uint64_t)-1);
	switch (e->kind) {
	case EV_EXIT:
		e->isa = (int)field_or(fmt, ps, "isa", (uint64_t)src->cpuid_isa);
		e->guest_rip = field_or(fmt, ps, "guest_rip", 0);
		return tp_format_value(fmt, "exit_reason", ps->raw, ps->raw_size,
				       &e->key);
	case EV_ENTRY:
		return true;
	case EV_MMIO:
		e->info = (uint32_t)field_or(fmt, ps, "type", 0);
		return tp_format_value(fmt, "gpa", ps->raw, ps->raw_size, &e->key);
	case EV_PIO:
		e->info = (uint32_t)field_or(fmt, ps, "rw", 0);
		return tp_format_value(fmt, "port", ps->raw, ps->raw_size, &e->key);
	case EV_MSR:
		e->info = (uint32_t)field_or(fmt, ps, "write", 0);
		return tp_format_value(fmt, "ecx", ps->raw, ps->raw_size, &e->key);
	}
	return false;
}

int exits_source_decode(const struct exits_source *src, const struct pd_sample *ps,
			struct exits_event *e)
{
	const struct exits_source_evsel *ev = &src->evsels[ps->evsel - src->file->evsels];

	if (!ev->known || !ps->raw)
		return 0;
	memset(e, 0, sizeof(*e));
	e->kind = ev->kind;
	e->time = ps->time;
	e->pid = (int)ps->pid;
	e->tid = (int)ps->tid;
	return decode_fields(src, ev->fmt, ps, e) ? 1 : 0;
}

void exits_source_release(struct exits_source *src)
{
	tracingdata_release(&src->td);
	free(src->evsels);
	memset(src, 0, sizeof(*src));
}
