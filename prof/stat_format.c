// SPDX-License-Identifier: GPL-2.0
#include "stat_format.h"

#include <stdio.h>
#include <string.h>

#define NUM_MAX 64

int stat_group_digits(char *buf, size_t size, double v, int decimals)
{
	char plain[NUM_MAX], grouped[NUM_MAX + NUM_MAX / 3];
	const char *p = plain;
	size_t n = 0, digits;

	snprintf(plain, sizeof(plain), "%.*f", decimals, v);
	if (*p == '-')
		grouped[n++] = *p++;
	digits = strspn(p, "0123456789");
	for (size_t i = 0; i < digits; i++) {
		if (i && (digits - i) % 3 == 0)
			grouped[n++] = ',';
		grouped[n++] = p[i];
	}
	snprintf(grouped + n, sizeof(grouped) - n, "%s", p + digits);
	return snprintf(buf, size, "%s", grouped);
}

/* The count's text and unit; for people grouped, for -x plain. */
static void value_text(const struct stat_row *row, const struct stat_scaled *s,
		       bool grouped, char *buf, size_t size)
{
	double v = row->clock ? s->value / 1e6 : s->value;
	int decimals = row->clock ? 2 : 0;

	if (!row->supported)
		snprintf(buf, size, "<not supported>");
	else if (!s->counted)
		snprintf(buf, size, "<not counted>");
	else if (grouped)
		stat_group_digits(buf, size, v, decimals);
	else
		snprintf(buf, size, "%.*f", decimals, v);
}

/* value,unit,event,run time (ns),percent,split,guest: perf's first five. */
static void format_csv(char *buf, size_t size, const struct stat_row *row,
		       const struct stat_scaled *s, const struct stat_style *st)
{
	const char *x = st->sep;
	char value[NUM_MAX], ts[32] = "";

	value_text(row, s, false, value, sizeof(value));
	if (st->interval)
		snprintf(ts, sizeof(ts), "%.9f%s", st->timestamp, x);
	snprintf(buf, size, "%s%s%s%s%s%s%s%llu%s%.2f%s%s%s%s", ts, value, x,
		 row->clock ? "msec" : "", x, row->event, x,
		 (unsigned long long)row->reading.running, x,
		 s->counted ? s->percent : 0.0, x, row->split, x,
		 row->guest ? row->guest : "");
}

static void format_text(char *buf, size_t size, const struct stat_row *row,
			const struct stat_scaled *s, const struct stat_style *st)
{
	char value[NUM_MAX], ts[32] = "", metric[64] = "", pct[16] = "";
	char where[96];

	value_text(row, s, true, value, sizeof(value));
	if (st->interval)
		snprintf(ts, sizeof(ts), "%15.9f ", st->timestamp);
	if (st->guest_column && row->guest)
		snprintf(where, sizeof(where), "%s %s", row->split, row->guest);
	else
		snprintf(where, sizeof(where), "%s", row->split);
	if (row->metric && s->counted)
		snprintf(metric, sizeof(metric), "  # %8.3f %s", row->metric_value,
			 row->metric);
	if (s->scaled)
		snprintf(pct, sizeof(pct), "  (%.2f%%)", s->percent);
	snprintf(buf, size, "%s%18s %-4s %-20s %-14s%s%s", ts, value,
		 row->clock ? "msec" : "", row->event, where, metric, pct);
	/* No trailing blanks when there is neither metric nor percentage. */
	for (size_t n = strlen(buf); n && buf[n - 1] == ' ';)
		buf[--n] = '\0';
}

void stat_format_row(char *buf, size_t size, const struct stat_row *row,
		     const struct stat_style *style)
{
	struct stat_scaled s = stat_scale(&row->reading);

	if (!row->supported)
		s = (struct stat_scaled){0};
	if (style->sep)
		format_csv(buf, size, row, &s, style);
	else
		format_text(buf, size, row, &s, style);
}
