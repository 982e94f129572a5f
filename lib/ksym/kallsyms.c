// SPDX-License-Identifier: GPL-2.0
#include "kallsyms.h"

#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KSYM_NAME_MAX 512

/* A hex digit's value with bit 4 set (0x10-0x1f); 0 for any other byte. */
static const uint8_t hex_digit[256] = {
	['0'] = 0x10, ['1'] = 0x11, ['2'] = 0x12, ['3'] = 0x13, ['4'] = 0x14,
	['5'] = 0x15, ['6'] = 0x16, ['7'] = 0x17, ['8'] = 0x18, ['9'] = 0x19,
	['a'] = 0x1a, ['b'] = 0x1b, ['c'] = 0x1c, ['d'] = 0x1d, ['e'] = 0x1e,
	['f'] = 0x1f, ['A'] = 0x1a, ['B'] = 0x1b, ['C'] = 0x1c, ['D'] = 0x1d,
	['E'] = 0x1e, ['F'] = 0x1f,
};

#define BYTES(c) (0x0101010101010101ULL * (c))

/* 0x80 in each byte of @x strictly between @lo and @hi (and below 0x80). */
static uint64_t bytes_between(uint64_t x, unsigned int lo, unsigned int hi)
{
	uint64_t low7 = x & BYTES(0x7f);

	return (BYTES(127 + hi) - low7) & ~x & (low7 + BYTES(127 - lo)) & BYTES(0x80);
}

/*
 * Eight hex digits at @p as a number, or -1 when one is no digit: all
 * eight at once, in a word whose top byte is the first digit.
 */
static inline int64_t hex8(const unsigned char *p)
{
	uint64_t x, digits, letters;

	memcpy(&x, p, sizeof(x));
	x = be64toh(x);
	digits = bytes_between(x, '0' - 1, '9' + 1);
	letters = bytes_between(x | BYTES(0x20), 'a' - 1, 'f' + 1);
	if ((digits | letters) != BYTES(0x80))
		return -1;
	/* A byte's value is its low nibble, plus 9 for a letter (bit 6). */
	x = (x & BYTES(0x0f)) + 9 * (x >> 6 & BYTES(0x01));
	/* Nibble pairs into bytes, byte pairs into 16 bits, then into 32. */
	x = (x | x >> 4) & 0x00ff00ff00ff00ffULL;
	x = (x | x >> 8) & 0x0000ffff0000ffffULL;
	return (int64_t)((x | x >> 16) & 0xffffffffULL);
}

/*
 * Exactly 16 digits, a 64-bit kernel's address width and so nearly every
 * line, in two words: a loop over the digits took a third of the time of
 * loading a guest's kallsyms.
 */
static bool parse_hex16(const unsigned char *p, uint64_t *val)
{
	int64_t hi = hex8(p), lo = hex8(p + 8);

	*val = (uint64_t)hi << 32 | (uint64_t)lo;
	return hi >= 0 && lo >= 0;
}

/* Parse up to 16 hex digits at *p; returns digits consumed (0 on none). */
static size_t parse_hex(const char *p, const char *end, uint64_t *val)
{
	const unsigned char *u = (const unsigned char *)p;
	uint64_t v = 0;
	size_t n = 0;

	if (end - p > 16 && parse_hex16(u, val) && !hex_digit[u[16]])
		return 16;
	while (p + n < end && n < 17 && hex_digit[u[n]]) {
		v = (v << 4) | (hex_digit[u[n]] & 0xf);
		n++;
	}
	*val = v;
	return n > 16 ? 0 : n;
}

bool kallsyms_text_detect(const char *buf, size_t len)
{
	const char *end = buf + len;
	uint64_t addr;
	size_t n = parse_hex(buf, end, &addr);

	return n >= 8 && buf + n + 3 < end && buf[n] == ' ' &&
	       isalpha((unsigned char)buf[n + 1]) && buf[n + 2] == ' ';
}

static bool is_debian_placeholder(const char *name, size_t len)
{
	static const char marker[] = "The real System.map is in";

	return len >= sizeof(marker) - 1 && !memcmp(name, marker, sizeof(marker) - 1);
}

struct kline {
	uint64_t addr;
	char type;
	const char *name;
	size_t name_len;
	char module[64];
};

