// SPDX-License-Identifier: GPL-2.0
#include "session.h"
#include "session_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/base.h"
#include "perf/perf.h"
#include "ksym/ksym.h"

int session_init(struct session *s, struct pd_file *f, const char *sort,
		 const struct symbol_opts *sopts, struct kp_err *err)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->file = f;
	s->sopts = sopts;
	s->want_host = s->want_guest = true;
	/* The idle task has no /proc entry to synthesize a COMM from; perf names it so.
	 */
	if (machines_init(&s->machines) ||
	    machine_set_comm(&s->machines, &s->machines.host, 0, 0, "swapper"))
		return kp_errorf(err, ENOMEM, "out of memory");
	s->hists = calloc(f->nr_evsels, sizeof(*s->hists));
	s->cache_gen = 1;
	sample_classes_init(&s->classes);
	if (!s->hists)
		return kp_errorf(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < f->nr_evsels; i++) {
		ret = hists_init(&s->hists[i], sort, err);
		if (ret)
			return ret;
	}
	ordered_events_init(&s->oe, f, session_deliver, s);
	return 0;
}

/* Recorded build-ids: a file rebuilt since must not lend its symbols. */
static int want_build_ids(struct session *s, struct kp_err *err)
{
	for (size_t i = 0; i < s->file->nr_build_ids; i++) {
		const struct pd_build_id *b = &s->file->build_ids[i];
		struct dso *d;

		if (b->pid != -1 ||
		    (b->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
		    (b->filename[0] != '/' && strcmp(b->filename, "[vdso]")))
			continue;
		d = dso_cache_get(&s->machines.dsos, b->filename, DSO_USER);
		if (!d)
			return kp_errorf(err, ENOMEM, "out of memory");
		memcpy(d->want_build_id, b->id, b->size);
		d->want_build_id_len = b->size;
	}
	return 0;
}

/* What kvmprof record kept beside the data: guest contexts and the guest table. */
static int read_kvmprof_features(struct session *s, struct kp_err *err)
{
	const struct pd_file *f = s->file;
	int ret;

	if (f->guest_ctx) {
		ret = guestctx_table_decode(f->guest_ctx, f->guest_ctx_size,
					    f->header.data.size, f->path, &s->ctx, err);
		if (ret)
			return ret;
	}
	if (f->kvmprof_feature)
		return kvmfeat_decode(f->kvmprof_feature, f->kvmprof_feature_size,
				      f->path, &s->kvmfeat, err);
	return 0;
}

int session_open(struct session *s, const char *path, const char *sort,
		 const struct symbol_opts *sopts, struct kp_err *err)
{
	struct pd_file *f;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = pd_open(path, &f, err);
	if (ret)
		return ret;
	ret = session_init(s, f, sort, sopts, err);
	if (!ret)
		ret = want_build_ids(s, err);
	if (!ret)
		ret = read_kvmprof_features(s, err);
	return ret;
}

void session_close(struct session *s)
{
	if (s->hists)
		for (size_t i = 0; s->file && i < s->file->nr_evsels; i++)
			hists_release(&s->hists[i]);
	free(s->hists);
	free(s->cache);
	sample_classes_release(&s->classes);
	machines_release(&s->machines);
	ordered_events_release(&s->oe);
	free(s->round);
	free(s->frames);
	guestkmaps_release(&s->kmaps);
	kvmfeat_release(&s->kvmfeat);
	guestctx_table_release(&s->ctx);
	pd_close(s->file);
	memset(s, 0, sizeof(*s));
}

/* Load @path into @m's kernel DSO; on failure keep the reason for the header. */
static bool load_kernel_table(struct machine *m, const char *path)
{
	struct kp_err err = {0};
	struct symtab *st;

	if (symsrc_load_file(path, SYMSRC_MAX_DEFAULT, &st, NULL, &err)) {
		free(m->kernel->error);
		m->kernel->error = strdup(err.msg);
		return false;
	}
	dso_set_symtab(m->kernel, st);
	return true;
}

static bool same_running_kernel(const struct pd_file *f)
{
	struct utsname u;

	if (!f->osrelease[0] || uname(&u))
		return true; /* nothing recorded to compare with */
	return !strcmp(u.release, f->osrelease);
}

/* Symbols kvmprof record embedded: the kernel the samples came from. */
static bool load_embedded_host_kernel(struct session *s)
{
	struct machine *m = &s->machines.host;
	struct kp_err err = {0};
	struct symtab *st;

	if (ksymblob_decode(s->file->host_ksyms, s->file->host_ksyms_size, s->file->path,
			    &st, &err)) {
		m->kernel->error = strdup(err.msg);
		return false;
	}
	symtab_set_source(st, "embedded in %s at record time", s->file->path);
	snprintf(s->host_kernel_source, sizeof(s->host_kernel_source), "%s", st->source);
	dso_set_symtab(m->kernel, st);
	machine_place_kernel(m);
	return true;
}

static void load_host_kernel(struct session *s)
{
	struct machine *m = &s->machines.host;
	const char *path = s->sopts->vmlinux	? s->sopts->vmlinux
			   : s->sopts->kallsyms ? s->sopts->kallsyms
						: "/proc/kallsyms";

	s->host_kernel_tried = true;
	m->kernel->tried = true;
	if (!s->sopts->vmlinux && !s->sopts->kallsyms && s->file->host_ksyms &&
	    load_embedded_host_kernel(s))
		return;
	/* This machine's kallsyms only fits a file recorded on this very kernel. */
	if (!s->sopts->vmlinux && !s->sopts->kallsyms && !same_running_kernel(s->file)) {
		char msg[300];

		snprintf(msg, sizeof(msg),
			 "recorded on kernel %.64s, not the running one: give --kallsyms "
			 "or -k",
			 s->file->osrelease);
		m->kernel->error = strdup(msg);
		return;
	}
	if (load_kernel_table(m, path))
		snprintf(s->host_kernel_source, sizeof(s->host_kernel_source), "%s",
			 path);
	machine_place_kernel(m);
}

/* The guest half of the report's symbol options, as lib/guest takes them. */
static struct guestsyms_opts guest_opts(const struct symbol_opts *o)
{
	return (struct guestsyms_opts){.mount = o->guestmount,
				       .vmlinux = o->guestvmlinux,
				       .kallsyms = o->guestkallsyms,
				       .modules = o->guestmodules};
}

/*
 * Place guest @m's loaded table from what is known now. Also called again
 * when the guest's kernel moved (it rebooted): the slide is found afresh.
 */
static void place_guest(struct session *s, struct machine *m)
{
	const struct kvmfeat_guest *g = kvmfeat_find(&s->kvmfeat, m->pid);
	struct guest_slide_hints h = {
		.forced = s->sopts->has_guest_slide,
		.forced_slide = s->sopts->guest_slide,
		.def = machines_find_guest(&s->machines, 0),
		.runtime_table = m->runtime_table,
		.lstar = m->lstar,
	};

	if (g) {
		/* The samples' own context first: the table's is the latest one. */
		if (!h.lstar)
			h.lstar = g->lstar;
		h.recorded = g->has_slide;
		h.recorded_slide = g->slide;
		h.recorded_source = g->slide_source;
	}
	m->slide_known = false;
	m->placed_lstar = h.lstar;
	machine_place_guest_kernel(m, &h);
}

/*
 * A guest sample's context: when its LSTAR is not the one @m's kernel was
 * placed with, the guest rebooted with a new KASLR slide; place it again
 * and forget what addresses meant.
 */
static void follow_guest_lstar(struct session *s, struct machine *m, uint64_t lstar)
{
	if (!lstar)
		return;
	m->lstar = lstar;
	if (!m->kernel->symtab || lstar == m->placed_lstar)
		return;
	place_guest(s, m);
	s->cache_gen++;
}

static void load_guest_modules(struct session *s, struct machine *m,
			       const struct guestsyms_opts *o)
{
	struct guestsyms_modules gm;
	struct kp_err err = {0};

	if (!guestsyms_modules(o, m->name, m->pid, &gm))
		return;
	if (kmodules_load(&m->modules, gm.list, gm.tree[0] ? gm.tree : NULL,
			  &s->machines.dsos, &err))
		snprintf(m->modules_source, sizeof(m->modules_source), "%s", err.msg);
	else
		snprintf(m->modules_source, sizeof(m->modules_source),
			 "%zu modules from %s", m->modules.nr, gm.list);
}

static bool load_guest_table(void *m, const struct guestsyms_file *f)
{
	return load_kernel_table(m, f->path);
}

/* A guest's modules, kernel table and slide, at its first kernel sample. */
static void load_guest_kernel(struct session *s, struct machine *m)
{
	struct guestsyms_opts o = guest_opts(s->sopts);
	struct guestsyms_file files[GUESTSYMS_FILES_MAX];
	int n = guestsyms_kernel_files(&o, m->name, m->pid, files, GUESTSYMS_FILES_MAX);
	int i;

	m->kernel->tried = true;
	load_guest_modules(s, m, &o);
	i = guestsyms_load_first(files, n, load_guest_table, m);
	if (i >= 0) {
		m->runtime_table = files[i].runtime;
		place_guest(s, m);
		return;
	}
	if (!m->kernel->error) {
		char msg[600];

		snprintf(msg, sizeof(msg), "no symbol file found (tried %s%s)",
			 n ? files[0].path : "nothing", n > 1 ? " and others" : "");
		m->kernel->error = strdup(msg);
	}
}

const char *session_guest_symbol_source(const struct machine *m)
{
	if (m->kernel && m->kernel->symtab)
		return m->kernel->symtab->source;
	if (m->kernel && m->kernel->error)
		return m->kernel->error;
	return "not loaded";
}

static struct machine *guest_machine(struct session *s, int pid)
{
	struct machine *m = machines_guest(&s->machines, pid);
	const struct kvmfeat_guest *g;

	if (m && !strcmp(m->name, "-")) {
		g = kvmfeat_find(&s->kvmfeat, pid);
		if (g)
			snprintf(m->name, sizeof(m->name), "%s", g->name);
	}
	return m;
}

int session_level_of(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
		return LEVEL_KERNEL;
	case PERF_RECORD_MISC_USER:
		return LEVEL_USER;
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return LEVEL_GUEST_KERNEL;
	case PERF_RECORD_MISC_GUEST_USER:
		return LEVEL_GUEST_USER;
	case PERF_RECORD_MISC_HYPERVISOR:
		return LEVEL_HYPERVISOR;
	default:
		return LEVEL_USER;
	}
}

