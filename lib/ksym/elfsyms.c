// SPDX-License-Identifier: GPL-2.0
#include "elfsyms.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildid.h"
#include "demangle.h"
#include "elfplt.h"

bool elf_detect(const void *buf, size_t len)
{
	return len >= EI_NIDENT && !memcmp(buf, ELFMAG, SELFMAG);
}

static int elf_open_buffer(const void *buf, size_t len, const char *what, Elf **out,
			   struct kp_err *err)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return kp_errorf(err, EIO, "%s: libelf: %s", what, elf_errmsg(-1));
	/* elf_memory() takes a non-const pointer but only reads through it here. */
	elf = elf_memory((char *)buf, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return kp_errorf(err, EINVAL, "%s: not an ELF file: %s", what,
				 elf_errmsg(-1));
	}
	*out = elf;
	return 0;
}

static Elf_Scn *find_section_type(Elf *elf, GElf_Word type, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, shdr) && shdr->sh_type == type)
			return scn;
	return NULL;
}

/* nm's letter for a symbol defined in section @sec. */
static char nm_type(const GElf_Sym *sym, const GElf_Shdr *sec)
{
	int bind = GELF_ST_BIND(sym->st_info);
	char c;

	if (sym->st_shndx == SHN_ABS)
		c = 'a';
	else if (!sec)
		c = '?';
	else if (sec->sh_flags & SHF_EXECINSTR)
		c = 't';
	else if (sec->sh_type == SHT_NOBITS)
		c = 'b';
	else if (sec->sh_flags & SHF_WRITE)
		c = 'd';
	else if (sec->sh_flags & SHF_ALLOC)
		c = 'r';
	else
		c = 'n';
	if (bind == STB_WEAK)
		return c == 't' ? 'W' : 'V';
	return bind == STB_GLOBAL ? (char)(c - 'a' + 'A') : c;
}

static bool wanted_symbol(const GElf_Sym *sym, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (!name || !name[0] || sym->st_shndx == SHN_UNDEF)
		return false;
	if (type == STT_SECTION || type == STT_FILE)
		return false;
	/* Assembler-local labels and mapping symbols never reach kallsyms. */
	return !(name[0] == '.' && name[1] == 'L') && name[0] != '$';
}

/*
 * A code label (_start in ld.so, entry stubs written in assembly) has no
 * type and no size, yet samples land on it: keep it as perf does, when it
 * is visible and lies in a text section. Its size is then up to the next
 * symbol.
 */
static bool is_code_label(Elf *elf, const GElf_Sym *sym, const GElf_Shdr *sec)
{
	int vis = GELF_ST_VISIBILITY(sym->st_other);
	size_t shstrndx;
	const char *secname;

	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE || !sec || sym->st_shndx == SHN_ABS)
		return false;
	if (vis == STV_HIDDEN || vis == STV_INTERNAL)
		return false;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	secname = elf_strptr(elf, shstrndx, sec->sh_name);
	return secname && strstr(secname, "text");
}

static bool is_function(Elf *elf, const GElf_Sym *sym, const GElf_Shdr *sec)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return type == STT_FUNC || type == STT_GNU_IFUNC || is_code_label(elf, sym, sec);
}

typedef uint64_t (*sym_base_fn)(void *ctx, size_t shndx, bool *keep);

struct sym_filter {
	GElf_Word table; /* SHT_SYMTAB or SHT_DYNSYM */
	bool functions_only;
	bool demangle; /* user space: C++ names as perf shows them */
	sym_base_fn base_of;
	void *ctx;
};

static int add_symbol(struct symtab *st, const GElf_Sym *sym, uint64_t addr, char type,
		      const char *name, const char *module, bool user)
{
	char *pretty = user ? demangle(name) : NULL;
	int ret = symtab_add(st, addr, type, pretty ? pretty : name, module);

	/* User-space lookups stop at the ELF size, as perf's do: padding is not code. */
	if (!ret && user)
		st->syms[st->nr - 1].size = ksym_size_cap(sym->st_size);
	free(pretty);
	return ret;
}

/*
 * One symbol table as read_symbols() walks it. libelf's calls per symbol
 * (gelf_getsym() and elf_strptr() alone were 9% of a host report's
 * profile, with elf_getscn() and gelf_getshdr() for its section) are
 * avoided: a 64-bit table is read where libelf holds it, names straight
 * from their section once it is known to end in a NUL, and each section's
 * header once. Anything else takes libelf's calls, as before.
 */
#define SYMREADER_SECTIONS 4096 /* headers kept; a linked file has a few dozen */

struct section_slot {
	GElf_Shdr shdr;
	uint8_t state; /* 0: not read yet, 1: read, 2: none */
};

