// SPDX-License-Identifier: GPL-2.0
#include "kallsyms.h"

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/minmax.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define KSYM_NAME_MAX 512

/* A hex digit's value with bit 4 set (0x10-0x1f); 0 for any other byte. */
static const uint8_t hex_digit[256] = {
	['0'] = 0x10, ['1'] = 0x11, ['2'] = 0x12, ['3'] = 0x13, ['4'] = 0x14,
	['5'] = 0x15, ['6'] = 0x16, ['7'] = 0x17, ['8'] = 0x18, ['9'] = 0x19,
	['a'] = 0x1a, ['b'] = 0x1b, ['c'] = 0x1c, ['d'] = 0x1d, ['e'] = 0x1e,
	['f'] = 0x1f, ['A'] = 0x1a, ['B'] = 0x1b, ['C'] = 0x1c, ['D'] = 0x1d,
	['E'] = 0x1e, ['F'] = 0x1f,
};

#ifdef __SSE2__
/*
 * Exactly 16 digits, a 64-bit kernel's address width and so nearly every
 * line, checked and converted in one vector: byte by byte, the digits took
 * a third of the time of loading a guest's kallsyms, and eight at a time in
 * a word still a fifth.
 */
static inline bool parse_hex16(const unsigned char *p, uint64_t *val)
{
	__m128i c = _mm_loadu_si128((const __m128i *)p);
	__m128i lower = _mm_or_si128(c, _mm_set1_epi8(0x20));
	/* Signed compares: bytes from 0x80 up are below '0' and 'a'. */
	__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('0' - 1)),
				      _mm_cmplt_epi8(c, _mm_set1_epi8('9' + 1)));
	__m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
				       _mm_cmplt_epi8(lower, _mm_set1_epi8('f' + 1)));
	__m128i nibble, pair;

	if (_mm_movemask_epi8(_mm_or_si128(digit, letter)) != 0xffff)
		return false;
	/* A digit's value is its low nibble, plus 9 for a letter. */
	nibble = _mm_add_epi8(_mm_and_si128(c, _mm_set1_epi8(0x0f)),
			      _mm_andnot_si128(digit, _mm_set1_epi8(9)));
	/* Each 16-bit lane holds two digits, the first in its low byte. */
	pair = _mm_or_si128(_mm_slli_epi16(nibble, 4), _mm_srli_epi16(nibble, 8));
	pair = _mm_packus_epi16(_mm_and_si128(pair, _mm_set1_epi16(0xff)), pair);
	*val = be64toh((uint64_t)_mm_cvtsi128_si64(pair));
	return true;
}
#else
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

/* Exactly 16 digits (see the vector version), in two words. */
static bool parse_hex16(const unsigned char *p, uint64_t *val)
{
	int64_t hi = hex8(p), lo = hex8(p + 8);

	*val = (uint64_t)hi << 32 | (uint64_t)lo;
	return hi >= 0 && lo >= 0;
}
#endif

/* Digit by digit: an address of another width, or near the end. */
static size_t parse_hex_short(const char *p, const char *end, uint64_t *val)
{
	const unsigned char *u = (const unsigned char *)p;
	uint64_t v = 0;
	size_t n = 0;

	while (p + n < end && n < 17 && hex_digit[u[n]]) {
		v = (v << 4) | (hex_digit[u[n]] & 0xf);
		n++;
	}
	*val = v;
	return n > 16 ? 0 : n;
}

/* Parse up to 16 hex digits at *p; returns digits consumed (0 on none). */
static inline size_t parse_hex(const char *p, const char *end, uint64_t *val)
{
	const unsigned char *u = (const unsigned char *)p;

	if (end - p > 16 && parse_hex16(u, val) && !hex_digit[u[16]])
		return 16;
	return parse_hex_short(p, end, val);
}

/* isalpha() in the C locale, without a call per line. */
static bool is_letter(char c)
{
	return (unsigned char)((c | 0x20) - 'a') < 26;
}

bool kallsyms_text_detect(const char *buf, size_t len)
{
	const char *end = buf + len;
	uint64_t addr;
	size_t n = parse_hex(buf, end, &addr);

	return n >= 8 && buf + n + 3 < end && buf[n] == ' ' && is_letter(buf[n + 1]) &&
	       buf[n + 2] == ' ';
}

static bool is_debian_placeholder(const char *name, size_t len)
{
	static const char marker[] = "The real System.map is in";

	return len >= sizeof(marker) - 1 && !memcmp(name, marker, sizeof(marker) - 1);
}

struct kline {
	uint64_t addr;
	size_t digits; /* of the address, read by parse_lines() */
	char type;
	const char *name;
	size_t name_len;
	/* The line holds no tab and no NUL: the name is all of the rest. */
	bool plain;
	char module[64];
};

/*
 * The rest of one line "ADDR TYPE NAME[\t[MODULE]]" (without the newline),
 * whose address is read. Only the name can hold a tab: what comes before
 * it is checked byte by byte.
 */
