// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof symbols FILE [--slide=HEX] [--lookup ADDR...]
 *
 * Print any supported kernel file's symbol table in /proc/kallsyms format
 * (nm for kernels), or resolve addresses against it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "ksym/ksym.h"
#include "base/base.h"

struct symbols_opts {
	const char *file;
	int64_t slide;
	const char *anchor; /* NAME=RUNTIME_ADDR to derive the slide */
	bool info;
	char **lookups;
	int nr_lookups;
};

static void symbols_usage(FILE *out)
{
	fprintf(out,
		"usage: kvmprof symbols FILE [--slide=HEX | --anchor=SYM=ADDR] [--info]\n"
		"                        [--lookup ADDR...]\n\n"
		"FILE is /proc/kallsyms text, a System.map, an ELF vmlinux, a kernel "
		"module\n"
		"(.ko, .ko.xz, .ko.zst, .ko.gz) or a compressed kernel image (vmlinuz).\n"
		"Without --lookup the table is printed in kallsyms format, at runtime\n"
		"addresses when a slide is given.\n\n"
		"  -s, --slide=HEX        KASLR slide to add to every address\n"
		"  -a, --anchor=SYM=ADDR  the slide that puts symbol SYM at runtime "
		"ADDR\n"
		"  -i, --info             the source, symbol count, build-id and text "
		"range\n"
		"  -l, --lookup ADDR...   the symbol and offset of each runtime ADDR\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 16);
	return errno || end == s || *end ? -EINVAL : 0;
}

static int parse_slide(const char *s, int64_t *slide)
{
	bool neg = s[0] == '-';
	uint64_t v;

	if (parse_u64(s + neg, &v))
		return -EINVAL;
	*slide = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct symbols_opts *o)
{
	static const struct option longopts[] = {
		{"slide", required_argument, NULL, 's'},
		{"anchor", required_argument, NULL, 'a'},
		{"lookup", no_argument, NULL, 'l'},
		{"info", no_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	bool lookup = false;
	int c;

	while ((c = getopt_long(argc, argv, "s:a:lih", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_slide(optarg, &o->slide)) {
				fprintf(stderr, "kvmprof symbols: bad --slide '%s'\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'a':
			o->anchor = optarg;
			break;
		case 'l':
			lookup = true;
			break;
		case 'i':
			o->info = true;
			break;
		case 'h':
			symbols_usage(stdout);
			exit(0);
		default:
			symbols_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind >= argc) {
		symbols_usage(stderr);
		return -EINVAL;
	}
	o->file = argv[optind++];
	/* Addresses may follow --lookup or come after FILE. */
	if (lookup) {
		o->lookups = argv + optind;
		o->nr_lookups = argc - optind;
	} else if (optind < argc) {
		fprintf(stderr, "kvmprof symbols: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* The slide at which @anchor (SYMBOL=RUNTIME_ADDR) puts @st's symbol, into *slide. */
static int anchor_slide(const struct symtab *st, const char *anchor, int64_t *slide)
{
	char name[256];
	const char *eq = strrchr(anchor, '=');
	struct kp_err err = {0};
	uint64_t runtime;

	if (!eq || eq == anchor || (size_t)(eq - anchor) >= sizeof(name) ||
	    parse_u64(eq + 1, &runtime)) {
		fprintf(stderr,
			"kvmprof symbols: --anchor wants SYMBOL=HEXADDR, not '%s'\n",
			anchor);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(eq - anchor), anchor);
	if (symtab_slide_from_anchor(st, name, runtime, slide, &err)) {
		kp_err_print(stderr, "kvmprof symbols", &err);
		return -EINVAL;
	}
	return 0;
}

static void print_info(const struct symtab *st, int64_t slide, FILE *out)
{
	char hex[2 * KP_BUILD_ID_MAX + 1] = "-", source[sizeof(st->source)];

	if (st->build_id_len)
		buildid_to_hex(st->build_id, st->build_id_len, hex);
	sanitize(st->source, source, sizeof(source));
	fprintf(out, "source: %s\nsymbols: %zu\nbuild-id: %s\n", source, st->nr, hex);
	fprintf(out, "text: %#" PRIx64 "-%#" PRIx64 "\nslide: 0x%" PRIx64 "\n",
		st->text_start, st->text_end, (uint64_t)slide);
}

/* A symbol's type letter: a kernel image's kallsyms table may hold any byte. */
static char type_char(char type)
{
	return type > ' ' && type < 0x7f ? type : '?';
}

/* The table in kallsyms format, names made safe for a terminal. */
static int print_table(const struct symtab *st, int64_t slide)
{
	char name[1024], mod[128];

	if (symtab_check(st)) {
		sanitize(st->source, name, sizeof(name));
		fprintf(stderr,
			"kvmprof symbols: %s: the symbol cache's table of it is "
			"damaged; the entry is removed, run again\n",
			name);
		return -EINVAL;
	}
	for (size_t i = 0; i < st->nr; i++) {
		const struct ksym *s = &st->syms[i];

		sanitize(s->name, name, sizeof(name));
		if (s->module) {
			sanitize(s->module, mod, sizeof(mod));
			printf("%016" PRIx64 " %c %s\t[%s]\n", s->addr + (uint64_t)slide,
			       type_char(s->type), name, mod);
		} else {
			printf("%016" PRIx64 " %c %s\n", s->addr + (uint64_t)slide,
			       type_char(s->type), name);
		}
	}
	return ferror(stdout) ? -EIO : 0;
}

static int print_lookups(const struct symtab *st, int64_t slide, char **addrs, int nr)
{
	int bad = 0;

	char name[1024], mod[128];

	for (int i = 0; i < nr; i++) {
		const struct ksym *sym;
		uint64_t addr, off;

		if (parse_u64(addrs[i], &addr)) {
			fprintf(stderr, "kvmprof symbols: bad address '%s'\n", addrs[i]);
			bad = 1;
			continue;
		}
		sym = symtab_lookup(st, addr, slide, &off);
		if (sym) {
			sanitize(sym->name, name, sizeof(name));
			sanitize(sym->module ? sym->module : "", mod, sizeof(mod));
		}
		if (!sym)
			printf("%016" PRIx64 " [unknown]\n", addr);
		else if (sym->module)
			printf("%016" PRIx64 " %s+0x%" PRIx64 " [%s]\n", addr, name, off,
			       mod);
		else
			printf("%016" PRIx64 " %s+0x%" PRIx64 "\n", addr, name, off);
	}
	return bad;
}

int cmd_symbols(int argc, char **argv)
{
	struct symbols_opts o = {0};
	struct kp_err err = {0};
	struct symtab *st;
	int ret;

	if (parse_args(argc, argv, &o))
		return 2;
	if (symsrc_load_file(o.file, SYMSRC_MAX_DEFAULT, &st, NULL, &err)) {
		kp_err_print(stderr, "kvmprof symbols", &err);
		return 1;
	}
	ret = o.anchor ? anchor_slide(st, o.anchor, &o.slide) : 0;
	if (!ret && o.info)
		print_info(st, o.slide, stdout);
	else if (!ret && o.nr_lookups)
		ret = print_lookups(st, o.slide, o.lookups, o.nr_lookups);
	else if (!ret)
		ret = print_table(st, o.slide);
	symtab_free(st);
	if (fflush(stdout) || ret < 0)
		return 1;
	return ret ? 1 : 0;
}
