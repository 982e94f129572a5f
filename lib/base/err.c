// SPDX-License-Identifier: GPL-2.0
#include "err.h"
#include "sanitize.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int kp_errorf(struct kp_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (code < 0)
		code = -code;
	if (!err)
		return -code;
	if (err->code)
		return -err->code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -code;
}

void kp_err_prefix(struct kp_err *err, const char *fmt, ...)
{
	char prefix[256];
	size_t plen, mlen, cap = sizeof(err->msg) - 1;
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix) - 2, fmt, ap);
	va_end(ap);
	strcat(prefix, ": ");
	plen = strlen(prefix);
	mlen = strnlen(err->msg, cap);
	/* Keep the prefix whole; the tail of the old message may be cut. */
	if (plen + mlen > cap)
		mlen = cap - plen;
	memmove(err->msg + plen, err->msg, mlen);
	memcpy(err->msg, prefix, plen);
	err->msg[plen + mlen] = '\0';
}

void kp_err_clear(struct kp_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

void kp_err_print(FILE *out, const char *who, const struct kp_err *err)
{
	char msg[sizeof(err->msg)];

	sanitize(err->msg, msg, sizeof(msg));
	fprintf(out, "%s: %s\n", who, msg);
}
