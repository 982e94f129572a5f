// SPDX-License-Identifier: GPL-2.0
/* A guest's info and info.json files: what its meta and the daemon know of it. */
#include "meta.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fields.h"

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void json_str(struct gm_buf *b, const char *s)
{
	gm_buf_json_string(b, s && *s ? s : NULL);
}

/* Where @f is: in the caller's gm_info_ctx @c or in @rec. */
static const void *value_of(const struct gm_field *f, const void *rec,
			    const struct gm_info_ctx *c)
{
	return f->type == FT_CTXSTR ? gm_field_at(f, c) : gm_field_at(f, rec);
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

/* Prints what @text has before its "%s" and returns what it has after it. */
static const char *text_head(struct gm_buf *b, const char *text)
{
	const char *s = strstr(text, "%s");

	if (!s)
		s = text + strlen(text);
	gm_buf_printf(b, "%.*s", (int)(s - text), text);
	return *s ? s + 2 : s;
}

static bool file_listed(const struct gm_field *f, const void *rec)
{
	const struct gm_kernel *k = rec;

	return *(const bool *)gm_field_at(f, rec) &&
	       !((f->flags & FF_REAL_SYSMAP) && k->sysmap_placeholder);
}

/*
 * The FILE fields from @f on are one list, named by their json key in info
 * and info.json alike, of the names of the files the kernel has. Returns the
 * field after them.
 */
static const struct gm_field *file_list(struct gm_buf *b, const struct gm_field *f,
					const void *rec, bool json)
{
	const char *sep = "";

	/* In info.json the caller wrote the key. */
	if (json)
		gm_buf_printf(b, "[");
	else
		gm_buf_printf(b, "%s ", f->json);
	for (; f < GM_FIELDS_END && f->type == FT_FILE; f++) {
		if (!file_listed(f, rec))
			continue;
		gm_buf_printf(b, json ? "%s\"%s\"" : "%s%s", sep, f->text);
		sep = json ? ", " : " ";
	}
	if (json)
		gm_buf_printf(b, "]");
	return f;
}

static void text_value(struct gm_buf *b, const struct gm_field *f, const void *rec,
		       const void *p)
{
	char buf[32] = "-";
	struct tm tm;

	switch (f->type) {
	case FT_STR:
		gm_buf_printf(b, "%s", or_dash(p));
		return;
	case FT_CTXSTR:
		gm_buf_printf(b, "%s", *(const char *const *)p);
		return;
	case FT_BOOL:
		return; /* the text is all */
	case FT_SYMBOLS:
		symbols_line(b, rec);
		return;
	case FT_SECS:
		snprintf(buf, sizeof(buf), "%.1f", *(const double *)p);
		break;
	case FT_TIME:
		if (*(const time_t *)p && gmtime_r(p, &tm))
			strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
		break;
	default:
		gm_buf_printf(b, "%s", gm_field_scalar(buf, sizeof(buf), f, p));
		return;
	}
	gm_buf_printf(b, "%s", buf);
}

/* The kernel the guest's own files are of, and where its symbols came from. */
static void text_default(struct gm_buf *b, const struct gm_info_ctx *c)
{
	if (!c->def) {
		if (c->meta->nr_kernels)
			gm_buf_printf(b, "kernel: none\n");
		return;
	}
	gm_buf_printf(b, "kernel: %s (%s)\nsymbols: ", c->def->ver, or_dash(c->def_why));
	symbols_line(b, c->def);
	gm_buf_printf(b, "\nbuild-id: %s\n", or_dash(c->def->build_id));
}

static void text_record(struct gm_buf *b, const struct gm_info_ctx *c, const void *rec,
			enum gm_field_scope scope);

static void text_array(struct gm_buf *b, const struct gm_info_ctx *c,
		       const struct gm_field *f)
{
	const struct gm_meta *m = c->meta;
	const char *tail;

	for (size_t i = 0; f->type == FT_MOUNTS && i < m->nr_mounts; i++) {
		tail = text_head(b, f->text);
		gm_buf_printf(b, "%s on %s%s", m->mounts[i][1], m->mounts[i][0], tail);
	}
	for (size_t i = 0; f->type == FT_NOTES && i < m->nr_notes; i++) {
		tail = text_head(b, f->text);
		gm_buf_printf(b, "%s%s", m->notes[i], tail);
	}
	if (f->type != FT_KERNELS)
		return;
	tail = text_head(b, f->text);
	for (size_t i = 0; i < m->nr_kernels; i++)
		gm_buf_printf(b, "%s%s", i ? " " : "", m->kernels[i].ver);
	gm_buf_printf(b, "%s%s", m->nr_kernels ? "" : "none", tail);
	text_default(b, c);
	for (size_t i = 0; i < m->nr_kernels; i++)
		text_record(b, c, &m->kernels[i], FS_KERNEL);
}

/* Does info show @f, whose value is at @p? A flag is shown only when set. */
static bool text_shown(const struct gm_field *f, const void *p)
{
	return !((f->flags & FF_OPTIONAL) || f->type == FT_BOOL) || !gm_field_empty(f, p);
}

static void text_record(struct gm_buf *b, const struct gm_info_ctx *c, const void *rec,
			enum gm_field_scope scope)
{
	for (const struct gm_field *f = gm_fields; f < GM_FIELDS_END; f++) {
		const void *p = value_of(f, rec, c);
		const char *tail;

		if (f->scope != scope || !f->text ||
		    ((f->flags & FF_OS) && !c->meta->root[0]))
			continue;
		if (f->type == FT_FILE) {
			f = file_list(b, f, rec, false) - 1;
		} else if (gm_field_is_array(f)) {
			text_array(b, c, f);
		} else if (text_shown(f, p)) {
			tail = text_head(b, f->text);
			text_value(b, f, rec, p);
			gm_buf_printf(b, "%s", tail);
		}
	}
}

void gm_info_text(struct gm_buf *b, const struct gm_info_ctx *c)
{
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
	if (c->meta)
		text_record(b, c, c->meta, FS_META);
}

/* An object of info.json being written. */
struct json_obj {
	struct gm_buf *b;
	const struct gm_info_ctx *c;
	const char *sep; /* before each key but the first */
	bool first;
	const char *group; /* "a.b": the key that opened object a, still open */
};

/* Starts @key's value: "a.b" in object a, which the first such key opens. */
static void json_key(struct json_obj *o, const char *key)
{
	const char *dot = strchr(key, '.');
	int len = dot ? (int)(dot - key) : 0;

	if (o->group && (!dot || strncmp(o->group, key, len + 1))) {
		gm_buf_printf(o->b, "}");
		o->group = NULL;
	}
	if (o->group) {
		gm_buf_printf(o->b, ", \"%s\": ", dot + 1);
		return;
	}
	gm_buf_printf(o->b, "%s", o->first ? "" : o->sep);
	o->first = false;
	if (dot) {
		gm_buf_printf(o->b, "\"%.*s\": {", len, key);
		o->group = key;
		key = dot + 1;
	}
	gm_buf_printf(o->b, "\"%s\": ", key);
}

static void json_end(struct json_obj *o)
{
	if (o->group)
		gm_buf_printf(o->b, "}");
	o->group = NULL;
}

static void json_value(struct json_obj *o, const struct gm_field *f, const void *rec,
		       const void *p)
{
	char buf[32];

	switch (f->type) {
	case FT_STR:
	case FT_VERSION:
		json_str(o->b, p);
		break;
	case FT_CTXSTR:
		json_str(o->b, *(const char *const *)p);
		break;
	case FT_SYMSRC:
		json_str(o->b, gm_field_scalar(buf, sizeof(buf), f, p));
		break;
	case FT_BOOL:
		gm_buf_printf(o->b, "%s", *(const bool *)p ? "true" : "false");
		break;
	case FT_DEFAULT:
		gm_buf_printf(o->b, "%s", rec == o->c->def ? "true" : "false");
		break;
	default:
		gm_buf_printf(o->b, "%s", gm_field_scalar(buf, sizeof(buf), f, p));
	}
}

static void json_record(struct json_obj *o, const void *rec, enum gm_field_scope scope);

static void json_kernels(struct json_obj *o, const struct gm_field *f)
{
	const struct gm_info_ctx *c = o->c;
	const struct gm_meta *m = c->meta;

	/* The default kernel and why it is, which the caller chose, come first. */
	json_key(o, "kernel");
	json_str(o->b, c->def ? c->def->ver : NULL);
	json_key(o, "kernel_choice");
	json_str(o->b, c->def ? c->def_why : NULL);
	json_key(o, f->json);
	gm_buf_printf(o->b, "[");
	for (size_t i = 0; i < m->nr_kernels; i++) {
		struct json_obj k = {.b = o->b, .c = c, .sep = ", ", .first = true};

		gm_buf_printf(o->b, "%s\n    {", i ? "," : "");
		json_record(&k, &m->kernels[i], FS_KERNEL);
		gm_buf_printf(o->b, "}");
	}
	gm_buf_printf(o->b, "%s]", m->nr_kernels ? "\n  " : "");
}

static void json_array(struct json_obj *o, const struct gm_field *f)
{
	const struct gm_meta *m = o->c->meta;

	if (f->type == FT_KERNELS) {
		json_kernels(o, f);
		return;
	}
	json_key(o, f->json);
	gm_buf_printf(o->b, "[");
	for (size_t i = 0; f->type == FT_MOUNTS && i < m->nr_mounts; i++) {
		gm_buf_printf(o->b, "%s{\"mountpoint\": ", i ? ", " : "");
		json_str(o->b, m->mounts[i][0]);
		gm_buf_printf(o->b, ", \"device\": ");
		json_str(o->b, m->mounts[i][1]);
		gm_buf_printf(o->b, "}");
	}
	for (size_t i = 0; f->type == FT_NOTES && i < m->nr_notes; i++) {
		gm_buf_printf(o->b, "%s", i ? ", " : "");
		json_str(o->b, m->notes[i]);
	}
	gm_buf_printf(o->b, "]");
}

static void json_record(struct json_obj *o, const void *rec, enum gm_field_scope scope)
{
	for (const struct gm_field *f = gm_fields; f < GM_FIELDS_END; f++) {
		if (f->scope != scope || !f->json)
			continue;
		if (gm_field_is_array(f)) {
			json_array(o, f);
			continue;
		}
		json_key(o, f->json);
		if (f->type == FT_FILE)
			f = file_list(o->b, f, rec, true) - 1;
		else
			json_value(o, f, rec, value_of(f, rec, o->c));
	}
	json_end(o);
}

void gm_info_json(struct gm_buf *b, const struct gm_info_ctx *c)
{
	struct json_obj o = {.b = b, .c = c, .sep = ",\n  ", .first = true};

	gm_buf_printf(b, "{\n  ");
	json_key(&o, "guest");
	json_str(b, c->conf->name);
	json_key(&o, "state");
	json_str(b, c->state);
	json_key(&o, "error");
	json_str(b, c->error);
	json_key(&o, "disks");
	gm_buf_printf(b, "[");
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
	if (c->meta)
		json_record(&o, c->meta, FS_META);
	gm_buf_printf(b, "\n}\n");
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
