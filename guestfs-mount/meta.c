// SPDX-License-Identifier: GPL-2.0
#include "meta.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static const char *const symsrc_names[] = {
	[GM_SYMS_NONE] = "none",
	[GM_SYMS_DEBUG_VMLINUX] = "debug-vmlinux",
	[GM_SYMS_SYSTEM_MAP] = "System.map",
	[GM_SYMS_DEBUG_SYSTEM_MAP] = "debug-System.map",
	[GM_SYMS_VMLINUZ] = "vmlinuz",
};

const char *gm_symsrc_name(enum gm_symsrc src)
{
	return src <= GM_SYMS_VMLINUZ ? symsrc_names[src] : "none";
}

static enum gm_symsrc symsrc_parse(const char *s)
{
	for (int i = 0; i <= GM_SYMS_VMLINUZ; i++)
		if (!strcmp(s, symsrc_names[i]))
			return (enum gm_symsrc)i;
	return GM_SYMS_NONE;
}

void gm_meta_release(struct gm_meta *m)
{
	free(m->kernels);
	memset(m, 0, sizeof(*m));
}

struct gm_kernel *gm_meta_add_kernel(struct gm_meta *m, const char *ver)
{
	struct gm_kernel *k = realloc(m->kernels, (m->nr_kernels + 1) * sizeof(*k));

	if (!k)
		return NULL;
	m->kernels = k;
	k = &m->kernels[m->nr_kernels++];
	memset(k, 0, sizeof(*k));
	snprintf(k->ver, sizeof(k->ver), "%s", ver);
	return k;
}

