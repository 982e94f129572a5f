// SPDX-License-Identifier: GPL-2.0
#include "symsrc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "decompress.h"
#include "base/fileio.h"
#include "kallsyms.h"
#include "kimage.h"
#include "symcache.h"

#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif

const char *symsrc_kind_name(enum symsrc_kind kind)
{
	switch (kind) {
	case SYMSRC_KALLSYMS:
		return "kallsyms text";
	case SYMSRC_VMLINUX:
		return "vmlinux";
	case SYMSRC_KERNEL_ELF:
		return "kernel ELF";
	case SYMSRC_MODULE:
		return "module";
	case SYMSRC_KIMAGE:
		return "kernel image";
	default:
		return "unknown";
	}
}

static int elf_type(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (!elf_detect(buf, len) || len < 18)
		return -1;
	/* e_type is at offset 16 in both classes; byte order from EI_DATA. */
	return p[EI_DATA] == ELFDATA2MSB ? p[16] << 8 | p[17] : p[17] << 8 | p[16];
}

static int load_elf(const void *buf, size_t len, const char *what, struct symtab *st,
		    struct kmod_layout *layout, struct kp_err *err)
{
	int ret;

	if (elf_type(buf, len) == ET_REL)
		return elfsyms_load_module(buf, len, what, st, layout, err);
	ret = elfsyms_load_vmlinux(buf, len, what, st, err);
	if (ret != -ENODATA)
		return ret;
	/* A stripped kernel ELF (a decompressed bzImage payload) still has kallsyms. */
	kp_err_clear(err);
	ret = kallsyms_tables_decode(buf, len, st, err);
	if (ret)
		kp_err_prefix(err, "%s", what);
	return ret;
}

/*
 * A compressed module is a whole file, so the size its format states (zstd
 * frame, xz index, gzip ISIZE) is readable before anything is allocated: a
 * statement over @max is refused at once. Decompression enforces @max again,
 * since a statement may be missing or false.
 */
static int declared_fits(enum kp_comp comp, const void *buf, size_t len, const char *what,
			 uint64_t max, struct kp_err *err)
{
	uint64_t size;

	if (kp_comp_declared_size(comp, buf, len, &size) || size <= max)
		return 0;
	return kp_errorf(err, EFBIG,
			 "%s: %s data declares %llu bytes decompressed, over the "
			 "%llu-byte limit",
			 what, kp_comp_name(comp), (unsigned long long)size,
			 (unsigned long long)max);
}

static int load_compressed(enum kp_comp comp, const void *buf, size_t len,
			   const char *what, uint64_t max, struct symtab *st,
			   struct kmod_layout *layout, struct kp_err *err)
{
	size_t max_out = max < SIZE_MAX ? (size_t)max : SIZE_MAX;
	void *raw;
	size_t raw_len;
	int ret;

	ret = declared_fits(comp, buf, len, what, max, err);
	if (ret)
		return ret;
	ret = kp_decompress(comp, buf, len, max_out, &raw, &raw_len, err);
	if (ret) {
		kp_err_prefix(err, "%s", what);
		return ret;
	}
	if (!elf_detect(raw, raw_len))
		ret = kp_errorf(err, EINVAL, "%s: %s data that is not an ELF file", what,
				kp_comp_name(comp));
	else
		ret = load_elf(raw, raw_len, what, st, layout, err);
	free(raw);
	return ret;
}

static int load_into(const void *buf, size_t len, const char *what, uint64_t max,
		     struct symtab *st, struct kmod_layout *layout, struct kp_err *err)
{
	enum kp_comp comp;
	int ret;

	if (kimage_is_bzimage(buf, len)) {
		ret = kimage_load_symbols(buf, len, max, st, err);
		if (ret)
			kp_err_prefix(err, "%s", what);
		return ret;
	}
	if (elf_detect(buf, len))
		return load_elf(buf, len, what, st, layout, err);
	if (kallsyms_text_detect(buf, len))
		return kallsyms_parse(buf, len, what, st, err);
	comp = kp_comp_detect(buf, len);
	if (comp != KP_COMP_NONE)
		return load_compressed(comp, buf, len, what, max, st, layout, err);
	return kp_errorf(err, EINVAL,
			 "%s: not a kernel symbol source (kallsyms, System.map, ELF, "
			 "module or bzImage)",
			 what);
}