struct symreader {
	Elf *elf;
	Elf_Data *data;
	const GElf_Sym *direct; /* the table in place (GElf_Sym is Elf64_Sym) */
	size_t link;		/* the names' section */
	const char *names;	/* in place, NUL-terminated at names_len - 1 */
	size_t names_len;
	struct section_slot *secs; /* SYMREADER_SECTIONS at most, else none */
	size_t nr_secs;
};

static void names_in_place(struct symreader *r)
{
	Elf_Scn *scn = elf_getscn(r->elf, r->link);
	GElf_Shdr shdr;
	Elf_Data *d;

	if (!scn || !gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_STRTAB)
		return;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size || d->d_size != shdr.sh_size ||
	    ((const char *)d->d_buf)[d->d_size - 1])
		return;
	r->names = d->d_buf;
	r->names_len = d->d_size;
}

static void symreader_init(struct symreader *r, Elf *elf, Elf_Data *data,
			   const GElf_Shdr *table, size_t n)
{
	size_t shnum;

	memset(r, 0, sizeof(*r));
	r->elf = elf;
	r->data = data;
	r->link = table->sh_link;
	if (gelf_getclass(elf) == ELFCLASS64 && data->d_type == ELF_T_SYM &&
	    table->sh_entsize == sizeof(Elf64_Sym) && data->d_buf &&
	    data->d_size / sizeof(Elf64_Sym) >= n)
		r->direct = data->d_buf;
	names_in_place(r);
	if (!elf_getshdrnum(elf, &shnum) && shnum <= SYMREADER_SECTIONS) {
		r->secs = calloc(shnum ? shnum : 1, sizeof(*r->secs));
		r->nr_secs = r->secs ? shnum : 0;
	}
}

static const GElf_Sym *symreader_sym(const struct symreader *r, size_t i, GElf_Sym *tmp)
{
	return r->direct ? &r->direct[i] : gelf_getsym(r->data, (int)i, tmp);
}

static const char *symreader_name(const struct symreader *r, size_t off)
{
	if (r->names)
		return off < r->names_len ? r->names + off : NULL;
	return elf_strptr(r->elf, r->link, off);
}

/* The header of the section @shndx, or NULL when there is none. */
static const GElf_Shdr *symreader_section(struct symreader *r, size_t shndx,
					  GElf_Shdr *tmp)
{
	if (shndx >= SHN_LORESERVE)
		return NULL;
	if (shndx >= r->nr_secs)
		return gelf_getshdr(elf_getscn(r->elf, shndx), tmp);
	if (!r->secs[shndx].state)
		r->secs[shndx].state =
			gelf_getshdr(elf_getscn(r->elf, shndx), &r->secs[shndx].shdr) ? 1
										      : 2;
	return r->secs[shndx].state == 1 ? &r->secs[shndx].shdr : NULL;
}

static int read_symbols(Elf *elf, const char *what, struct symtab *st, const char *module,
			const struct sym_filter *flt, struct kp_err *err)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = find_section_type(elf, flt->table, &shdr);
	struct symreader r;
	Elf_Data *data;
	size_t n;
	int ret = 0;

	if (!scn)
		return kp_errorf(err, ENODATA, "%s: no %s (stripped)", what,
				 flt->table == SHT_SYMTAB ? ".symtab" : ".dynsym");
	data = elf_getdata(scn, NULL);
	if (!data || !shdr.sh_entsize)
		return kp_errorf(err, EINVAL, "%s: unreadable .symtab", what);
	n = shdr.sh_size / shdr.sh_entsize;
	symreader_init(&r, elf, data, &shdr, n);
	for (size_t i = 1; i < n; i++) {
		GElf_Sym tmp;
		GElf_Shdr sec_tmp;
		const GElf_Sym *sym = symreader_sym(&r, i, &tmp);
		const GElf_Shdr *sec;
		const char *name;
		bool keep = true;
		uint64_t base;

		if (!sym) {
			ret = kp_errorf(err, EINVAL, "%s: bad symbol %zu", what, i);
			break;
		}
		name = symreader_name(&r, sym->st_name);
		if (!wanted_symbol(sym, name))
			continue;
		sec = symreader_section(&r, sym->st_shndx, &sec_tmp);
		if (flt->functions_only && !is_function(elf, sym, sec))
			continue;
		base = flt->base_of ? flt->base_of(flt->ctx, sym->st_shndx, &keep) : 0;
		if (!keep)
			continue;
		if (add_symbol(st, sym, base + sym->st_value, nm_type(sym, sec), name,
			       module, flt->demangle)) {
			ret = kp_errorf(err, ENOMEM, "%s: out of memory", what);
			break;
		}
	}
	free(r.secs);
	return ret;
}

static void read_build_id(Elf *elf, struct symtab *st)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		st->build_id_len = buildid_from_notes(data->d_buf, data->d_size,
						      st->build_id, sizeof(st->build_id));
		if (st->build_id_len)
			return;
	}
}

