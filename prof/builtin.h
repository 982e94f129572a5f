/* SPDX-License-Identifier: GPL-2.0 */
/* The kvmprof commands, one builtin-style file each. */
#ifndef KVMPROF_BUILTIN_H
#define KVMPROF_BUILTIN_H

int cmd_symbols(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_guests(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_stat(int argc, char **argv);
/* kvmprof stat exits ...: argv[0] is "exits". */
int cmd_stat_exits(int argc, char **argv);

#endif
