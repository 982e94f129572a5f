// SPDX-License-Identifier: GPL-2.0
#include "artifacts.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksym/ksym.h"
#include "base/base.h"
#include "inspect.h"
#include "util.h"

#define MAX_DEPTH 12

size_t gm_module_comp_suffix(const char *name)
{
	static const char *const sfx[] = {".ko.xz", ".ko.zst", ".ko.gz"};
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t sl = strlen(sfx[i]);

		if (len > sl && !strcmp(name + len - sl, sfx[i]))
			return sl - 3; /* keep ".ko" */
	}
	return 0;
}

static bool is_module(const char *name)
{
	size_t len = strlen(name);

	return (len > 3 && !strcmp(name + len - 3, ".ko")) || gm_module_comp_suffix(name);
}

/*
 * "Linux version ..." as the kernel prints it in /proc/version, from its
 * linux_banner. Since 6.1 the image holds two: a placeholder in init/version.c
 * ("# SMP ...") and the real one with the build number ("#1 SMP ..."), which wins.
 */
static bool find_banner(const void *elf, size_t len, char *out, size_t size)
{
	static const char tag[] = "Linux version ";
	const char *p = elf, *end = p + len;
	bool found = false;

	while ((p = memmem(p, (size_t)(end - p), tag, sizeof(tag) - 1))) {
		const char *q = p + sizeof(tag) - 1, *hash;
		size_t n;

		while (q < end && *q >= ' ' && *q < 0x7f && q - p < 512)
			q++;
		n = (size_t)(q - p);
		hash = memchr(p, '#', n);
		if (q < end && *q == '\n' && n > sizeof(tag) + 8 && hash) {
			bool numbered = hash + 1 < q && hash[1] >= '0' && hash[1] <= '9';

			if (!found || numbered) {
				if (n >= size)
					n = size - 1;
				memcpy(out, p, n);
				out[n] = '\0';
				found = true;
			}
			if (numbered)
				return true;
		}
		p++;
	}
	return found;
}

static int write_table(const struct symtab *st, const char *path)
{
	char tmp[4096];
	FILE *f = gm_create_tmp(path, tmp, sizeof(tmp));

	if (!f)
		return errno ? -errno : -EIO;
	errno = 0;
	if (kallsyms_write(st, 0, f)) { /* link-time addresses */
		int ret = errno ? -errno : -EIO;

		fclose(f);
		unlink(tmp);
		return ret;
	}
	return gm_commit_tmp(f, tmp, path);
}

/* The NT_GNU_BUILD_ID note as /sys/kernel/notes holds it. */
static int write_notes(const uint8_t *id, size_t len, const char *path)
{
	uint8_t buf[12 + 4 + KP_BUILD_ID_MAX + 3];
	uint32_t hdr[3] = {4, (uint32_t)len, 3 /* NT_GNU_BUILD_ID */};
	size_t n = 12 + 4 + ((len + 3) & ~(size_t)3);

	memset(buf, 0, sizeof(buf));
	memcpy(buf, hdr, 12);
	memcpy(buf + 12, "GNU", 4);
	memcpy(buf + 16, id, len);
	return gm_write_file(path, buf, n);
}

struct modent {
	char name[64];
	uint64_t size;
};

struct modlist {
	struct modent *v;
	size_t nr, cap;
	unsigned bad;
	uint64_t max;
};

static void module_name_from_file(const char *file, char *out, size_t size)
{
	size_t i = 0;

	for (; file[i] && file[i] != '.' && i + 1 < size; i++)
		out[i] = file[i] == '-' ? '_' : file[i];
	out[i] = '\0';
}

static void add_module(struct modlist *ml, const char *path, const char *file)
{
	struct kmod_layout layout = {0};
	struct kp_mapping map;
	struct symtab *st = NULL;
	struct modent *e;
	char name[64];
	int ret;

	if (ml->nr == ml->cap) {
		size_t cap = ml->cap ? ml->cap * 2 : 256;
		struct modent *v = realloc(ml->v, cap * sizeof(*v));

		if (!v) {
			ml->bad++;
			return;
		}
		ml->v = v;
		ml->cap = cap;
	}
	e = &ml->v[ml->nr];
	module_name_from_file(file, name, sizeof(name));
	e->size = 0;
	ret = kp_map_file(path, ml->max, &map, NULL);
	if (!ret) {
		ret = symsrc_load_buffer(map.data, map.len, path, ml->max, &st, &layout,
					 NULL);
		kp_unmap_file(&map);
	}
	if (!ret) {
		e->size = layout.core_size;
		if (layout.name[0])
			snprintf(name, sizeof(name), "%s", layout.name);
	} else {
		ml->bad++;
	}
	symtab_free(st);
	kmod_layout_release(&layout);
	gm_sanitize(e->name, sizeof(e->name), name);
	for (char *c = e->name; *c; c++)
		if (*c == ' ')
			*c = '_';
	if (e->name[0])
		ml->nr++;
}

