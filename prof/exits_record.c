// SPDX-License-Identifier: GPL-2.0
#include "exits_record.h"

#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/perf.h"
#include "perf/tracingdata.h"
#include "record_state.h"
#include "record_steps.h"
#include "workload.h"

/* perf kvm stat record's events, entry first (it carries COMM and FORK records). */
static const char *const kvm_events[] = {"kvm_entry", "kvm_exit", "kvm_mmio", "kvm_pio",
					 "kvm_msr"};
#define NR_KVM_EVENTS	(sizeof(kvm_events) / sizeof(kvm_events[0]))
#define REQUIRED_EVENTS 2 /* entry and exit; the others only add views */

#define EXITS_SAMPLE_TYPE                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

struct tracefs_files {
	char *header_page, *header_event;
	size_t header_page_len, header_event_len;
	struct tracingdata_format formats[NR_KVM_EVENTS];
	char *texts[NR_KVM_EVENTS];
	size_t nr;
};

static const char *tracefs_dir(const char *given)
{
	struct stat st;

	if (given)
		return given;
	if (!stat("/sys/kernel/tracing/events", &st))
		return "/sys/kernel/tracing";
	return "/sys/kernel/debug/tracing";
}

static int read_tracefs(const char *dir, const char *rel, char **text, size_t *len,
			struct kp_err *err)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return kp_read_file(path, TP_FORMAT_TEXT_MAX, text, len, err);
}

/* One kvm event's format: its ID into @attr, its text kept for the file. */
static int add_event(struct evlist *el, struct tracefs_files *tf, const char *dir,
		     const char *name, const struct exits_record_opts *o,
		     struct kp_err *err)
{
	struct perf_event_attr attr = {0};
	char rel[128], full[80];
	struct tp_format fmt;
	size_t len;
	char *text = NULL;
	int ret;

	snprintf(rel, sizeof(rel), "events/kvm/%s/format", name);
	ret = read_tracefs(dir, rel, &text, &len, err);
	if (!ret && tp_format_parse(text, len, "kvm", &fmt, err))
		ret = -EINVAL;
	if (ret) {
		free(text);
		return ret;
	}
	tf->texts[tf->nr] = text;
	tf->formats[tf->nr++] = (struct tracingdata_format){"kvm", text, len};
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = fmt.id;
	attr.sample_period = 1;
	attr.sample_type = EXITS_SAMPLE_TYPE;
	attr.disabled = 1;
	attr.sample_id_all = 1;
	attr.comm = attr.task = el->nr_evsels == 0;
	attr.inherit = o->pid || o->command;
	attr.enable_on_exec = o->command != NULL;
	snprintf(full, sizeof(full), "kvm:%s", name);
	return evlist_add(el, &attr, full) ? kp_errorf(err, ENOMEM, "out of memory") : 0;
}

static int add_events(struct evlist *el, struct tracefs_files *tf,
		      const struct exits_record_opts *o, struct kp_err *err)
{
	const char *dir = tracefs_dir(o->tracefs);
	int ret;

	ret = read_tracefs(dir, "events/header_page", &tf->header_page,
			   &tf->header_page_len, err);
	if (!ret)
		ret = read_tracefs(dir, "events/header_event", &tf->header_event,
				   &tf->header_event_len, err);
	for (size_t i = 0; !ret && i < NR_KVM_EVENTS; i++) {
		struct kp_err e = {0};

		ret = add_event(el, tf, dir, kvm_events[i], o, &e);
		if (ret && i >= REQUIRED_EVENTS) {
			if (!o->quiet)
				fprintf(stderr,
					"kvmprof stat exits: kvm:%s left out: %s\n",
					kvm_events[i], e.msg);
			ret = 0;
		} else if (ret) {
			*err = e;
			kp_err_prefix(err,
				      "no kvm tracepoints (is kvm loaded? is tracefs "
				      "mounted at "
				      "%s? mount -t tracefs nodev /sys/kernel/tracing)",
				      dir);
		}
	}
	return ret;
}

