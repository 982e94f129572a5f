// SPDX-License-Identifier: GPL-2.0
#include "version.h"

#ifndef KP_VERSION
#error "KP_VERSION is not set: the Makefile passes it from the VERSION file"
#endif

const char kp_version[] = KP_VERSION;
const char kp_version_line[] = "kvmprof " KP_VERSION;