static int parse_line(const char *p, const char *end, struct kline *kl)
{
	const char *name, *mod, *mod_end, *tab;
	size_t n = kl->digits;

	if (!n || p + n + 3 > end || p[n] != ' ' || p[n + 2] != ' ')
		return -EINVAL;
	kl->type = p[n + 1];
	if (!is_letter(kl->type) && kl->type != '?')
		return -EINVAL;
	name = p + n + 3;
	tab = kl->plain ? NULL : memchr(name, '\t', (size_t)(end - name));
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

/*
 * A real table's lines are 13 bytes or more ("%08lx T x" and a newline on
 * 32 bits, 21 on 64), so this bounds its symbols without a pass over the
 * text to count them.
 */
#define KALLSYMS_MIN_LINE 13

/* Lines parsed so far, across the pieces of a file read a piece at a time. */
struct parser {
	const char *what;
	struct symtab *st;
	bool fresh; /* the table held nothing before */
	size_t line, nonzero;
	/* Kernel (not module) lines of each text bound, and the first's address. */
	unsigned int text_seen[SYMTAB_TEXT_BOUNDS];
	uint64_t text_addr[SYMTAB_TEXT_BOUNDS];
};

/*
 * Note a line naming a bound of the text while it is at hand: finding
 * _etext afterwards reads every name up to it, 100k of them in a guest's
 * table, 3% of a report that parses one.
 */
static void note_text_name(struct parser *ps, const struct kline *kl)
{
	size_t len;

	if (kl->module[0] || kl->name[0] != '_')
		return;
	/*
	 * The table keeps the name up to a NUL in it, if any: compare that. A
	 * third of a kernel's names start with '_'; those longer than every
	 * bound end here.
	 */
	len = kl->plain ? kl->name_len
			: strnlen(kl->name,
				  kp_min_size(kl->name_len, SYMTAB_TEXT_BOUND_MAX + 1));
	if (len > SYMTAB_TEXT_BOUND_MAX)
		return;
	for (int i = 0; i < SYMTAB_TEXT_BOUNDS; i++) {
		const char *bound = symtab_text_bound_name[i];

		if (len == strlen(bound) && !memcmp(kl->name, bound, len) &&
		    !ps->text_seen[i]++)
			ps->text_addr[i] = kl->addr;
	}
}

/*
 * The text range from the noted lines: what symtab_finish() would find,
 * as long as no name came twice (it takes the first in address order) and
 * the table holds only these lines.
 */
static void set_text_range(struct parser *ps)
{
	const uint64_t *at[SYMTAB_TEXT_BOUNDS];

	if (!ps->fresh)
		return;
	for (int i = 0; i < SYMTAB_TEXT_BOUNDS; i++) {
		if (ps->text_seen[i] > 1)
			return;
		at[i] = ps->text_seen[i] ? &ps->text_addr[i] : NULL;
	}
	symtab_set_text_range(ps->st, at);
}

/*
 * Allocated once, on huge pages: a table's first touch, not its parse, was
 * most of the time (a fault per 4 KiB). A name with its NUL and alignment
 * fits in its line when the address has 8 digits or more, so @len bounds
 * the names of real tables; past it the arena adds blocks.
 */
static int reserve(struct parser *ps, uint64_t len, struct kp_err *err)
{
	size_t n = len < SIZE_MAX ? (size_t)len : SIZE_MAX;

	if (symtab_reserve(ps->st,
			   kp_min_size(n / KALLSYMS_MIN_LINE + 1, KALLSYMS_RESERVE_SYMS),
			   kp_min_size(n, KALLSYMS_RESERVE_NAMES)))
		return kp_errorf(err, ENOMEM, "%s: out of memory", ps->what);
	return 0;
}

static int add_line(struct parser *ps, const char *p, const char *eol, struct kline *kl,
		    struct kp_err *err)
{
	if (parse_line(p, eol, kl))
		return kp_errorf(err, EINVAL, "%s:%zu: not a kallsyms or System.map line",
				 ps->what, ps->line);
	if (ps->line == 1 && is_debian_placeholder(kl->name, kl->name_len))
		return kp_errorf(err, ENODATA,
				 "%s: Debian placeholder System.map, no symbols here",
				 ps->what);
	if (kl->module[0]
		    ? symtab_add_len(ps->st, kl->addr, kl->type, kl->name, kl->name_len,
				     kl->module)
		    : symtab_add_core(ps->st, kl->addr, kl->type, kl->name, kl->name_len))
		return kp_errorf(err, ENOMEM, "%s: out of memory", ps->what);
	ps->nonzero += kl->addr != 0;
	note_text_name(ps, kl);
	return 0;
}

/*
 * Where the line at @p stops being plain: its first newline, tab or NUL,
 * or @end. One pass, 16 bytes at a time, where finding the newline and
 * then the tab took two memchr() calls per line.
 */
static const char *plain_end(const char *p, const char *end)
{
#ifdef __SSE2__
	for (; end - p >= 16; p += 16) {
		__m128i c = _mm_loadu_si128((const __m128i *)p);
		int stops = _mm_movemask_epi8(_mm_or_si128(
			_mm_cmpeq_epi8(c, _mm_set1_epi8('\n')),
			_mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('\t')),
				     _mm_cmpeq_epi8(c, _mm_setzero_si128()))));

		if (stops)
			return p + __builtin_ctz((unsigned int)stops);
	}
