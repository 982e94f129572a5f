/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guests.conf: which guests exist, from which disks, and how guestfs-mount
 * serves them. The one parser of the file: guestfs-mount serves what it
 * lists, and kvmprof record names a QEMU process by the disks it lists. The
 * format is documented in guestfs-mount/README.md.
 */
#ifndef KVMPROF_GUESTCONF_H
#define KVMPROF_GUESTCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "guestid.h"
#include "layout.h"

#define GM_DEFAULT_CACHE   "/var/cache/kvmprof/guestfs-mount"
#define GM_DEFAULT_CONTEXT "system_u:object_r:kvmprof_guest_artifact_t:s0"

#define GM_MAX_GUESTS	      256
#define GM_MAX_DISKS	      16 /* per guest */
#define GM_MAX_APPLIANCE_CPUS 16
#define GM_MAX_LINE	      4096
#define GM_VERSION_MAX	      128 /* kernel version strings (path components) */

#define GM_MAX_ALLOW_BACKING 64 /* allow-backing folders */

enum gm_format {
	GM_FMT_RAW,
	GM_FMT_QCOW2,
};

/* What a served file is, for its SELinux label. */
enum gm_kind {
	GM_KIND_DEFAULT, /* anything without a label of its own */
	GM_KIND_DIR,
	GM_KIND_KALLSYMS,
	GM_KIND_SYSTEM_MAP,
	GM_KIND_VMLINUX,
	GM_KIND_VMLINUZ,
	GM_KIND_MODULES, /* the /proc/modules-style list */
	GM_KIND_MODULE,	 /* files of the lib/modules tree */
	GM_KIND_CONFIG,
	GM_KIND_VERSION,
	GM_KIND_BUILD_ID, /* build-id and sys/kernel/notes */
	GM_KIND_INFO,	  /* info and info.json */
	GM_KIND_NR,
};

struct gm_disk {
	char *path;
	enum gm_format format;
};

struct gm_guest_conf {
	char name[GUEST_NAME_MAX];
	struct gm_disk disks[GM_MAX_DISKS];
	size_t nr_disks;
	char *kernel;  /* configured default kernel version, or NULL */
	unsigned line; /* where its block starts, for messages */
};

struct gm_config {
	char *cache_dir;
	char *mountpoint;
	char *kvm_debugfs;	 /* KVM's debugfs folder; NULL: /sys/kernel/debug/kvm */
	bool shared_appliance;	 /* "appliance shared": one launch inspects many guests */
	bool libguestfs_overlay; /* "overlay libguestfs": readonly=1 drives (see README)
				  */
	bool lazy;		 /* "inspect on-access": no inspection until first use */
	uint64_t max_file_size;	 /* per file copied out of a guest or derived from one */
	uint64_t max_total_size; /* per guest, all files copied out */
	/* Per guest, files made on first use (kernel ELF, decompressed modules). */
	uint64_t max_derived_size;
	unsigned max_files;   /* per guest, files and folders copied out */
	unsigned max_kernels; /* per guest */
	/* vCPUs of the appliance, at most the host's online CPUs ("appliance-cpus"). */
	unsigned appliance_cpus;
	char *labels[GM_KIND_NR]; /* NULL: the default label */
	char *qemu_user; /* "qemu-user": who runs trusted QEMUs; NULL: libvirt's default
			  */
	/*
	 * Folders whose files a qcow2 disk may name as its backing or data
	 * files ("allow-backing DIR"); none by default, so a chain is refused.
	 */
	char **allow_backing;
	size_t nr_allow_backing;
	struct gm_guest_conf *guests;
	size_t nr_guests;
};

const char *gm_format_name(enum gm_format fmt);
const char *gm_kind_name(enum gm_kind kind);

/* Fill @cfg with defaults (no guests). */
int gm_config_init(struct gm_config *cfg);

/*
 * Parse configuration text into @cfg (which gm_config_init() prepared).
 * @what names the input in messages, which read "what:LINE: problem".
 */
int gm_config_parse(const char *text, size_t len, const char *what, struct gm_config *cfg,
		    struct kp_err *err);

/*
 * gm_config_init() then gm_config_parse() of a file. The file and every
 * folder leading to it must be owned by root or by the calling user and
 * writable by no one else (kp_path_trusted()), or -EPERM: guestfs-mount,
 * which runs as root, then trusts a file only root can change, and kvmprof
 * record run by a user still reads a guests.conf that user owns.
 */
int gm_config_load(const char *path, struct gm_config *cfg, struct kp_err *err);

void gm_config_release(struct gm_config *cfg);

/* The label of @kind: its own, else "label default", else GM_DEFAULT_CONTEXT. */
const char *gm_config_label(const struct gm_config *cfg, enum gm_kind kind);

/* Is this a usable kernel version string (a single safe path component)? */
bool gm_version_valid(const char *ver);

/* "256M" -> 268435456. Suffixes K, M, G, T (powers of 1024). */
int gm_parse_size(const char *s, uint64_t *out);

#endif
