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

#endif