/*
 * The vCPU of a guest sample without guest context, from its thread's name
 * (QEMU's "CPU <n>/KVM"). Names are interned and samples come in runs
 * from one thread, so the last answer is kept: parsing each sample's name
 * cost 130 instructions a sample on recordings from hosts without the
 * kernel series.
 */
static int vcpu_from_comm(struct session *s, const char *comm)
{
	if (!comm)
		return -1;
	if (comm != s->vcpu_comm) {
		s->vcpu_comm = comm;
		s->vcpu_of_comm = vmproc_vcpu_index(comm);
	}
	return s->vcpu_of_comm;
}

/* Where @m's kernel runs; without a known slide, where it was linked. */
static int64_t kernel_slide(const struct machine *m)
{
	return m->slide_known ? m->slide : 0;
}

static const struct ksym *kernel_lookup(const struct machine *m, uint64_t ip,
					const struct dso **dso)
{
	const struct symtab *st = m->kernel->symtab;

	*dso = m->kernel;
	if (!st)
		return NULL;
	/* Without a known slide only an unrelocated kernel resolves: never guess. */
	if (!m->slide_known && !symtab_in_text(st, ip))
		return NULL;
	return symtab_lookup(st, ip, kernel_slide(m), NULL);
}

static void resolve_guest(struct session *s, struct machine *m, uint64_t ip,
			  struct hist_key *k)
{
	const struct dso *dso = NULL;