void gm_meta_note(struct gm_meta *m, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (m->nr_notes >= GM_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gm_sanitize(m->notes[m->nr_notes++], sizeof(m->notes[0]), msg);
}

static int kernel_newer_first(const void *a, const void *b)
{
	return strverscmp(((const struct gm_kernel *)b)->ver,
			  ((const struct gm_kernel *)a)->ver);
}

void gm_meta_sort_kernels(struct gm_meta *m)
{
	if (m->nr_kernels > 1)
		qsort(m->kernels, m->nr_kernels, sizeof(*m->kernels), kernel_newer_first);
}

const struct gm_kernel *gm_meta_kernel(const struct gm_meta *m, const char *ver)
{
	for (size_t i = 0; ver && i < m->nr_kernels; i++)
		if (!strcmp(m->kernels[i].ver, ver))
			return &m->kernels[i];
	return NULL;
}

/*
 * The file is "key value" lines; "kernel VER" starts a kernel and the
 * "k-*" keys after it describe that kernel. Values never hold a newline
 * (every string in the meta is sanitized).
 */
int gm_meta_save(const struct gm_meta *m, const char *path)
{
	char tmp[4096];
	FILE *f = gm_create_tmp(path, tmp, sizeof(tmp));

	if (!f)
		return errno ? -errno : -EIO;
	fprintf(f, "format 2\n");
	if (m->error[0])
		fprintf(f, "error %s\n", m->error);
	if (m->error_code)
		fprintf(f, "error-code %d\n", m->error_code);
	fprintf(f,
		"os %s\ndistro %s\nproduct %s\nosversion %s\nhostname %s\narch %s\nroot "
		"%s\n",
		m->os, m->distro, m->product, m->osversion, m->hostname, m->arch,
		m->root);
	for (size_t i = 0; i < m->nr_mounts; i++)
		fprintf(f, "mount %s %s\n", m->mounts[i][0], m->mounts[i][1]);
	if (m->boot_default[0])
		fprintf(f, "boot-default %s\n", m->boot_default);
	fprintf(f, "files %" PRIu64 "\nbytes %" PRIu64 "\ninspected-at %lld\n", m->files,
		m->bytes, (long long)m->inspected_at);
	fprintf(f, "times %.2f %.2f %.2f %.2f\n", m->launch_s, m->inspect_s, m->extract_s,
		m->derive_s);
	for (size_t i = 0; i < m->nr_notes; i++)
		fprintf(f, "note %s\n", m->notes[i]);
	for (size_t i = 0; i < m->nr_kernels; i++) {
		const struct gm_kernel *k = &m->kernels[i];

		fprintf(f, "kernel %s\n", k->ver);
		fprintf(f, "k-vmlinuz %s\n", k->vmlinuz);
		fprintf(f, "k-files %d %d %d %d %d %d %d\n", k->has_vmlinuz,
			k->has_config, k->has_sysmap, k->has_debug_vmlinux,
			k->has_debug_sysmap, k->sysmap_placeholder, k->debug_mismatch);
		fprintf(f, "k-symbols %s %" PRIu64 "\n", gm_symsrc_name(k->symsrc),
			k->nr_syms);
		if (k->build_id[0])
			fprintf(f, "k-build-id %s\n", k->build_id);
		fprintf(f, "k-modules %u %u\n", k->nr_modules, k->modules_bad);
		if (k->error[0])
			fprintf(f, "k-error %s\n", k->error);
	}
	fprintf(f, "end\n");
	return gm_commit_tmp(f, tmp, path);
}

static void copy_val(char *dst, size_t size, const char *val)
{
	snprintf(dst, size, "%s", val);
}

int gm_meta_load(struct gm_meta *m, const char *path)
{
	struct gm_kernel *k = NULL;
	char *text, *line, *save = NULL;
	size_t len;
	bool ended = false;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = kp_read_file(path, 16 << 20, &text, &len, NULL);
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, ' ');
		int a[7];

		if (val)
			*val++ = '\0';
		else
			val = line + strlen(line);
		if (!strcmp(line, "format")) {
			/* 1 had no boot-default: such caches are inspected again. */
			if (strcmp(val, "2"))
				goto bad;
		} else if (!strcmp(line, "error")) {
			copy_val(m->error, sizeof(m->error), val);
		} else if (!strcmp(line, "error-code")) {
			/* Absent from older caches: 0, and no format hint. */
			m->error_code = (int)strtol(val, NULL, 10);
		} else if (!strcmp(line, "os")) {
			copy_val(m->os, sizeof(m->os), val);
		} else if (!strcmp(line, "distro")) {
			copy_val(m->distro, sizeof(m->distro), val);
		} else if (!strcmp(line, "product")) {
			copy_val(m->product, sizeof(m->product), val);
		} else if (!strcmp(line, "osversion")) {
			copy_val(m->osversion, sizeof(m->osversion), val);
		} else if (!strcmp(line, "hostname")) {
			copy_val(m->hostname, sizeof(m->hostname), val);
		} else if (!strcmp(line, "arch")) {
			copy_val(m->arch, sizeof(m->arch), val);
		} else if (!strcmp(line, "root")) {
			copy_val(m->root, sizeof(m->root), val);
		} else if (!strcmp(line, "boot-default")) {
			copy_val(m->boot_default, sizeof(m->boot_default), val);
		} else if (!strcmp(line, "mount") && m->nr_mounts < GM_MAX_MOUNTS) {
			char *dev = strrchr(val, ' ');

			if (!dev)
				goto bad;
			*dev++ = '\0';
			copy_val(m->mounts[m->nr_mounts][0], sizeof(m->mounts[0][0]),
				 val);
			copy_val(m->mounts[m->nr_mounts++][1], sizeof(m->mounts[0][1]),
				 dev);
		} else if (!strcmp(line, "files")) {
			m->files = strtoull(val, NULL, 10);
		} else if (!strcmp(line, "bytes")) {
			m->bytes = strtoull(val, NULL, 10);
		} else if (!strcmp(line, "inspected-at")) {
			m->inspected_at = (time_t)strtoll(val, NULL, 10);
		} else if (!strcmp(line, "times")) {
			sscanf(val, "%lf %lf %lf %lf", &m->launch_s, &m->inspect_s,
			       &m->extract_s, &m->derive_s);
		} else if (!strcmp(line, "note") && m->nr_notes < GM_MAX_NOTES) {
			copy_val(m->notes[m->nr_notes++], sizeof(m->notes[0]), val);
		} else if (!strcmp(line, "kernel")) {
			if (!gm_version_valid(val) || !(k = gm_meta_add_kernel(m, val)))
				goto bad;
		} else if (!strncmp(line, "k-", 2)) {
			if (!k)
				goto bad;
			if (!strcmp(line, "k-vmlinuz")) {
				copy_val(k->vmlinuz, sizeof(k->vmlinuz), val);
			} else if (!strcmp(line, "k-files")) {
				if (sscanf(val, "%d %d %d %d %d %d %d", &a[0], &a[1],
					   &a[2], &a[3], &a[4], &a[5], &a[6]) != 7)
					goto bad;
				k->has_vmlinuz = a[0];
				k->has_config = a[1];
				k->has_sysmap = a[2];
				k->has_debug_vmlinux = a[3];
				k->has_debug_sysmap = a[4];
				k->sysmap_placeholder = a[5];
				k->debug_mismatch = a[6];
			} else if (!strcmp(line, "k-symbols")) {
				char src[32];
				unsigned long long n;

				if (sscanf(val, "%31s %llu", src, &n) != 2)
					goto bad;
				k->symsrc = symsrc_parse(src);
				k->nr_syms = n;
			} else if (!strcmp(line, "k-build-id")) {
				copy_val(k->build_id, sizeof(k->build_id), val);
			} else if (!strcmp(line, "k-modules")) {
				if (sscanf(val, "%u %u", &k->nr_modules,
					   &k->modules_bad) != 2)
					goto bad;
			} else if (!strcmp(line, "k-error")) {
				copy_val(k->error, sizeof(k->error), val);
			}
		} else if (!strcmp(line, "end")) {
			ended = true;
		}
	}
	free(text);
	if (!ended) {
		gm_meta_release(m);
		return -EINVAL;
	}
	gm_meta_sort_kernels(m);
	return 0;
bad:
	free(text);
	gm_meta_release(m);
	return -EINVAL;
}

/* --- info and info.json --------------------------------------------------------- */

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