#endif
	while (p < end && *p != '\n' && *p != '\t' && *p)
		p++;
	return p;
}

/*
 * The lines of [p, end). Unless @last, a line without its newline is left
 * for the next piece: *rest is where it starts (else @end).
 */
static int parse_lines(struct parser *ps, const char *p, const char *end, bool last,
		       const char **rest, struct kp_err *err)
{
	while (p < end) {
		const char *stop, *nl, *eol;
		struct kline kl;
		int ret;

		/* The digits of the address first: no stop among them. */
		kl.digits = parse_hex(p, end, &kl.addr);
		stop = plain_end(p + kl.digits, end);
		kl.plain = stop < end && *stop == '\n';
		nl = kl.plain ? stop : memchr(stop, '\n', (size_t)(end - stop));
		if (!nl && !last)
			break;
		eol = nl ? nl : end;
		ps->line++;
		if (eol > p && eol[-1] == '\r')
			eol--;
		if (eol > p && (ret = add_line(ps, p, eol, &kl, err)))
			return ret;
		p = nl ? nl + 1 : end;
	}
	*rest = p;
	return 0;
}

static int conclude(struct parser *ps, struct kp_err *err)
{
	if (!ps->st->nr)
		return kp_errorf(err, ENODATA, "%s: no symbols", ps->what);
	if (!ps->nonzero)
		return kp_errorf(
			err, EPERM,
			"%s: all addresses are zero (kallsyms read without privilege?)",
			ps->what);
	set_text_range(ps);
	return symtab_finish(ps->st)
		       ? kp_errorf(err, ENOMEM, "%s: out of memory", ps->what)
		       : 0;
}

int kallsyms_parse(const char *buf, size_t len, const char *what, struct symtab *st,
		   struct kp_err *err)
{
	struct parser ps = {.what = what, .st = st, .fresh = !st->nr};
	const char *rest;
	int ret = reserve(&ps, len, err);

	if (!ret)
		ret = parse_lines(&ps, buf, buf + len, true, &rest, err);
	return ret ? ret : conclude(&ps, err);
}

/*
 * Read through one small buffer, not mapped: on these virtual machines the
 * first touch of each mapped page of the file costs more than copying it
 * (a 7 MB kallsyms: 5.5 ms mapped, 2.4 ms read 64 KiB at a time), and a
 * buffer as big as the file costs more still (fresh memory).
 */
#define KALLSYMS_PIECE (64 * 1024)

/* The longest line that parses: 16 digits, " T ", a name, "\t[module]\r". */
_Static_assert(16 + 3 + KSYM_NAME_MAX + 2 + 63 + 2 + 1 <= KALLSYMS_PIECE_MIN,
	       "a piece holds any line that parses");

int kallsyms_parse_fd(int fd, uint64_t size, size_t piece, const char *what,
		      struct symtab *st, struct kp_err *err)
{
	struct parser ps = {.what = what, .st = st, .fresh = !st->nr};
	size_t have = 0;
	uint64_t done = 0;
	char *buf;
	int ret;

	if (!piece)
		piece = KALLSYMS_PIECE;
	if (piece < KALLSYMS_PIECE_MIN)
		return kp_errorf(err, EINVAL, "%s: pieces of %zu bytes are too small",
				 what, piece);
	buf = malloc(piece);
	ret = buf ? reserve(&ps, size, err)
		  : kp_errorf(err, ENOMEM, "%s: out of memory", what);
	while (!ret) {
		size_t want = piece - have;
		ssize_t n = pread(fd, buf + have,
				  size - done < want ? (size_t)(size - done) : want,
				  (off_t)done);
		const char *rest;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = kp_errorf(err, errno, "%s: %s", what, strerror(errno));
			break;
		}
		done += (uint64_t)n;
		have += (size_t)n;
		ret = parse_lines(&ps, buf, buf + have, !n || done == size, &rest, err);
		if (ret || !n || done == size)
			break;
		have = (size_t)(buf + have - rest);
		/* A whole piece without a newline: no kallsyms line is that long. */
		if (have == piece)
			ret = kp_errorf(err, EINVAL,
					"%s:%zu: not a kallsyms or System.map line", what,
					ps.line + 1);
		memmove(buf, rest, have);
	}
	free(buf);
	return ret ? ret : conclude(&ps, err);
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