	if (!m->kernel->tried)
		load_guest_kernel(s, m);
	k->sym = kernel_lookup(m, ip, &dso);
	k->dso = dso;
	/* Outside the core kernel's text: a loaded module's, when the list is known. */
	if (m->modules.nr &&
	    (!k->sym ||
	     (!k->sym->module && m->kernel->symtab->text_end &&
	      !symtab_in_text(m->kernel->symtab, ip - (uint64_t)kernel_slide(m))))) {
		const struct dso *mdso = NULL;
		const struct ksym *msym = kmodules_lookup(&m->modules, ip, &mdso);

		if (mdso) {
			k->sym = msym;
			k->dso = mdso;
		}
	}
}

/*
 * What a resolution is cached under. A host user address: the object and the
 * offset in it, so that every process that maps cc1 or libc shares the
 * entries (a compile starts a new cc1 at new addresses many times a second)
 * and no map change can make one stale. A kernel address: the machine and
 * the address. False when there is nothing worth caching: a user address
 * that no map holds.
 */
struct resolve_key {
	uint64_t at;
	const void *owner; /* a struct dso or a struct machine */
	struct dso *dso;   /* the object of a user address, NULL when none */
};

static bool resolve_key_of(int level, uint32_t pid, uint64_t ip, struct machine *m,
			   struct resolve_key *key)
{
	const struct map *map;

	key->dso = NULL;
	key->at = ip;
	key->owner = m;
	if (level != LEVEL_USER || m->guest)
		return true;
	map = machine_find_map(m, (int)pid, ip);
	if (!map)
		return false;
	key->at = ip - map->start + map->pgoff;
	key->owner = key->dso = map->dso;
	return true;
}

/*
 * A host kernel address, or a user address at offset @key->at of the object
 * @key->dso (none: no map holds it).
 */
static void resolve_host(struct session *s, const struct resolve_key *key, uint64_t ip,
			 struct hist_key *k)
{
	struct machine *host = &s->machines.host;
	const struct dso *dso = NULL;

