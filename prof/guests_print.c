// SPDX-License-Identifier: GPL-2.0
/*
 * Every string printed here comes from a process that anyone may have
 * started, or from a guest: each goes through sanitize() first, and JSON
 * strings are escaped on top of that.
 */
#include "guests_print.h"

#include <inttypes.h>
#include <string.h>

#include "base/base.h"

static const char *mount_of(const char *mount)
{
	return mount ? mount : GUEST_MOUNT_DEFAULT;
}

static void print_slide(FILE *out, int64_t slide)
{
	fprintf(out, "%s0x%" PRIx64, slide < 0 ? "-" : "",
		slide < 0 ? (uint64_t)-slide : (uint64_t)slide);
}

static void text_vcpus(FILE *out, const struct vmproc *vm)
{
	fprintf(out, "  vcpus:   %zu%s", vm->nr_vcpus, vm->vcpus_cut ? "+" : "");
	for (size_t i = 0; i < vm->nr_vcpus; i++)
		fprintf(out, "%s%d:%d", i ? " " : " (cpu:tid ", vm->vcpus[i].index,
			(int)vm->vcpus[i].tid);
	fprintf(out, "%s\n", vm->nr_vcpus ? ")" : "");
}

static void text_disks(FILE *out, const struct vmproc *vm)
{
	char path[VMPROC_PATH_MAX];

	if (!vm->nr_disks)
		fprintf(out, "  disks:   none named on its command line\n");
	for (size_t i = 0; i < vm->nr_disks; i++) {
		sanitize(vm->disks[i].path, path, sizeof(path));
		fprintf(out, "  %s %s%s\n", i ? "        " : "disks:  ", path,
			vm->disks[i].open ? " (open)" : " (not open)");
	}
}

static void text_kernel(FILE *out, const struct guest_kernel *k)
{
	char buf[sizeof(k->why) + GUESTSYMS_PATH_MAX];

	sanitize(k->release, buf, sizeof(buf));
	fprintf(out, "  kernel:  %s\n", buf[0] ? buf : "unknown");
	if (!k->have_slide) {
		sanitize(k->why, buf, sizeof(buf));
		fprintf(out, "  slide:   unknown: %s\n", buf);
		return;
	}
	sanitize(k->symbols, buf, sizeof(buf));
	fprintf(out, "  slide:   ");
	print_slide(out, k->slide);
	fprintf(out, " (LSTAR %#" PRIx64 " in KVM debugfs, %s %s)\n", k->lstar,
		k->from_daemon ? "as guestfs-mount found it:" : "symbols", buf);
}

static void text_row(FILE *out, const struct guest_row *r, const char *mount)
{
	char name[GUEST_NAME_MAX], why[sizeof(r->why_unreadable)];

	sanitize(r->name, name, sizeof(name));
	fprintf(out, "guest %s\n", name[0] ? name : "-");
	fprintf(out, "  pid:     %d\n", (int)r->vm.pid);
	fprintf(out, "  named:   by %s\n", r->named_by);
	if (!r->readable) {
		sanitize(r->why_unreadable, why, sizeof(why));
		fprintf(out, "  process: unreadable: %s\n", why);
	}
	text_vcpus(out, &r->vm);
	text_disks(out, &r->vm);
	if (r->served)
		fprintf(out, "  served:  yes, %s/%s\n", mount_of(mount), name);
	else
		fprintf(out, "  served:  no (nothing at %s/%s)\n", mount_of(mount),
			name[0] ? name : "<name>");
	text_kernel(out, &r->kernel);
}

void guests_print_text(FILE *out, const struct guest_row *rows, size_t n,
		       size_t appliances, const char *mount)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc('\n', out);
		text_row(out, &rows[i], mount);
	}
	if (!n)
		fprintf(out, "no running guests\n");
	if (appliances)
		fprintf(out, "%s(%zu libguestfs appliance%s not shown)\n", n ? "\n" : "",
			appliances, appliances == 1 ? "" : "s");
}

/* A JSON string: sanitized, then " and \ escaped; NULL or "" as null. */
static void json_str(FILE *out, const char *s)
{
	char buf[2048]; /* the longest field: a why of 1200 bytes */

	if (!s || !s[0]) {
		fputs("null", out);
		return;
	}
	sanitize(s, buf, sizeof(buf));
	fputc('"', out);
	for (const char *p = buf; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

static void json_vm(FILE *out, const struct vmproc *vm)
{
	fprintf(out, ", \"vcpus\": [");
	for (size_t i = 0; i < vm->nr_vcpus; i++)
		fprintf(out, "%s{\"index\": %d, \"tid\": %d}", i ? ", " : "",
			vm->vcpus[i].index, (int)vm->vcpus[i].tid);
	fprintf(out, "], \"disks\": [");
	for (size_t i = 0; i < vm->nr_disks; i++) {
		fprintf(out, "%s{\"path\": ", i ? ", " : "");
		json_str(out, vm->disks[i].path);
		fprintf(out, ", \"open\": %s}", vm->disks[i].open ? "true" : "false");
	}
	fputc(']', out);
}

static void json_kernel(FILE *out, const struct guest_kernel *k)
{
	fprintf(out, ", \"kernel\": ");
	json_str(out, k->release);
	if (k->lstar)
		fprintf(out, ", \"lstar\": \"%#" PRIx64 "\"", k->lstar);
	else
		fprintf(out, ", \"lstar\": null");
	if (k->have_slide) {
		fprintf(out, ", \"slide\": \"");
		print_slide(out, k->slide);
		fprintf(out, "\", \"symbols\": ");
		json_str(out, k->symbols);
		fprintf(out, ", \"slide_from\": \"%s\"",
			k->from_daemon ? "guestfs-mount" : "symbols");
		fprintf(out, ", \"slide_unknown_because\": null");
	} else {
		fprintf(out,
			", \"slide\": null, \"symbols\": null, \"slide_from\": null, "
			"\"slide_unknown_because\": ");
		json_str(out, k->why);
	}
}

static void json_row(FILE *out, const struct guest_row *r, const char *mount)
{
	char path[GUESTSYMS_PATH_MAX];

	fprintf(out, "{\"pid\": %d, \"name\": ", (int)r->vm.pid);
	json_str(out, r->name);
	fprintf(out, ", \"named_by\": ");
	json_str(out, r->named_by);
	json_vm(out, &r->vm);
	snprintf(path, sizeof(path), "%s/%s", mount_of(mount), r->name);
	fprintf(out, ", \"served\": %s, \"served_at\": ", r->served ? "true" : "false");
	json_str(out, r->served ? path : NULL);
	json_kernel(out, &r->kernel);
	fputc('}', out);
}

void guests_print_json(FILE *out, const struct guest_row *rows, size_t n,
		       const char *mount)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n " : "", out);
		json_row(out, &rows[i], mount);
	}
	fputs("]\n", out);
}
