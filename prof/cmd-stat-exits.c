// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof stat exits: where the exits subcommand of kvmprof stat plugs in.
 * This build has no exit counting; it says so and fails.
 */
#include <stdio.h>

#include "builtin.h"

int cmd_stat_exits(int argc, char **argv)
{
	fprintf(stderr, "kvmprof stat exits: not built\n");
	return 2;
}
