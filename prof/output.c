// SPDX-License-Identifier: GPL-2.0
#include "output.h"

#include "callchain.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CELL_MAX 512

static const char *dso_label(const struct hist_entry *e)
{
	return e->key.dso ? e->key.dso->short_name : "[unknown]";
}

/* "[k] " and the sanitized @name after it; returns the length. */
static size_t level_prefixed(int level, const char *name, char *buf, size_t size)
{
	if (size < 5)
		return sanitize(name, buf, size);
	buf[0] = '[';
	buf[1] = level_char(level);
	buf[2] = ']';
	buf[3] = ' ';
	return 4 + sanitize(name, buf + 4, size - 4);
}

/* "0x" and the 16 hex digits of @v, as "0x%016" PRIx64 prints them. */
static void hex16(uint64_t v, char *buf)
{
	static const char digits[] = "0123456789abcdef";

	buf[0] = '0';
	buf[1] = 'x';
	for (int i = 17; i >= 2; i--, v >>= 4)
		buf[i] = digits[v & 15];
	buf[18] = '\0';
}

/* What snprintf wrote, at most @size - 1 bytes. */
static size_t written(int n, size_t size)
{
	if (n < 0 || !size)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

/* Cells that are numbers: nothing in them needs sanitizing. */
static size_t number_cell(const struct hist_key *k, enum sort_key key, char *buf,
			  size_t size)
{
	int n;

	switch (key) {
	case SORT_VCPU:
		if (k->vcpu >= 0)
			n = snprintf(buf, size, "%d", k->vcpu);
		else
			n = snprintf(buf, size, "-");
		break;
	case SORT_CPU:
		n = snprintf(buf, size, "%03d", k->cpu);
		break;
	case SORT_CR3:
		if (k->cr3)
			n = snprintf(buf, size, "%#" PRIx64, k->cr3);
		else
			n = snprintf(buf, size, "-");
		break;
	default:
		n = snprintf(buf, size, "%s", "");
	}
	return written(n, size);
}

/*
 * Every string from the file or a guest goes through sanitize() on its way
 * into @buf; this runs for each cell of each row, twice (widths, then the
 * row), so plain strings are not formatted through printf first.
 */
size_t output_cell(const struct hist_entry *e, enum sort_key key, char *buf, size_t size)
{
	char raw[CELL_MAX];
	const struct hist_key *k = &e->key;

	switch (key) {
	case SORT_COMM:
		return sanitize(k->comm ? k->comm : ":unknown", buf, size);
	case SORT_PID:
		snprintf(raw, sizeof(raw), "%7d:%s", k->pid, k->comm ? k->comm : "");
		return sanitize(raw, buf, size);
	case SORT_DSO:
		return sanitize(dso_label(e), buf, size);
	case SORT_SYM:
		if (k->sym)
			return level_prefixed(k->level, k->sym->name, buf, size);
		hex16(k->addr, raw);
		return level_prefixed(k->level, raw, buf, size);
	case SORT_GUEST:
		if (k->guest)
			snprintf(raw, sizeof(raw), "%s (pid %d)", k->guest->name,
				 k->guest->pid);
		else
			snprintf(raw, sizeof(raw), "host");
		return sanitize(raw, buf, size);
	case SORT_CPUMODE:
		return sanitize(level_name(k->level), buf, size);
	default:
		return number_cell(k, key, buf, size);
	}
}

static const char *const headers[SORT__MAX] = {
	[SORT_COMM] = "Command", [SORT_PID] = "Pid:Command", [SORT_DSO] = "Shared Object",
	[SORT_SYM] = "Symbol",	 [SORT_GUEST] = "Guest",     [SORT_VCPU] = "vCPU",
	[SORT_CPU] = "CPU",	 [SORT_CPUMODE] = "Mode",    [SORT_CR3] = "Guest CR3",
};

const char *output_header(enum sort_key key)
{
	return headers[key];
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* The period a row is sorted and limited by: Children when shown. */
static uint64_t row_period(const struct hist_entry *e, const struct output_opts *o)
{
	return o->children ? e->children_period : e->period;
}

static bool shown(const struct hist_entry *e, const struct hists *h,
		  const struct output_opts *o)
{
	return pct(row_period(e, o), h->total_period) >= o->percent_limit;
}

/*
 * How many rows ahead a pass over the sorted rows asks for one: they lie
 * where they were allocated, in the order their keys were first seen.
 */
#define ROW_PREFETCH 8

static void prefetch_row(const struct hists *h, size_t i)
{
	if (i + ROW_PREFETCH < h->nr_entries)
		__builtin_prefetch(h->entries[i + ROW_PREFETCH]);
}

/* One pass over the rows, each visited once for all its columns. */
static void widths(const struct hists *h, const struct output_opts *o, int *w)
{
	char buf[CELL_MAX];

	for (size_t i = 0; i < h->nr_keys; i++)
		w[i] = (int)strlen(headers[h->keys[i]]);
	for (size_t j = 0; j < h->nr_entries; j++) {
		prefetch_row(h, j);
		if (!shown(h->entries[j], h, o))
			continue;
		for (size_t i = 0; i < h->nr_keys; i++) {
			int len = (int)output_cell(h->entries[j], h->keys[i], buf,
						   sizeof(buf));

			if (len > w[i])
				w[i] = len;
		}
	}
}

static void dots(FILE *out, int n)
{
	for (int i = 0; i < n; i++)
		fputc('.', out);
}

static void column_header(const struct hists *h, const struct output_opts *o,
			  const int *w, FILE *out)
{
	fprintf(out, o->children ? "# Children      Self" : "# Overhead");
	if (o->show_samples)
		fprintf(out, "       Samples");
	if (o->cpu_utilization)
		fprintf(out, "       sys       usr  guest sys  guest usr");
	for (size_t i = 0; i < h->nr_keys; i++)
		fprintf(out, "  %-*s", i + 1 < h->nr_keys ? w[i] : 0,
			headers[h->keys[i]]);
	fprintf(out, o->children ? "\n# ........  ........" : "\n# ........");
	if (o->show_samples)
		fprintf(out, "  ............");
	if (o->cpu_utilization)
		fprintf(out, "  ........  ........  .........  .........");
	for (size_t i = 0; i < h->nr_keys; i++) {
		fprintf(out, "  ");
		dots(out, w[i]);
	}
	fprintf(out, "\n#\n");
}

/* @v hundredths as "%7.2f" prints them: at least "0.00", right-aligned in 7. */
static size_t hundredths_text(unsigned long long v, char *buf)
{
	char rev[24];
	int nd = 0, n = 0;

	do {
		rev[nd++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (nd < 3)
		rev[nd++] = '0';
	for (int pad = 6 - nd; pad > 0; pad--)
		buf[n++] = ' ';
	while (nd > 2)
		buf[n++] = rev[--nd];
	buf[n++] = '.';
	buf[n++] = rev[1];
	buf[n++] = rev[0];
	buf[n] = '\0';
	return (size_t)n;
}

size_t output_percent(double v, char *buf, size_t size)
{
	if (!(v >= 0.0 && v < 1e12) || size < 32)
		return written(snprintf(buf, size, "%7.2f", v), size);
	/* Exact: a double times 100 fits a long double's 64-bit mantissa. */
	return hundredths_text((unsigned long long)rintl((long double)v * 100.0L), buf);
}

/*
 * A row is built in one buffer and written at once: stdio's per-call
 * locking and bookkeeping cost more than the row's bytes. Room for the
 * numbers and, per column, two spaces and a cell or its padding.
 */
#define ROW_MAX (256 + SORT__MAX * (CELL_MAX + 2))

static size_t put_percent(char *buf, double v)
{
	buf[0] = buf[1] = ' ';
	size_t n = 2 + output_percent(v, buf + 2, 32);

	buf[n] = '%';
	return n + 1;
}

static void row(const struct hist_entry *e, const struct hists *h,
		const struct output_opts *o, const int *w, FILE *out)
{
	char line[ROW_MAX];
	size_t n = 0;

	if (o->children)
		n += put_percent(line + n, pct(e->children_period, h->total_period));
	n += put_percent(line + n, pct(e->period, h->total_period));
	if (o->show_samples)
		n += written(snprintf(line + n, 32, "  %12" PRIu64, e->samples), 32);
	if (o->cpu_utilization)
		n += written(
			snprintf(
				line + n, 128, "  %7.2f%%  %7.2f%%  %8.2f%%  %8.2f%%",
				pct(e->level_period[LEVEL_KERNEL], h->total_period),
				pct(e->level_period[LEVEL_USER], h->total_period),
				pct(e->level_period[LEVEL_GUEST_KERNEL], h->total_period),
				pct(e->level_period[LEVEL_GUEST_USER], h->total_period)),
			128);
	for (size_t i = 0; i < h->nr_keys; i++) {
		size_t len;

		line[n++] = ' ';
		line[n++] = ' ';
		len = output_cell(e, h->keys[i], line + n, CELL_MAX);
		n += len;
		/* Left-aligned in its column, but the last column is not padded. */
		if (i + 1 < h->nr_keys && w[i] > (int)len) {
			memset(line + n, ' ', (size_t)w[i] - len);
			n += (size_t)w[i] - len;
		}
	}
	line[n++] = '\n';
	fwrite(line, 1, n, out);
}

/* A call-chain frame as perf names it: the symbol, else the address. */
static void frame_name(const struct hist_key *k, char *buf, size_t size)
{
	char raw[CELL_MAX];

	if (k->sym)
		snprintf(raw, sizeof(raw), "%s", k->sym->name);
	else
		snprintf(raw, sizeof(raw), "%#" PRIx64, k->addr);
	sanitize(raw, buf, size);
}

static void chain_graph(const struct hist_entry *e, const struct hists *h,
			const struct output_opts *o, FILE *out)
{
	struct callchain_print p = {
		.out = out,
		.total = h->total_period,
		.min_period =
			(uint64_t)((double)h->total_period * o->chain_percent / 100.0),
		.name = frame_name,
	};

	if (e->chain)
		callchain_print(e->chain, &p);
}

static void guest_header(const struct session *s, FILE *out)
{
	const struct machines *ms = &s->machines;
	char name[GUEST_NAME_MAX * 2], src[600], how[sizeof(ms->guests[0]->slide_source)];

	if (!ms->nr_guests)
		return;
	fprintf(out, "# Guests:\n");
	for (size_t i = 0; i < ms->nr_guests; i++) {
		const struct machine *m = ms->guests[i];

		if (!m->samples)
			continue; /* e.g. perf kvm's default guest, only a map record */
		sanitize(m->name, name, sizeof(name));
		sanitize(session_guest_symbol_source(m), src, sizeof(src));
		fprintf(out, "#   pid %d, guest %s, %" PRIu64 " samples\n", m->pid, name,
			m->samples);
		fprintf(out, "#     kernel symbols: %s\n", src);
		if (m->modules_source[0]) {
			sanitize(m->modules_source, src, sizeof(src));
			fprintf(out, "#     modules: %s\n", src);
		}
		/* The source may be the recorded feature's slide-source: file data. */
		sanitize(m->slide_source, how, sizeof(how));
		if (m->slide_known)
			fprintf(out, "#     slide: %s0x%" PRIx64 " (from %s)\n",
				m->slide < 0 ? "-" : "",
				m->slide < 0 ? -(uint64_t)m->slide : (uint64_t)m->slide,
				how);
		else
			fprintf(out,
				"#     slide: unknown (no guest context, kernel map "
				"record or "
				"--guest-slide): only unrelocated addresses resolve\n");
	}
	fprintf(out, "#\n");
}

/* Files whose build-id changed since recording: their samples stay unnamed. */
static void mismatch_header(const struct session *s, FILE *out)
{
	const struct hashmap *m = &s->machines.dsos.by_name;
	char name[512];

	for (size_t i = 0; i < m->cap; i++) {
		struct dso **list = m->keys[i] ? m->vals[i] : NULL;

		for (size_t j = 0; list && list[j]; j++) {
			if (!list[j]->build_id_mismatch)
				continue;
			sanitize(list[j]->name, name, sizeof(name));
			fprintf(out,
				"# warning: %s changed since recording (build-id "
				"differs); "
				"its samples are left unnamed\n",
				name);
		}
	}
}

void output_unfinished(const struct session *s, const char *prefix, FILE *out)
{
	const struct pd_file *f = s->file;
	char path[1024];

	if (!f->unfinished)
		return;
	sanitize(f->path, path, sizeof(path));
	fprintf(out,
		"%s%s: recording was not finished (no header): read %" PRIu64
		" records up to byte %" PRIu64 "\n",
		prefix, path, f->unfinished_records, f->unfinished_end);
}

static void file_header(const struct session *s, FILE *out)
{
	const struct pd_file *f = s->file;

	char a[1024], b[256], c[256], d[64];

	/* Every string here comes from the file: none may drive the terminal. */
	sanitize(f->path, a, sizeof(a));
	fprintf(out, "# kvmprof report of %s\n", a);
	if (f->hostname[0]) {
		sanitize(f->hostname, b, sizeof(b));
		sanitize(f->osrelease, c, sizeof(c));
		sanitize(f->arch, d, sizeof(d));
		fprintf(out,
			"# hostname: %s, os release: %s, arch: %s, cpus: %u online\n", b,
			c, d, f->nr_cpus_online);
	}
	if (f->cmdline[0]) {
		sanitize(f->cmdline, a, sizeof(a));
		fprintf(out, "# cmdline: %s\n", a);
	}
	if (s->host_kernel_tried && !s->machines.host.kernel->symtab &&
	    s->machines.host.kernel->error) {
		sanitize(s->machines.host.kernel->error, a, sizeof(a));
		fprintf(out, "# host kernel symbols: none: %s\n", a);
	}
	output_unfinished(s, "# warning: ", out);
	if (f->damaged_features)
		fprintf(out,
			"# warning: %u header features are damaged or lie outside the "
			"file "
			"(truncated?); their information is missing\n",
			f->damaged_features);
	mismatch_header(s, out);
	fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", s->lost);
	guest_header(s, out);
}

static void event_section(const struct session *s, size_t idx,
			  const struct output_opts *o, FILE *out)
{
	const struct hists *h = &s->hists[idx];
	int w[SORT__MAX];

	widths(h, o, w);
	if (o->header) {
		char name[128];

		sanitize(s->file->evsels[idx].name, name, sizeof(name));
		fprintf(out, "# Samples: %" PRIu64 " of event '%s'\n", h->total_samples,
			name);
		fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n",
			h->total_period);
		column_header(h, o, w, out);
	}
	for (size_t i = 0; i < h->nr_entries; i++) {
		prefetch_row(h, i);
		if (!shown(h->entries[i], h, o))
			continue;
		row(h->entries[i], h, o, w, out);
		if (o->graph)
			chain_graph(h->entries[i], h, o, out);
	}
	fputc('\n', out);
}

void output_report(const struct session *s, const struct output_opts *o, FILE *out)
{
	if (o->header)
		file_header(s, out);
	for (size_t i = 0; i < s->file->nr_evsels; i++)
		if (s->hists[i].total_samples || s->file->nr_evsels == 1)
			event_section(s, i, o, out);
}
