// SPDX-License-Identifier: GPL-2.0
#include "machine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void machine_init(struct machine *m, bool guest, int pid)
{
	memset(m, 0, sizeof(*m));
	m->guest = guest;
	m->pid = pid;
	strcpy(m->name, guest ? "-" : "host");
	if (guest)
		snprintf(m->dso_name, sizeof(m->dso_name), "[guest.kernel.kallsyms.%d]",
			 pid);
	else
		strcpy(m->dso_name, "[kernel.kallsyms]");
	hashmap_init(&m->threads);
	hashmap_init(&m->procs);
}

static void machine_release(struct machine *m)
{
	for (size_t i = 0; i < m->threads.cap; i++)
		if (m->threads.keys[i])
			free(m->threads.vals[i]);
	for (size_t i = 0; i < m->procs.cap; i++)
		if (m->procs.keys[i]) {
			struct mapgroup *g = m->procs.vals[i];

			free(g->maps);
			free(g);
		}
	hashmap_release(&m->threads);
	hashmap_release(&m->procs);
	kmodules_release(&m->modules);
}

int machines_init(struct machines *ms)
{
	memset(ms, 0, sizeof(*ms));
	machine_init(&ms->host, false, -1);
	hashmap_init(&ms->guest_by_pid);
	hashmap_init(&ms->comms);
	dso_cache_init(&ms->dsos);
	ms->strings = arena_new();
	if (!ms->strings)
		return -ENOMEM;
	ms->host.kernel = dso_cache_get(&ms->dsos, ms->host.dso_name, DSO_KERNEL);
	return ms->host.kernel ? 0 : -ENOMEM;
}

void machines_release(struct machines *ms)
{
	machine_release(&ms->host);
	for (size_t i = 0; i < ms->nr_guests; i++) {
		machine_release(ms->guests[i]);
		free(ms->guests[i]);
	}
	free(ms->guests);
	hashmap_release(&ms->guest_by_pid);
	hashmap_release(&ms->comms);
	dso_cache_release(&ms->dsos);
	arena_free(ms->strings);
}

/* Keys are pids offset by one so that pid 0 (the default guest) is usable. */
static uint64_t pid_key(int pid)
{
	return (uint64_t)(uint32_t)pid + 1;
}

struct machine *machines_find_guest(const struct machines *ms, int pid)
{
	return hashmap_get(&ms->guest_by_pid, pid_key(pid));
}

struct machine *machines_guest(struct machines *ms, int pid)
{
	struct machine *m = machines_find_guest(ms, pid), **grown;

	if (m)
		return m;
	m = malloc(sizeof(*m));
	grown = realloc(ms->guests, (ms->nr_guests + 1) * sizeof(*grown));
	if (!m || !grown) {
		free(m);
		if (grown)
			ms->guests = grown;
		return NULL;
	}
	ms->guests = grown;
	machine_init(m, true, pid);
	m->kernel = dso_cache_get(&ms->dsos, m->dso_name, DSO_KERNEL);
	if (!m->kernel || hashmap_put(&ms->guest_by_pid, pid_key(pid), m)) {
		free(m);
		return NULL;
	}
	ms->guests[ms->nr_guests++] = m;
	return m;
}

const char *machines_intern(struct machines *ms, const char *s)
{
	uint64_t key = hash_bytes(s, strlen(s));
	const char *found = hashmap_get(&ms->comms, key);
	char *copy;

	/* A full 64-bit collision between two comms only merges their names. */
	if (found)
		return found;
	copy = arena_strndup(ms->strings, s, strlen(s));
	/* If indexing fails the copy is still a valid, merely unshared, name. */
	if (copy)
		hashmap_put(&ms->comms, key, copy);
	return copy;
}

struct thread *machine_thread(struct machines *ms, struct machine *m, int pid, int tid)
{
	struct thread *t = hashmap_get(&m->threads, pid_key(tid));

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	if (hashmap_put(&m->threads, pid_key(tid), t)) {
		free(t);
		return NULL;
	}
	return t;
}

int machine_set_comm(struct machines *ms, struct machine *m, int pid, int tid,
		     const char *comm)
{
	struct thread *t = machine_thread(ms, m, pid, tid);

	if (!t)
		return -ENOMEM;
	t->pid = pid;
	t->comm = machines_intern(ms, comm);
	return t->comm ? 0 : -ENOMEM;
}

static struct mapgroup *mapgroup_of(struct machine *m, int pid, bool create)
{
	struct mapgroup *g = hashmap_get(&m->procs, pid_key(pid));

