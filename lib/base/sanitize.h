/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KVMPROF_SANITIZE_H
#define KVMPROF_SANITIZE_H

#include <stddef.h>

/*
 * Copy @in to @out (at most @size bytes with the NUL), replacing every
 * character that could drive a terminal with '?': symbol, module, command
 * and guest names, and every other string read from a perf.data file or a
 * guest, must not reach the user's terminal as escape sequences.
 *
 * Kept: printable ASCII and well-formed UTF-8 of printable code points.
 * Replaced, one '?' each: C0 controls (tab and newline too: a name is one
 * field on one line), DEL, the C1 controls U+0080..U+009F (a terminal
 * decoding UTF-8 acts on their two-byte encodings 0xC2 0x80..0x9F), and
 * every byte that is not part of well-formed UTF-8 (a raw 0x9b is CSI to a
 * terminal in an 8-bit mode; overlong forms and surrogates are refused
 * too). A character is copied whole or not at all, so truncation never
 * leaves half of one. Returns the length of @out.
 */
size_t sanitize(const char *in, char *out, size_t size);

/*
 * Length in bytes of the printable character at @s (1 to 4), or 0 when the
 * bytes at @s are a control character or not well-formed UTF-8: what
 * sanitize() keeps, for writers that escape rather than replace.
 */
size_t sanitize_char_len(const char *s);

#endif
