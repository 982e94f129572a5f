// SPDX-License-Identifier: GPL-2.0
/*
 * guestfs-mount: serve each configured guest's kernel artifacts, read from
 * its disk images through libguestfs, as a read-only, root-only FUSE tree.
 *
 *   guestfs-mount [-c CONFIG] [--policy FILE] [--cache DIR] [-f] [--refresh] [MOUNTPOINT]
 *   guestfs-mount --check [--policy FILE] [CONFIG]
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <selinux/selinux.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"
#include "policy/accesspolicy.h"
#include "guest/guest.h"
#include "fs.h"
#include "store.h"
#include "util.h"

struct opts {
	const char *config;
	const char *policy; /* NULL: AP_DEFAULT_PATH, optional */
	const char *cache;
	const char *mountpoint;
	const char *fuse_opts;
	bool foreground, debug, check, refresh;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: guestfs-mount [-c CONFIG] [--policy FILE] [--cache DIR] [-f] "
		"[-d]\n"
		"                     [--refresh] [-o FUSE_OPTIONS] [MOUNTPOINT]\n"
		"       guestfs-mount --check [--policy FILE] [CONFIG]\n"
		"       guestfs-mount --version\n\n"
		"Serve every guest listed in CONFIG (default %s) under MOUNTPOINT\n"
		"(default %s): <guest>/kallsyms, System.map, vmlinux, modules, config,\n"
		"version, build-id, info, info.json, kernels/<version>/, "
		"lib/modules/<version>/,\n"
		"and by-pid/<qemu-pid>/ for perf kvm --guestmount. Disks are opened "
		"read-only\n"
		"with their configured format and read inside the libguestfs "
		"appliance.\n\n"
		"  -c, --config FILE   guest list (see guestfs-mount/README.md)\n"
		"      --policy FILE   who may read what (default %s; without it,\n"
		"                      every guest to root only; see "
		"policy/access.conf)\n"
		"      --cache DIR     root-only cache of inspections (default %s)\n"
		"  -f, --foreground    do not detach; log to stderr\n"
		"  -d, --debug         FUSE debug output (implies -f)\n"
		"      --refresh       inspect every guest again, ignoring the cache\n"
		"  -o OPTIONS          extra FUSE mount options\n"
		"      --check         validate CONFIG and the policy and exit: 0 when "
		"valid\n"
		"      --version       print the version and exit\n",
		GUESTS_CONF_DEFAULT, GUEST_MOUNT_DEFAULT, AP_DEFAULT_PATH,
		GM_DEFAULT_CACHE);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"cache", required_argument, NULL, 'C'},
		{"policy", required_argument, NULL, 'P'},
		{"foreground", no_argument, NULL, 'f'},
		{"debug", no_argument, NULL, 'd'},
		{"check", no_argument, NULL, 'k'},
		{"refresh", no_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:fdo:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'C':
			o->cache = optarg;
			break;
		case 'P':
			o->policy = optarg;
			break;
		case 'f':
			o->foreground = true;
			break;
		case 'd':
			o->debug = o->foreground = true;
			break;
		case 'k':
			o->check = true;
			break;
		case 'r':
			o->refresh = true;
			break;
		case 'o':
			o->fuse_opts = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("guestfs-mount %s\n", kp_version);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		if (o->check)
			o->config = argv[optind++];
		else
			o->mountpoint = argv[optind++];
	}
	if (optind < argc) {
		fprintf(stderr, "guestfs-mount: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (!o->config)
		o->config = GUESTS_CONF_DEFAULT;
	return 0;
}

/* With SELinux enabled, every configured label must be valid in the loaded policy. */
static int check_labels(const struct gm_config *cfg)
{
	int bad = 0;

	if (is_selinux_enabled() <= 0)
		return 0;
	for (int k = 0; k < GM_KIND_NR; k++) {
		const char *ctx = gm_config_label(cfg, (enum gm_kind)k);

		if (security_check_context(ctx) < 0) {
			fprintf(stderr,
				"guestfs-mount: label for %s files '%s' is not valid in "
				"the "
				"loaded SELinux policy\n",
				gm_kind_name((enum gm_kind)k), ctx);
			bad = 1;
		}
	}
	return bad;
}

/* The policy named by -P, else the default file when there is one. */
static int load_policy(const struct opts *o)
{
	struct kp_err err = {0};

	if (gm_access_load(o->policy ? o->policy : AP_DEFAULT_PATH, o->policy != NULL,
			   &err)) {
		fprintf(stderr, "guestfs-mount: %s\n", err.msg);
		return 1;
	}
	return 0;
}

/* Guests the configuration lists but the policy hides: not an error, but say so. */
static void report_hidden(const struct gm_config *cfg, FILE *out)
{
	for (size_t i = 0; i < cfg->nr_guests; i++)
		if (!gm_access_exposes(cfg->guests[i].name))
			fprintf(out,
				"guestfs-mount: guest %s is not exposed by the access "
				"policy: "
				"not served\n",
				cfg->guests[i].name);
}

static int check_config(const struct opts *o)
{
	const char *path = o->config;
	struct guest_trust trust;
	struct gm_config cfg;
	struct kp_err err = {0};
	int bad;

	if (gm_config_load(path, &cfg, &err)) {
		fprintf(stderr, "guestfs-mount: %s\n", err.msg);
		gm_config_release(&cfg);
		return 1;
	}
	if (load_policy(o)) {
		gm_config_release(&cfg);
		return 1;
	}
	if (guest_trust_of(&cfg, &trust, &err)) {
		fprintf(stderr, "guestfs-mount: %s: %s\n", path, err.msg);
		gm_access_release();
		gm_config_release(&cfg);
		return 1;
	}
	report_hidden(&cfg, stdout);
	gm_access_release();
	bad = check_labels(&cfg);
	for (size_t i = 0; i < cfg.nr_guests; i++) {
		const struct gm_guest_conf *g = &cfg.guests[i];

		for (size_t d = 0; d < g->nr_disks; d++) {
			struct stat st;

			if (stat(g->disks[d].path, &st))
				printf("warning: guest %s: disk %s: %s\n", g->name,
				       g->disks[d].path, strerror(errno));
		}
	}
	if (!bad)
		printf("%s: %zu guest%s, configuration valid\n", path, cfg.nr_guests,
		       cfg.nr_guests == 1 ? "" : "s");
	gm_config_release(&cfg);
	return bad;
}

/* The served store, for the SIGHUP handler only. */
static struct gm_store *served;

static void on_sighup(int sig)
{
	gm_access_request_reload();
	if (served)
		gm_store_recheck(served);
}

static bool policy_exposes(const char *guest, void *ctx)
{
	return gm_access_exposes(guest);
}

static char *absolute(const char *path)
{
	char buf[PATH_MAX];

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(buf, sizeof(buf)) || strlen(buf) + strlen(path) + 2 > sizeof(buf))
		return NULL;
	strcat(buf, "/");
	strcat(buf, path);
	return strdup(buf);
}

