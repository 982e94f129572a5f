/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmprof export: a session's samples as distinct stacks with their counts
 * (export_profile.c), written as pprof's profile.proto (export_pprof.c),
 * folded stacks (export_folded.c) or an SVG flame graph (export_svg.c).
 */
#ifndef KVMPROF_EXPORT_H
#define KVMPROF_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/base.h"
#include "hist.h"
#include "session.h"

/* The deepest stack kept; deeper ones lose their outermost frames. */
#define EXPORT_STACK_MAX 256

/* One frame: what a hist_key resolves for one address. */
struct export_frame {
	int level; /* enum cpumode_level */
	const struct ksym *sym;
	const struct dso *dso;
	uint64_t addr; /* the ip, or its offset in the object when unresolved there */
};

/*
 * A sample's stack, leaf first, in @out (room for @max): the @nr frames
 * the session resolved, its own and its callers' when it has a call chain.
 * Deeper stacks keep their innermost @max frames. Returns the number kept.
 */
size_t export_sample_stack(const struct hist_key *frames, size_t nr,
			   struct export_frame *out, size_t max);

/* Samples with equal stacks and labels, counted together. */
struct export_stack {
	const char *comm; /* interned by the session */
	int pid;
	const struct machine *guest; /* NULL for host samples */
	int vcpu;		     /* -1 unknown */
	int level;		     /* the leaf's enum cpumode_level */
	uint64_t cr3;		     /* 0 unknown */
	size_t nr_frames;
	struct export_frame *frames; /* leaf first */
	uint64_t count;
	uint64_t period;
};

struct export_profile {
	struct hashindex index; /* stacks by the hash of their frames and labels */
	struct export_stack **stacks;
	size_t nr;
	size_t alloc;
	uint64_t total_count;
	uint64_t total_period;
	char event[128];		 /* the event's name, sanitized */
	bool period_is_ns;		 /* cpu-clock, task-clock: the period is time */
	const struct symbol_opts *sopts; /* for the guest kernels' releases */
};

void export_profile_init(struct export_profile *p, const char *event,
			 const struct symbol_opts *sopts);
/* Count one sample: a session_frame_fn, with the profile as @ctx. */
int export_profile_add(void *profile, const struct pd_sample *ps,
		       const struct hist_key *frames, size_t nr, struct kp_err *err);
void export_profile_release(struct export_profile *p);

/* Frame kinds, for colors: the frame levels, and the root frames. */
enum export_kind {
	EXPORT_KIND_ROOT_HOST = LEVEL__MAX, /* a host sample's comm */
	EXPORT_KIND_ROOT_GUEST,		    /* a guest's name */
};

/* A frame as folded stacks and flame graphs name it. */
struct folded_frame {
	char name[256];
	int kind; /* enum cpumode_level, or enum export_kind for roots */
};

/*
 * @st's frames root first, as folded stacks show them: the guest's name
 * ("guest PID" when unnamed) or the host command first, then the functions,
 * sanitized, with no ';' (the separator). Returns the number written.
 */
size_t export_folded_frames(const struct export_stack *st, struct folded_frame *out,
			    size_t max);
/* The name of one frame, sanitized ("[unknown]" style when unresolved). */
void export_frame_name(const struct export_frame *f, char *buf, size_t size);

/* "frame;frame;frame count" lines, root first, sorted; @period: sum periods. */
int export_write_folded(const struct export_profile *p, bool period, FILE *out);

/* gzip-compressed profile.proto at @path. */
int export_write_pprof(const struct export_profile *p, const char *path,
		       struct kp_err *err);

/* A rectangle of a flame graph, in units of the profile's total. */
struct flame_rect {
	const char *name;
	int kind;
	int depth; /* 0: the root frames */
	uint64_t start;
	uint64_t value;
};

struct flame_graph {
	struct flame_rect *rects; /* parents before children, siblings by name */
	size_t nr;
	uint64_t total;
	int max_depth;
	void *tree; /* the frame tree the rectangles point into */
};

/* Lay out @p's stacks as a flame graph; @period: widths by period. */
int flame_graph_build(const struct export_profile *p, bool period, struct flame_graph *g);
void flame_graph_release(struct flame_graph *g);
/* A self-contained SVG of @g, titled @title. */
int export_write_svg(const struct flame_graph *g, const char *title, FILE *out);

#endif