/* One line "ADDR TYPE NAME[\t[MODULE]]" (without the newline). */
static int parse_line(const char *p, const char *end, struct kline *kl)
{
	const char *name, *tab, *mod, *mod_end;
	size_t n = parse_hex(p, end, &kl->addr);

	if (!n || p + n + 3 > end || p[n] != ' ' || p[n + 2] != ' ')
		return -EINVAL;
	kl->type = p[n + 1];
	if (!isalpha((unsigned char)kl->type) && kl->type != '?')
		return -EINVAL;
	name = p + n + 3;
	tab = memchr(name, '\t', (size_t)(end - name));
	kl->name = name;
	kl->name_len = (size_t)((tab ? tab : end) - name);
	kl->module[0] = '\0';
	if (!kl->name_len || kl->name_len > KSYM_NAME_MAX)
		return -EINVAL;
	if (tab) {
		mod = tab + 1;
		mod_end = end;
		if (mod_end - mod < 3 || mod[0] != '[' || mod_end[-1] != ']' ||
		    (size_t)(mod_end - mod - 2) >= sizeof(kl->module))
			return -EINVAL;
		memcpy(kl->module, mod + 1, (size_t)(mod_end - mod - 2));
		kl->module[mod_end - mod - 2] = '\0';
	}
	return 0;
}

/*
 * What is reserved up front stays within a real table's needs (a kernel
 * with all its modules has under a million symbols, 40 MiB of names),
 * whatever a file of blank or short lines says; past that, growth.
 */
#define KALLSYMS_RESERVE_SYMS  (1UL << 21)
#define KALLSYMS_RESERVE_NAMES (64UL << 20)

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/*
 * A real table's lines are 13 bytes or more ("%08lx T x" and a newline on
 * 32 bits, 21 on 64), so this bounds its symbols without a pass over the
 * text to count them.
 */
#define KALLSYMS_MIN_LINE 13

int kallsyms_parse(const char *buf, size_t len, const char *what, struct symtab *st,
		   struct kp_err *err)
{
	const char *p = buf, *end = buf + len;
	size_t line = 0, nonzero = 0;
	struct kline kl;

	/*
	 * Allocated once, on huge pages: a table's first touch, not its parse,
	 * was most of the time (a fault per 4 KiB). A name with its NUL and
	 * alignment fits in its line when the address has 8 digits or more, so
	 * @len bounds the names of real tables; past it the arena adds blocks.
	 */
	if (symtab_reserve(st,
			   min_size(len / KALLSYMS_MIN_LINE + 1, KALLSYMS_RESERVE_SYMS),
			   min_size(len, KALLSYMS_RESERVE_NAMES)))
		return kp_errorf(err, ENOMEM, "%s: out of memory", what);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		line++;
		if (eol > p && eol[-1] == '\r')
			eol--;
		if (eol == p) {
			p = nl ? nl + 1 : end;
			continue;
		}
		if (parse_line(p, eol, &kl))
			return kp_errorf(err, EINVAL,
					 "%s:%zu: not a kallsyms or System.map line",
					 what, line);
		if (line == 1 && is_debian_placeholder(kl.name, kl.name_len))
			return kp_errorf(
				err, ENODATA,
				"%s: Debian placeholder System.map, no symbols here",
				what);
		if (symtab_add_len(st, kl.addr, kl.type, kl.name, kl.name_len,
				   kl.module[0] ? kl.module : NULL))
			return kp_errorf(err, ENOMEM, "%s: out of memory", what);
		nonzero += kl.addr != 0;
		p = nl ? nl + 1 : end;
	}
	if (!st->nr)
		return kp_errorf(err, ENODATA, "%s: no symbols", what);
	if (!nonzero)
		return kp_errorf(
			err, EPERM,
			"%s: all addresses are zero (kallsyms read without privilege?)",
			what);
	return symtab_finish(st) ? kp_errorf(err, ENOMEM, "%s: out of memory", what) : 0;
}

int kallsyms_write(const struct symtab *st, int64_t slide, FILE *out)
{
	if (symtab_check(st))
		return -EINVAL;
	for (size_t i = 0; i < st->nr; i++) {
		const struct ksym *s = &st->syms[i];
		uint64_t addr = s->addr + (uint64_t)slide;

		if (s->module)
			fprintf(out, "%016llx %c %s\t[%s]\n", (unsigned long long)addr,
				s->type, s->name, s->module);
		else
			fprintf(out, "%016llx %c %s\n", (unsigned long long)addr, s->type,
				s->name);
	}
	return ferror(out) ? -EIO : 0;
}
