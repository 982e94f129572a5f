// SPDX-License-Identifier: GPL-2.0
#include "symtab.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/arena.h"
#include "base/hugepages.h"

struct symtab *symtab_new(void)
{
	struct symtab *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->strings = arena_new();
	if (!st->strings) {
		free(st);
		return NULL;
	}
	return st;
}

void symtab_free(struct symtab *st)
{
	if (!st)
		return;
	if (!st->syms_in_map)
		free(st->syms);
	if (!st->index_in_map)
		free(st->addrs); /* best and buckets live in the same block */
	free(st->owned);
	if (st->owned_map)
		munmap(st->owned_map, st->owned_map_len);
	arena_free(st->strings);
	free(st);
}

void symtab_set_source(struct symtab *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->source, sizeof(st->source), fmt, ap);
	va_end(ap);
}

/*
 * A table whose symbols lie in a mapped cache entry is about to change:
 * they move to memory of its own first (the index is rebuilt by
 * symtab_finish()). Names added from here on lie outside the entry, so an
 * unverified table is checked whole first (-EINVAL when damaged).
 */
static int own_syms(struct symtab *st)
{
	struct ksym *syms;

	if (symtab_check(st))
		return -EINVAL;
	st->unverified = false;
	if (!st->syms_in_map)
		return 0;
	syms = kp_alloc_huge((st->nr ? st->nr : 1) * sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	memcpy(syms, st->syms, st->nr * sizeof(*syms));
	st->syms = syms;
	st->alloc = st->nr;
	st->syms_in_map = false;
	return 0;
}

int symtab_reserve(struct symtab *st, size_t nr, size_t name_bytes)
{
	struct ksym *syms;
	int ret = own_syms(st);

	if (ret)
		return ret;
	if (st->nr + nr > st->alloc) {
		/* Written once, read for the table's life: huge pages, one fault each. */
		syms = kp_alloc_huge((st->nr + nr) * sizeof(*syms));
		if (!syms)
			return -ENOMEM;
		if (st->nr)
			memcpy(syms, st->syms, st->nr * sizeof(*syms));
		free(st->syms);
		st->syms = syms;
		st->alloc = st->nr + nr;
	}
	if (name_bytes <= (size_t)(st->name_room_end - st->name_room))
		return 0;
	st->name_room = arena_alloc(st->strings, name_bytes);
	st->name_room_end = st->name_room ? st->name_room + name_bytes : NULL;
	return st->name_room ? 0 : -ENOMEM;
}

static int symtab_grow(struct symtab *st)
{
	size_t alloc = st->alloc ? st->alloc * 2 : 4096;
	struct ksym *syms;
	int ret = own_syms(st);

	if (ret)
		return ret;
	syms = realloc(st->syms, alloc * sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	st->syms = syms;
	st->alloc = alloc;
	return 0;
}

/* Module names repeat for every symbol of a module: keep one copy each. */
static const char *intern_module(struct symtab *st, const char *module)
{
	if (!module)
		return NULL;
	if (st->nr && st->syms[st->nr - 1].module &&
	    !strcmp(st->syms[st->nr - 1].module, module))
		return st->syms[st->nr - 1].module;
	return arena_strndup(st->strings, module, strlen(module));
}

/* In the room reserved for names when it fits (a call less, less memory), else the arena.
 */
static const char *copy_name(struct symtab *st, const char *name, size_t len)
{
	const char *p = symtab_name_in_room(st, name, len);

	return p ? p : arena_strndup(st->strings, name, len);
}

int symtab_add_len(struct symtab *st, uint64_t addr, char type, const char *name,
		   size_t name_len, const char *module)
{
	struct ksym *sym;
	int ret;

	if (st->nr == st->alloc && (ret = symtab_grow(st)))
		return ret;
	st->by_name = NULL;
	sym = &st->syms[st->nr];
	sym->addr = addr;
	sym->size = 0;
	sym->type = type;
	sym->name = copy_name(st, name, name_len);
	sym->module = intern_module(st, module);
	if (!sym->name || (module && !sym->module))
		return -ENOMEM;
	symtab_note_order(st, addr);
	st->nr++;
	st->sorted = false;
	return 0;
}

int symtab_add(struct symtab *st, uint64_t addr, char type, const char *name,
	       const char *module)
{
	return symtab_add_len(st, addr, type, name, strlen(name), module);
}

/* A symbol's place in the sort: its address, and where it was added. */
struct sort_key {
	uint64_t addr;
	size_t at;
};

/* How many leading symbols are in address order: what adding saw, then a look. */
static size_t ordered_prefix(const struct symtab *st)
{
	size_t n = st->in_order < st->nr ? st->in_order : st->nr;

	if (!n && st->nr)
		n = 1;
	while (n < st->nr && st->syms[n - 1].addr <= st->syms[n].addr)
		n++;
	return n;
}

/*
 * One pass of a least-significant-digit radix sort: @from's keys into @to
 * by the byte at @shift, stably (keys with equal bytes keep their order).
 */
static void radix_pass(const struct sort_key *from, struct sort_key *to, size_t n,
		       unsigned int shift)
{
	size_t count[256] = {0}, at = 0;

	for (size_t i = 0; i < n; i++)
		count[(from[i].addr >> shift) & 0xff]++;
	for (size_t b = 0; b < 256; b++) {
		size_t c = count[b];

		count[b] = at;
		at += c;
	}
	for (size_t i = 0; i < n; i++)
		to[count[(from[i].addr >> shift) & 0xff]++] = from[i];
}

/*
 * Sort @n symbols stably into @out. A radix sort, a pass per byte in which
 * the addresses differ (three or four for a module's or a program's
 * symbols): it is stable by construction, so equal addresses keep the
 * order they were added in. glibc's qsort() of the keys was a sixth of a
 * host report's time, sorting its programs' ELF symbols.
 */
static int sort_run(const struct ksym *syms, size_t n, struct ksym *out)
{
	struct sort_key *keys = malloc(2 * (n ? n : 1) * sizeof(*keys)), *tmp;
	uint64_t differ = 0;

	if (!keys)
		return -ENOMEM;
	tmp = keys + (n ? n : 1);
	for (size_t i = 0; i < n; i++) {
		keys[i] = (struct sort_key){syms[i].addr, i};
		differ |= syms[i].addr ^ syms[0].addr;
	}
	for (unsigned int shift = 0; shift < 64; shift += 8) {
		struct sort_key *swap = keys;

		if (!((differ >> shift) & 0xff))
			continue;
		radix_pass(keys, tmp, n, shift);
		keys = tmp;
		tmp = swap;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = syms[keys[i].at];
	free(keys < tmp ? keys : tmp);
	return 0;
}

/*
 * Sort the symbols by address, stably. Most sources add them in order,
 * and a kernel's kallsyms is ordered but for its modules, which come last:
 * only the symbols after the ordered prefix are sorted, then merged into
 * it from the end, which for modules above the kernel moves nothing. A
 * 150k-symbol kernel with 30k symbols of modules sorts 30k, not 180k.
 */
static int sort_syms(struct symtab *st)
{
	size_t p = ordered_prefix(st), m = st->nr - p, i, j, k;
	struct ksym *syms = st->syms, *tail;

	if (!m)
		return 0;
	tail = malloc(m * sizeof(*tail));
	if (!tail || sort_run(syms + p, m, tail)) {
		free(tail);
		return -ENOMEM;
	}
	/* Backwards: on equal addresses the later-added (the tail's) go last. */
	for (i = p, j = m, k = st->nr; j;) {
		if (i && syms[i - 1].addr > tail[j - 1].addr)
			syms[--k] = syms[--i];
		else
			syms[--k] = tail[--j];
	}
	free(tail);
	return 0;
}

const char *const symtab_text_bound_name[SYMTAB_TEXT_BOUNDS] = {"_text", "_stext",
								"_etext"};

void symtab_set_text_range(struct symtab *st, const uint64_t *at[SYMTAB_TEXT_BOUNDS])
{
	const uint64_t *start = at[SYMTAB_TEXT] ? at[SYMTAB_TEXT] : at[SYMTAB_STEXT];

	st->text_start = start ? *start : 0;
	st->text_end = at[SYMTAB_ETEXT] ? *at[SYMTAB_ETEXT] : 0;
	st->text_range_set = true;
}

/* _stext is looked for only without _text: a table with neither is read whole. */
static void find_text_range(struct symtab *st)
{
	const uint64_t *at[SYMTAB_TEXT_BOUNDS] = {NULL};

	for (int i = 0; i < SYMTAB_TEXT_BOUNDS; i++) {
		const struct ksym *s;

		if (i == SYMTAB_STEXT && at[SYMTAB_TEXT])
			continue;
		s = symtab_find(st, symtab_text_bound_name[i]);
		at[i] = s ? &s->addr : NULL;
	}
	symtab_set_text_range(st, at);
}

static bool is_weak(char type)
{
	return type == 'W' || type == 'w' || type == 'V' || type == 'v';
}

static bool is_global(char type)
{
	return !is_weak(type) && type >= 'A' && type <= 'Z';
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * perf's choose_best_symbol(): of two symbols at one address, prefer one with
 * a length, then non-weak, then global, then fewer leading underscores, then
 * the longer name; else keep the first. Returns true to keep @a.
 */
static bool better_alias(const struct ksym *a, uint64_t alen, const struct ksym *b,
			 uint64_t blen)
{
	size_t ua, ub, na, nb;

	if (!alen != !blen)
		return alen != 0;
	if (is_weak(a->type) != is_weak(b->type))
		return !is_weak(a->type);
	if (is_global(a->type) != is_global(b->type))
		return is_global(a->type);
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	na = strlen(a->name);
	nb = strlen(b->name);
	return na >= nb;
}

/*
 * For each distinct address, pick the alias perf report would show, as its
 * symbols__fixup_end() + symbols__fixup_duplicate() do: a symbol without a
 * size from its source only gets a length when it is the last alias (its end
 * is the next address), so among size-less aliases the last one wins.
 */
static uint32_t best_alias(const struct symtab *st, size_t i, size_t j)
{
	uint64_t next = j < st->nr ? st->syms[j].addr - st->syms[i].addr : 0;
	size_t best = i;
	uint64_t best_len = 0;

	for (size_t k = i; k < j; k++) {
		uint64_t len = st->bounded && st->syms[k].size ? st->syms[k].size
							       : (k + 1 == j ? next : 0);

		if (k == i ||
		    !better_alias(&st->syms[best], best_len, &st->syms[k], len)) {
			best = k;
			best_len = len;
		}
	}
	return (uint32_t)best;
}

/*
 * The bucket width: 4 KiB, doubled until there are no more buckets than
 * addresses (plus a few): a kernel's table spans its text and, a gigabyte
 * away, its modules, and the index must stay smaller than the table.
 */
static unsigned int bucket_shift(uint64_t span, size_t nr_addrs)
{
	unsigned int shift = 12;

	while (shift < 63 && (span >> shift) >= nr_addrs + 64)
		shift++;
	return shift;
}

/*
 * The index (addrs, best, buckets) and each symbol's size, in one pass over
 * the sorted symbols: three passes over a guest kernel's 6 MiB of symbols
 * were a sixth of parsing its kallsyms. A size comes from the source where
 * it has one (bounded tables), else it runs to the next address; an
 * address's alias is chosen before its symbols' sizes are set.
 * The three index arrays are one block: a kernel's fits one huge page.
 */
static int index_and_size(struct symtab *st)
{
	/* Copies: the compiler cannot know that writing sizes leaves them alone. */
	const size_t count = st->nr;
	const bool bounded = st->bounded;
	size_t n = 0, nr = count ? count : 1, nb, shift, b = 0;
	uint64_t base = st->nr ? st->syms[0].addr : 0;
	uint64_t span = st->nr ? st->syms[st->nr - 1].addr - base : 0;
	struct ksym *syms = st->syms;
	uint64_t *addrs;
	uint32_t *best, *buckets;

	shift = bucket_shift(span, st->nr);
	nb = (size_t)(span >> shift) + 2;
	addrs = kp_alloc_huge(nr * (sizeof(*addrs) + sizeof(*best)) +
			      nb * sizeof(uint32_t));
	if (!addrs)
		return -ENOMEM;
	best = (uint32_t *)(addrs + nr);
	buckets = best + nr;
	for (size_t i = 0; i < count;) {
		uint64_t addr = syms[i].addr, next, last = (addr - base) >> shift;
		size_t j = i + 1;

		while (j < count && syms[j].addr == addr)
			j++;
		next = j < count ? syms[j].addr - addr : 0;
		if (j == i + 1) { /* most addresses have one name: nothing to choose */
			best[n] = (uint32_t)i;
			if (!bounded || !syms[i].size)
				syms[i].size = ksym_size_cap(next);
		} else {
			best[n] = best_alias(st, i, j);
			for (size_t k = i; k < j; k++)
				if (!bounded || !syms[k].size)
					syms[k].size =
						k + 1 < j ? 0 : ksym_size_cap(next);
		}
		addrs[n] = addr;
		/* Bucket numbers from addresses: a bucket's start (b << shift) can
		 * overflow. */
		while (b <= last)
			buckets[b++] = (uint32_t)n;
		n++;
		i = j;
	}
	while (b < nb)
		buckets[b++] = (uint32_t)n;
	if (!st->index_in_map)
		free(st->addrs);
	st->index_in_map = false;
	st->addrs = addrs;
	st->best = best;
	st->nr_addrs = n;
	st->buckets = buckets;
	st->nr_buckets = n ? nb : 0;
	st->bucket_shift = (unsigned int)shift;
	return 0;
}

int symtab_finish(struct symtab *st)
{
	int ret = own_syms(st);

	if (ret)
		return ret;
	st->by_name = NULL; /* symbols may have come or moved */
	if (sort_syms(st) || index_and_size(st))
		return -ENOMEM;
	st->sorted = true;
	st->in_order = st->nr;
	if (!st->text_range_set)
		find_text_range(st);
	st->text_range_set = false;
	return 0;
}

/* Index of the last element <= key, or -1. Branch-light for speed. */
static ptrdiff_t upper_index(const uint64_t *a, size_t n, uint64_t key)
{
	const uint64_t *base = a;

	if (!n || key < a[0])
		return -1;
	while (n > 1) {
		size_t half = n / 2;

		base = base[half] <= key ? base + half : base;
		n -= half;
	}
	return base - a;
}

/* Damage found: counted where the table's owner looks (st->refused). */
static void refuse(const struct symtab *st)
{
	if (st->refused)
		++*st->refused;
}

/* Is @p one of the table's names? Always, unless the table is unverified. */
static bool name_inside(const struct symtab *st, const char *p)
{
	return !st->unverified ||
	       ((uintptr_t)p >= st->names_lo && (uintptr_t)p < st->names_hi);
}

static bool sym_readable(const struct symtab *st, const struct ksym *s)
{
	if (name_inside(st, s->name) && (!s->module || name_inside(st, s->module)))
		return true;
	refuse(st);
	return false;
}

/* upper_index() over the whole table, through the bucket @link falls in. */
static ptrdiff_t find_index(const struct symtab *st, uint64_t link)
{
	uint64_t b;
	size_t lo, hi;

	if (!st->nr_addrs || link < st->addrs[0])
		return -1;
	b = (link - st->addrs[0]) >> st->bucket_shift;
	if (b + 1 >= st->nr_buckets)
		return (ptrdiff_t)st->nr_addrs - 1;
	lo = st->buckets[b];
	hi = st->buckets[b + 1];
	if (st->unverified && (hi > st->nr_addrs || lo > hi)) {
		refuse(st);
		return -1;
	}
	/* Nothing in the bucket at or below @link: the answer is just before it. */
	if (lo == hi || st->addrs[lo] > link)
		return (ptrdiff_t)lo - 1;
	return (ptrdiff_t)lo + upper_index(st->addrs + lo, hi - lo, link);
}

const struct ksym *symtab_lookup(const struct symtab *st, uint64_t addr, int64_t slide,
				 uint64_t *offset)
{
	uint64_t link = addr - (uint64_t)slide;
	ptrdiff_t i = find_index(st, link);
	const struct ksym *sym;

	if (i < 0)
		return NULL;
	if (st->unverified && st->best[i] >= st->nr) {
		refuse(st);
		return NULL;
	}
	sym = &st->syms[st->best[i]];
	if (!sym_readable(st, sym))
		return NULL;
	if (st->bounded && sym->size && link - sym->addr >= sym->size)
		return NULL;
	if (offset)
		*offset = link - sym->addr;
	return sym;
}

bool symtab_in_text(const struct symtab *st, uint64_t addr)
{
	return st->text_start && st->text_end && addr >= st->text_start &&
	       addr < st->text_end;
}

const struct ksym *symtab_lookup_text(const struct symtab *st, uint64_t addr,
				      int64_t slide, uint64_t *offset)
{
	if (!symtab_in_text(st, addr - (uint64_t)slide))
		return NULL;
	return symtab_lookup(st, addr, slide, offset);
}

/*
 * A kernel's anchors (entry_SYSCALL_64, _etext) lie a hundred thousand
 * symbols in: the first byte is compared here, so that strcmp() is called
 * for a few thousand names instead of every one.
 */
static bool same_name(const char *a, const char *b)
{
	return a[0] == b[0] && !strcmp(a, b);
}

/* The symbol at position @i of the order by name; NULL where an entry is damaged. */
static const struct ksym *by_name_at(const struct symtab *st, size_t i)
{
	uint32_t k = st->by_name[i];

	if (st->unverified && k >= st->nr) {
		refuse(st);
		return NULL;
	}
	return sym_readable(st, &st->syms[k]) ? &st->syms[k] : NULL;
}

/* The first position in st->by_name whose name is not below @name, or SIZE_MAX. */
static size_t by_name_lower(const struct symtab *st, const char *name)
{
	size_t lo = 0, hi = st->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ksym *s = by_name_at(st, mid);

		if (!s)
			return SIZE_MAX;
		if (strcmp(s->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Of the symbols named @name, by index, the first of the core kernel. */
static const struct ksym *find_by_name(const struct symtab *st, const char *name)
{
	const struct ksym *s;

	for (size_t i = by_name_lower(st, name);
	     i < st->nr && (s = by_name_at(st, i)) && !strcmp(s->name, name); i++)
		if (!s->module)
			return s;
	return NULL;
}

const struct ksym *symtab_find(const struct symtab *st, const char *name)
{
	const struct ksym *found = st->by_name ? find_by_name(st, name) : NULL;

	/* Not there, or an order that a damaged entry spoiled: read them all. */
	if (found)
		return found;
	for (size_t i = 0; i < st->nr; i++)
		if (!st->syms[i].module && sym_readable(st, &st->syms[i]) &&
		    same_name(st->syms[i].name, name))
			return &st->syms[i];
	return NULL;
}

bool symtab_module_starts(const struct symtab *st, size_t i)
{
	return st->syms[i].module && (!i || st->syms[i].module != st->syms[i - 1].module);
}

size_t symtab_names_size(const struct symtab *st)
{
	size_t n = 0;

	for (size_t i = 0; i < st->nr; i++)
		n += strlen(st->syms[i].name) + 1 +
		     (symtab_module_starts(st, i) ? strlen(st->syms[i].module) + 1 : 0);
	return n;
}

static int by_name_cmp(const void *a, const void *b, void *arg)
{
	const struct ksym *syms = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(syms[x].name, syms[y].name);

	return c ? c : (x > y) - (x < y);
}

void symtab_order_by_name(const struct symtab *st, uint32_t *order)
{
	for (size_t i = 0; i < st->nr; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, st->nr, sizeof(*order), by_name_cmp, st->syms);
}

const struct ksym *symtab_find_any(const struct symtab *st, const char *name)
{
	for (size_t i = 0; i < st->nr; i++)
		if (sym_readable(st, &st->syms[i]) && same_name(st->syms[i].name, name))
			return &st->syms[i];
	return NULL;
}

/* The order by name only steers symtab_find(): its indexes are checked, not its order. */
static bool index_sane(const struct symtab *st)
{
	if (st->nr && !st->nr_addrs)
		return false;
	for (size_t i = 0; st->by_name && i < st->nr; i++)
		if (st->by_name[i] >= st->nr)
			return false;
	for (size_t i = 0; i < st->nr_addrs; i++)
		if ((i && st->addrs[i] <= st->addrs[i - 1]) || st->best[i] >= st->nr ||
		    st->syms[st->best[i]].addr != st->addrs[i])
			return false;
	for (size_t b = 0; b < st->nr_buckets; b++)
		if (st->buckets[b] > st->nr_addrs ||
		    (b && st->buckets[b] < st->buckets[b - 1]))
			return false;
	return true;
}

int symtab_check(const struct symtab *st)
{
	if (!st->unverified)
		return 0;
	for (size_t i = 0; i < st->nr; i++)
		if (!sym_readable(st, &st->syms[i]))
			return -EINVAL;
	if (index_sane(st) && ordered_prefix(st) == st->nr)
		return 0;
	refuse(st);
	return -EINVAL;
}

/*
 * The anchor where a table of runtime addresses (a running kernel's
 * kallsyms) has it, found by address: searching 100k names for it was 3%
 * of a report that parses such a table. NULL when that is not it.
 */
static const struct ksym *anchor_in_place(const struct symtab *st, const char *name,
					  uint64_t runtime)
{
	uint64_t offset;
	const struct ksym *sym = symtab_lookup(st, runtime, 0, &offset);

	return sym && !offset && !sym->module && !strcmp(sym->name, name) ? sym : NULL;
}

int symtab_slide_from_anchor(const struct symtab *st, const char *name, uint64_t runtime,
			     int64_t *slide, struct kp_err *err)
{
	const struct ksym *sym = anchor_in_place(st, name, runtime);
	int64_t s;

	if (!sym)
		sym = symtab_find(st, name);

	if (!sym)
		return kp_errorf(err, ENOENT, "%s: anchor symbol %s not found",
				 st->source[0] ? st->source : "symbol table", name);
	s = (int64_t)(runtime - sym->addr);
	if ((uint64_t)s % KP_SLIDE_ALIGN)
		return kp_errorf(
			err, EINVAL,
			"%s: slide %#llx from %s@%#llx is not a multiple of 2 MiB",
			st->source[0] ? st->source : "symbol table",
			(unsigned long long)s, name, (unsigned long long)runtime);
	*slide = s;
	return 0;
}
