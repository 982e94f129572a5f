// SPDX-License-Identifier: GPL-2.0
#include "synth.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"

#define REC_MAX 4096

/* sample_id_all trailer with pid/tid and time filled and everything else zero. */
static size_t put_trailer(const struct synth *s, uint8_t *p, pid_t pid, pid_t tid)
{
	uint64_t t = s->sample_type;
	size_t n = 0;

	if (!s->sample_id_all)
		return 0;
	if (t & PERF_SAMPLE_TID) {
		uint32_t v[2] = {(uint32_t)pid, (uint32_t)tid};

		memcpy(p + n, v, 8);
		n += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		memcpy(p + n, &s->time, 8);
		n += 8;
	}
	n += 8 * (!!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
		  !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
	return n;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

int synth_comm(const struct synth *s, pid_t pid, pid_t tid, const char *comm)
{
	uint8_t rec[REC_MAX] = {0};
	struct perf_event_header *h = (void *)rec;
	uint32_t ids[2] = {(uint32_t)pid, (uint32_t)tid};
	size_t len = strnlen(comm, 15), off = sizeof(*h);

	memcpy(rec + off, ids, 8);
	off += 8;
	memcpy(rec + off, comm, len);
	off = align8(off + len + 1);
	off += put_trailer(s, rec + off, pid, tid);
	h->type = PERF_RECORD_COMM;
	h->misc = 0;
	h->size = (uint16_t)off;
	return s->emit(s->ctx, h);
}

/* @id_pid goes in the sample_id_all trailer: who the record is about. */
static int mmap_record(const struct synth *s, uint16_t misc, pid_t pid, pid_t tid,
		       pid_t id_pid, uint64_t start, uint64_t len, uint64_t pgoff,
		       const char *filename)
{
	uint8_t rec[REC_MAX] = {0};
	struct perf_event_header *h = (void *)rec;
	uint32_t ids[2] = {(uint32_t)pid, (uint32_t)tid};
	uint64_t v[3] = {start, len, pgoff};
	size_t flen = strnlen(filename, 1024), off = sizeof(*h);

	memcpy(rec + off, ids, 8);
	memcpy(rec + off + 8, v, 24);
	off += 32;
	memcpy(rec + off, filename, flen);
	off = align8(off + flen + 1);
	off += put_trailer(s, rec + off, id_pid, tid);
	h->type = PERF_RECORD_MMAP;
	h->misc = misc;
	h->size = (uint16_t)off;
	return s->emit(s->ctx, h);
}

int synth_mmap(const struct synth *s, uint16_t misc, pid_t pid, pid_t tid, uint64_t start,
	       uint64_t len, uint64_t pgoff, const char *filename)
{
	return mmap_record(s, misc, pid, tid, pid, start, len, pgoff, filename);
}

static void read_comm(pid_t pid, pid_t tid, char *comm, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	comm[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(comm, (int)size, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

static int synth_threads(const struct synth *s, pid_t pid)
{
	char path[64], comm[32];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0; /* the process exited meanwhile */
	while (!ret && (de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0)
			continue;
		read_comm(pid, tid, comm, sizeof(comm));
		if (comm[0])
			ret = synth_comm(s, pid, tid, comm);
	}
	closedir(d);
	return ret;
}

/* Executable file mappings from /proc/PID/maps. */
static int synth_maps(const struct synth *s, pid_t pid)
{
	char path[64], line[4096 + 128];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8], file[4096];
		int n = 0;

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms,
			   &pgoff, &n) < 4)
			continue;
		if (n && sscanf(line + n, "%4095[^\n]", file) != 1)
			file[0] = '\0';
		if (perms[2] != 'x' || !file[0])
			continue;
		ret = synth_mmap(s, PERF_RECORD_MISC_USER, pid, pid, start, end - start,
				 pgoff, file);
	}
	fclose(f);
	return ret;
}

int synth_processes(const struct synth *s, pid_t pid)
{
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (pid > 0) {
		ret = synth_threads(s, pid);
		return ret ? ret : synth_maps(s, pid);
	}
	d = opendir("/proc");
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		pid_t p = (pid_t)atoi(de->d_name);

		if (p <= 0)
			continue;
		ret = synth_threads(s, p);
		if (!ret)
			ret = synth_maps(s, p);
	}
	closedir(d);
	return ret;
}

int synth_kernel_mmap(const struct synth *s, struct kp_err *err)
{
	unsigned long long addr = 0;
	char line[512], name[256] = "", type;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return kp_errorf(err, errno, "/proc/kallsyms: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_text"))
			break;
	fclose(f);
	if (strcmp(name, "_text"))
		return kp_errorf(err, ENOENT, "/proc/kallsyms: no _text symbol");
	if (!addr)
		return kp_errorf(err, EPERM,
				 "/proc/kallsyms: addresses hidden (kptr_restrict)");
	return synth_mmap(s, PERF_RECORD_MISC_KERNEL, -1, 0, addr, ~0ULL - addr, addr,
			  "[kernel.kallsyms]_text");
}

/*
 * Where a guest kernel map starts: at its reference symbol for _text, else
 * (entry_SYSCALL_64 lies well inside the text) where x86-64 kernel images
 * can start, so that the text below the reference symbol is in the map.
 */
static uint64_t guest_map_start(const char *ref_sym, uint64_t ref_runtime)
{
	if (!strcmp(ref_sym, "_text") || ref_runtime < X86_64_KERNEL_IMAGE_START)
		return ref_runtime;
	return X86_64_KERNEL_IMAGE_START;
}

static int guest_kernel_mmap(const struct synth *s, pid_t pid, pid_t id_pid,
			     const char *ref_sym, uint64_t ref_runtime)
{
	uint64_t start = guest_map_start(ref_sym, ref_runtime);
	char name[128];

	/* pid 0 is perf kvm's default guest, which has no pid in its name. */
	if (pid)
		snprintf(name, sizeof(name), "[guest.kernel.kallsyms.%d]%s", pid,
			 ref_sym);
	else
		snprintf(name, sizeof(name), "[guest.kernel.kallsyms]%s", ref_sym);
	return mmap_record(s, PERF_RECORD_MISC_GUEST_KERNEL, pid, 0, id_pid, start,
			   ~0ULL - start, ref_runtime, name);
}

int synth_guest_kernel_mmap(const struct synth *s, pid_t pid, const char *ref_sym,
			    uint64_t ref_runtime)
{
	return guest_kernel_mmap(s, pid, pid, ref_sym, ref_runtime);
}

int synth_default_guest_copy(const struct synth *s, pid_t guest_pid, const char *ref_sym,
			     uint64_t ref_runtime)
{
	return guest_kernel_mmap(s, 0, guest_pid, ref_sym, ref_runtime);
}
