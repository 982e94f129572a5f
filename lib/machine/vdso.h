/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This process's vDSO image: the kernel maps the same one into every
 * 64-bit process, so a recording's "[vdso]" samples can be named from it,
 * once the recorded build-id says that it is the same image.
 */
#ifndef KVMPROF_VDSO_H
#define KVMPROF_VDSO_H

#include <stddef.h>

/* The image's start and size: 0, or -ENOENT when the process has none. */
int vdso_image(const void **base, size_t *len);

#endif
