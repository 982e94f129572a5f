// SPDX-License-Identifier: GPL-2.0
/* A guest's info and info.json files: what its meta and the daemon know of it. */
#include "meta.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void symbols_line(struct gm_buf *b, const struct gm_kernel *k)
{
	switch (k->symsrc) {
	case GM_SYMS_DEBUG_VMLINUX:
		gm_buf_printf(b, "debug vmlinux (.symtab)");
		break;
	case GM_SYMS_SYSTEM_MAP:
		gm_buf_printf(b, "/boot/System.map-%s", k->ver);
		break;
	case GM_SYMS_DEBUG_SYSTEM_MAP:
		gm_buf_printf(b, "/usr/lib/debug/boot/System.map-%s", k->ver);
		break;
	case GM_SYMS_VMLINUZ:
		gm_buf_printf(b, "kallsyms tables decoded from %s", k->vmlinuz);
		break;
	default:
		gm_buf_printf(b, "none (%s)", or_dash(k->error));
		return;
	}
	gm_buf_printf(b, ", %" PRIu64 " symbols", k->nr_syms);
}

static void kernel_files(struct gm_buf *b, const struct gm_kernel *k, bool json)
{
	const char *names[] = {"vmlinuz", "config", "System.map", "debug-vmlinux",
			       "debug-System.map"};
	bool has[] = {k->has_vmlinuz, k->has_config,
		      k->has_sysmap && !k->sysmap_placeholder, k->has_debug_vmlinux,
		      k->has_debug_sysmap};
	bool first = true;

	for (size_t i = 0; i < sizeof(has) / sizeof(has[0]); i++) {
		if (!has[i])
			continue;
		gm_buf_printf(b, json ? "%s\"%s\"" : "%s%s",
			      first  ? ""
			      : json ? ", "
				     : " ",
			      names[i]);
		first = false;
	}
	if (!json && k->sysmap_placeholder)
		gm_buf_printf(b, " System.map(placeholder)");
}

