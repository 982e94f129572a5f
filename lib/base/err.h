/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Explicit errors: every fallible function returns a negative errno and, when
 * the caller passes a struct kp_err, a message that names the input and the
 * problem, ready to show to the user at the program boundary.
 */
#ifndef KVMPROF_ERR_H
#define KVMPROF_ERR_H

#include <stddef.h>
#include <stdio.h>

struct kp_err {
	int code;      /* positive errno of the first error recorded */
	char msg[512]; /* "what: problem", empty when no error */
};

/*
 * Record an error and return -code. The first error wins: callers that add
 * context use kp_err_prefix() instead of overwriting the original cause.
 */
int kp_errorf(struct kp_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Prepend "context: " to the recorded message. It returns nothing: the
 * caller returns its own error code, which holds without an @err too.
 */
void kp_err_prefix(struct kp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void kp_err_clear(struct kp_err *err);

/*
 * Print "@who: message" and a newline to @out, made safe for a terminal:
 * messages quote file names and strings read from files and guests.
 */
void kp_err_print(FILE *out, const char *who, const struct kp_err *err);

#endif
