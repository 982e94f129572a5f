// SPDX-License-Identifier: GPL-2.0
/*
 * The distinct stacks of a session, with their labels (guest, vCPU, mode,
 * CR3, command), counted: what every export format is written from.
 */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ksym/ksym.h"

size_t export_sample_stack(const struct hist_key *frames, size_t nr,
			   struct export_frame *out, size_t max)
{
	size_t n = nr < max ? nr : max;

	for (size_t i = 0; i < n; i++)
		out[i] = (struct export_frame){.level = frames[i].level,
					       .sym = frames[i].sym,
					       .dso = frames[i].dso,
					       .addr = frames[i].addr};
	return n;
}

void export_profile_init(struct export_profile *p, const char *event,
			 const struct symbol_opts *sopts)
{
	memset(p, 0, sizeof(*p));
	hashindex_init(&p->index);
	sanitize(event, p->event, sizeof(p->event));
	p->period_is_ns = !strcmp(event, "cpu-clock") || !strcmp(event, "task-clock");
	p->sopts = sopts;
}

void export_profile_release(struct export_profile *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->stacks[i]->frames);
		free(p->stacks[i]);
	}
	free(p->stacks);
	hashindex_release(&p->index);
	memset(p, 0, sizeof(*p));
}

/* Resolved frames are one symbol whatever the address; others are their address. */
static uint64_t frame_addr_key(const struct export_frame *f)
{
	return f->sym ? 0 : f->addr;
}

static bool same_frames(const struct export_frame *a, const struct export_frame *b,
			size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].level != b[i].level || a[i].sym != b[i].sym ||
		    a[i].dso != b[i].dso ||
		    frame_addr_key(&a[i]) != frame_addr_key(&b[i]))
			return false;
	return true;
}

static bool same_stack(const struct export_stack *a, const struct export_stack *b)
{
	return a->comm == b->comm && a->pid == b->pid && a->guest == b->guest &&
	       a->vcpu == b->vcpu && a->level == b->level && a->cr3 == b->cr3 &&
	       a->nr_frames == b->nr_frames &&
	       same_frames(a->frames, b->frames, a->nr_frames);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return hash_u64(h ^ v) + 0x9e3779b97f4a7c15ULL;
}

static uint64_t stack_hash(const struct export_stack *st)
{
	uint64_t h = mix((uintptr_t)st->comm, (uint64_t)st->pid);

	h = mix(h, (uintptr_t)st->guest);
	h = mix(h, (uint64_t)(uint32_t)st->vcpu << 32 | (uint32_t)st->level);
	h = mix(h, st->cr3);
	for (size_t i = 0; i < st->nr_frames; i++) {
		const struct export_frame *f = &st->frames[i];

		h = mix(h,
			(uintptr_t)f->sym ^ (uintptr_t)f->dso * 31 ^ (uint64_t)f->level);
		h = mix(h, frame_addr_key(f));
	}
	return hash_u64(h);
}

/* A new stack like @key, its frames copied: @key's are the caller's. */
static struct export_stack *new_stack(struct export_profile *p,
				      const struct export_stack *key)
{
	struct export_stack *st = malloc(sizeof(*st));

	if (!st)
		return NULL;
	*st = *key;
	st->frames = malloc(key->nr_frames * sizeof(*st->frames));
	if (p->nr == p->alloc) {
		size_t alloc = p->alloc ? p->alloc * 2 : 256;
		struct export_stack **a = realloc(p->stacks, alloc * sizeof(*a));

		if (a) {
			p->stacks = a;
			p->alloc = alloc;
		}
	}
	if (!st->frames || p->nr == p->alloc) {
		free(st->frames);
		free(st);
		return NULL;
	}
	memcpy(st->frames, key->frames, key->nr_frames * sizeof(*st->frames));
	p->stacks[p->nr++] = st;
	return st;
}

static bool stack_is(const void *stack, const void *key)
{
	return same_stack(stack, key);
}

static struct export_stack *find_or_add(struct export_profile *p,
					const struct export_stack *key)
{
	uint64_t hash = stack_hash(key);
	struct export_stack *st = hashindex_find(&p->index, hash, stack_is, key);

	if (st)
		return st;
	st = new_stack(p, key);
	if (!st)
		return NULL;
	/* Without an index slot the stack stays listed and is freed with the rest. */
	return hashindex_add(&p->index, hash, st) ? NULL : st;
}

int export_profile_add(void *profile, const struct pd_sample *ps,
		       const struct hist_key *frames, size_t nr, struct kp_err *err)
{
	const struct hist_key *k = &frames[0];
	struct export_profile *p = profile;
	struct export_frame stack[EXPORT_STACK_MAX];
	struct export_stack key = {
		.comm = k->comm,
		.pid = k->pid,
		.guest = k->guest,
		.vcpu = k->vcpu,
		.level = k->level,
		.cr3 = k->cr3,
		.frames = stack,
	};
	struct export_stack *st;

	key.nr_frames = export_sample_stack(frames, nr, stack, EXPORT_STACK_MAX);
	st = find_or_add(p, &key);
	if (!st)
		return kp_errorf(err, ENOMEM, "out of memory");
	st->count++;
	st->period += ps->period;
	p->total_count++;
	p->total_period += ps->period;
	return 0;
}

/* What an unresolved frame is called: where it was, not which address. */
static const char *unresolved_name(const struct export_frame *f)
{
	if (f->level == LEVEL_GUEST_USER)
		return "[guest user]";
	if (f->level == LEVEL_GUEST_KERNEL)
		return "[guest kernel]";
	if (f->dso)
		return NULL; /* its object's name */
	return f->level == LEVEL_KERNEL ? "[kernel]" : "[unknown]";
}

void export_frame_name(const struct export_frame *f, char *buf, size_t size)
{
	char raw[512];
	const char *fixed = unresolved_name(f);

	if (f->sym)
		snprintf(raw, sizeof(raw), "%s", f->sym->name);
	else if (fixed)
		snprintf(raw, sizeof(raw), "%s", fixed);
	else if (f->dso->short_name[0] == '[')
		snprintf(raw, sizeof(raw), "%s", f->dso->short_name);
	else
		snprintf(raw, sizeof(raw), "[%s]", f->dso->short_name);
	sanitize(raw, buf, size);
}

/* ';' separates frames and a line's last ' ' its count: keep names one field. */
static void unfold(char *name)
{
	for (char *c = name; *c; c++)
		if (*c == ';')
			*c = ':';
}

static void root_frame(const struct export_stack *st, struct folded_frame *out)
{
	char raw[GUEST_NAME_MAX + 32];

	if (st->guest && strcmp(st->guest->name, "-"))
		snprintf(raw, sizeof(raw), "%s", st->guest->name);
	else if (st->guest)
		snprintf(raw, sizeof(raw), "guest %d", st->guest->pid);
	else
		snprintf(raw, sizeof(raw), "%s", st->comm ? st->comm : "host");
	sanitize(raw, out->name, sizeof(out->name));
	unfold(out->name);
	out->kind = st->guest ? EXPORT_KIND_ROOT_GUEST : EXPORT_KIND_ROOT_HOST;
}

size_t export_folded_frames(const struct export_stack *st, struct folded_frame *out,
			    size_t max)
{
	size_t n = 0;

	if (!max)
		return 0;
	root_frame(st, &out[n++]);
	for (size_t i = st->nr_frames; i-- > 0 && n < max;) {
		export_frame_name(&st->frames[i], out[n].name, sizeof(out[n].name));
		unfold(out[n].name);
		out[n++].kind = st->frames[i].level;
	}
	return n;
}