	if (k->level == LEVEL_KERNEL) {
		if (!s->host_kernel_tried)
			load_host_kernel(s);
		k->sym = kernel_lookup(host, ip, &dso);
		k->dso = dso;
		return;
	}
	if (!key->dso)
		return;
	k->dso = key->dso;
	k->sym = dso_lookup_user(key->dso, key->at, NULL);
	/* perf shows an unresolved user address relative to its object. */
	if (!k->sym)
		k->addr = key->at;
}

/*
 * Two-way sets, most recently used first: a direct-mapped cache let two hot
 * addresses that share a slot evict each other on every sample (about 5%
 * of a million-sample report went to resolving them again).
 */
static struct resolve_entry *cache_set(struct session *s, uint64_t ip, const void *owner)
{
	uint64_t h = hash_u64(ip ^ (uintptr_t)owner * 0x9e3779b97f4a7c15ULL);

	return &s->cache[h & (s->cache_slots - 2)];
}

static bool cache_hit(const struct session *s, const struct resolve_entry *e, uint64_t ip,
		      const void *owner)
{
	return e->gen == s->cache_gen && e->ip == ip && e->owner == owner;
}

/*
 * The cache, made at its first use (a report of host samples alone,
 * counted by class, never needs it) and small: clearing the full 1.5 MiB
 * took a tenth of the instructions of a 26k-sample guest report. Without it
 * addresses are resolved uncached.
 */
static bool have_cache(struct session *s)
{
	if (!s->cache) {
		s->cache = calloc(RESOLVE_CACHE_FIRST, sizeof(*s->cache));
		s->cache_slots = s->cache ? RESOLVE_CACHE_FIRST : 0;
		s->cache_inserts = 0;
	}
	return s->cache;
}

/* Move @e's entries into the current cache, each into a free way of its set. */
static void cache_refill(struct session *s, const struct resolve_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct resolve_entry *set;

		if (e[i].gen != s->cache_gen)
			continue;
		set = cache_set(s, e[i].ip, e[i].owner);
		if (set[0].gen != s->cache_gen)
			set[0] = e[i];
		else if (set[1].gen != s->cache_gen)
			set[1] = e[i];
	}
}

/*
 * Once as many addresses were cached as it has entries, the cache makes
 * way for one four times its size, up to RESOLVE_CACHE_SIZE, and its
 * entries move over. Called between samples: within one, the entry a
 * sample resolved through is still in use.
 */
static __attribute__((noinline, cold)) void cache_grow(struct session *s)
{
	size_t old_slots = s->cache_slots, slots = old_slots * 4;
	struct resolve_entry *old = s->cache;

	if (old_slots >= RESOLVE_CACHE_SIZE) {
		s->cache_inserts =
			0; /* full size: looked at again after as many misses */
		return;
	}
	if (slots > RESOLVE_CACHE_SIZE)
		slots = RESOLVE_CACHE_SIZE;
	s->cache = kp_alloc_huge(slots * sizeof(*s->cache));
	if (!s->cache) {
		s->cache = old; /* the small one still serves */
		return;
	}
	memset(s->cache, 0, slots * sizeof(*s->cache));
	s->cache_slots = slots;
	s->cache_inserts = 0;
	cache_refill(s, old, old_slots);
	free(old);
}

/* The entry for (@ip, @owner) moved to the front of its set, or NULL. */
static struct resolve_entry *cache_find(struct session *s, uint64_t ip, const void *owner)
{
	struct resolve_entry *set = cache_set(s, ip, owner), tmp;

	if (cache_hit(s, &set[0], ip, owner))
		return &set[0];
	if (!cache_hit(s, &set[1], ip, owner))
		return NULL;
	tmp = set[0];
	set[0] = set[1];
	set[1] = tmp;
	return &set[0];
}

/* Room for a new entry at the front of its set; the older one is dropped. */
static struct resolve_entry *cache_insert(struct session *s, uint64_t ip,
					  const void *owner)
{
	struct resolve_entry *set = cache_set(s, ip, owner);

	s->cache_inserts++;
	set[1] = set[0];
	return &set[0];
}

/* Resolve an address the cache does not hold, and cache it when @cacheable. */
static struct resolve_entry *resolve_miss(struct session *s,
					  const struct resolve_key *key, bool cacheable,
					  uint64_t ip, struct machine *m,
					  struct hist_key *k)
{
	struct resolve_entry *e;

	if (m->guest)
		resolve_guest(s, m, ip, k);
	else
		resolve_host(s, key, ip, k);
	if (!cacheable)
		return NULL;
	e = cache_insert(s, key->at, key->owner);
	*e = (struct resolve_entry){.ip = key->at,
				    .owner = key->owner,
				    .gen = s->cache_gen,
				    .sym = k->sym,
				    .dso = k->dso,
				    .addr = k->addr};
	return e;
}

