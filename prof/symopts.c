// SPDX-License-Identifier: GPL-2.0
#include "symopts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct option symbol_longopts[] = {
	{"vmlinux", required_argument, NULL, SYMOPT_VMLINUX},
	{"kallsyms", required_argument, NULL, SYMOPT_KALLSYMS},
	{"guestmount", required_argument, NULL, SYMOPT_GUESTMOUNT},
	{"guestkallsyms", required_argument, NULL, SYMOPT_GUESTKALLSYMS},
	{"guestvmlinux", required_argument, NULL, SYMOPT_GUESTVMLINUX},
	{"guestmodules", required_argument, NULL, SYMOPT_GUESTMODULES},
	{"guest-slide", required_argument, NULL, SYMOPT_GUESTSLIDE},
};

#define NR_SYMBOL_LONGOPTS (sizeof(symbol_longopts) / sizeof(symbol_longopts[0]))

void symopts_synopsis(FILE *out, int indent)
{
	fprintf(out,
		"%*s[--kallsyms FILE] [-k VMLINUX] [--guestmount DIR]\n"
		"%*s[--guestkallsyms FILE] [--guestvmlinux FILE]\n"
		"%*s[--guestmodules FILE] [--guest-slide HEX]\n",
		indent, "", indent, "", indent, "");
}

void symopts_help(FILE *out)
{
	fprintf(out,
		"      --kallsyms     host kernel symbols (default: the file's embedded "
		"ones,\n"
		"                     else /proc/kallsyms of the same running kernel)\n"
		"  -k, --vmlinux      host kernel image or vmlinux, before --kallsyms\n"
		"      --guestmount   guest symbol tree: DIR/<name>/kallsyms "
		"(guestfs-mount)\n"
		"                     or perf's DIR/<qemu-pid>/proc/kallsyms (default "
		"%s)\n"
		"      --guestkallsyms  guest kernel symbols, for every guest\n"
		"      --guestvmlinux   guest kernel image or vmlinux, for every guest\n"
		"      --guestmodules   guest /proc/modules list, for every guest\n"
		"      --guest-slide  KASLR slide of the guest kernel, overriding every "
		"other\n"
		"                     source\n",
		GUEST_MOUNT_DEFAULT);
}

int symopts_longopts(const struct option *own, struct option *out, size_t size)
{
	size_t n = 0;

	for (; own[n].name; n++) {
		if (n + 1 >= size)
			return -ENOSPC;
		out[n] = own[n];
	}
	if (n + NR_SYMBOL_LONGOPTS + 1 > size)
		return -ENOSPC;
	for (size_t i = 0; i < NR_SYMBOL_LONGOPTS; i++)
		out[n++] = symbol_longopts[i];
	out[n] = (struct option){0};
	return 0;
}

static int parse_slide(const char *s, int64_t *slide)
{
	bool neg = s[0] == '-';
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s + neg, &end, 16);
	if (errno || end == s + neg || *end)
		return -EINVAL;
	*slide = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int symopts_parse(struct symbol_opts *o, int c, const char *arg)
{
	switch (c) {
	case SYMOPT_VMLINUX:
		o->vmlinux = arg;
		return 1;
	case SYMOPT_KALLSYMS:
		o->kallsyms = arg;
		return 1;
	case SYMOPT_GUESTMOUNT:
		o->guestmount = arg;
		return 1;
	case SYMOPT_GUESTKALLSYMS:
		o->guestkallsyms = arg;
		return 1;
	case SYMOPT_GUESTVMLINUX:
		o->guestvmlinux = arg;
		return 1;
	case SYMOPT_GUESTMODULES:
		o->guestmodules = arg;
		return 1;
	case SYMOPT_GUESTSLIDE:
		if (parse_slide(arg, &o->guest_slide))
			return -EINVAL;
		o->has_guest_slide = true;
		return 1;
	default:
		return 0;
	}
}

static bool optional_argument_of(const struct option *longopts, int c)
{
	for (; longopts->name; longopts++)
		if (longopts->val == c)
			return longopts->has_arg == optional_argument;
	return false;
}

/* "--opt WORD" as well as "--opt=WORD" for an optional argument. */
static const char *argument(const struct option *longopts, int c, int argc, char **argv)
{
	if (optarg || !optional_argument_of(longopts, c) || optind >= argc ||
	    argv[optind][0] == '-')
		return optarg;
	return argv[optind++];
}

static int take_option(const char *cmd, struct symbol_opts *sym, command_option_fn take,
		       void *opts, int c, const char *arg)
{
	int ret = symopts_parse(sym, c, arg);

	if (!ret)
		ret = take(opts, c, arg);
	if (ret < 0)
		fprintf(stderr, "kvmprof %s: bad value '%s'\n", cmd, arg ? arg : "");
	return ret < 0 ? ret : 0;
}

int symopts_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
		   const struct option *own, struct symbol_opts *sym,
		   command_option_fn take, void *opts, void (*usage)(FILE *out))
{
	struct option longopts[32];
	char shorts[64];
	int c;

	if (symopts_longopts(own, longopts, 32) ||
	    (size_t)snprintf(shorts, sizeof(shorts), "%s%s", shortopts, SYMOPTS_SHORT) >=
		    sizeof(shorts))
		return -EINVAL;
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == '?' || take_option(cmd, sym, take, opts, c,
					    argument(longopts, c, argc, argv))) {
			usage(stderr);
			return -EINVAL;
		}
	}
	return 0;
}
