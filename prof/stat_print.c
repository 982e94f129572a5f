// SPDX-License-Identifier: GPL-2.0
#include "stat_print.h"

#include "stat_format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 512

/* The lines of one print, and the event each counts, for the metrics. */
struct rows {
	struct stat_row *row;
	const struct stat_event **ev;
	size_t nr, cap;
};

static struct stat_row *add_row(struct rows *rows, const struct stat_event *ev,
				enum stat_split split, const char *guest)
{
	struct stat_row *row;

	if (rows->nr == rows->cap)
		return NULL;
	rows->ev[rows->nr] = ev;
	row = &rows->row[rows->nr++];
	*row = (struct stat_row){
		.event = ev->name,
		.split = stat_split_name(split),
		.guest = guest,
		.supported = true,
		.clock = ev->clock,
	};
	return row;
}

/*
 * Does this machine have the event's part at all? A guest whose vCPU
 * threads were all gone opened nothing, and so never found out.
 */
static bool part_supported(const struct stat_report *r, const struct stat_event *ev,
			   enum stat_split split)
{
	for (size_t i = 0; i < r->nr_counters; i++)
		if (r->counters[i].event == ev && r->counters[i].split == split)
			return !r->counters[i].unsupported;
	return true;
}

/*
 * A software event's guest part, from the vCPU threads of every guest: the
 * kernel does not split the event itself (stat_events.h).
 */
static void add_vcpu_row(const struct stat_report *r, struct rows *rows,
			 const struct stat_event *ev, size_t e,
			 const struct stat_guest *g, size_t ng)
{
	struct stat_row *row = add_row(rows, ev, STAT_SPLIT_VCPU, NULL);

	if (!row)
		return;
	row->supported = false;
	for (size_t i = 0; i < ng && part_supported(r, ev, STAT_SPLIT_ALL); i++) {
		row->supported |= g[i].supported[e];
		stat_reading_add(&row->reading, &g[i].sums[e]);
	}
}

static int add_target_rows(struct stat_report *r, struct rows *rows,
			   const struct stat_guest *g, size_t ng)
{
	for (size_t i = 0; i < r->nr_counters; i++) {
		struct stat_counter *c = &r->counters[i];
		size_t e = (size_t)(c->event - r->evs);
		struct stat_row *row = add_row(rows, c->event, c->split, NULL);
		bool last_of_event =
			i + 1 == r->nr_counters || r->counters[i + 1].event != c->event;
		int ret;

		if (!row)
			return -ENOMEM;
		row->supported = !c->unsupported;
		ret = row->supported ? stat_counter_take(c, r->interval, &row->reading)
				     : 0;
		if (ret)
			return ret;
		if (last_of_event && c->event->software && ng)
			add_vcpu_row(r, rows, c->event, e, g, ng);
	}
	return 0;
}

static void add_guest_rows(struct stat_report *r, struct rows *rows,
			   const struct stat_guest *g, size_t ng)
{
	for (size_t i = 0; i < ng; i++) {
		for (size_t e = 0; e < r->nr_events; e++) {
			const struct stat_event *ev = &r->evs[e];
			struct stat_row *row =
				add_row(rows, ev,
					ev->software ? STAT_SPLIT_VCPU : STAT_SPLIT_GUEST,
					g[i].name);

			if (!row)
				return;
			row->supported = g[i].supported[e] &&
					 part_supported(r, ev,
							ev->software ? STAT_SPLIT_ALL
								     : STAT_SPLIT_GUEST);
			row->reading = g[i].sums[e];
		}
	}
}

static bool is_hw(const struct stat_event *ev, unsigned long long config)
{
	return ev->attr.type == PERF_TYPE_HARDWARE && ev->attr.config == config;
}

/* The cycles of the same part as @i (host, guest, one guest), for its IPC. */
static const struct stat_row *cycles_of(const struct rows *rows, size_t i)
{
	for (size_t j = 0; j < rows->nr; j++)
		if (is_hw(rows->ev[j], PERF_COUNT_HW_CPU_CYCLES) &&
		    rows->row[j].split == rows->row[i].split &&
		    rows->row[j].guest == rows->row[i].guest)
			return &rows->row[j];
	return NULL;
}

