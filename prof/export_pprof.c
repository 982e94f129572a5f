// SPDX-License-Identifier: GPL-2.0
/*
 * pprof's profile.proto (github.com/google/pprof, proto/profile.proto),
 * gzip-compressed as pprof writes it. Messages are written as their
 * objects are first met: a repeated field's entries may be spread over
 * the message, so only the string table, which every other field
 * indexes, waits for the end.
 */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "guest_kernel.h"
#include "ksym/ksym.h"
#include "protobuf.h"

/* Field numbers of profile.proto. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_COMMENT = 13,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,
	MAPPING_ID = 1,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

struct pprof {
	const struct export_profile *p;
	struct pb_buf out;
	char **strings; /* the string table; [0] is "" */
	size_t nr_strings;
	size_t alloc_strings;
	struct hashmap string_ids;   /* hash -> index + 1, probing on collision */
	struct hashmap mapping_ids;  /* dso -> id */
	struct hashmap function_ids; /* frame_key() -> id */
	struct hashmap location_ids; /* frame_key() -> id */
	uint64_t nr_mappings;
	uint64_t nr_functions;
	uint64_t nr_locations;
	bool nomem;
};

/* The string table index of @s (already sanitized), added when new. */
static uint64_t string_id(struct pprof *w, const char *s)
{
	uint64_t key = hash_bytes(s, strlen(s));
	uintptr_t id;

	while ((id = (uintptr_t)hashmap_get(&w->string_ids, key)))
		if (!strcmp(w->strings[id - 1], s))
			return id - 1;
		else
			key = hash_u64(key); /* another string hashed alike: probe on */
	if (w->nr_strings == w->alloc_strings) {
		size_t alloc = w->alloc_strings ? w->alloc_strings * 2 : 1024;
		char **a = realloc(w->strings, alloc * sizeof(*a));

		if (!a)
			goto nomem;
		w->strings = a;
		w->alloc_strings = alloc;
	}
	w->strings[w->nr_strings] = strdup(s);
	if (!w->strings[w->nr_strings] ||
	    hashmap_put(&w->string_ids, key, (void *)(uintptr_t)(w->nr_strings + 1)))
		goto nomem;
	return w->nr_strings++;
nomem:
	w->nomem = true;
	return 0;
}

static uint64_t sanitized_id(struct pprof *w, const char *raw)
{
	char buf[1024];

	sanitize(raw, buf, sizeof(buf));
	return string_id(w, buf);
}

