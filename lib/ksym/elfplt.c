// SPDX-License-Identifier: GPL-2.0
#include "elfplt.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

struct plt_layout {
	GElf_Shdr plt;	/* the entries' section: .plt.sec when present, else .plt */
	uint64_t first; /* address of the first entry */
	uint64_t entsize;
	GElf_Shdr rel; /* .rela.plt or .rel.plt */
	Elf_Data *rel_data;
	Elf_Data *dynsym;
	GElf_Word dynstr; /* section index of the dynsym's names */
};

static Elf_Scn *section_by_name(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * The lazy-binding .plt starts with a header entry; with IBT (-z ibtplt or
 * -fcf-protection) the calls go through .plt.sec instead, which has none.
 * Entries are in relocation order either way.
 */
static int plt_layout(Elf *elf, struct plt_layout *l)
{
	GElf_Shdr plt, dynsym;
	Elf_Scn *rel = section_by_name(elf, ".rela.plt", &l->rel);
	Elf_Scn *sym;

	if (!rel)
		rel = section_by_name(elf, ".rel.plt", &l->rel);
	if (!rel || !section_by_name(elf, ".plt", &plt) || plt.sh_type != SHT_PROGBITS)
		return -ENOENT;
	sym = elf_getscn(elf, l->rel.sh_link);
	if (!sym || !gelf_getshdr(sym, &dynsym) || dynsym.sh_type != SHT_DYNSYM)
		return -ENOENT;
	l->rel_data = elf_getdata(rel, NULL);
	l->dynsym = elf_getdata(sym, NULL);
	l->dynstr = dynsym.sh_link;
	if (!l->rel_data || !l->dynsym || !l->rel.sh_entsize)
		return -ENOENT;
	if (section_by_name(elf, ".plt.sec", &l->plt) && l->plt.sh_type == SHT_PROGBITS) {
		l->entsize = l->plt.sh_entsize ? l->plt.sh_entsize : 16;
		l->first = l->plt.sh_addr;
	} else {
		l->plt = plt;
		l->entsize = plt.sh_entsize ? plt.sh_entsize : 16;
		l->first = plt.sh_addr + l->entsize;
	}
	return 0;
}

/* The dynamic symbol relocation @i binds, "" for one with none (IRELATIVE). */
static const char *reloc_target(Elf *elf, const struct plt_layout *l, size_t i)
{
	GElf_Rela rela;
	GElf_Rel rel;
	GElf_Sym sym;
	uint64_t info;
	const char *name;

	if (l->rel.sh_type == SHT_RELA) {
		if (!gelf_getrela(l->rel_data, (int)i, &rela))
			return "";
		info = rela.r_info;
	} else {
		if (!gelf_getrel(l->rel_data, (int)i, &rel))
			return "";
		info = rel.r_info;
	}
	if (!GELF_R_SYM(info) || !gelf_getsym(l->dynsym, (int)GELF_R_SYM(info), &sym))
		return "";
	name = elf_strptr(elf, l->dynstr, sym.st_name);
	return name ? name : "";
}

static int add_entry(struct symtab *st, uint64_t addr, uint64_t size, const char *target)
{
	char *pretty = demangle(target), name[512];
	int ret;

	snprintf(name, sizeof(name), "%s@plt", pretty ? pretty : target);
	free(pretty);
	ret = symtab_add(st, addr, 'T', name, NULL);
	if (!ret)
		st->syms[st->nr - 1].size = ksym_size_cap(size);
	return ret;
}

int elfplt_add_symbols(Elf *elf, struct symtab *st)
{
	struct plt_layout l;
	uint64_t end, addr;
	size_t nr;

	if (plt_layout(elf, &l))
		return 0;
	nr = l.rel.sh_size / l.rel.sh_entsize;
	end = l.plt.sh_addr + l.plt.sh_size;
	addr = l.first;
	/* The section's own size bounds the entries, whatever the relocations say. */
	for (size_t i = 0; i < nr && addr + l.entsize <= end; i++, addr += l.entsize)
		if (add_entry(st, addr, l.entsize, reloc_target(elf, &l, i)))
			return -ENOMEM;
	return 0;
}
