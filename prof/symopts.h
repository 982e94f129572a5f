/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbol options that report, export and diff share (--kallsyms, -k,
 * --guestmount, ...): their getopt_long entries, their parser and their
 * --help lines, so that the commands resolve samples alike and say so
 * alike.
 */
#ifndef KVMPROF_SYMOPTS_H
#define KVMPROF_SYMOPTS_H

#include <getopt.h>
#include <stdio.h>

#include "session.h"

/* getopt_long values of the shared options: above every command's own. */
enum {
	SYMOPT_VMLINUX = 'k',
	SYMOPT_KALLSYMS = 0x1000,
	SYMOPT_GUESTMOUNT,
	SYMOPT_GUESTKALLSYMS,
	SYMOPT_GUESTVMLINUX,
	SYMOPT_GUESTMODULES,
	SYMOPT_GUESTSLIDE,
};

/* The short options the shared ones add to a command's getopt string. */
#define SYMOPTS_SHORT "k:"
/* The synopsis lines, indented by @indent spaces. */
void symopts_synopsis(FILE *out, int indent);
/* The option lines of --help. */
void symopts_help(FILE *out);

/*
 * @own (ending with a zeroed entry) followed by the shared options, in
 * @out of @size entries, zero-terminated. -ENOSPC when it does not fit.
 */
int symopts_longopts(const struct option *own, struct option *out, size_t size);

/*
 * Take getopt_long's @c with @arg when it is a shared option: 1 when taken,
 * 0 when not one, -EINVAL for a bad value.
 */
int symopts_parse(struct symbol_opts *o, int c, const char *arg);

/* A command's own option @c with its argument @arg: 0, or -EINVAL for a bad value. */
typedef int (*command_option_fn)(void *opts, int c, const char *arg);

/*
 * Parse @argv with getopt_long over @own (zero-terminated, with "help")
 * and the shared options, into @sym and, through @take, the command's
 * own: -h/--help prints @usage to stdout and exits 0; an unknown option
 * or a bad value prints "kvmprof CMD: ..." and @usage to stderr and
 * returns -EINVAL. An optional argument may also be the next word when
 * that is no option ("--folded FILE"), so a command with an optional
 * argument takes no operands. Operands are left from optind on.
 */
int symopts_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
		   const struct option *own, struct symbol_opts *sym,
		   command_option_fn take, void *opts, void (*usage)(FILE *out));

#endif
