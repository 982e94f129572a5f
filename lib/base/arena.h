/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bump allocator for strings that live as long as their table: one free
 * for hundreds of thousands of symbol names, and pointers that never move.
 */
#ifndef KVMPROF_ARENA_H
#define KVMPROF_ARENA_H

#include <stddef.h>

struct arena;

struct arena *arena_new(void);
void arena_free(struct arena *a);
/* Copy @len bytes and a terminating NUL; NULL on allocation failure. */
char *arena_strndup(struct arena *a, const char *s, size_t len);
void *arena_alloc(struct arena *a, size_t size);

#endif
