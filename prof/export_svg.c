// SPDX-License-Identifier: GPL-2.0
/*
 * A flame graph as a self-contained SVG: one rectangle per frame of the
 * merged stacks, as wide as its count, with its name and share in a
 * <title> tooltip. No script: any viewer shows it, and it is safe to
 * open from an untrusted profile.
 */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct flame_node {
	char *name;
	int kind;
	uint64_t value;
	struct flame_node **children;
	size_t nr_children;
	size_t alloc_children;
};

static void free_node(struct flame_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nr_children; i++)
		free_node(n->children[i]);
	free(n->children);
	free(n->name);
	free(n);
}

static struct flame_node *new_node(const char *name, int kind)
{
	struct flame_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->name = strdup(name);
	n->kind = kind;
	if (!n->name) {
		free(n);
		return NULL;
	}
	return n;
}

static struct flame_node *child(struct flame_node *parent, const struct folded_frame *f)
{
	struct flame_node *c;

	for (size_t i = 0; i < parent->nr_children; i++) {
		c = parent->children[i];
		if (c->kind == f->kind && !strcmp(c->name, f->name))
			return c;
	}
	if (parent->nr_children == parent->alloc_children) {
		size_t alloc = parent->alloc_children ? parent->alloc_children * 2 : 4;
		struct flame_node **a = realloc(parent->children, alloc * sizeof(*a));

		if (!a)
			return NULL;
		parent->children = a;
		parent->alloc_children = alloc;
	}
	c = new_node(f->name, f->kind);
	if (c)
		parent->children[parent->nr_children++] = c;
	return c;
}

