// SPDX-License-Identifier: GPL-2.0
#include "kvmfeat.h"
#include "base/sanitize.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KVMFEAT_MAGIC	   "kvmprof-feature 1"
#define KVMFEAT_MAX_GUESTS 65536

struct kvmfeat_guest *kvmfeat_find(const struct kvmfeat *kf, int pid)
{
	for (size_t i = 0; i < kf->nr; i++)
		if (kf->guests[i].pid == pid)
			return &kf->guests[i];
	return NULL;
}

struct kvmfeat_guest *kvmfeat_get(struct kvmfeat *kf, int pid)
{
	struct kvmfeat_guest *g = kvmfeat_find(kf, pid);

	if (g)
		return g;
	if (kf->nr >= KVMFEAT_MAX_GUESTS)
		return NULL;
	g = realloc(kf->guests, (kf->nr + 1) * sizeof(*g));
	if (!g)
		return NULL;
	kf->guests = g;
	g = &kf->guests[kf->nr++];
	memset(g, 0, sizeof(*g));
	g->pid = pid;
	strcpy(g->name, "-");
	return g;
}

int kvmfeat_encode(const struct kvmfeat *kf, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		return -ENOMEM;
	fprintf(f, "%s\n", KVMFEAT_MAGIC);
	for (size_t i = 0; i < kf->nr; i++) {
		const struct kvmfeat_guest *g = &kf->guests[i];

		fprintf(f, "guest %d %s", g->pid, g->name);
		if (g->has_slide)
			fprintf(f, " slide=%s%" PRIx64, g->slide < 0 ? "-" : "",
				g->slide < 0 ? -(uint64_t)g->slide : (uint64_t)g->slide);
		if (g->slide_source[0])
			fprintf(f, " slide-source=%s", g->slide_source);
		if (g->lstar)
			fprintf(f, " lstar=%" PRIx64, g->lstar);
		fputc('\n', f);
	}
	return fclose(f) ? -ENOMEM : 0;
}

static int parse_hex_signed(const char *s, int64_t *v)
{
	bool neg = *s == '-';
	char *end;
	uint64_t u;

	errno = 0;
	u = strtoull(s + neg, &end, 16);
	if (errno || end == s + neg || *end)
		return -EINVAL;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

static int parse_attr(struct kvmfeat_guest *g, const char *tok)
{
	int64_t v;

	if (!strncmp(tok, "slide=", 6)) {
		if (parse_hex_signed(tok + 6, &v))
			return -EINVAL;
		g->slide = v;
		g->has_slide = true;
	} else if (!strncmp(tok, "slide-source=", 13)) {
		/* Shown in reports: keep no control character, even in memory. */
		sanitize(tok + 13, g->slide_source, sizeof(g->slide_source));
	} else if (!strncmp(tok, "lstar=", 6)) {
		if (parse_hex_signed(tok + 6, &v))
			return -EINVAL;
		g->lstar = (uint64_t)v;
	}
	/* Unknown attributes come from newer writers: ignore them. */
	return 0;
}

static int parse_guest(struct kvmfeat *kf, char *line)
{
	char *save = NULL, *tok;
	struct kvmfeat_guest *g;
	char *pid_s, *name;
	long pid;

	strtok_r(line, " ", &save);
	pid_s = strtok_r(NULL, " ", &save);
	name = strtok_r(NULL, " ", &save);
	if (!pid_s || !name)
		return -EINVAL;
	pid = strtol(pid_s, &tok, 10);
	if (*tok || pid < 0 || pid > 0x7fffffff)
		return -EINVAL;
	if (strcmp(name, "-") && !guest_name_valid(name))
		return -EINVAL;
	g = kvmfeat_get(kf, (int)pid);
	if (!g)
		return -ENOMEM;
	snprintf(g->name, sizeof(g->name), "%s", name);
	while ((tok = strtok_r(NULL, " ", &save)))
		if (parse_attr(g, tok))
			return -EINVAL;
	return 0;
}

int kvmfeat_decode(const void *buf, size_t len, const char *what, struct kvmfeat *kf,
		   struct kp_err *err)
{
	char *text = malloc(len + 1), *line, *save = NULL;
	size_t lineno = 0;
	int ret = 0;

	memset(kf, 0, sizeof(*kf));
	if (!text)
		return kp_errorf(err, ENOMEM, "%s: out of memory", what);
	memcpy(text, buf, len);
	text[len] = '\0';
	for (line = strtok_r(text, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (lineno == 1 && strcmp(line, KVMFEAT_MAGIC))
			ret = kp_errorf(err, EINVAL,
					"%s: kvmprof feature: unknown version", what);
		else if (!strncmp(line, "guest ", 6) && parse_guest(kf, line))
			ret = kp_errorf(err, EINVAL,
					"%s: kvmprof feature line %zu: malformed", what,
					lineno);
	}
	free(text);
	if (ret)
		kvmfeat_release(kf);
	return ret;
}

void kvmfeat_release(struct kvmfeat *kf)
{
	free(kf->guests);
	kf->guests = NULL;
	kf->nr = 0;
}
