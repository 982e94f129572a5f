/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest kernel's link-time kallsyms and two KASLR slides 2 MiB apart, so
 * that samples placed with the wrong slide name no function: for the tests
 * of a guest that reboots (recorded, and live in kvmprof top).
 */
#ifndef KVMPROF_TEST_GUEST_FIXTURE_H
#define KVMPROF_TEST_GUEST_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "testutil.h"

#define LINK_SYS  0xffffffff81000040ULL /* entry_SYSCALL_64 at link time */
#define LINK_DO	  0xffffffff81001000ULL /* do_syscall_64 */
#define LINK_HALT 0xffffffff81400000ULL /* native_safe_halt */
#define SLIDE1	  0x19000000ULL
#define SLIDE2	  0x19200000ULL

/* Make folder @dir (a mkdtemp template) and @dir/kallsyms, named in @kallsyms. */
static inline int guest_fixture_make(char *dir, char *kallsyms, size_t size)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(kallsyms, size, "%s/kallsyms", dir);
	return sh("printf 'ffffffff81000000 T _text\\nffffffff81000040 T "
		  "entry_SYSCALL_64\\nffffffff81001000 T do_syscall_64\\n"
		  "ffffffff81400000 T native_safe_halt\\nffffffff81600000 T "
		  "_etext\\n' >%s",
		  kallsyms);
}

/* Remove it and put the template back for the next test. */
static inline void guest_fixture_remove(char *dir, const char *template)
{
	sh("rm -rf %s", dir);
	strcpy(dir, template);
}

#endif