static void walk_modules(struct modlist *ml, const char *dir, int depth)
{
	DIR *d = depth <= MAX_DEPTH ? opendir(dir) : NULL;
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[4096];
		struct stat st;

		if (de->d_name[0] == '.' ||
		    gm_path(path, sizeof(path), "%s/%s", dir, de->d_name) ||
		    lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			walk_modules(ml, path, depth + 1);
		else if (S_ISREG(st.st_mode) && is_module(de->d_name))
			add_module(ml, path, de->d_name);
	}
	closedir(d);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct modent *)a)->name, ((const struct modent *)b)->name);
}

/* /proc/modules lines: name, size, refcount, users, state, address (unknown: 0). */
static int derive_modules(const char *kdir, const struct gm_config *cfg,
			  struct gm_kernel *k)
{
	struct modlist ml = {.max = cfg->max_file_size};
	struct gm_buf b = {0};
	char dir[4096], out[4096];
	int ret = 0;

	if (gm_path(dir, sizeof(dir), "%s/" GM_D_MODULES, kdir) ||
	    gm_path(out, sizeof(out), "%s/" GM_F_MODULES, kdir))
		return 0;
	walk_modules(&ml, dir, 0);
	if (ml.nr)
		qsort(ml.v, ml.nr, sizeof(*ml.v), by_name);
	for (size_t i = 0; i < ml.nr; i++) {
		if (i && !strcmp(ml.v[i].name, ml.v[i - 1].name))
			continue;
		gm_buf_printf(&b, "%s %" PRIu64 " 0 - Live 0x0000000000000000\n",
			      ml.v[i].name, ml.v[i].size);
	}
	k->nr_modules = (unsigned)ml.nr;
	k->modules_bad = ml.bad;
	if (!b.failed)
		ret = gm_write_file(out, b.data ? b.data : "", b.len);
	gm_buf_release(&b);
	free(ml.v);
	return ret;
}

static bool kpath(char *buf, size_t size, const char *kdir, const char *name)
{
	return !gm_path(buf, size, "%s/%s", kdir, name);
}

/* System.map-style sources: a real table, or Debian's placeholder (-ENODATA). */
static struct symtab *load_map(const char *path, uint64_t max, bool *placeholder,
			       struct kp_err *err)
{
	struct symtab *st;
	int ret = symsrc_load_file(path, max, &st, NULL, err);

	if (ret == -ENODATA && strstr(err->msg, "placeholder"))
		*placeholder = true;
	return ret ? NULL : st;
}

/* The first of two write results that failed. */
static int first_err(int a, int b)
{
	return a ? a : b;
}

int gm_derive_kernel(const char *kdir, const struct gm_config *cfg, struct gm_meta *m,
		     struct gm_kernel *k)
{
	char path[4096], hex[2 * KP_BUILD_ID_MAX + 2], banner[600];
	struct kp_mapping zmap = {0};
	struct kp_err err = {0};
	struct symtab *st = NULL;
	uint8_t id[KP_BUILD_ID_MAX];
	size_t id_len = 0, elf_len = 0;
	void *elf = NULL;
	bool elf_owned = false, have_banner = false;
	int ret, werr = 0;

	/* The kernel image: its ELF gives the build-id, the banner and (last) kallsyms.
	 */
	if (k->has_vmlinuz && kpath(path, sizeof(path), kdir, GM_F_VMLINUZ) &&
	    !kp_map_file(path, cfg->max_file_size, &zmap, &err)) {
		if (kimage_is_bzimage(zmap.data, zmap.len)) {
			/* Guest files get max-file-size, not the library's 1 GiB. */
			ret = kimage_extract(zmap.data, zmap.len, cfg->max_file_size,
					     &elf, &elf_len, &err);
			if (ret)
				gm_meta_note(m, "kernel %s: %s", k->ver, err.msg);
			elf_owned = !ret;
		} else if (elf_detect(zmap.data, zmap.len)) {
			elf = (void *)zmap.data;
			elf_len = zmap.len;
		} else {
			gm_meta_note(m,
				     "kernel %s: %s is neither a bzImage nor an ELF file",
				     k->ver, k->vmlinuz);
		}
		kp_err_clear(&err);
	}
	if (elf) {
		id_len = buildid_from_elf(elf, elf_len, id, sizeof(id));
		have_banner = find_banner(elf, elf_len, banner, sizeof(banner));
	}

