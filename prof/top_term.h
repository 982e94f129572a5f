/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The terminal of interactive kvmprof top: the alternate screen, raw mode
 * (termios, plain ANSI escapes), its size, keys, and putting it back as it
 * was on every way out: q, a signal, an error, exit().
 */
#ifndef KVMPROF_TOP_TERM_H
#define KVMPROF_TOP_TERM_H

#include <stdbool.h>
#include <stddef.h>

/* Enter raw mode on the alternate screen; -errno when stdin is no terminal. */
int top_term_enter(void);
/* Back to the saved mode and the normal screen; safe to call twice. */
void top_term_restore(void);
/* The screen's size; 80x24 when it cannot be asked. */
void top_term_size(int *width, int *height);
/* Draw @len bytes of lines from the top left, clearing what they leave. */
void top_term_draw(const char *text, size_t len);
/* A key pressed within @timeout_ms, or -1. */
int top_term_key(int timeout_ms);

#endif