static void take_cached(const struct resolve_entry *e, struct hist_key *k)
{
	k->sym = e->sym;
	k->dso = e->dso;
	k->addr = e->addr;
}

/*
 * Resolve @ip of process @pid at @k->level in @m through the cache: a hit
 * copies sym/dso/addr into @k. Returns the cache entry, or NULL when the
 * address is not cached (see resolve_key_of).
 */
static struct resolve_entry *resolve_cached(struct session *s, uint32_t pid, uint64_t ip,
					    struct machine *m, struct hist_key *k)
{
	struct resolve_key key;
	bool cacheable = resolve_key_of(k->level, pid, ip, m, &key) && have_cache(s);
	struct resolve_entry *e = cacheable ? cache_find(s, key.at, key.owner) : NULL;

	if (!e)
		return resolve_miss(s, &key, cacheable, ip, m, k);
	take_cached(e, k);
	return e;
}

void session_resolve(struct session *s, struct machine *m, uint32_t pid, uint64_t ip,
		     struct hist_key *k)
{
	resolve_cached(s, pid, ip, m, k);
}

/* Did the last sample through @e land in a row of @h with these inputs? */
static inline bool row_matches(const struct resolve_entry *e, const struct hists *h,
			       const char *comm, int pid, int cpu, int level)
{
	/*
	 * Only what the sort keys see: with the default comm,dso,sym a thread
	 * moving between CPUs stays in its row.
	 */
	return e->row && e->row_hists == h && (!h->uses_comm || e->row_comm == comm) &&
	       (!h->uses_pid || e->row_pid == pid) &&
	       (!h->uses_cpu || e->row_cpu == cpu) &&
	       (!h->uses_level || e->row_level == level);
}

/*
 * The same for a whole key, with the vCPU and CR3 a guest sample has. (A
 * host entry sees only host samples, whose vCPU is -1 and CR3 0: its own
 * owner, the host machine or a host object, keeps guest samples out; the
 * fast host path leaves these two out.)
 */
static bool row_matches_key(const struct resolve_entry *e, const struct hists *h,
			    const struct hist_key *k)
{
	return row_matches(e, h, k->comm, k->pid, k->cpu, k->level) &&
	       (!h->uses_vcpu || e->row_vcpu == k->vcpu) &&
	       (!h->uses_cr3 || e->row_cr3 == k->cr3);
}

/* A sample whose resolution was cached: reuse the row too when its inputs match. */
static int add_cached(struct session *s, struct hists *h, struct resolve_entry *e,
		      const struct hist_key *k, uint64_t period)
{
	if (row_matches_key(e, h, k)) {
		hists_add_to(h, e->row, k->level, period);
		return 0;
	}
	e->row = hists_add(h, k, period);
	e->row_hists = h;
	e->row_comm = k->comm;
	e->row_pid = k->pid;
	e->row_cpu = k->cpu;
	e->row_level = k->level;
	e->row_vcpu = k->vcpu;
	e->row_cr3 = k->cr3;
	return e->row ? 0 : -ENOMEM;
}

/* The command name of a sample's thread, perf's ":TID" when never seen. */
static const char *sample_comm(struct session *s, int pid, int tid)
{
	struct thread **recent =
		&s->recent_threads[(unsigned int)tid & (MACHINE_RECENT - 1)];
	struct thread *t = *recent;

	if (!t || t->tid != tid || t->pid != pid)
		t = *recent = machine_thread(&s->machines, &s->machines.host, pid, tid);
	if (t && !t->comm) {
		char name[24];

		snprintf(name, sizeof(name), ":%d", tid);
		t->comm = machines_intern(&s->machines, name);
	}
	return t && t->comm ? t->comm : machines_intern(&s->machines, ":unknown");
}

static void count_sample(struct session *s, struct machine *m, int level)
{
	m->samples++;
	s->samples++;
	s->level_samples[level]++;
}

/*
 * Count a host sample by class: the object and offset (the address in the
 * kernel), with the inputs its row's key keeps.
 */
static int count_class(struct session *s, const struct pd_sample *ps,
		       const struct hists *h, const struct hist_key *k)
{
	struct machine *host = &s->machines.host;
	struct sample_ctx ctx = {
		.owner = host,
		.comm = h->uses_comm ? k->comm : NULL,
		.pid = h->uses_pid ? k->pid : -1,
		.cpu = h->uses_cpu ? k->cpu : -1,
		.evsel = (uint16_t)(h - s->hists),
		.level = (uint8_t)k->level,
	};
	uint64_t at = ps->ip;

	if (k->level == LEVEL_USER) {
		const struct map *map = machine_find_map(host, (int)ps->pid, ps->ip);

		/* A user address no map holds has no owner: only its address shows. */
		ctx.owner = map ? map->dso : NULL;
		if (map)
			at = ps->ip - map->start + map->pgoff;
	}
	count_sample(s, host, k->level);
	return sample_classes_add(&s->classes, &ctx, at, ps->period);
}

