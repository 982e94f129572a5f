// SPDX-License-Identifier: GPL-2.0
#include "callchain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* perf's graph: 12 columns of margin, then one 11-column cell per depth. */
#define MARGIN	    12
#define MAX_DEPTH   (CALLCHAIN_MAX_FRAMES + 1)
#define NAME_MAX_SZ 512

/* perf merges frames of the same function ("-g ...,function", its default). */
static bool same_frame(const struct hist_key *a, const struct hist_key *b)
{
	if (a->level != b->level || a->dso != b->dso || a->sym != b->sym)
		return false;
	return a->sym || a->addr == b->addr;
}

static struct cc_node *child_for(struct cc_node *parent, const struct hist_key *frame)
{
	struct cc_node *c, **tail = &parent->child;

	for (c = parent->child; c; c = c->next) {
		if (same_frame(&c->frame, frame))
			return c;
		tail = &c->next;
	}
	c = calloc(1, sizeof(*c));
	if (c) {
		c->frame = *frame;
		*tail = c; /* in first-seen order: ties keep it */
	}
	return c;
}

int callchain_append(struct cc_node *root, const struct hist_key *const *path, size_t nr,
		     uint64_t period)
{
	struct cc_node *n = root;

	root->total += period;
	for (size_t i = 0; i < nr; i++) {
		n = child_for(n, path[i]);
		if (!n)
			return -ENOMEM;
		n->total += period;
	}
	n->self += period;
	return 0;
}

void callchain_free(struct cc_node *root, bool free_root)
{
	struct cc_node *c = root->child, *next;

	for (; c; c = next) {
		next = c->next;
		callchain_free(c, true);
	}
	if (free_root)
		free(root);
}

/*
 * A run of frames drawn as one branch: perf's tree keeps frames in one
 * node until paths part or one ends, so the run goes on while a node has
 * a single child and no path ends at it.
 */
static const struct cc_node *run_end(const struct cc_node *n)
{
	while (n->child && !n->child->next && !n->self)
		n = n->child;
	return n;
}

struct branches {
	const struct cc_node **v;
	size_t nr;
};

static int cmp_heavier(const void *pa, const void *pb)
{
	const struct cc_node *a = *(const struct cc_node *const *)pa;
	const struct cc_node *b = *(const struct cc_node *const *)pb;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return 0;
}

/* @n's children at or above the limit, heaviest first. */
static int shown_children(const struct cc_node *n, const struct callchain_print *p,
			  struct branches *b)
{
	size_t cap = 0;

	b->nr = 0;
	b->v = NULL;
	for (const struct cc_node *c = n->child; c; c = c->next)
		cap++;
	if (!cap)
		return 0;
	b->v = malloc(cap * sizeof(*b->v));
	if (!b->v)
		return -ENOMEM;
	for (const struct cc_node *c = n->child; c; c = c->next)
		if (c->total >= p->min_period)
			b->v[b->nr++] = c;
	/* Equal weights keep first-seen order, which qsort would not keep. */
	for (size_t i = 1; i < b->nr; i++)
		for (size_t j = i; j > 0 && cmp_heavier(&b->v[j], &b->v[j - 1]) < 0;
		     j--) {
			const struct cc_node *t = b->v[j];

			b->v[j] = b->v[j - 1];
			b->v[j - 1] = t;
		}
	return 0;
}

static void margin(const struct callchain_print *p, int left)
{
	fprintf(p->out, "%*s", MARGIN + left, "");
}

/* The separator line: a pipe in each column whose branch goes on. */
static void graph_line(const struct callchain_print *p, int depth, const bool *pipes,
		       int left)
{
	margin(p, left);
	for (int i = 0; i < depth; i++)
		fputs(pipes[i] ? "|          " : "           ", p->out);
	fputc('\n', p->out);
}

static void frame_line(const struct callchain_print *p, const struct cc_node *n,
		       bool first, int depth, const bool *pipes, int left)
{
	char name[NAME_MAX_SZ];

	margin(p, left);
	for (int i = 0; i < depth; i++) {
		fputc(pipes[i] ? '|' : ' ', p->out);
		if (first && i == depth - 1)
			fprintf(p->out, "--%.2f%%--",
				p->total ? 100.0 * (double)n->total / (double)p->total
					 : 0.0);
		else
			fputs("          ", p->out);
	}
	p->name(&n->frame, name, sizeof(name));
	fprintf(p->out, "%s\n", name);
}

/* The frames of the run starting at @n, one a line. */
static const struct cc_node *print_run(const struct callchain_print *p,
				       const struct cc_node *n, int depth,
				       const bool *pipes, int left)
{
	const struct cc_node *end = run_end(n);

	for (bool first = true;; n = n->child, first = false) {
		frame_line(p, n, first, depth, pipes, left);
		if (n == end)
			return end;
	}
}

/* perf's __callchain__fprintf_graph(): each shown child of @n as a branch. */
static void print_branches(const struct callchain_print *p, const struct cc_node *n,
			   int depth, bool *pipes, int left)
{
	struct branches b;

	if (depth >= MAX_DEPTH || shown_children(n, p, &b))
		return;
	for (size_t i = 0; i < b.nr; i++) {
		const struct cc_node *end;

		graph_line(p, depth, pipes, left);
		/* The last branch of a level draws no pipe below itself. */
		pipes[depth - 1] = i + 1 < b.nr;
		end = print_run(p, b.v[i], depth, pipes, left);
		pipes[depth] = true;
		print_branches(p, end, depth + 1, pipes, left);
		pipes[depth - 1] = true;
	}
	free(b.v);
}

/* The only branch from the root, drawn as "---" and its run. */
static void print_single(const struct callchain_print *p, const struct cc_node *n,
			 bool *pipes)
{
	const struct cc_node *end = run_end(n);
	char name[NAME_MAX_SZ];

	margin(p, 0);
	fputs("|\n", p->out);
	for (bool first = true;; n = n->child, first = false) {
		p->name(&n->frame, name, sizeof(name));
		if (first) {
			margin(p, 0);
			fprintf(p->out, "---%s\n", name);
		} else {
			margin(p, 3);
			fprintf(p->out, "%s\n", name);
		}
		if (n == end)
			break;
	}
	pipes[0] = true;
	print_branches(p, end, 1, pipes, 3);
}

void callchain_print(const struct cc_node *root, const struct callchain_print *p)
{
	bool *pipes = calloc(MAX_DEPTH + 1, sizeof(*pipes));
	struct branches b;

	if (!pipes || shown_children(root, p, &b)) {
		free(pipes);
		return;
	}
	pipes[0] = true;
	/* perf drops the percentage only when it would repeat the row's own. */
	if (b.nr == 1 && b.v[0]->total == root->total)
		print_single(p, b.v[0], pipes);
	else
		print_branches(p, root, 1, pipes, 0);
	if (b.nr)
		fputc('\n', p->out);
	free(b.v);
	free(pipes);
}
