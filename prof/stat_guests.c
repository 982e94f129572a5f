// SPDX-License-Identifier: GPL-2.0
#include "stat_guests.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_QEMUS 1024

static void name_vm(struct stat_vm *vm, const struct guest_namer *names)
{
	if (guest_namer_name(names, vm->pid, vm->name, sizeof(vm->name)))
		snprintf(vm->name, sizeof(vm->name), "-");
}

/* Its vCPU threads as counting targets: @targets holds VMPROC_MAX_VCPUS. */
static size_t vcpu_targets(const struct vmproc *proc, struct stat_target *targets)
{
	for (size_t i = 0; i < proc->nr_vcpus; i++)
		targets[i] = (struct stat_target){.pid = proc->vcpus[i].tid, .cpu = -1};
	return proc->nr_vcpus;
}

static int open_vm(struct stat_vm *vm, const struct vmproc *proc,
		   const struct stat_event *evs, size_t nr_events, struct kp_err *err)
{
	struct stat_target targets[VMPROC_MAX_VCPUS];
	size_t nr = vcpu_targets(proc, targets);
	int ret = 0;

	vm->nr_vcpus = nr;
	vm->counters = calloc(nr_events, sizeof(*vm->counters));
	if (!vm->counters)
		return kp_errorf(err, ENOMEM, "out of memory");
	for (size_t e = 0; e < nr_events && !ret; e++) {
		enum stat_split split =
			evs[e].software ? STAT_SPLIT_VCPU : STAT_SPLIT_GUEST;

		ret = stat_counter_open(&vm->counters[e], &evs[e], split, targets, nr,
					STAT_OPEN_SKIP_GONE, err);
	}
	if (ret)
		kp_err_prefix(err, "guest %s (QEMU pid %d)", vm->name, (int)vm->pid);
	return ret;
}

/* One QEMU: read its threads, name it, open its counters. */
static int add_vm(struct stat_vms *vms, pid_t pid, const struct guest_namer *names,
		  const struct stat_event *evs, struct vmproc *proc, struct kp_err *err)
{
	struct stat_vm *vm = &vms->vm[vms->nr];

	if (vmproc_read(pid, proc, NULL))
		return 0; /* gone, or not ours to read: it is not counted */
	memset(vm, 0, sizeof(*vm));
	vm->pid = pid;
	name_vm(vm, names);
	vms->nr++;
	return open_vm(vm, proc, evs, vms->nr_events, err);
}

int stat_vms_open(struct stat_vms *vms, const struct guest_namer *names,
		  const struct stat_event *evs, size_t nr_events, struct kp_err *err)
{
	pid_t *pids = calloc(MAX_QEMUS, sizeof(*pids));
	struct vmproc *proc = malloc(sizeof(*proc));
	size_t appliances = 0;
	int n, ret = 0;

	memset(vms, 0, sizeof(*vms));
	vms->nr_events = nr_events;
	n = pids && proc ? vmproc_list_qemus(pids, MAX_QEMUS, &appliances) : -ENOMEM;
	if (n < 0)
		ret = kp_errorf(err, -n, "listing QEMU processes in /proc: %s",
				strerror(-n));
	else if (n && !(vms->vm = calloc((size_t)n, sizeof(*vms->vm))))
		ret = kp_errorf(err, ENOMEM, "out of memory");
	for (int i = 0; !ret && i < n; i++)
		ret = add_vm(vms, pids[i], names, evs, proc, err);
	free(pids);
	free(proc);
	return ret;
}

static void each_counter(const struct stat_vms *vms,
			 void (*fn)(const struct stat_counter *c))
{
	for (size_t v = 0; v < vms->nr; v++)
		for (size_t e = 0; vms->vm[v].counters && e < vms->nr_events; e++)
			fn(&vms->vm[v].counters[e]);
}

void stat_vms_enable(const struct stat_vms *vms)
{
	each_counter(vms, stat_counter_enable);
}

void stat_vms_disable(const struct stat_vms *vms)
{
	each_counter(vms, stat_counter_disable);
}