/* Resolve a class once and add all its samples to their row. */
static int fold_class(void *arg, const struct sample_ctx *ctx,
		      const struct sample_class *c)
{
	struct session *s = arg;
	struct resolve_key key = {
		.at = c->at,
		.owner = ctx->owner,
		.dso = ctx->level == LEVEL_USER ? ctx->owner : NULL,
	};
	struct hist_key k = {
		.comm = ctx->comm,
		.pid = ctx->pid,
		.cpu = ctx->cpu,
		.vcpu = -1,
		.level = ctx->level,
		.addr = c->at,
	};

	resolve_host(s, &key, c->at, &k);
	return hists_add_samples(&s->hists[ctx->evsel], &k, c->period, c->samples)
		       ? 0
		       : -ENOMEM;
}

/* The host samples counted by class so far, into the histograms. 0 or -ENOMEM. */
static int fold_classes(struct session *s)
{
	if (!sample_classes_pending(&s->classes))
		return 0;
	return sample_classes_fold(&s->classes, fold_class, s);
}

/* The sample's frames, its own and its callers', to the session's taker. */
static int frame_fn_call(struct session *s, const struct pd_sample *ps,
			 const struct hist_key *k, struct kp_err *err)
{
	const struct hist_key *frames;
	int nr = session_sample_frames(s, ps, k, &frames);

	if (nr < 0)
		return kp_errorf(err, ENOMEM, "out of memory");
	return s->frame_fn(s->frame_ctx, ps, frames, (size_t)nr, err);
}

/*
 * Count a host sample and resolve it through the cache. The common case ends here:
 * an address whose resolution and histogram row are cached for the same
 * thread name, pid, CPU and mode is counted in that row (returns true).
 */
static bool resolve_host_sample(struct session *s, const struct pd_sample *ps,
				struct hists *h, struct hist_key *k,
				struct resolve_entry **found)
{
	struct machine *host = &s->machines.host;
	/* A fresh entry (a miss) has no row yet: only a hit can take the fast path. */
	struct resolve_entry *e = resolve_cached(s, ps->pid, ps->ip, host, k);

	count_sample(s, host, k->level);
	*found = e;
	if (!e || s->frame_fn || s->chains.children || s->chains.graph ||
	    !row_matches(e, h, k->comm, k->pid, k->cpu, k->level))
		return false;
	hists_add_to(h, e->row, k->level, ps->period);
	return true;
}

/*
 * A guest sample: its machine, vCPU and CR3, and (kernel samples) its
 * resolution; counted unless --guest-name filters it out (returns 1).
 */
static int resolve_guest_sample(struct session *s, const struct pd_sample *ps,
				const struct guest_ctx *ctx, struct hist_key *k,
				struct resolve_entry **found, struct kp_err *err)
{
	struct machine *m = guest_machine(s, (int)ps->pid);

	if (!m)
		return kp_errorf(err, ENOMEM, "out of memory");
	if (s->only_guest && strcmp(m->name, s->only_guest))
		return 1;
	if (ctx)
		follow_guest_lstar(s, m, ctx->lstar);
	k->guest = m;
	k->vcpu = ctx ? (int)ctx->vcpu_id : vcpu_from_comm(s, k->comm);
	k->cr3 = ctx ? ctx->cr3 : 0;
	count_sample(s, m, k->level);
	if (k->level == LEVEL_GUEST_KERNEL)
		*found = resolve_cached(s, ps->pid, ps->ip, m, k);
	return 0;
}

/* @ordinal: the sample's position in the file, which indexes its guest context. */
static int on_sample(struct session *s, const struct pd_sample *ps, uint64_t ordinal,
		     struct kp_err *err)
{
	struct hists *h = &s->hists[ps->evsel - s->file->evsels];
	int level = session_level_of(ps->misc);
	bool guest = level == LEVEL_GUEST_KERNEL || level == LEVEL_GUEST_USER;
	struct hist_key k = {0};
	struct resolve_entry *e = NULL;
	struct hist_entry *row;
	int ret;