int elfsyms_load_vmlinux(const void *buf, size_t len, const char *what, struct symtab *st,
			 struct kp_err *err)
{
	Elf *elf;
	int ret = elf_open_buffer(buf, len, what, &elf, err);

	if (ret)
		return ret;
	ret = read_symbols(elf, what, st, NULL, &(struct sym_filter){.table = SHT_SYMTAB},
			   err);
	if (!ret) {
		read_build_id(elf, st);
		symtab_set_source(st, "vmlinux .symtab");
		ret = symtab_finish(st)
			      ? kp_errorf(err, ENOMEM, "%s: out of memory", what)
			      : 0;
	}
	elf_end(elf);
	return ret;
}

/* Sections the loader puts in init memory, freed after the module's init. */
static bool is_init_section(const char *name)
{
	return !strncmp(name, ".init", 5) || !strncmp(name, ".exit", 5);
}

struct module_ctx {
	Elf *elf;
	uint64_t *text_offset; /* per section index; UINT64_MAX when not text */
	size_t nr;
};

static uint64_t module_base(void *opaque, size_t shndx, bool *keep)
{
	struct module_ctx *ctx = opaque;

	/* Only text has a known base (/proc/modules gives the text address). */
	*keep = shndx < ctx->nr && ctx->text_offset[shndx] != UINT64_MAX;
	return *keep ? ctx->text_offset[shndx] : 0;
}

static uint64_t align_up(uint64_t v, uint64_t align)
{
	return align > 1 ? (v + align - 1) / align * align : v;
}

static int add_section(struct kmod_layout *layout, const char *name, const GElf_Shdr *sh,
		       uint64_t offset, bool exec)
{
	struct kmod_section *secs, *s;

	secs = realloc(layout->secs, (layout->nr_secs + 1) * sizeof(*secs));
	if (!secs)
		return -ENOMEM;
	layout->secs = secs;
	s = &secs[layout->nr_secs++];
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->offset = offset;
	s->size = sh->sh_size;
	s->align = sh->sh_addralign;
	s->exec = exec;
	return 0;
}

/*
 * Mirror the loader's layout_sections(): executable sections first, in
 * section-header order, each aligned; then everything else that is allocated.
 * Since Linux 6.4 text lives in its own allocation, so text offsets start at 0.
 */
static int layout_module(Elf *elf, struct module_ctx *ctx, struct kmod_layout *layout)
{
	size_t shstrndx;
	uint64_t text = 0, other = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) || elf_getshdrnum(elf, &ctx->nr))
		return -EINVAL;
	ctx->text_offset = malloc(ctx->nr * sizeof(uint64_t));
	if (!ctx->text_offset)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ctx->nr; i++) {
			GElf_Shdr sh;
			const char *name;
			bool exec;
			uint64_t *cursor, off;

			if (pass == 0)
				ctx->text_offset[i] = UINT64_MAX;
			if (!gelf_getshdr(elf_getscn(elf, i), &sh) ||
			    !(sh.sh_flags & SHF_ALLOC))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			exec = sh.sh_flags & SHF_EXECINSTR;
			if (!name || is_init_section(name) || exec != (pass == 0))
				continue;
			cursor = exec ? &text : &other;
			off = align_up(*cursor, sh.sh_addralign);
			*cursor = off + sh.sh_size;
			if (exec)
				ctx->text_offset[i] = off;
			if (layout && add_section(layout, name, &sh, off, exec))
				return -ENOMEM;
		}
	}
	if (layout) {
		layout->text_size = text;
		layout->core_size = text + other;
	}
	return 0;
}

/* "name=" in .modinfo, else the caller's fallback. */
static void module_name(Elf *elf, char *out, size_t size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;
		const char *p, *end;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".modinfo"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return;
		p = data->d_buf;
		end = p + data->d_size;
		while (p < end) {
			size_t n = strnlen(p, (size_t)(end - p));

			if (n > 5 && !strncmp(p, "name=", 5)) {
				snprintf(out, size, "%.*s", (int)(n - 5), p + 5);
				return;
			}
			p += n + 1;
		}
	}
}

int elfsyms_load_module(const void *buf, size_t len, const char *what, struct symtab *st,
			struct kmod_layout *layout, struct kp_err *err)
{
	struct module_ctx ctx = {0};
	struct kmod_layout local = {0};
	GElf_Ehdr eh;
	Elf *elf;
	int ret = elf_open_buffer(buf, len, what, &elf, err);

