/* SPDX-License-Identifier: GPL-2.0 */
/* The smaller of two sizes, for bounds computed in one expression. */
#ifndef KVMPROF_MINMAX_H
#define KVMPROF_MINMAX_H

#include <stddef.h>

static inline size_t kp_min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

#endif