static int serve(struct gm_config *cfg, const struct opts *o)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_loop_config *loop;
	struct kp_err err = {0};
	struct sigaction sa;
	struct fuse *fuse;
	char mopts[512];
	struct gm_store_hooks hooks = {.visible = policy_exposes};
	struct gm_store *store;
	bool stopped;
	int ret;

	if (gm_store_new(cfg, &hooks, o->refresh, &store, &err)) {
		fprintf(stderr, "guestfs-mount: %s\n", err.msg);
		gm_store_free(store);
		return 1;
	}
	if (gm_mkdirs(cfg->mountpoint, 0755)) {
		fprintf(stderr, "guestfs-mount: mountpoint %s: %s\n", cfg->mountpoint,
			strerror(errno));
		return 1;
	}
	snprintf(mopts, sizeof(mopts),
		 "ro,allow_other,default_permissions,noatime,"
		 "fsname=guestfs-mount,subtype=kvmprof%s%s",
		 o->fuse_opts ? "," : "", o->fuse_opts ? o->fuse_opts : "");
	if (fuse_opt_add_arg(&args, "guestfs-mount") || fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, mopts) ||
	    (o->debug && fuse_opt_add_arg(&args, "-d"))) {
		fprintf(stderr, "guestfs-mount: out of memory\n");
		return 1;
	}
	fuse = fuse_new(&args, &gm_fs_ops, sizeof(gm_fs_ops), store);
	fuse_opt_free_args(&args);
	if (!fuse)
		return 1;
	if (fuse_mount(fuse, cfg->mountpoint)) {
		fprintf(stderr,
			"guestfs-mount: cannot mount on %s (a stale mount? try "
			"fusermount3 -u %s)\n",
			cfg->mountpoint, cfg->mountpoint);
		fuse_destroy(fuse);
		return 1;
	}
	if (fuse_daemonize(o->foreground)) {
		fuse_unmount(fuse);
		fuse_destroy(fuse);
		return 1;
	}
	if (!o->foreground)
		gm_log_to_syslog();
	if (fuse_set_signal_handlers(fuse_get_session(fuse))) {
		fuse_unmount(fuse);
		fuse_destroy(fuse);
		return 1;
	}
	/* SIGHUP re-checks the disks instead of ending the loop. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sighup;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	served = store;
	if (gm_store_start(store)) {
		gm_log("cannot start the inspection thread");
		fuse_unmount(fuse);
		fuse_destroy(fuse);
		return 1;
	}
	gm_log("serving %zu guest%s on %s (cache %s, appliance %s)", cfg->nr_guests,
	       cfg->nr_guests == 1 ? "" : "s", cfg->mountpoint, cfg->cache_dir,
	       cfg->shared_appliance ? "shared" : "per guest");
	loop = fuse_loop_cfg_create();
	if (loop)
		fuse_loop_cfg_set_max_threads(loop, 32);
	ret = fuse_loop_mt(fuse, loop);
	if (loop)
		fuse_loop_cfg_destroy(loop);
	/* Ended by a signal (SIGTERM, SIGINT) or an unmount: a clean exit. */
	if (ret == SIGTERM || ret == SIGINT || ret == SIGHUP)
		ret = 0;
	gm_log("unmounting %s", cfg->mountpoint);
	fuse_remove_signal_handlers(fuse_get_session(fuse));
	fuse_unmount(fuse);
	stopped = gm_store_stop(store, 5.0);
	if (!stopped) {
		/* libguestfs is busy in the worker: end now; the appliance dies with us.
		 */
		gm_log("an inspection was still running; exiting without waiting for it");
		_exit(ret ? 1 : 0);
	}
	fuse_destroy(fuse);
	served = NULL;
	gm_store_free(store);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct gm_config cfg;
	struct kp_err err = {0};
	int ret;

	if (parse_opts(argc, argv, &o))
		return 2;
	if (o.check)
		return check_config(&o);
	if (geteuid() != 0) {
		fprintf(stderr,
			"guestfs-mount: must run as root (it serves root-only files and "
			"mounts with allow_other)\n");
		return 1;
	}
	if (gm_config_load(o.config, &cfg, &err)) {
		fprintf(stderr, "guestfs-mount: %s\n", err.msg);
		gm_config_release(&cfg);
		return 1;
	}
	if ((o.cache && (free(cfg.cache_dir), !(cfg.cache_dir = absolute(o.cache)))) ||
	    (o.mountpoint &&
	     (free(cfg.mountpoint), !(cfg.mountpoint = absolute(o.mountpoint))))) {
		fprintf(stderr, "guestfs-mount: bad path\n");
		gm_config_release(&cfg);
		return 1;
	}
	if (check_labels(&cfg) || load_policy(&o)) {
		gm_config_release(&cfg);
		return 1;
	}
	report_hidden(&cfg, stderr);
	ret = serve(&cfg, &o);
	gm_access_release();
	gm_config_release(&cfg);
	return ret;
}
