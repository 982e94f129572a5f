/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one inspection found: the OS, its kernels and what was taken out of
 * each. Saved as "meta" in the guest's cache folder so that a restart serves
 * from the cache, and rendered as the guest's info and info.json files.
 * Every string that came from the guest is sanitized (printable ASCII)
 * before it is stored here.
 */
#ifndef GM_META_H
#define GM_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "guest/guest.h"
#include "util.h"

#define GM_MAX_NOTES  32
#define GM_MAX_MOUNTS 32

/* Where a kernel's symbols were taken from, in order of preference. */
enum gm_symsrc {
	GM_SYMS_NONE,
	/* /usr/lib/debug/boot/vmlinux-V or /usr/lib/debug/lib/modules/V/vmlinux */
	GM_SYMS_DEBUG_VMLINUX,
	GM_SYMS_SYSTEM_MAP,	  /* /boot/System.map-V (when not Debian's placeholder) */
	GM_SYMS_DEBUG_SYSTEM_MAP, /* /usr/lib/debug/boot/System.map-V */
	GM_SYMS_VMLINUZ,	  /* kallsyms tables decoded from /boot/vmlinuz-V */
};

struct gm_kernel {
	char ver[GM_VERSION_MAX];
	char vmlinuz[256]; /* guest path of the kernel image */
	bool has_vmlinuz, has_config, has_sysmap, has_debug_vmlinux, has_debug_sysmap;
	bool sysmap_placeholder;
	bool debug_mismatch; /* debug vmlinux ignored: its build-id differs */
	enum gm_symsrc symsrc;
	uint64_t nr_syms;
	char build_id[48];    /* hex, empty when unknown */
	unsigned nr_modules;  /* module files in the tree */
	unsigned modules_bad; /* module files the layout could not be read from */
	char error[256];      /* why there are no symbols, when symsrc == GM_SYMS_NONE */
};

struct gm_meta {
	char error[512]; /* a per-guest error that inspection concluded (cached) */
	int error_code;	 /* its positive errno; what each means: inspect.h */
	char os[32], distro[64], product[128], osversion[32], hostname[128], arch[32];
	char root[128];
	char boot_default[GM_VERSION_MAX];  /* GRUB's default kernel, "" when unknown */
	char mounts[GM_MAX_MOUNTS][2][128]; /* mountpoint, device */
	size_t nr_mounts;
	struct gm_kernel *kernels; /* sorted: newest first */
	size_t nr_kernels;
	char notes[GM_MAX_NOTES][200];
	size_t nr_notes;
	uint64_t files, bytes; /* copied out of the guest */
	time_t inspected_at;
	double launch_s, inspect_s, extract_s, derive_s;
};

const char *gm_symsrc_name(enum gm_symsrc src);

void gm_meta_release(struct gm_meta *m);
struct gm_kernel *gm_meta_add_kernel(struct gm_meta *m, const char *ver);
void gm_meta_note(struct gm_meta *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Newest first, by version compare. */
void gm_meta_sort_kernels(struct gm_meta *m);
const struct gm_kernel *gm_meta_kernel(const struct gm_meta *m, const char *ver);

int gm_meta_save(const struct gm_meta *m, const char *path);
int gm_meta_load(struct gm_meta *m, const char *path);

/* Everything info and info.json show besides the inspection results. */
struct gm_info_ctx {
	const struct gm_guest_conf *conf;
	const char *state;	     /* pending, inspecting, ready, error */
	const char *error;	     /* or NULL */
	const struct gm_meta *meta;  /* or NULL before the first inspection */
	const struct gm_kernel *def; /* default kernel, or NULL */
	const char *def_why;	     /* "configured", "bootloader default" or "newest" */
	const char *key;	     /* cache key or NULL */
	const uint64_t *disk_sizes;  /* per disk, or NULL */
};

void gm_info_text(struct gm_buf *b, const struct gm_info_ctx *c);
void gm_info_json(struct gm_buf *b, const struct gm_info_ctx *c);

/* A running guest, as info shows it. */
struct gm_info_running {
	int pid;
	const char *kernel; /* the kernel it runs, or NULL when not known */
	int64_t slide;
	uint64_t lstar;	  /* 0: not known */
	const char *why;  /* why the kernel or slide is not known */
	const char *also; /* other kernels the LSTAR fits, space-separated, or "" */
};

/*
 * @base (what gm_info_text() or, with @json, gm_info_json() made) plus the
 * running guest's QEMU pid, kernel and slide.
 */
void gm_info_add_running(struct gm_buf *b, const char *base, size_t len, bool json,
			 const struct gm_info_running *r);

#endif
