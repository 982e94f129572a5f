// SPDX-License-Identifier: GPL-2.0
/* Where a machine's kernel runs: its slide, and which source gave it. */
#include "machine.h"

#include <stdio.h>

#include "ksym/kaslr.h"

static void set_slide(struct machine *m, int64_t slide, const char *source)
{
	m->slide = slide;
	m->slide_known = true;
	snprintf(m->slide_source, sizeof(m->slide_source), "%s", source);
}

void machine_place_kernel(struct machine *m)
{
	const struct ksym *ref;
	struct symtab *st = m->kernel ? m->kernel->symtab : NULL;
	char source[96];

	if (!st || m->slide_known || !m->ref_sym[0])
		return;
	ref = symtab_find(st, m->ref_sym);
	if (!ref)
		return;
	snprintf(source, sizeof(source), "kernel map (%s)", m->ref_sym);
	set_slide(m, (int64_t)(m->ref_runtime - ref->addr), source);
}

/* Steps 1-3: what the user and the file say, before any kernel map. */
static bool place_from_hints(struct machine *m, const struct guest_slide_hints *h)
{
	const char *source = h->recorded_source;
	int64_t slide;

	if (h->forced) {
		set_slide(m, h->forced_slide, "--guest-slide");
		return true;
	}
	if (h->lstar && m->kernel->symtab &&
	    !kaslr_slide_from_lstar(m->kernel->symtab, h->lstar, &slide, NULL)) {
		set_slide(m, slide, "guest context (LSTAR)");
		return true;
	}
	if (h->recorded) {
		set_slide(m, h->recorded_slide,
			  source && source[0] ? source : "recorded");
		return true;
	}
	return false;
}

void machine_place_guest_kernel(struct machine *m, const struct guest_slide_hints *h)
{
	const struct machine *def = h->def;

	if (place_from_hints(m, h))
		return;
	/* perf kvm without --guestmount writes one map, for a default guest. */
	if (!m->ref_sym[0] && def && def != m && def->ref_sym[0]) {
		snprintf(m->ref_sym, sizeof(m->ref_sym), "%s", def->ref_sym);
		m->ref_runtime = def->ref_runtime;
	}
	machine_place_kernel(m);
	if (!m->slide_known && h->runtime_table)
		set_slide(m, 0, "runtime kallsyms");
}
