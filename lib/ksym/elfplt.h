/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols for a user-space ELF's PLT entries, which no symbol table lists:
 * a call through "memcpy@plt" is then named, as perf names it.
 */
#ifndef KVMPROF_ELFPLT_H
#define KVMPROF_ELFPLT_H

#include <libelf.h>

#include "symtab.h"

/*
 * Add "<function>@plt" for each entry of @elf's .plt (or .plt.sec) to @st,
 * which is not yet finished. @elf must be the file as loaded: separate debug
 * files carry no PLT contents. 0 (also when there is no PLT) or -ENOMEM.
 */
int elfplt_add_symbols(Elf *elf, struct symtab *st);

#endif