/* A table just loaded into @st with result @ret: to the caller, or freed. */
static int hand_over(struct symtab *st, int ret, const char *what, struct symtab **out)
{
	if (ret) {
		symtab_free(st);
		return ret;
	}
	if (!st->source[0])
		symtab_set_source(st, "%s", what);
	*out = st;
	return 0;
}

int symsrc_load_buffer(const void *buf, size_t len, const char *what, uint64_t max,
		       struct symtab **out, struct kmod_layout *layout,
		       struct kp_err *err)
{
	struct symtab *st = symtab_new();

	*out = NULL;
	if (!st)
		return kp_errorf(err, ENOMEM, "%s: out of memory", what);
	return hand_over(st, load_into(buf, len, what, max, st, layout, err), what, out);
}

static struct {
	char dir[4096];
	symsrc_cache_warn_fn warn;
} cache;

void symsrc_set_cache(const char *dir, symsrc_cache_warn_fn warn)
{
	if (!dir ||
	    snprintf(cache.dir, sizeof(cache.dir), "%s", dir) >= (int)sizeof(cache.dir))
		cache.dir[0] = '\0';
	cache.warn = warn;
}

/* A file that a FUSE daemon serves: its identity is whatever the daemon says. */
static bool served_by_fuse(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) || sfs.f_type == FUSE_SUPER_MAGIC;
}

/*
 * Kernel images, a decompression of tens of MB each; and big kallsyms or
 * System.map text, whose 160k lines take three times as long to parse as
 * an entry to map. Not smaller text, which parses faster than a lookup
 * pays; not text a FUSE daemon serves (guestfs-mount makes its kallsyms
 * afresh when a guest changes, under times of its own choosing); not what
 * is not a regular file (/proc/kallsyms changes with every module load).
 */
static bool cacheable(const char *path, const struct kp_mapping *map)
{
	if (!cache.dir[0] || !map->mapped)
		return false;
	if (kimage_is_bzimage(map->data, map->len))
		return true;
	return map->len >= SYMCACHE_TEXT_MIN &&
	       kallsyms_text_detect(map->data, map->len) && !served_by_fuse(path);
}

static void cache_store(const struct kp_mapping *map, const struct symtab *st)
{
	struct kp_err err = {0};
	uint64_t kernel_len = kimage_is_bzimage(map->data, map->len)
				      ? kimage_kernel_size(map->data, map->len)
				      : 0;

	if (symcache_store(cache.dir, &map->st, kernel_len, st, &err) && cache.warn)
		cache.warn(&err);
}

/*
 * Kallsyms text is parsed as it is read (kallsyms_parse_fd()), from the
 * descriptor of the file that was mapped, not from the mapping: in a
 * virtual machine the first touch of each mapped page costs more than
 * reading it.
 */
static int load_text_file(const char *path, int fd, size_t len, struct symtab **out,
			  struct kp_err *err)
{
	struct symtab *st = symtab_new();

	if (!st)
		return kp_errorf(err, ENOMEM, "%s: out of memory", path);
	return hand_over(st, kallsyms_parse_fd(fd, len, 0, path, st, err), path, out);
}

int symsrc_load_file(const char *path, uint64_t max, struct symtab **out,
		     struct kmod_layout *layout, struct kp_err *err)
{
	struct kp_mapping map;
	bool use_cache;
	int fd, ret;

	*out = NULL;
	/* Mapping costs what is read: a large debug vmlinux is fine, a bomb is not. */
	ret = kp_map_file_open(path, KP_FILE_MAX, &map, &fd, err);
	if (ret)
		return ret;
	use_cache = cacheable(path, &map);
	if (use_cache && !symcache_load(cache.dir, &map.st, max, out, NULL))
		goto out;
	if (fd >= 0 && kallsyms_text_detect(map.data, map.len))
		ret = load_text_file(path, fd, map.len, out, err);
	else
		ret = symsrc_load_buffer(map.data, map.len, path, max, out, layout, err);
	if (!ret && use_cache)
		cache_store(&map, *out);
out:
	if (fd >= 0)
		close(fd);
	kp_unmap_file(&map);
	return ret;
}
