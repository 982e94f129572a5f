// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof guests [--json] [--guestmount DIR] [--guests-conf FILE]
 *                [--guestkallsyms FILE] [--guestvmlinux FILE]
 *
 * The running guests: each QEMU process with its name (by the one matcher
 * that record and guestfs-mount share), vCPU threads, disks, whether
 * guestfs-mount serves it, and its kernel and slide, or why they are
 * unknown. libguestfs appliances (guestfs-mount's own) are left out.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "guest_kernel.h"
#include "guests_print.h"
#include "base/base.h"

#define MAX_VMS 1024

struct guests_opts {
	struct guestsyms_opts sym;
	const char *guests_conf;
	bool json;
};

static void guests_usage(FILE *out)
{
	fprintf(out,
		"usage: kvmprof guests [--json] [--guestmount DIR] [--guests-conf FILE]\n"
		"                      [--guestkallsyms FILE] [--guestvmlinux FILE]\n\n"
		"Lists the running guests: QEMU pid, name, vCPU threads, disks, whether\n"
		"guestfs-mount serves the guest, and its kernel and KASLR slide, or why\n"
		"they are unknown.\n\n"
		"      --json           the same as JSON\n"
		"      --guestmount     guest symbol tree (default " GUEST_MOUNT_DEFAULT
		")\n"
		"      --guests-conf    guest list naming guests by their disks\n"
		"                       (default " GUESTS_CONF_DEFAULT ")\n"
		"      --guestkallsyms  guest kernel symbols, for every guest\n"
		"      --guestvmlinux   guest kernel image, for every guest\n");
}

static int parse_args(int argc, char **argv, struct guests_opts *o)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"guestmount", required_argument, NULL, 'm'},
		{"guests-conf", required_argument, NULL, 'C'},
		{"guestkallsyms", required_argument, NULL, 'K'},
		{"guestvmlinux", required_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'm':
			o->sym.mount = optarg;
			break;
		case 'C':
			o->guests_conf = optarg;
			break;
		case 'K':
			o->sym.kallsyms = optarg;
			break;
		case 'V':
			o->sym.vmlinux = optarg;
			break;
		case 'h':
			guests_usage(stdout);
			exit(0);
		default:
			guests_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "kvmprof guests: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* guests.conf: a missing default is fine, a broken or given one is not. */
static int load_conf(const struct guests_opts *o, struct guest_namer *names)
{
	const char *path = o->guests_conf ? o->guests_conf : GUESTS_CONF_DEFAULT;
	struct kp_err err = {0};
	int ret = guest_namer_load(names, path, o->guests_conf != NULL, &err);

	if (ret)
		kp_err_print(stderr, "kvmprof guests", &err);
	return ret;
}

/* The guest's name, and what gave it. */
static void name_of(pid_t pid, const struct guest_namer *names, struct guest_row *row)
{
	const struct guest_ident *ids = names->idents;
	size_t nr_ids = guest_namer_count(names);
	int idx = guest_match_disk(pid, ids, nr_ids);
	int ret;

	if (idx >= 0) {
		snprintf(row->name, sizeof(row->name), "%s", ids[idx].name);
		row->named_by = "its open disk";
		return;
	}
	ret = guest_namer_name(names, pid, row->name, sizeof(row->name));
	if (!ret)
		row->named_by = guest_match_name(pid, ids, nr_ids) >= 0
					? "its -name, from a trusted account"
					: "its -name (not in guests.conf)";
	else if (ret == -EPERM)
		row->named_by = "nothing: its -name is a configured guest's, but it "
				"runs as an account guests.conf does not trust";
	else
		row->named_by = "nothing: no -name, and no configured disk open";
}

static void describe(const struct guests_opts *o, pid_t pid,
		     const struct guest_namer *names, struct guest_row *row)
{
	const char *mount = o->sym.mount ? o->sym.mount : GUEST_MOUNT_DEFAULT;
	char path[GUESTSYMS_PATH_MAX];
	struct kp_err err = {0};
	struct stat st;

	memset(row, 0, sizeof(*row));
	row->readable = !vmproc_read(pid, &row->vm, &err);
	if (!row->readable)
		snprintf(row->why_unreadable, sizeof(row->why_unreadable), "%s", err.msg);
	name_of(pid, names, row);
	if (row->name[0]) {
		snprintf(path, sizeof(path), "%s/%s", mount, row->name);
		row->served = !stat(path, &st) && S_ISDIR(st.st_mode);
	}
	guest_kernel_find(&o->sym, row->name[0] ? row->name : NULL, pid, &row->kernel);
}

static int list_guests(const struct guests_opts *o)
{
	struct guest_namer names = {0};
	size_t appliances = 0;
	pid_t *pids = calloc(MAX_VMS, sizeof(*pids));
	struct guest_row *rows = NULL;
	int n, ret;

	ret = pids ? load_conf(o, &names) : -ENOMEM;
	n = ret ? ret : vmproc_list_qemus(pids, MAX_VMS, &appliances);
	if (n >= 0)
		rows = calloc(n ? (size_t)n : 1, sizeof(*rows));
	for (int i = 0; rows && i < n; i++)
		describe(o, pids[i], &names, &rows[i]);
	if (rows && o->json)
		guests_print_json(stdout, rows, (size_t)n, o->sym.mount);
	else if (rows)
		guests_print_text(stdout, rows, (size_t)n, appliances, o->sym.mount);
	if (n < 0 && !ret)
		fprintf(stderr, "kvmprof guests: /proc: %s\n", strerror(-n));
	ret = n < 0 ? n : rows ? 0 : -ENOMEM;
	free(rows);
	free(pids);
	guest_namer_release(&names);
	return ret;
}

int cmd_guests(int argc, char **argv)
{
	struct guests_opts o = {0};

	if (parse_args(argc, argv, &o))
		return 2;
	return list_guests(&o) ? 1 : 0;
}
