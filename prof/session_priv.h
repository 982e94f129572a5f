/* SPDX-License-Identifier: GPL-2.0 */
/* Between session.c (the model update) and session_live.c (live feeding). */
#ifndef KVMPROF_SESSION_PRIV_H
#define KVMPROF_SESSION_PRIV_H

#include "session.h"

/* Everything but the records' source: machines, histograms, the queue. */
int session_init(struct session *s, struct pd_file *f, const char *sort,
		 const struct symbol_opts *sopts, struct kp_err *err);

/* The ordered-events callback: one record, in time order, into the model. */
int session_deliver(void *ctx, const struct ordered_event *e, struct kp_err *err);

/* The report level (LEVEL_*) of a record's cpumode. */
int session_level_of(uint16_t misc);

/*
 * Resolve address @ip of process @pid at @k->level in machine @m (the host
 * or a guest), as a sample there is: sym, dso and addr set in @k.
 */
void session_resolve(struct session *s, struct machine *m, uint32_t pid, uint64_t ip,
		     struct hist_key *k);

/*
 * Sample @ps's frames, resolved: @self (its own key) first, then its
 * callers' from its call chain, in @frames (the session's; valid until the
 * next sample). Their number, or -ENOMEM.
 */
int session_sample_frames(struct session *s, const struct pd_sample *ps,
			  const struct hist_key *self, const struct hist_key **frames);

/*
 * Sample @ps, whose own row @row of @h has key @self: its chain's frames
 * resolved, counted in their rows' Children (s->chains.children), and its
 * paths added to their trees (s->chains.graph). 0 or -ENOMEM.
 */
int session_add_chain(struct session *s, struct hists *h, const struct pd_sample *ps,
		      const struct hist_key *self, struct hist_entry *row);

#endif