static void value_type(struct pprof *w, uint32_t field, const char *type,
		       const char *unit)
{
	struct pb_buf vt = {0};

	pb_uint(&vt, VALUE_TYPE_TYPE, string_id(w, type));
	pb_uint(&vt, VALUE_TYPE_UNIT, string_id(w, unit));
	pb_message(&w->out, field, &vt);
	pb_release(&vt);
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

/* A guest kernel's mapping names the guest and its release, not a host path. */
static void mapping_name(const struct pprof *w, const struct export_stack *st,
			 const struct export_frame *f, char *buf, size_t size)
{
	const struct machine *m = st->guest;
	struct guestsyms_opts o = {.mount = w->p->sopts ? w->p->sopts->guestmount : NULL};
	char release[128];

	if (f->level != LEVEL_GUEST_KERNEL || !m || f->dso != m->kernel) {
		snprintf(buf, size, "%s", f->dso->name);
		return;
	}
	guest_kernel_release(&o, strcmp(m->name, "-") ? m->name : NULL, m->pid, release,
			     sizeof(release));
	if (strcmp(m->name, "-"))
		snprintf(buf, size, "[guest.kernel] %s%s%s", m->name,
			 release[0] ? " " : "", release);
	else
		snprintf(buf, size, "[guest.kernel] guest %d%s%s", m->pid,
			 release[0] ? " " : "", release);
}

static uint64_t mapping_id(struct pprof *w, const struct export_stack *st,
			   const struct export_frame *f)
{
	uint64_t key = hash_u64((uintptr_t)f->dso);
	uint64_t id = (uintptr_t)hashmap_get(&w->mapping_ids, key);
	const struct symtab *tab = f->dso->symtab;
	struct pb_buf m = {0};
	char name[600], build_id[2 * KP_BUILD_ID_MAX + 1];

	if (id)
		return id;
	id = ++w->nr_mappings;
	if (hashmap_put(&w->mapping_ids, key, (void *)(uintptr_t)id))
		w->nomem = true;
	mapping_name(w, st, f, name, sizeof(name));
	pb_uint(&m, MAPPING_ID, id);
	pb_uint(&m, MAPPING_FILENAME, sanitized_id(w, name));
	if (tab && tab->build_id_len) {
		hex(tab->build_id, tab->build_id_len, build_id);
		pb_uint(&m, MAPPING_BUILD_ID, string_id(w, build_id));
	}
	pb_uint(&m, MAPPING_HAS_FUNCTIONS, 1); /* unresolved frames too: by address */
	pb_message(&w->out, PROFILE_MAPPING, &m);
	pb_release(&m);
	return id;
}

/*
 * A resolved frame is its function. An unresolved one is its address in
 * its object, and named by it, as report's symbol column names it: pprof
 * -top then lists the rows report lists.
 */
static uint64_t frame_key(const struct export_frame *f)
{
	if (f->sym)
		return hash_u64((uintptr_t)f->sym);
	return hash_u64(hash_u64((uintptr_t)f->dso ^ (uint64_t)f->level << 56) ^ f->addr);
}

static void function_name(const struct export_frame *f, char *buf, size_t size)
{
	if (f->sym)
		export_frame_name(f, buf, size);
	else
		snprintf(buf, size, "0x%016" PRIx64, f->addr);
}

static uint64_t function_id(struct pprof *w, const struct export_frame *f)
{
	uint64_t key = frame_key(f);
	uint64_t id = (uintptr_t)hashmap_get(&w->function_ids, key);
	struct pb_buf fn = {0};
	char name[512];

	if (id)
		return id;
	id = ++w->nr_functions;
	if (hashmap_put(&w->function_ids, key, (void *)(uintptr_t)id))
		w->nomem = true;
	function_name(f, name, sizeof(name));
	pb_uint(&fn, FUNCTION_ID, id);
	pb_uint(&fn, FUNCTION_NAME, string_id(w, name));
	pb_uint(&fn, FUNCTION_SYSTEM_NAME, string_id(w, name));
	if (f->sym && f->sym->module)
		pb_uint(&fn, FUNCTION_FILENAME, sanitized_id(w, f->sym->module));
	else if (f->dso)
		pb_uint(&fn, FUNCTION_FILENAME, sanitized_id(w, f->dso->name));
	pb_message(&w->out, PROFILE_FUNCTION, &fn);
	pb_release(&fn);
	return id;
}

static uint64_t location_id(struct pprof *w, const struct export_stack *st,
			    const struct export_frame *f)
{
	uint64_t key = frame_key(f);
	uint64_t id = (uintptr_t)hashmap_get(&w->location_ids, key);
	struct pb_buf loc = {0}, line = {0};

	if (id)
		return id;
	id = ++w->nr_locations;
	if (hashmap_put(&w->location_ids, key, (void *)(uintptr_t)id))
		w->nomem = true;
	pb_uint(&loc, LOCATION_ID, id);
	if (f->dso)
		pb_uint(&loc, LOCATION_MAPPING_ID, mapping_id(w, st, f));
	pb_uint(&loc, LOCATION_ADDRESS, f->sym ? f->sym->addr : f->addr);
	pb_uint(&line, LINE_FUNCTION_ID, function_id(w, f));
	pb_message(&loc, LOCATION_LINE, &line);
	pb_message(&w->out, PROFILE_LOCATION, &loc);
	pb_release(&line);
	pb_release(&loc);
	return id;
}

static void str_label(struct pprof *w, struct pb_buf *sample, const char *key,
		      const char *value)
{
	struct pb_buf l = {0};

	pb_uint(&l, LABEL_KEY, string_id(w, key));
	pb_uint(&l, LABEL_STR, sanitized_id(w, value));
	pb_message(sample, SAMPLE_LABEL, &l);
	pb_release(&l);
}

static void num_label(struct pprof *w, struct pb_buf *sample, const char *key,
		      int64_t value)
{
	struct pb_buf l = {0};

	pb_uint(&l, LABEL_KEY, string_id(w, key));
	pb_uint(&l, LABEL_NUM, (uint64_t)value);
	pb_message(sample, SAMPLE_LABEL, &l);
	pb_release(&l);
}

static const char *mode_name(int level)
{
	static const char *const names[LEVEL__MAX] = {
		"host-kernel", "host-user", "guest-kernel", "guest-user", "hypervisor"};

	return names[level];
}

static void labels(struct pprof *w, const struct export_stack *st, struct pb_buf *s)
{
	char buf[64];

	str_label(w, s, "mode", mode_name(st->level));
	str_label(w, s, "comm", st->comm ? st->comm : ":unknown");
	num_label(w, s, "pid", st->pid);
	if (st->guest) {
		if (strcmp(st->guest->name, "-")) {
			str_label(w, s, "guest", st->guest->name);
		} else {
			snprintf(buf, sizeof(buf), "guest %d", st->guest->pid);
			str_label(w, s, "guest", buf);
		}
	}
	if (st->vcpu >= 0) {
		snprintf(buf, sizeof(buf), "%d", st->vcpu);
		str_label(w, s, "vcpu", buf);
	}
	if (st->cr3) {
		snprintf(buf, sizeof(buf), "%#" PRIx64, st->cr3);
		str_label(w, s, "cr3", buf);
	}
}

static void sample(struct pprof *w, const struct export_stack *st)
{
	uint64_t locs[EXPORT_STACK_MAX], values[2] = {st->count, st->period};
	struct pb_buf s = {0};

	for (size_t i = 0; i < st->nr_frames; i++)
		locs[i] = location_id(w, st, &st->frames[i]);
	pb_packed(&s, SAMPLE_LOCATION_ID, locs, st->nr_frames);
	pb_packed(&s, SAMPLE_VALUE, values, 2);
	labels(w, st, &s);
	pb_message(&w->out, PROFILE_SAMPLE, &s);
	pb_release(&s);
}

static void string_table(struct pprof *w)
{
	for (size_t i = 0; i < w->nr_strings; i++)
		pb_string(&w->out, PROFILE_STRING_TABLE, w->strings[i]);
}

static void release(struct pprof *w)
{
	for (size_t i = 0; i < w->nr_strings; i++)
		free(w->strings[i]);
	free(w->strings);
	hashmap_release(&w->string_ids);
	hashmap_release(&w->mapping_ids);
	hashmap_release(&w->function_ids);
	hashmap_release(&w->location_ids);
	pb_release(&w->out);
}

static int encode(struct pprof *w)
{
	const struct export_profile *p = w->p;

	string_id(w, ""); /* index 0, as profile.proto requires */
	value_type(w, PROFILE_SAMPLE_TYPE, "samples", "count");
	if (p->period_is_ns)
		value_type(w, PROFILE_SAMPLE_TYPE, p->event, "nanoseconds");
	else
		value_type(w, PROFILE_SAMPLE_TYPE, p->event, "events");
	pb_uint(&w->out, PROFILE_COMMENT, string_id(w, "kvmprof export"));
	for (size_t i = 0; i < p->nr; i++)
		sample(w, p->stacks[i]);
	string_table(w);
	return w->nomem ? -ENOMEM : pb_status(&w->out);
}

static int write_gzip(const char *path, const struct pb_buf *b, struct kp_err *err)
{
	gzFile f = gzopen(path, "wb6");
	int ok;

	if (!f)
		return kp_errorf(err, errno ? errno : ENOMEM, "%s: cannot create", path);
	ok = !b->len || gzwrite(f, b->data, (unsigned)b->len) == (int)b->len;
	if (gzclose(f) != Z_OK || !ok)
		return kp_errorf(err, EIO, "%s: write failed", path);
	return 0;
}

int export_write_pprof(const struct export_profile *p, const char *path,
		       struct kp_err *err)
{
	struct pprof w = {.p = p};
	int ret;

	hashmap_init(&w.string_ids);
	hashmap_init(&w.mapping_ids);
	hashmap_init(&w.function_ids);
	hashmap_init(&w.location_ids);
	ret = encode(&w);
	if (ret)
		kp_errorf(err, -ret, "out of memory");
	else if (w.out.len > UINT32_MAX)
		ret = kp_errorf(err, EFBIG, "%s: profile too large", path);
	else
		ret = write_gzip(path, &w.out, err);
	release(&w);
	return ret;
}