void gm_info_text(struct gm_buf *b, const struct gm_info_ctx *c)
{
	const struct gm_meta *m = c->meta;
	char when[64] = "-";

	gm_buf_printf(b, "guest: %s\nstate: %s\n", c->conf->name, c->state);
	if (c->error)
		gm_buf_printf(b, "error: %s\n", c->error);
	for (size_t i = 0; i < c->conf->nr_disks; i++) {
		gm_buf_printf(b, "disk: %s (%s", c->conf->disks[i].path,
			      gm_format_name(c->conf->disks[i].format));
		if (c->disk_sizes)
			gm_buf_printf(b, ", %" PRIu64 " bytes", c->disk_sizes[i]);
		gm_buf_printf(b, ")\n");
	}
	if (!m)
		return;
	if (!m->root[0])
		goto tail;
	gm_buf_printf(
		b,
		"os: %s\ndistro: %s\nproduct: %s\nversion: %s\nhostname: %s\narch: %s\n",
		or_dash(m->os), or_dash(m->distro), or_dash(m->product),
		or_dash(m->osversion), or_dash(m->hostname), or_dash(m->arch));
	gm_buf_printf(b, "root: %s\n", or_dash(m->root));
	for (size_t i = 0; i < m->nr_mounts; i++)
		gm_buf_printf(b, "mount: %s on %s\n", m->mounts[i][1], m->mounts[i][0]);
	gm_buf_printf(b, "kernels:");
	for (size_t i = 0; i < m->nr_kernels; i++)
		gm_buf_printf(b, " %s", m->kernels[i].ver);
	gm_buf_printf(b, "%s\n", m->nr_kernels ? "" : " none");
	if (c->def) {
		gm_buf_printf(b, "kernel: %s (%s)\nsymbols: ", c->def->ver,
			      or_dash(c->def_why));
		symbols_line(b, c->def);
		gm_buf_printf(b, "\nbuild-id: %s\n", or_dash(c->def->build_id));
	} else if (m->nr_kernels) {
		gm_buf_printf(b, "kernel: none\n");
	}
	for (size_t i = 0; i < m->nr_kernels; i++) {
		const struct gm_kernel *k = &m->kernels[i];

		gm_buf_printf(b, "kernel %s: files ", k->ver);
		kernel_files(b, k, false);
		gm_buf_printf(b, "; modules %u", k->nr_modules);
		if (k->modules_bad)
			gm_buf_printf(b, " (%u unreadable)", k->modules_bad);
		gm_buf_printf(b, "; symbols ");
		symbols_line(b, k);
		gm_buf_printf(b, "\n");
	}
tail:
	if (m->inspected_at) {
		struct tm tm;

		gmtime_r(&m->inspected_at, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	gm_buf_printf(b, "copied: %" PRIu64 " files, %" PRIu64 " bytes\n", m->files,
		      m->bytes);
	gm_buf_printf(
		b,
		"inspected: %s (appliance launch %.1f s, inspection %.1f s, copy %.1f s, "
		"symbols %.1f s)\n",
		when, m->launch_s, m->inspect_s, m->extract_s, m->derive_s);
	if (c->key)
		gm_buf_printf(b, "cache: %s\n", c->key);
	for (size_t i = 0; i < m->nr_notes; i++)
		gm_buf_printf(b, "note: %s\n", m->notes[i]);
}

static void json_kv(struct gm_buf *b, const char *key, const char *val, bool comma)
{
	gm_buf_printf(b, "  \"%s\": ", key);
	gm_buf_json_string(b, val && *val ? val : NULL);
	gm_buf_printf(b, "%s\n", comma ? "," : "");
}

void gm_info_json(struct gm_buf *b, const struct gm_info_ctx *c)
{
	const struct gm_meta *m = c->meta;

	gm_buf_printf(b, "{\n");
	json_kv(b, "guest", c->conf->name, true);
	json_kv(b, "state", c->state, true);
	json_kv(b, "error", c->error, true);
	gm_buf_printf(b, "  \"disks\": [");
	for (size_t i = 0; i < c->conf->nr_disks; i++) {
		gm_buf_printf(b, "%s{\"path\": ", i ? ", " : "");
		gm_buf_json_string(b, c->conf->disks[i].path);
		gm_buf_printf(b, ", \"format\": \"%s\"",
			      gm_format_name(c->conf->disks[i].format));
		if (c->disk_sizes)
			gm_buf_printf(b, ", \"size\": %" PRIu64, c->disk_sizes[i]);
		gm_buf_printf(b, "}");
	}
	gm_buf_printf(b, "]");
	if (!m) {
		gm_buf_printf(b, "\n}\n");
		return;
	}
	gm_buf_printf(b, ",\n");
	json_kv(b, "os", m->os, true);
	json_kv(b, "distro", m->distro, true);
	json_kv(b, "product", m->product, true);
	json_kv(b, "version", m->osversion, true);
	json_kv(b, "hostname", m->hostname, true);
	json_kv(b, "arch", m->arch, true);
	json_kv(b, "root", m->root, true);
	gm_buf_printf(b, "  \"mounts\": [");
	for (size_t i = 0; i < m->nr_mounts; i++) {
		gm_buf_printf(b, "%s{\"mountpoint\": ", i ? ", " : "");
		gm_buf_json_string(b, m->mounts[i][0]);
		gm_buf_printf(b, ", \"device\": ");
		gm_buf_json_string(b, m->mounts[i][1]);
		gm_buf_printf(b, "}");
	}
	gm_buf_printf(b, "],\n");
	json_kv(b, "kernel", c->def ? c->def->ver : NULL, true);
	json_kv(b, "kernel_choice", c->def ? c->def_why : NULL, true);
	gm_buf_printf(b, "  \"kernels\": [");
	for (size_t i = 0; i < m->nr_kernels; i++) {
		const struct gm_kernel *k = &m->kernels[i];

		gm_buf_printf(b, "%s\n    {\"version\": ", i ? "," : "");
		gm_buf_json_string(b, k->ver);
		gm_buf_printf(b, ", \"default\": %s, \"image\": ",
			      k == c->def ? "true" : "false");
		gm_buf_json_string(b, k->vmlinuz[0] ? k->vmlinuz : NULL);
		gm_buf_printf(b, ", \"files\": [");
		kernel_files(b, k, true);
		gm_buf_printf(b, "], \"system_map_placeholder\": %s",
			      k->sysmap_placeholder ? "true" : "false");
		gm_buf_printf(b,
			      ", \"symbols\": {\"source\": \"%s\", \"count\": %" PRIu64,
			      gm_symsrc_name(k->symsrc), k->nr_syms);
		gm_buf_printf(b, ", \"error\": ");
		gm_buf_json_string(b, k->error[0] ? k->error : NULL);
		gm_buf_printf(b, "}, \"build_id\": ");
		gm_buf_json_string(b, k->build_id[0] ? k->build_id : NULL);
		gm_buf_printf(b, ", \"modules\": %u, \"modules_unreadable\": %u}",
			      k->nr_modules, k->modules_bad);
	}
	gm_buf_printf(b, "%s],\n", m->nr_kernels ? "\n  " : "");
	gm_buf_printf(b,
		      "  \"copied\": {\"files\": %" PRIu64 ", \"bytes\": %" PRIu64 "},\n",
		      m->files, m->bytes);
	gm_buf_printf(b, "  \"inspected_at\": %lld,\n", (long long)m->inspected_at);
	gm_buf_printf(
		b,
		"  \"seconds\": {\"launch\": %.2f, \"inspection\": %.2f, \"copy\": %.2f, "
		"\"symbols\": %.2f},\n",
		m->launch_s, m->inspect_s, m->extract_s, m->derive_s);
	json_kv(b, "cache", c->key, true);
	gm_buf_printf(b, "  \"notes\": [");
	for (size_t i = 0; i < m->nr_notes; i++) {
		gm_buf_printf(b, "%s", i ? ", " : "");
		gm_buf_json_string(b, m->notes[i]);
	}
	gm_buf_printf(b, "]\n}\n");
}

static void slide_hex(char *buf, size_t size, int64_t slide)
{
	snprintf(buf, size, "%s0x%llx", slide < 0 ? "-" : "",
		 (unsigned long long)(slide < 0 ? -(uint64_t)slide : (uint64_t)slide));
}

static void running_text(struct gm_buf *b, const struct gm_info_running *r)
{
	char slide[24];

	gm_buf_printf(b, "running: qemu pid %d\n", r->pid);
	if (!r->kernel) {
		gm_buf_printf(b, "slide: unknown (%s)\n", r->why ? r->why : "-");
		return;
	}
	slide_hex(slide, sizeof(slide), r->slide);
	gm_buf_printf(b, "running kernel: %s", r->kernel);
	if (r->also && r->also[0])
		gm_buf_printf(b, " (its LSTAR fits %s too)", r->also);
	gm_buf_printf(b, "\nslide: %s (from the guest's LSTAR 0x%llx)\n", slide,
		      (unsigned long long)r->lstar);
}

static void running_json(struct gm_buf *b, const struct gm_info_running *r)
{
	char slide[24], lstar[24];

	slide_hex(slide, sizeof(slide), r->slide);
	snprintf(lstar, sizeof(lstar), "0x%llx", (unsigned long long)r->lstar);
	gm_buf_printf(b, ",\n  \"running\": {\"pid\": %d, \"kernel\": ", r->pid);
	gm_buf_json_string(b, r->kernel);
	gm_buf_printf(b, ", \"slide\": ");
	gm_buf_json_string(b, r->kernel ? slide : NULL);
	gm_buf_printf(b, ", \"lstar\": ");
	gm_buf_json_string(b, r->lstar ? lstar : NULL);
	gm_buf_printf(b, ", \"also_fits\": ");
	gm_buf_json_string(b, r->also && r->also[0] ? r->also : NULL);
	gm_buf_printf(b, ", \"error\": ");
	gm_buf_json_string(b, r->kernel ? NULL : r->why);
	gm_buf_printf(b, "}\n}\n");
}

void gm_info_add_running(struct gm_buf *b, const char *base, size_t len, bool json,
			 const struct gm_info_running *r)
{
	/* gm_info_json() always ends its object with "\n}\n". */
	if (json && len >= 3 && !memcmp(base + len - 3, "\n}\n", 3)) {
		gm_buf_printf(b, "%.*s", (int)(len - 3), base);
		running_json(b, r);
		return;
	}
	gm_buf_printf(b, "%.*s", (int)len, base);
	if (!json)
		running_text(b, r);
}