static void add_metrics(struct rows *rows, double wall_ns)
{
	for (size_t i = 0; i < rows->nr; i++) {
		struct stat_row *row = &rows->row[i];
		struct stat_scaled v = stat_scale(&row->reading);
		const struct stat_row *cyc;
		struct stat_scaled c;

		if (row->clock && wall_ns > 0) {
			row->metric = "CPUs utilized";
			row->metric_value = v.value / wall_ns;
		}
		if (!is_hw(rows->ev[i], PERF_COUNT_HW_INSTRUCTIONS) ||
		    !(cyc = cycles_of(rows, i)) || !cyc->supported)
			continue;
		c = stat_scale(&cyc->reading);
		if (c.counted && c.value > 0) {
			row->metric = "insn per cycle";
			row->metric_value = v.value / c.value;
		}
	}
}

static void print_header(struct stat_report *r)
{
	if (r->sep)
		return;
	if (!r->interval)
		fprintf(r->out, "\n Performance counter stats for %s:\n\n", r->target);
	else if (!r->header_done)
		fprintf(r->out, "#%14s %18s %-4s %-20s %s\n", "time", "counts", "unit",
			"events", "part");
	r->header_done = true;
}

/* Text without -I: a guest's lines under a line naming it, its QEMUs, its vCPUs. */
static void print_guest_title(const struct stat_report *r, const struct stat_guest *g)
{
	fprintf(r->out, "\n guest %s (QEMU pid", g->name);
	for (size_t i = 0; i < g->nr_qemus && i < STAT_GUEST_PIDS; i++)
		fprintf(r->out, "%s%d", i ? "," : " ", (int)g->pids[i]);
	fprintf(r->out, "%s, %zu vCPU%s):\n", g->nr_qemus > STAT_GUEST_PIDS ? ",..." : "",
		g->nr_vcpus, g->nr_vcpus == 1 ? "" : "s");
}

static void print_rows(struct stat_report *r, const struct rows *rows,
		       const struct stat_guest *g, size_t ng, double timestamp)
{
	struct stat_style style = {
		.sep = r->sep,
		.interval = r->interval,
		.timestamp = timestamp,
		.guest_column = r->sep || r->interval,
	};
	const char *guest = NULL;
	char line[LINE_MAX_LEN];

	for (size_t i = 0; i < rows->nr; i++) {
		const struct stat_row *row = &rows->row[i];

		if (!style.guest_column && row->guest && row->guest != guest) {
			for (size_t k = 0; k < ng; k++)
				if (g[k].name == row->guest)
					print_guest_title(r, &g[k]);
			guest = row->guest;
		}
		stat_format_row(line, sizeof(line), row, &style);
		fprintf(r->out, "%s\n", line);
	}
}

/* -a found no QEMU: say why there is no guest line, once, for people. */
static void print_no_guests(const struct stat_report *r)
{
	if (r->vms && !r->vms->nr && !r->sep && !r->interval)
		fprintf(r->out, "\n no QEMU was running when counting started: no vCPU "
				"threads counted, no guest blocks\n");
}

int stat_report_print(struct stat_report *r, double timestamp, double wall_ns)
{
	struct stat_guest *g = NULL;
	size_t ng = 0;
	struct rows rows = {0};
	int ret = r->vms ? stat_vms_sum(r->vms, r->interval, &g, &ng) : 0;

	rows.cap = r->nr_counters + r->nr_events * (ng + 1);
	rows.row = calloc(rows.cap, sizeof(*rows.row));
	rows.ev = calloc(rows.cap, sizeof(*rows.ev));
	if (!ret && (!rows.row || !rows.ev))
		ret = -ENOMEM;
	if (!ret)
		ret = add_target_rows(r, &rows, g, ng);
	if (!ret) {
		add_guest_rows(r, &rows, g, ng);
		add_metrics(&rows, wall_ns);
		print_header(r);
		print_rows(r, &rows, g, ng, timestamp);
		print_no_guests(r);
	}
	free(rows.row);
	free(rows.ev);
	stat_guests_free(g, ng);
	return ret;
}

void stat_report_elapsed(const struct stat_report *r, double seconds)
{
	if (!r->sep && !r->interval)
		fprintf(r->out, "\n%18.9f seconds time elapsed\n\n", seconds);
}