	if (guest ? !s->want_guest : !s->want_host) {
		s->filtered++;
		return 0;
	}
	k.level = level;
	k.pid = (int)ps->pid;
	k.cpu = (int)ps->cpu;
	k.vcpu = -1;
	k.addr = ps->ip;
	k.comm = sample_comm(s, (int)ps->pid, (int)ps->tid);
	if (!guest && s->by_class)
		return count_class(s, ps, h, &k) ? kp_errorf(err, ENOMEM, "out of memory")
						 : 0;
	if (s->cache_inserts >= s->cache_slots && s->cache)
		cache_grow(s);
	if (!guest) {
		if (resolve_host_sample(s, ps, h, &k, &e))
			return 0;
	} else {
		ret = resolve_guest_sample(
			s, ps, guestctx_of(&s->ctx, ordinal - s->ctx_base), &k, &e, err);
		if (ret) {
			s->filtered += ret > 0;
			return ret < 0 ? ret : 0;
		}
	}
	if (s->frame_fn)
		return frame_fn_call(s, ps, &k, err);
	if (e) {
		ret = add_cached(s, h, e, &k, ps->period);
		row = e->row;
	} else {
		row = hists_add(h, &k, ps->period);
		ret = row ? 0 : -ENOMEM;
	}
	if (!ret && (s->chains.children || s->chains.graph))
		ret = session_add_chain(s, h, ps, &k, row);
	return ret ? kp_errorf(err, ENOMEM, "out of memory") : 0;
}

struct mmap_body {
	uint32_t pid;
	uint32_t tid;
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
};

/* "[kernel.kallsyms]_text" or "[guest.kernel.kallsyms(.PID)]_stext": a kernel map. */
static bool kernel_map_ref(const char *name, const char *prefix, char *ref, size_t size)
{
	const char *end;

	if (strncmp(name, prefix, strlen(prefix)))
		return false;
	end = strchr(name, ']');
	if (!end)
		return false;
	snprintf(ref, size, "%s", end + 1);
	return true;
}

static int on_kernel_mmap(struct session *s, struct machine *m, const char *name,
			  uint64_t pgoff)
{
	char ref[64];
	bool moved;

	/*
	 * Where a kernel runs changes what its addresses mean. User-space
	 * entries need no such care: they are keyed by object and offset.
	 * Classes hold host samples only: the host kernel's own samples so
	 * far are resolved where it was.
	 */
	if (!m->guest && fold_classes(s))
		return -ENOMEM;
	s->cache_gen++;
	if (!kernel_map_ref(name,
			    m->guest ? "[guest.kernel.kallsyms" : "[kernel.kallsyms]",
			    ref, sizeof(ref)) ||
	    !ref[0])
		return 0; /* module maps: not modelled yet */
	moved = m->ref_sym[0] && (strcmp(ref, m->ref_sym) || pgoff != m->ref_runtime);
	snprintf(m->ref_sym, sizeof(m->ref_sym), "%s", ref);
	m->ref_runtime = pgoff;
	/*
	 * kvmprof record writes a guest's map when it first sees the guest, so
	 * it can follow a table loaded for samples of an earlier round; and
	 * again when the guest rebooted at a new slide: place it afresh.
	 */
	if (m->guest && m->kernel && m->kernel->symtab && moved)
		place_guest(s, m);
	else if (m->kernel && m->kernel->symtab)
		machine_place_kernel(m);
	return 0;
}

/*
 * A default-guest map kvmprof record wrote on behalf of one guest (its
 * trailer names that guest), only for perf: the guest's own map is in the
 * file, and other guests must not borrow its slide.
 */
static bool copy_for_perf(const struct session *s, const struct perf_event_header *ev)
{
	struct pd_sample id;

	return !pd_parse_id_trailer(s->file, ev, &id, NULL) && id.pid != 0;
}

static int on_mmap(struct session *s, const struct perf_event_header *ev, bool mmap2)
{
	const struct mmap_body *b = (const void *)(ev + 1);
	size_t fixed = sizeof(*ev) + sizeof(*b) + (mmap2 ? 32 : 0);
	const char *name = (const char *)ev + fixed;
	size_t max = ev->size > fixed ? ev->size - fixed : 0;
	uint16_t mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	char file[4096];

	if (!max)
		return 0;
	snprintf(file, sizeof(file), "%.*s", (int)strnlen(name, max), name);
	if (mode == PERF_RECORD_MISC_KERNEL)
		return on_kernel_mmap(s, &s->machines.host, file, b->pgoff);
	if (mode == PERF_RECORD_MISC_GUEST_KERNEL) {
		/* perf kvm's default guest has pid 0: it stands for every guest. */
		struct machine *m;

		if (!b->pid && copy_for_perf(s, ev))
			return 0;
		m = guest_machine(s, (int)b->pid);

		return m ? on_kernel_mmap(s, m, file, b->pgoff) : -ENOMEM;
	}
	if (mode == PERF_RECORD_MISC_GUEST_USER)
		return 0;
	return machine_add_map(&s->machines, &s->machines.host, (int)b->pid, b->start,
			       b->len, b->pgoff, file);
}

