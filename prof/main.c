// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof: a profiler for KVM hosts that names guest kernel addresses.
 * This file only dispatches to the commands, with what they all share: the
 * symbol cache.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "base/base.h"
#include "base/hugepages.h"
#include "ksym/ksym.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{"record", cmd_record, "sample host and guests into a perf.data file"},
	{"report", cmd_report, "show where the time went, guest functions named"},
	{"diff", cmd_diff, "compare two recordings per symbol, guests matched by name"},
	{"export", cmd_export, "write samples as pprof, folded stacks or a flame graph"},
	{"top", cmd_top, "live view of host and guest functions, as perf kvm top"},
	{"symbols", cmd_symbols, "print or look up any kernel file's symbol table"},
	{"guests", cmd_guests, "list running guests: name, vCPUs, disks, kernel, slide"},
	{"stat", cmd_stat, "count events, host and guest apart; VM exits (stat exits)"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: kvmprof COMMAND [ARGS]\n"
		     "       kvmprof --version\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\nkvmprof COMMAND --help shows a command's options.\n"
		     "\nSymbols decoded from kernel images (vmlinuz) are cached in\n"
		     "$KVMPROF_SYMBOL_CACHE, else $XDG_CACHE_HOME/kvmprof/symbols, else\n"
		     "~/.cache/kvmprof/symbols; KVMPROF_SYMBOL_CACHE= (empty) turns that "
		     "off.\n");
}

/* Said once: a report may load several images, each failing the same way. */
static void cache_warn(const struct kp_err *err)
{
	static bool said;

	if (said)
		return;
	said = true;
	kp_err_print(stderr, "kvmprof: warning: symbol cache not written", err);
}

/* A cache entry whose damage cost answers: removed after the command, and said. */
static void damage_said(const struct kp_err *err)
{
	kp_err_print(stderr, "kvmprof: warning", err);
}

static void use_symbol_cache(void)
{
	char dir[4096];

	if (symcache_default_dir(dir, sizeof(dir)))
		symsrc_set_cache(dir, cache_warn);
}

int main(int argc, char **argv)
{
	kp_reuse_large_frees();
	kp_heap_on_huge_pages();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("%s\n", kp_version_line);
		return 0;
	}
	use_symbol_cache();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			int ret = commands[i].fn(argc - 1, argv + 1);

			symcache_drop_damaged(damage_said);
			return ret;
		}
	fprintf(stderr, "kvmprof: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