	if (g || !create)
		return g;
	g = calloc(1, sizeof(*g));
	if (g && hashmap_put(&m->procs, pid_key(pid), g)) {
		free(g);
		return NULL;
	}
	return g;
}

int machine_fork(struct machines *ms, struct machine *m, int ppid, int pid, int tid)
{
	struct thread *parent = hashmap_get(&m->threads, pid_key(ppid));
	struct thread *t = machine_thread(ms, m, pid, tid);
	struct mapgroup *pg, *g;

	if (!t)
		return -ENOMEM;
	t->pid = pid;
	if (parent && !t->comm)
		t->comm = parent->comm;
	if (ppid == pid)
		return 0; /* a new thread shares its process's maps */
	pg = mapgroup_of(m, ppid, false);
	if (!pg || !pg->nr)
		return 0;
	g = mapgroup_of(m, pid, true);
	if (!g)
		return -ENOMEM;
	free(g->maps);
	g->maps = malloc(pg->nr * sizeof(*g->maps));
	if (!g->maps) {
		g->nr = g->alloc = 0;
		return -ENOMEM;
	}
	memcpy(g->maps, pg->maps, pg->nr * sizeof(*g->maps));
	g->nr = g->alloc = pg->nr;
	return 0;
}

/* Drop or trim maps that the new one overlaps, as a new mmap() replaces them. */
static void punch_hole(struct mapgroup *g, uint64_t start, uint64_t end)
{
	size_t w = 0;

	for (size_t r = 0; r < g->nr; r++) {
		struct map mp = g->maps[r];

		if (mp.end <= start || mp.start >= end) {
			g->maps[w++] = mp;
			continue;
		}
		/* Keep the part before the hole; the part after would need a split. */
		if (mp.start < start) {
			mp.end = start;
			g->maps[w++] = mp;
		} else if (mp.end > end) {
			mp.pgoff += end - mp.start;
			mp.start = end;
			g->maps[w++] = mp;
		}
	}
	g->nr = w;
}

int machine_add_map(struct machines *ms, struct machine *m, int pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, const char *filename)
{
	struct mapgroup *g = mapgroup_of(m, pid, true);
	struct dso *dso = dso_cache_get(&ms->dsos, filename, DSO_USER);
	size_t i;

	if (!g || !dso || start + len < start)
		return -ENOMEM;
	punch_hole(g, start, start + len);
	if (g->nr == g->alloc) {
		size_t alloc = g->alloc ? g->alloc * 2 : 16;
		struct map *maps = realloc(g->maps, alloc * sizeof(*maps));

		if (!maps)
			return -ENOMEM;
		g->maps = maps;
		g->alloc = alloc;
	}
	for (i = g->nr; i > 0 && g->maps[i - 1].start > start; i--)
		g->maps[i] = g->maps[i - 1];
	g->maps[i] = (struct map){start, start + len, pgoff, dso};
	g->nr++;
	return 0;
}

/* The maps of process @pid, or NULL: recent ones without hashing. */
static struct mapgroup *lookup_group(struct machine *m, int pid)
{
	unsigned int slot = (unsigned int)pid & (MACHINE_RECENT - 1);
	struct mapgroup *g;

	if (m->recent_groups[slot].group && m->recent_groups[slot].pid == pid)
		return m->recent_groups[slot].group;
	g = mapgroup_of(m, pid, false);
	if (g) {
		m->recent_groups[slot].pid = pid;
		m->recent_groups[slot].group = g;
	}
	return g;
}

/*
 * Samples come in runs from one process and one or two objects (a program
 * and its libc): the maps found last and before are tried first. Maps do
 * not overlap, so a map that holds @addr is the answer even after maps
 * were added or removed since.
 */
static bool map_holds(const struct mapgroup *g, size_t i, uint64_t addr)
{
	return i < g->nr && g->maps[i].start <= addr && addr < g->maps[i].end;
}

/* @i found an address: it becomes the last, the last the one before. */
static const struct map *found_at(struct mapgroup *g, size_t i)
{
	if (i != g->last) {
		g->before = g->last;
		g->last = i;
	}
	return &g->maps[i];
}

const struct map *machine_find_map(struct machine *m, int pid, uint64_t addr)
{
	struct mapgroup *g = lookup_group(m, pid);
	size_t lo = 0, hi;

	if (!g)
		return NULL;
	if (map_holds(g, g->last, addr))
		return &g->maps[g->last];
	if (map_holds(g, g->before, addr))
		return found_at(g, g->before);
	hi = g->nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->maps[mid].end <= addr)
			lo = mid + 1;
		else if (g->maps[mid].start > addr)
			hi = mid;
		else
			return found_at(g, mid);
	}
	return NULL;
}
