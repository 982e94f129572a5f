// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: /proc/kallsyms and System.map text, parsed from memory
 * and read from a file in pieces (the first byte picks their size, from
 * the smallest allowed): both must give the same table or the same error,
 * and the text range noted while parsing must be the one a search finds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ksym/ksym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_table(const struct symtab *a, const struct symtab *b)
{
	if (a->nr != b->nr || a->text_start != b->text_start ||
	    a->text_end != b->text_end)
		return false;
	for (size_t i = 0; i < a->nr; i++) {
		const struct ksym *x = &a->syms[i], *y = &b->syms[i];

		if (x->addr != y->addr || x->type != y->type ||
		    strcmp(x->name, y->name) || !x->module != !y->module ||
		    (x->module && strcmp(x->module, y->module)))
			return false;
	}
	return true;
}

/* The text range the parser noted is the one a search of the finished table finds. */
static bool text_range_found(const struct symtab *st)
{
	const struct ksym *start = symtab_find(st, "_text"),
			  *end = symtab_find(st, "_etext");

	if (!start)
		start = symtab_find(st, "_stext");
	return st->text_start == (start ? start->addr : 0) &&
	       st->text_end == (end ? end->addr : 0);
}

/* The same text through a file, @piece bytes at a time: what kallsyms_parse() said. */
static void check_pieces(const char *text, size_t len, size_t piece, int ret,
			 const struct symtab *st, const struct kp_err *err)
{
	static int fd = -1;
	struct symtab *from_fd = symtab_new();
	struct kp_err fd_err = {0};

	if (fd < 0)
		fd = memfd_create("fuzz_kallsyms", 0);
	if (fd < 0 || !from_fd || ftruncate(fd, 0) ||
	    pwrite(fd, text, len, 0) != (ssize_t)len)
		abort();
	if (kallsyms_parse_fd(fd, len, piece, "fuzz", from_fd, &fd_err) != ret ||
	    strcmp(fd_err.msg, err->msg) || (!ret && !same_table(st, from_fd)))
		abort();
	symtab_free(from_fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symtab *st;
	struct kp_err err = {0};
	size_t piece;
	int ret;

	if (size < 1)
		return 0;
	piece = KALLSYMS_PIECE_MIN + (size_t)data[0] * 7;
	data++;
	size--;
	st = symtab_new();
	if (!st)
		return 0;
	ret = kallsyms_parse((const char *)data, size, "fuzz", st, &err);
	if (!ret && !text_range_found(st))
		abort();
	if (!ret)
		symtab_lookup(st, 0xffffffff81000000ULL, 0, NULL);
	check_pieces((const char *)data, size, piece, ret, st, &err);
	symtab_free(st);
	return 0;
}