	/* Symbols, best source first. */
	if (k->has_debug_vmlinux && kpath(path, sizeof(path), kdir, GM_F_DEBUG_VMLINUX)) {
		if (symsrc_load_file(path, cfg->max_file_size, &st, NULL, &err)) {
			gm_meta_note(m, "kernel %s: debug vmlinux: %s", k->ver, err.msg);
		} else if (id_len && st->build_id_len &&
			   (st->build_id_len != id_len ||
			    memcmp(st->build_id, id, id_len))) {
			k->debug_mismatch = true;
			gm_meta_note(
				m,
				"kernel %s: debug vmlinux has another build-id than the "
				"kernel image: ignored",
				k->ver);
			symtab_free(st);
			st = NULL;
		} else {
			k->symsrc = GM_SYMS_DEBUG_VMLINUX;
		}
		kp_err_clear(&err);
	}
	if (!st && k->has_sysmap && kpath(path, sizeof(path), kdir, GM_F_SYSMAP)) {
		st = load_map(path, cfg->max_file_size, &k->sysmap_placeholder, &err);
		if (st)
			k->symsrc = GM_SYMS_SYSTEM_MAP;
		else if (!k->sysmap_placeholder)
			gm_meta_note(m, "kernel %s: System.map: %s", k->ver, err.msg);
		kp_err_clear(&err);
	} else if (k->has_sysmap && kpath(path, sizeof(path), kdir, GM_F_SYSMAP)) {
		bool ph = false;
		struct symtab *t = load_map(path, cfg->max_file_size, &ph, &err);

		k->sysmap_placeholder = ph;
		symtab_free(t);
		kp_err_clear(&err);
	}
	if (!st && k->has_debug_sysmap &&
	    kpath(path, sizeof(path), kdir, GM_F_DEBUG_SYSMAP)) {
		bool ph = false;

		st = load_map(path, cfg->max_file_size, &ph, &err);
		if (st)
			k->symsrc = GM_SYMS_DEBUG_SYSTEM_MAP;
		else
			gm_meta_note(m, "kernel %s: debug System.map: %s", k->ver,
				     err.msg);
		kp_err_clear(&err);
	}
	if (!st && elf) {
		st = symtab_new();
		if (st && !kallsyms_tables_decode(elf, elf_len, st, &err)) {
			k->symsrc = GM_SYMS_VMLINUZ;
		} else {
			gm_sanitize(k->error, sizeof(k->error),
				    st ? err.msg : "out of memory");
			symtab_free(st);
			st = NULL;
		}
	} else if (!st) {
		snprintf(k->error, sizeof(k->error),
			 "no symbol source (no debug vmlinux, real "
			 "System.map or readable kernel image)");
	}
	gm_sanitize(k->error, sizeof(k->error), k->error);

	if (st) {
		k->nr_syms = st->nr;
		if (kpath(path, sizeof(path), kdir, GM_F_KALLSYMS))
			werr = first_err(werr, write_table(st, path));
		if (st->build_id_len && !id_len) {
			memcpy(id, st->build_id, st->build_id_len);
			id_len = st->build_id_len;
		}
	}
	if (id_len) {
		buildid_to_hex(id, id_len, hex);
		snprintf(k->build_id, sizeof(k->build_id), "%s", hex);
		strcat(hex, "\n");
		if (kpath(path, sizeof(path), kdir, GM_F_BUILD_ID))
			werr = first_err(werr, gm_write_file(path, hex, strlen(hex)));
		if (kpath(path, sizeof(path), kdir, GM_F_NOTES))
			werr = first_err(werr, write_notes(id, id_len, path));
	}
	if (!have_banner)
		snprintf(banner, sizeof(banner), "Linux version %s", k->ver);
	strcat(banner, "\n");
	if (kpath(path, sizeof(path), kdir, GM_F_VERSION))
		werr = first_err(werr, gm_write_file(path, banner, strlen(banner)));
	werr = first_err(werr, derive_modules(kdir, cfg, k));