	if (ret)
		return ret;
	if (!layout)
		layout = &local;
	memset(layout, 0, sizeof(*layout));
	ctx.elf = elf;
	if (!gelf_getehdr(elf, &eh) || eh.e_type != ET_REL) {
		ret = kp_errorf(err, EINVAL, "%s: not a relocatable kernel module", what);
		goto out;
	}
	if (layout_module(elf, &ctx, layout)) {
		ret = kp_errorf(err, EINVAL, "%s: unreadable section headers", what);
		goto out;
	}
	module_name(elf, layout->name, sizeof(layout->name));
	if (!layout->name[0]) {
		ret = kp_errorf(err, EINVAL, "%s: no module name in .modinfo", what);
		goto out;
	}
	ret = read_symbols(elf, what, st, layout->name,
			   &(struct sym_filter){.table = SHT_SYMTAB,
						.base_of = module_base,
						.ctx = &ctx},
			   err);
	if (ret)
		goto out;
	read_build_id(elf, st);
	st->text_start = 0;
	symtab_set_source(st, "module %s", layout->name);
	ret = symtab_finish(st) ? kp_errorf(err, ENOMEM, "%s: out of memory", what) : 0;
	/* Module tables have no _text/_etext: their text range is the layout's. */
	st->text_start = 0;
	st->text_end = layout->text_size;
out:
	free(ctx.text_offset);
	kmod_layout_release(&local);
	elf_end(elf);
	return ret;
}

void kmod_layout_release(struct kmod_layout *layout)
{
	free(layout->secs);
	layout->secs = NULL;
	layout->nr_secs = 0;
}

static int read_segments(Elf *elf, struct elf_segments *segs)
{
	size_t n;

	memset(segs, 0, sizeof(*segs));
	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	segs->segs = calloc(n ? n : 1, sizeof(*segs->segs));
	if (!segs->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		segs->segs[segs->nr++] =
			(struct elf_segment){ph.p_vaddr, ph.p_offset, ph.p_filesz};
	}
	return 0;
}

/*
 * PLT entries of @loaded, the file as loaded (@elf when it is the file being
 * read, else a separate buffer: a debug file has no PLT contents), to @st.
 */
static int add_plt(Elf *elf, const void *buf, const void *loaded, size_t loaded_len,
		   const char *what, struct symtab *st, struct kp_err *err)
{
	Elf *plt = elf;
	int ret = 0;

	if (loaded != buf && (ret = elf_open_buffer(loaded, loaded_len, what, &plt, err)))
		return ret;
	if (elfplt_add_symbols(plt, st))
		ret = kp_errorf(err, ENOMEM, "%s: out of memory", what);
	if (plt != elf)
		elf_end(plt);
	return ret;
}

/*
 * User-space function symbols: .symtab, else (for the binary itself, @segs
 * given) .dynsym and its load segments, and the PLT entries of @loaded when
 * given. A separate debug file (@segs NULL) must have its .symtab.
 */
static int load_user(const void *buf, size_t len, const char *what, const void *loaded,
		     size_t loaded_len, struct symtab *st, struct elf_segments *segs,
		     struct kp_err *err)
{
	struct sym_filter flt = {
		.table = SHT_SYMTAB, .functions_only = true, .demangle = true};
	Elf *elf;
	int ret = elf_open_buffer(buf, len, what, &elf, err);

	if (ret)
		return ret;
	ret = read_symbols(elf, what, st, NULL, &flt, err);
	if (ret == -ENODATA && segs) {
		kp_err_clear(err);
		flt.table = SHT_DYNSYM;
		ret = read_symbols(elf, what, st, NULL, &flt, err);
	}
	if (!ret && loaded)
		ret = add_plt(elf, buf, loaded, loaded_len, what, st, err);
	if (!ret && segs && read_segments(elf, segs))
		ret = kp_errorf(err, EINVAL, "%s: unreadable program headers", what);
	if (!ret) {
		read_build_id(elf, st);
		symtab_set_source(st, "%s", what);
		st->bounded = true;
		ret = symtab_finish(st)
			      ? kp_errorf(err, ENOMEM, "%s: out of memory", what)
			      : 0;
	}
	elf_end(elf);
	return ret;
}

int elfsyms_load_user(const void *buf, size_t len, const char *what, struct symtab *st,
		      struct elf_segments *segs, struct kp_err *err)
{
	return load_user(buf, len, what, buf, len, st, segs, err);
}

int elfsyms_load_user_symbols(const void *buf, size_t len, const char *what,
			      const void *loaded, size_t loaded_len, struct symtab *st,
			      struct kp_err *err)
{
	return load_user(buf, len, what, loaded, loaded_len, st, NULL, err);
}

uint64_t elf_segments_offset_to_vaddr(const struct elf_segments *segs, uint64_t off)
{
	for (size_t i = 0; i < segs->nr; i++) {
		const struct elf_segment *s = &segs->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz)
			return off - s->offset + s->vaddr;
	}
	return UINT64_MAX;
}

void elf_segments_release(struct elf_segments *segs)
{
	free(segs->segs);
	segs->segs = NULL;
	segs->nr = 0;
}
