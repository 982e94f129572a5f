// SPDX-License-Identifier: GPL-2.0
/* A running guest's kernel and slide, from its LSTAR. */
#include "live.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts.h"
#include "base/base.h"
#include "inspect.h"
#include "ksym/ksym.h"
#include "guest/guest.h"
#include "util.h"

#define KALLSYMS_MAX	 (256U << 20)
#define KERNEL_HALF_BASE 0xffffffff80000000ULL

void gm_live_release(struct gm_live *l)
{
	free(l->kallsyms);
	memset(l, 0, sizeof(*l));
	l->kernel = -1;
}

static int hex16(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	for (int i = 0; i < 16; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
					       : -1;

		if (d < 0)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

int gm_live_relocate(const char *in, size_t len, int64_t slide, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t pos = 0;

	memcpy(out, in, len);
	while (pos < len) {
		const char *nl = memchr(in + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - in) : len;
		uint64_t addr;

		if (end - pos < 17 || in[pos + 16] != ' ' || hex16(in + pos, &addr))
			return -EINVAL;
		if (addr >= KERNEL_HALF_BASE) {
			addr += (uint64_t)slide;
			for (int i = 15; i >= 0; i--, addr >>= 4)
				out[pos + (size_t)i] = digits[addr & 15];
		}
		pos = end + 1;
	}
	return 0;
}

/* Does kernel @k of the cache folder run at @lstar? Its slide and kallsyms text. */
static int try_kernel(const char *keydir, const struct gm_kernel *k, uint64_t lstar,
		      int64_t *slide, char **text, size_t *len, struct kp_err *err)
{
	char path[4096];
	struct symtab *st;
	int ret;

	ret = gm_path(path, sizeof(path), "%s/" GM_K_DIR "/%s/" GM_F_KALLSYMS, keydir,
		      k->ver);
	if (ret)
		return ret;
	ret = kp_read_file(path, KALLSYMS_MAX, text, len, err);
	if (ret)
		return ret;
	st = symtab_new();
	ret = st ? kallsyms_parse(*text, *len, path, st, err) : -ENOMEM;
	if (!ret)
		ret = kaslr_slide_from_lstar(st, lstar, slide, err);
	/* The cache's kallsyms are link-time: a slide KASLR cannot pick rules it out. */
	if (!ret && !kaslr_slide_possible(*slide))
		ret = kp_errorf(err, ERANGE, "slide out of KASLR's range");
	symtab_free(st);
	if (ret) {
		free(*text);
		*text = NULL;
	}
	return ret;
}

/* Does kernel @i explain @lstar with a valid slide? */
static bool fits(const struct gm_meta *meta, const char *keydir, size_t i, uint64_t lstar)
{
	struct kp_err err = {0};
	char *text = NULL;
	size_t len;
	int64_t slide;

	if (try_kernel(keydir, &meta->kernels[i], lstar, &slide, &text, &len, &err))
		return false;
	free(text);
	return true;
}

static bool match_kernel(const struct gm_meta *meta, const char *keydir, size_t i,
			 struct gm_live *out)
{
	struct kp_err err = {0};
	char *text = NULL;
	size_t len = 0;
	int64_t slide;

	if (try_kernel(keydir, &meta->kernels[i], out->lstar, &slide, &text, &len, &err))
		return false;
	out->kallsyms = malloc(len ? len : 1);
	if (!out->kallsyms || gm_live_relocate(text, len, slide, out->kallsyms)) {
		snprintf(out->why, sizeof(out->why),
			 "kernel %s: cannot relocate its kallsyms", meta->kernels[i].ver);
		free(out->kallsyms);
		out->kallsyms = NULL;
		free(text);
		return false;
	}
	free(text);
	out->len = len;
	out->slide = slide;
	out->kernel = (int)i;
	out->why[0] = '\0';
	return true;
}

void gm_live_probe(const char *debugfs, pid_t pid, const struct gm_meta *meta,
		   const char *keydir, const struct gm_kernel *def, struct gm_live *old,
		   struct gm_live *out)
{
	struct kvm_guest_regs regs;
	struct kp_err err = {0};
	size_t first;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	out->kernel = -1;
	if (kvm_debugfs_guest_regs(debugfs, pid, &regs, &err)) {
		snprintf(out->why, sizeof(out->why), "%s", err.msg);
		return;
	}
	out->lstar = regs.lstar;
	/*
	 * Trying the kernels reads and parses up to 16 kallsyms files of up to
	 * 256 MiB each, with the store locked: once per pid, LSTAR and kernel
	 * set, also when none fits, not once a second.
	 */
	if (old && old->pid == pid && old->lstar == regs.lstar &&
	    (old->kernel >= 0 || old->settled)) {
		*out = *old;
		memset(old, 0, sizeof(*old));
		old->kernel = -1;
		return;
	}
	snprintf(out->why, sizeof(out->why),
		 "LSTAR 0x%llx is no installed kernel's " KASLR_LSTAR_SYMBOL
		 " plus a KASLR slide",
		 (unsigned long long)regs.lstar);
	if (!meta || !keydir)
		return;
	/*
	 * The default kernel first: the likeliest, and the tie-breaker. LSTAR
	 * alone cannot always tell kernels apart (Debian's 6.1 and 6.12 put
	 * entry_SYSCALL_64 2 MiB apart), so the others that also fit are named.
	 */
	first = def ? (size_t)(def - meta->kernels) : 0;
	if (first >= meta->nr_kernels || !match_kernel(meta, keydir, first, out)) {
		for (size_t i = 0; out->kernel < 0 && i < meta->nr_kernels; i++)
			if (i != first)
				match_kernel(meta, keydir, i, out);
	}
	for (size_t i = 0; out->kernel >= 0 && i < meta->nr_kernels; i++)
		if ((int)i != out->kernel && fits(meta, keydir, i, out->lstar))
			snprintf(out->also + strlen(out->also),
				 sizeof(out->also) - strlen(out->also), "%s%s",
				 out->also[0] ? " " : "", meta->kernels[i].ver);
	out->settled = true;
}