	symtab_free(st);
	if (elf_owned)
		free(elf);
	if (zmap.data)
		kp_unmap_file(&zmap);
	return werr;
}

static int write_buffer(const char *out, const void *data, size_t len, struct kp_err *err)
{
	int ret = gm_write_file(out, data, len);

	return ret ? kp_errorf(err, -ret, "%s: %s", out, strerror(-ret)) : 0;
}

int gm_derive_vmlinux(const char *vmlinuz, const char *out, uint64_t max_in, uint64_t max,
		      struct kp_err *err)
{
	struct kp_mapping map;
	void *elf;
	size_t len;
	int ret;

	ret = kp_map_file(vmlinuz, max_in, &map, err);
	if (ret)
		return ret;
	if (elf_detect(map.data, map.len) && map.len > max) {
		ret = kp_errorf(err, EFBIG, "%s: %zu bytes, over the %llu-byte limit",
				vmlinuz, map.len, (unsigned long long)max);
	} else if (elf_detect(map.data, map.len)) {
		ret = write_buffer(out, map.data, map.len, err);
	} else if (!kimage_is_bzimage(map.data, map.len)) {
		ret = kp_errorf(err, EINVAL,
				"kernel image is neither a bzImage nor an ELF file");
	} else {
		ret = kimage_extract(map.data, map.len, max, &elf, &len, err);
		if (ret)
			kp_err_prefix(err, "%s", vmlinuz);
		else
			ret = write_buffer(out, elf, len, err);
		free(elf);
	}
	kp_unmap_file(&map);
	return ret;
}

/*
 * What gm_derive_vmlinux() makes of @vmlinuz, by the image's word: an ELF
 * is served as it is, a bzImage's compressed payload ends with the kernel's
 * size (checked by kimage_extract()). -ENODATA when the image says nothing.
 */
int gm_vmlinux_declared(const char *vmlinuz, uint64_t max, uint64_t *size)
{
	struct kp_mapping map;
	const unsigned char *payload;
	enum kp_comp comp;
	size_t plen;
	int ret;

	if (kp_map_file(vmlinuz, max, &map, NULL))
		return -ENODATA;
	ret = -ENODATA;
	if (elf_detect(map.data, map.len)) {
		*size = map.len;
		ret = 0;
	} else if (kimage_is_bzimage(map.data, map.len) &&
		   !kimage_payload(map.data, map.len, (const void **)&payload, &plen,
				   &comp, NULL) &&
		   plen >= 4) {
		const unsigned char *t = payload + plen - 4;

		*size = comp == KP_COMP_NONE
				? plen
				: ((uint64_t)t[0] | (uint64_t)t[1] << 8 |
				   (uint64_t)t[2] << 16 | (uint64_t)t[3] << 24);
		ret = 0;
	}
	kp_unmap_file(&map);
	return ret;
}

/* What gm_derive_module() makes of @src, by its format's word (kp_comp_declared_size()).
 */
int gm_module_declared(const char *src, uint64_t max, uint64_t *size)
{
	struct kp_mapping map;
	int ret;

	if (kp_map_file(src, max, &map, NULL))
		return -ENODATA;
	ret = kp_comp_declared_size(kp_comp_detect(map.data, map.len), map.data, map.len,
				    size);
	kp_unmap_file(&map);
	return ret;
}

int gm_derive_module(const char *src, const char *out, uint64_t max_in, uint64_t max,
		     struct kp_err *err)
{
	struct kp_mapping map;
	enum kp_comp comp;
	void *raw;
	size_t len;
	int ret;

	ret = kp_map_file(src, max_in, &map, err);
	if (ret)
		return ret;
	comp = kp_comp_detect(map.data, map.len);
	if (comp == KP_COMP_NONE && map.len > max) {
		ret = kp_errorf(err, EFBIG, "%s: %zu bytes, over the %llu-byte limit",
				src, map.len, (unsigned long long)max);
	} else if (comp == KP_COMP_NONE) {
		ret = write_buffer(out, map.data, map.len, err);
	} else {
		ret = kp_decompress(comp, map.data, map.len, max, &raw, &len, err);
		if (ret)
			kp_err_prefix(err, "%s", src);
		else {
			ret = write_buffer(out, raw, len, err);
			free(raw);
		}
	}
	kp_unmap_file(&map);
	return ret;
}