static int on_comm(struct session *s, const struct perf_event_header *ev)
{
	const uint32_t *ids = (const void *)(ev + 1);
	const char *comm = (const char *)(ids + 2);
	size_t max = ev->size - sizeof(*ev) - 8;
	char buf[32];

	if (ev->size < sizeof(*ev) + 16)
		return 0;
	snprintf(buf, sizeof(buf), "%.*s", (int)strnlen(comm, max), comm);
	return machine_set_comm(&s->machines, &s->machines.host, (int)ids[0], (int)ids[1],
				buf);
}

static int on_fork(struct session *s, const struct perf_event_header *ev)
{
	const uint32_t *f = (const void *)(ev + 1); /* pid, ppid, tid, ptid */

	if (ev->size < sizeof(*ev) + 16)
		return 0;
	return machine_fork(&s->machines, &s->machines.host, (int)f[1], (int)f[0],
			    (int)f[2]);
}

/* Every record but samples, which on_sample() takes. */
static int on_record(struct session *s, const struct perf_event_header *ev,
		     struct kp_err *err)
{
	int ret = 0;

	switch (ev->type) {
	case PERF_RECORD_MMAP:
		ret = ev->size >= sizeof(*ev) + sizeof(struct mmap_body)
			      ? on_mmap(s, ev, false)
			      : 0;
		break;
	case PERF_RECORD_MMAP2:
		ret = ev->size >= sizeof(*ev) + sizeof(struct mmap_body) + 32
			      ? on_mmap(s, ev, true)
			      : 0;
		break;
	case PERF_RECORD_COMM:
		ret = on_comm(s, ev);
		break;
	case PERF_RECORD_FORK:
		ret = on_fork(s, ev);
		break;
	case PERF_RECORD_LOST:
		if (ev->size >= sizeof(*ev) + 16) {
			s->lost += ((const uint64_t *)(ev + 1))[1];
			s->lost_records++;
		}
		break;
	default:
		break;
	}
	return ret ? kp_errorf(err, -ret, "%s: out of memory", s->file->path) : 0;
}

struct machine *session_guest(struct session *s, int pid)
{
	return guest_machine(s, pid);
}

const struct ksym *session_guest_kernel_sym(struct session *s, int pid, uint64_t ip)
{
	struct machine *m = guest_machine(s, pid);
	struct hist_key k = {0};

	if (!m)
		return NULL;
	resolve_guest(s, m, ip, &k);
	return k.sym;
}

const char *session_comm(struct session *s, int pid, int tid)
{
	return sample_comm(s, pid, tid);
}

/* Records come here in time order (see ordered_events.h). */
int session_deliver(void *ctx, const struct ordered_event *e, struct kp_err *err)
{
	struct session *s = ctx;

	if (e->sample && s->sample_fn)
		return s->sample_fn(s->sample_ctx, e->sample, err);
	return e->sample ? on_sample(s, e->sample, e->ordinal, err)
			 : on_record(s, e->ev, err);
}

/* Queue or deliver one record of the file; a round's end delivers the round. */
static int take_record(struct session *s, const struct perf_event_header *ev,
		       struct kp_err *err)
{
	if (ev->type == PD_RECORD_FINISHED_ROUND)
		return ordered_events_flush(&s->oe, err);
	if (ev->type >= 64)
		return 0; /* perf's own header records: nothing to model */
	return ordered_events_queue(&s->oe, ev, err);
}

static int read_records(struct session *s, struct pd_stream *st, struct kp_err *err)
{
	const struct perf_event_header *ev;
	intptr_t moved;
	int ret;

	while ((ret = pd_stream_next(st, &ev, &moved, err)) > 0) {
		if (moved)
			ordered_events_rebase(&s->oe, moved);
		ret = take_record(s, ev, err);
		if (ret)
			return ret;
		if (!ordered_events_holding(&s->oe))
			pd_stream_release(st);
	}
	return ret ? ret : ordered_events_flush(&s->oe, err);
}

int session_process(struct session *s, struct kp_err *err)
{
	struct pd_stream st;
	int ret = pd_stream_open(&st, s->file, 0, err);

	s->by_class = !s->frame_fn && !s->chains.children && !s->chains.graph &&
		      s->file->nr_evsels <= UINT16_MAX + 1;
	if (!ret)
		ret = read_records(s, &st, err);
	pd_stream_close(&st);
	if (!ret && fold_classes(s))
		ret = kp_errorf(err, ENOMEM, "out of memory");
	if (ret)
		return ret;
	for (size_t i = 0; i < s->file->nr_evsels; i++)
		if (s->chains.children)
			hists_sort_children(&s->hists[i]);
		else
			hists_sort(&s->hists[i]);
	return 0;
}