static int add_stack(struct flame_node *root, const struct export_stack *st,
		     uint64_t value, struct folded_frame *frames)
{
	size_t n = export_folded_frames(st, frames, EXPORT_STACK_MAX);
	struct flame_node *at = root;

	root->value += value;
	for (size_t i = 0; i < n; i++) {
		at = child(at, &frames[i]);
		if (!at)
			return -ENOMEM;
		at->value += value;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct flame_node *x = *(struct flame_node *const *)a;
	const struct flame_node *y = *(struct flame_node *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->kind - y->kind;
}

static size_t count_nodes(const struct flame_node *n)
{
	size_t nr = 1;

	for (size_t i = 0; i < n->nr_children; i++)
		nr += count_nodes(n->children[i]);
	return nr;
}

/* Children sorted by name, as flamegraph.pl does, so the picture is deterministic. */
static void place(struct flame_graph *g, struct flame_node *n, int depth, uint64_t start)
{
	if (n->nr_children) /* leaves have no array at all */
		qsort(n->children, n->nr_children, sizeof(*n->children), by_name);
	for (size_t i = 0; i < n->nr_children; i++) {
		struct flame_node *c = n->children[i];

		g->rects[g->nr++] = (struct flame_rect){
			.name = c->name,
			.kind = c->kind,
			.depth = depth,
			.start = start,
			.value = c->value,
		};
		if (depth > g->max_depth)
			g->max_depth = depth;
		place(g, c, depth + 1, start);
		start += c->value;
	}
}

int flame_graph_build(const struct export_profile *p, bool period, struct flame_graph *g)
{
	struct folded_frame *frames = malloc(EXPORT_STACK_MAX * sizeof(*frames));
	struct flame_node *root = new_node("all", EXPORT_KIND_ROOT_HOST);
	int ret = frames && root ? 0 : -ENOMEM;

	memset(g, 0, sizeof(*g));
	for (size_t i = 0; !ret && i < p->nr; i++)
		ret = add_stack(root, p->stacks[i],
				period ? p->stacks[i]->period : p->stacks[i]->count,
				frames);
	free(frames);
	if (!ret) {
		g->rects = calloc(count_nodes(root), sizeof(*g->rects));
		ret = g->rects ? 0 : -ENOMEM;
	}
	if (ret) {
		free_node(root);
		free(g->rects);
		memset(g, 0, sizeof(*g));
		return ret;
	}
	g->tree = root;
	g->total = root->value;
	place(g, root, 0, 0);
	return 0;
}

void flame_graph_release(struct flame_graph *g)
{
	free_node(g->tree);
	free(g->rects);
	memset(g, 0, sizeof(*g));
}

#define SVG_WIDTH	 1200
#define SVG_MARGIN	 10
#define FRAME_HEIGHT	 16
#define TITLE_HEIGHT	 40
#define LABEL_CHAR_WIDTH 6.6 /* of 11px monospace-ish text, to fit labels */
#define MIN_WIDTH	 0.1 /* narrower frames are left out: too small to see */

/* Hue by frame kind, shade by name: the same frame has the same color in every graph. */
static void color(const struct flame_rect *r, char *buf, size_t size)
{
	static const int base[][3] = {
		[LEVEL_KERNEL] = {230, 140, 40},       /* host kernel: orange */
		[LEVEL_USER] = {225, 80, 60},	       /* host user: red */
		[LEVEL_GUEST_KERNEL] = {70, 130, 220}, /* guest kernel: blue */
		[LEVEL_GUEST_USER] = {60, 190, 170},   /* guest user: aqua */
		[LEVEL_HYPERVISOR] = {160, 100, 200},  /* hypervisor: purple */
		[EXPORT_KIND_ROOT_HOST] = {170, 170, 170},
		[EXPORT_KIND_ROOT_GUEST] = {140, 150, 190},
	};
	int v = (int)(hash_bytes(r->name, strlen(r->name)) % 40) - 20;
	const int *c = base[r->kind];

	snprintf(buf, size, "rgb(%d,%d,%d)", c[0] + v / 2, c[1] + v, c[2] + v / 2);
}

static void xml_text(const char *s, size_t max, FILE *out)
{
	for (size_t i = 0; s[i] && i < max; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(s[i], out);
		}
	}
}

/* How many bytes of @s fit in @chars characters, whole UTF-8 characters only. */
static size_t fit(const char *s, size_t chars)
{
	size_t at = 0;

	while (s[at] && chars--) {
		size_t n = sanitize_char_len(s + at);

		at += n ? n : 1;
	}
	return at;
}

static void rect(const struct flame_graph *g, const struct flame_rect *r, double scale,
		 double height, FILE *out)
{
	double x = SVG_MARGIN + (double)r->start * scale, w = (double)r->value * scale;
	double y = height - SVG_MARGIN - (r->depth + 1) * FRAME_HEIGHT;
	size_t chars = w > 3 * LABEL_CHAR_WIDTH ? (size_t)(w / LABEL_CHAR_WIDTH) - 1 : 0;
	char fill[32];

	color(r, fill, sizeof(fill));
	fputs("<g><title>", out);
	xml_text(r->name, SIZE_MAX, out);
	fprintf(out, " (%" PRIu64 ", %.2f%%)</title>", r->value,
		100.0 * (double)r->value / (double)g->total);
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\"/>",
		x, y, w, FRAME_HEIGHT - 1, fill);
	if (chars) {
		size_t n = fit(r->name, chars);

		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + 11.5);
		xml_text(r->name, n, out);
		fputs(r->name[n] ? ".." : "", out);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

int export_write_svg(const struct flame_graph *g, const char *title, FILE *out)
{
	double height = TITLE_HEIGHT + (g->max_depth + 1) * FRAME_HEIGHT + 2 * SVG_MARGIN;
	double scale = g->total ? (SVG_WIDTH - 2.0 * SVG_MARGIN) / (double)g->total : 0;

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\">\n"
		"<style>text { font-family: monospace; font-size: 11px; fill: #000; }\n"
		"text.title { font-size: 17px; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
		"fill=\"#f8f8f0\"/>\n"
		"<text class=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
		SVG_WIDTH, height, SVG_WIDTH, height, SVG_WIDTH / 2);
	xml_text(title, SIZE_MAX, out);
	fputs("</text>\n", out);
	for (size_t i = 0; i < g->nr; i++)
		if ((double)g->rects[i].value * scale >= MIN_WIDTH)
			rect(g, &g->rects[i], scale, height, out);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