void stat_vms_close(struct stat_vms *vms)
{
	for (size_t v = 0; v < vms->nr; v++) {
		for (size_t e = 0; vms->vm[v].counters && e < vms->nr_events; e++)
			stat_counter_close(&vms->vm[v].counters[e]);
		free(vms->vm[v].counters);
	}
	free(vms->vm);
	memset(vms, 0, sizeof(*vms));
}

static struct stat_guest *guest_named(struct stat_guest *g, size_t *n, const char *name,
				      size_t nr_events)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(g[i].name, name))
			return &g[i];
	g = &g[*n];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->sums = calloc(nr_events ? nr_events : 1, sizeof(*g->sums));
	g->supported = calloc(nr_events ? nr_events : 1, sizeof(*g->supported));
	if (!g->sums || !g->supported) {
		free(g->sums);
		free(g->supported);
		return NULL;
	}
	(*n)++;
	return g;
}

static void add_counts(struct stat_guest *g, const struct stat_vm_counts *vm,
		       size_t nr_events)
{
	if (g->nr_qemus < STAT_GUEST_PIDS)
		g->pids[g->nr_qemus] = vm->pid;
	g->nr_qemus++;
	g->nr_vcpus += vm->nr_vcpus;
	for (size_t e = 0; e < nr_events; e++) {
		if (!vm->supported[e])
			continue;
		g->supported[e] = true;
		stat_reading_add(&g->sums[e], &vm->readings[e]);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct stat_guest *)a)->name,
		      ((const struct stat_guest *)b)->name);
}

int stat_guests_sum(const struct stat_vm_counts *vms, size_t n, size_t nr_events,
		    struct stat_guest **out, size_t *nr_out)
{
	struct stat_guest *g = calloc(n ? n : 1, sizeof(*g));
	size_t nr = 0;

	*out = NULL;
	*nr_out = 0;
	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct stat_guest *into = guest_named(g, &nr, vms[i].name, nr_events);

		if (!into) {
			stat_guests_free(g, nr);
			return -ENOMEM;
		}
		add_counts(into, &vms[i], nr_events);
	}
	qsort(g, nr, sizeof(*g), by_name);
	*out = g;
	*nr_out = nr;
	return 0;
}

void stat_guests_free(struct stat_guest *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++) {
		free(g[i].sums);
		free(g[i].supported);
	}
	free(g);
}

/* Read one QEMU's counters into @r and @ok, one per event. */
static void read_vm(struct stat_vm *vm, size_t nr_events, bool since_last,
		    struct stat_reading *r, bool *ok)
{
	for (size_t e = 0; e < nr_events; e++) {
		struct stat_counter *c = &vm->counters[e];

		/* No thread left to count: zeros, printed as "<not counted>". */
		ok[e] = !c->unsupported;
		if (ok[e] && stat_counter_take(c, since_last, &r[e]))
			memset(&r[e], 0, sizeof(r[e]));
	}
}

int stat_vms_sum(struct stat_vms *vms, bool since_last, struct stat_guest **out,
		 size_t *nr_out)
{
	size_t ne = vms->nr_events, nv = vms->nr;
	struct stat_vm_counts *counts = calloc(nv ? nv : 1, sizeof(*counts));
	size_t cells = nv && ne ? nv * ne : 1;
	struct stat_reading *r = calloc(cells, sizeof(*r));
	bool *ok = calloc(cells, sizeof(*ok));
	int ret = counts && r && ok ? 0 : -ENOMEM;

	for (size_t v = 0; !ret && v < nv; v++) {
		read_vm(&vms->vm[v], ne, since_last, &r[v * ne], &ok[v * ne]);
		counts[v] = (struct stat_vm_counts){
			.name = vms->vm[v].name,
			.pid = vms->vm[v].pid,
			.nr_vcpus = vms->vm[v].nr_vcpus,
			.readings = &r[v * ne],
			.supported = &ok[v * ne],
		};
	}
	if (!ret)
		ret = stat_guests_sum(counts, nv, ne, out, nr_out);
	free(counts);
	free(r);
	free(ok);
	return ret;
}