/* perf's CPUID string, "AuthenticAMD,25,1,1": perf kvm stat report needs it. */
static void set_cpuid(struct pd_writer *w)
{
	unsigned a, b, c, d, family, model;
	char vendor[13], buf[64];

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 6)
		model += ((a >> 16) & 0xf) << 4;
	snprintf(buf, sizeof(buf), "%s,%u,%u,%u", vendor, family, model, a & 0xf);
	pd_writer_set_string(w, PD_FEAT_CPUID, buf);
}

static int write_features(struct record_state *rs, const struct tracefs_files *tf,
			  size_t nr_cpus, int argc, char **argv, struct kp_err *err)
{
	struct tracingdata_input in = {tf->header_page,	 tf->header_page_len,
				       tf->header_event, tf->header_event_len,
				       tf->formats,	 tf->nr};
	size_t len;
	void *blob;
	int ret;

	record_set_features(rs->writer, argc, argv, nr_cpus);
	set_cpuid(rs->writer);
	if (tracingdata_write(&in, &blob, &len))
		return kp_errorf(err, ENOMEM, "out of memory");
	ret = pd_writer_set_feature(rs->writer, PD_FEAT_TRACING_DATA, blob, len);
	free(blob);
	if (ret)
		return kp_errorf(err, ENOMEM, "out of memory");
	return record_state_write_guests(rs, err);
}

static void release_files(struct tracefs_files *tf)
{
	free(tf->header_page);
	free(tf->header_event);
	for (size_t i = 0; i < tf->nr; i++)
		free(tf->texts[i]);
}

/* Open, drain until told to stop, and write the features: one recording. */
static int record_into(struct record_state *rs, struct evlist *el,
		       struct tracefs_files *tf, const struct exits_record_opts *o,
		       const char *path, int argc, char **argv, struct kp_err *err)
{
	struct workload wl = {.pid = -1, .go_fd = -1, .err_fd = -1};
	pid_t child = -1, target = o->pid ? o->pid : -1;
	int status = 0, ret = 0;

	if (o->command) {
		ret = workload_prepare(o->command, &wl, err);
		if (ret)
			return ret;
		child = wl.pid;
		/* With -a the command only says how long to record. */
		if (!o->system_wide)
			target = child;
	}
	ret = evlist_open(el, target, err);
	if (!ret)
		ret = record_open_output(rs, path, el, err);
	if (!ret) {
		record_state_set_synth(rs, &el->evsels[0].attr);
		ret = synth_processes(&rs->synth, target);
		if (ret)
			kp_errorf(err, -ret, "synthesizing process records: %s",
				  strerror(-ret));
	}
	if (!ret && evlist_enable(el))
		ret = kp_errorf(err, errno, "cannot enable events: %s", strerror(errno));
	if (!ret && child > 0)
		ret = workload_start(&wl, err);
	workload_release(&wl);
	if (!ret)
		ret = record_loop(
			rs, el, child, &status,
			o->seconds ? record_now_ns() + o->seconds * 1000000000ULL : 0);
	if (!ret)
		ret = write_features(rs, tf, el->nr_cpus, argc, argv, err);
	if (child > 0 && !WIFEXITED(status) && !WIFSIGNALED(status)) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	return ret;
}

int exits_record(const struct exits_record_opts *o, const char *path, int argc,
		 char **argv, struct kp_err *err)
{
	struct tracefs_files tf = {0};
	struct record_state rs;
	struct evlist el;
	int ret;

	record_state_init(&rs, false, false);
	rs.vmm_samples = true;
	evlist_init(&el, o->mmap_pages ? o->mmap_pages : 256);
	ret = guest_namer_open(&rs.namer, o->guests_conf, "kvmprof stat exits", err);
	if (!ret)
		ret = add_events(&el, &tf, o, err);
	if (!ret)
		ret = record_into(&rs, &el, &tf, o, path, argc, argv, err);
	if (!ret)
		ret = pd_writer_finish(rs.writer, err);
	else if (rs.writer)
		pd_writer_abort(rs.writer);
	rs.writer = NULL;
	if (!ret && !o->quiet)
		record_state_print_summary(&rs, path, stderr);
	evlist_close(&el);
	release_files(&tf);
	record_state_release(&rs);
	return ret;
}
