// SPDX-License-Identifier: GPL-2.0
/*
 * tinyvmm: the smallest VMM that runs payload.S through /dev/kvm, so guest
 * sampling can be checked against symbols at known addresses.
 *
 *   tinyvmm [-name guest=NAME] [--seconds N] [--exits N] PAYLOAD.elf
 *
 * Loads the payload's PT_LOAD segments at their physical addresses, builds a
 * GDT and two page-table trees (CR3 A and B, see payload.S), enters long mode
 * at the ELF entry point and runs one vCPU until N seconds have passed. At
 * exit it prints the guest's LSTAR as the guest set it, and the two CR3s.
 * With --exits N the guest first writes port 0x80 and reads MSR 0x1b N times
 * each (payload.S exit_burst); the VMM counts the port writes it is handed.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MEM_SIZE   (8u << 20)
#define GDT_ADDR   0x1000
#define CR3_A	   0x2000
#define CR3_B	   0x3000
#define PDPT_HIGH  0x4000
#define PDPT_LOW_A 0x5000
#define PD_LOW_A   0x6000
#define PDPT_LOW_B 0x7000
#define PD_HIGH	   0x8000
#define PD_LOW_B   0x9000

#define PTE_P  (1ull << 0)
#define PTE_RW (1ull << 1)
#define PTE_US (1ull << 2)
#define PTE_PS (1ull << 7)

#define MSR_LSTAR 0xc0000082

static volatile sig_atomic_t time_up;
static unsigned long io_exits;

static void on_alarm(int sig)
{
	(void)sig;
	time_up = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "tinyvmm: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t *table(uint8_t *mem, uint64_t phys)
{
	return (uint64_t *)(mem + phys);
}

/* Kernel: 0xffffffff80000000 -> physical 0 (2 MiB, supervisor) in both trees. */
static void build_page_tables(uint8_t *mem)
{
	table(mem, PD_HIGH)[0] = 0 | PTE_P | PTE_RW | PTE_PS;
	table(mem, PDPT_HIGH)[510] = PD_HIGH | PTE_P | PTE_RW;
	table(mem, CR3_A)[511] = PDPT_HIGH | PTE_P | PTE_RW;
	table(mem, CR3_B)[511] = PDPT_HIGH | PTE_P | PTE_RW;
	/* User A: 0x400000 -> 0x200000, only in tree A. */
	table(mem, PD_LOW_A)[2] = 0x200000 | PTE_P | PTE_RW | PTE_US | PTE_PS;
	table(mem, PDPT_LOW_A)[0] = PD_LOW_A | PTE_P | PTE_RW | PTE_US;
	table(mem, CR3_A)[0] = PDPT_LOW_A | PTE_P | PTE_RW | PTE_US;
	/* User B: 0x600000 -> 0x400000, only in tree B. */
	table(mem, PD_LOW_B)[3] = 0x400000 | PTE_P | PTE_RW | PTE_US | PTE_PS;
	table(mem, PDPT_LOW_B)[0] = PD_LOW_B | PTE_P | PTE_RW | PTE_US;
	table(mem, CR3_B)[0] = PDPT_LOW_B | PTE_P | PTE_RW | PTE_US;
}

static void build_gdt(uint8_t *mem)
{
	uint64_t *gdt = table(mem, GDT_ADDR);

	gdt[1] = 0x00af9a000000ffffull; /* 0x08 kernel code, 64-bit */
	gdt[2] = 0x00cf92000000ffffull; /* 0x10 kernel data */
	gdt[3] = 0x00cff2000000ffffull; /* 0x18 user data (sysret SS) */
	gdt[4] = 0x00affa000000ffffull; /* 0x20 user code, 64-bit (sysret CS) */
}

static uint64_t load_elf(const char *path, uint8_t *mem)
{
	int fd = open(path, O_RDONLY);
	struct stat sb;
	Elf64_Ehdr *eh;
	uint8_t *p;

	if (fd < 0 || fstat(fd, &sb))
		die(path);
	p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die(path);
	eh = (Elf64_Ehdr *)p;
	if ((size_t)sb.st_size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG)) {
		fprintf(stderr, "tinyvmm: %s: not an ELF file\n", path);
		exit(1);
	}
	for (int i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(p + eh->e_phoff) + i;

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_paddr + ph->p_memsz > MEM_SIZE ||
		    ph->p_offset + ph->p_filesz > (uint64_t)sb.st_size) {
			fprintf(stderr, "tinyvmm: %s: segment %d out of range\n", path,
				i);
			exit(1);
		}
		memcpy(mem + ph->p_paddr, p + ph->p_offset, ph->p_filesz);
	}
	close(fd);
	return eh->e_entry;
}

/* Long mode and SYSCALL must be in the vCPU's CPUID, or KVM refuses EFER.LME/SCE. */
static void set_cpuid(int kvm, int vcpu)
{
	struct kvm_cpuid2 *cpuid =
		calloc(1, sizeof(*cpuid) + 256 * sizeof(cpuid->entries[0]));

	if (!cpuid)
		die("calloc");
	cpuid->nent = 256;
	if (ioctl(kvm, KVM_GET_SUPPORTED_CPUID, cpuid))
		die("KVM_GET_SUPPORTED_CPUID");
	if (ioctl(vcpu, KVM_SET_CPUID2, cpuid))
		die("KVM_SET_CPUID2");
	free(cpuid);
}

static void set_segment(struct kvm_segment *s, uint16_t sel, uint8_t type, bool code)
{
	memset(s, 0, sizeof(*s));
	s->selector = sel;
	s->type = type;
	s->present = 1;
	s->s = 1;
	s->g = 1;
	s->limit = 0xffffffff;
	s->l = code;
	s->db = !code;
}

static void enter_long_mode(int vcpu, uint64_t entry, uint64_t exits)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs = {0};

	if (ioctl(vcpu, KVM_GET_SREGS, &sregs))
		die("KVM_GET_SREGS");
	set_segment(&sregs.cs, 0x08, 11, true);
	set_segment(&sregs.ds, 0x10, 3, false);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	sregs.gdt.base = GDT_ADDR;
	sregs.gdt.limit = 5 * 8 - 1;
	sregs.cr0 = 0x80050033; /* PG WP NE ET MP PE */
	sregs.cr3 = CR3_A;
	sregs.cr4 = 0x20;   /* PAE */
	sregs.efer = 0x501; /* LMA LME SCE */
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs))
		die("KVM_SET_SREGS");
	regs.rip = entry;
	regs.rdi = exits;
	regs.rflags = 2;
	if (ioctl(vcpu, KVM_SET_REGS, &regs))
		die("KVM_SET_REGS");
}

static uint64_t read_lstar(int vcpu)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e;
	} m = {.hdr.nmsrs = 1, .e.index = MSR_LSTAR};

	if (ioctl(vcpu, KVM_GET_MSRS, &m) != 1)
		die("KVM_GET_MSRS");
	return m.e.data;
}

/* A triple fault or unexpected exit: say where the guest was. */
static void report_exit(int vcpu, struct kvm_run *kr)
{
	struct kvm_regs regs;
	struct kvm_sregs sregs;

	fprintf(stderr, "tinyvmm: unexpected exit %u", kr->exit_reason);
	if (!ioctl(vcpu, KVM_GET_REGS, &regs) && !ioctl(vcpu, KVM_GET_SREGS, &sregs))
		fprintf(stderr, " at rip %#llx cs %#x cr3 %#llx rcx %#llx",
			(unsigned long long)regs.rip, sregs.cs.selector,
			(unsigned long long)sregs.cr3, (unsigned long long)regs.rcx);
	fputc('\n', stderr);
}

static void run(int vcpu, struct kvm_run *kr)
{
	while (!time_up) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR)
				continue;
			die("KVM_RUN");
		}
		if (kr->exit_reason == KVM_EXIT_INTR)
			continue;
		if (kr->exit_reason == KVM_EXIT_IO && kr->io.port == 0x80 &&
		    kr->io.direction == KVM_EXIT_IO_OUT) {
			io_exits++;
			continue;
		}
		report_exit(vcpu, kr);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct kvm_userspace_memory_region region = {0};
	struct sigaction sa = {.sa_handler = on_alarm};
	const char *payload = NULL;
	unsigned seconds = 5;
	unsigned long exits = 0;
	int kvm, vm, vcpu, run_size;
	struct kvm_run *kr;
	uint64_t entry;
	uint8_t *mem;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-name") && i + 1 < argc)
			i++; /* identifies the guest to profilers, as with QEMU */
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--exits") && i + 1 < argc)
			exits = strtoul(argv[++i], NULL, 0);
		else
			payload = argv[i];
	}
	if (!payload) {
		fprintf(stderr, "usage: tinyvmm [-name guest=NAME] [--seconds N] "
				"[--exits N] PAYLOAD.elf\n");
		return 2;
	}
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		die("/dev/kvm");
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		die("KVM_CREATE_VM");
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (mem == MAP_FAILED)
		die("mmap");
	region.memory_size = MEM_SIZE;
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region))
		die("KVM_SET_USER_MEMORY_REGION");
	build_gdt(mem);
	build_page_tables(mem);
	entry = load_elf(payload, mem);
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		die("KVM_CREATE_VCPU");
	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	kr = mmap(NULL, (size_t)run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (kr == MAP_FAILED)
		die("mmap kvm_run");
	set_cpuid(kvm, vcpu);
	enter_long_mode(vcpu, entry, exits);
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
	run(vcpu, kr);
	printf("tinyvmm: pid %d vcpu 0 cr3 %#x %#x lstar %#llx\n", (int)getpid(), CR3_A,
	       CR3_B, (unsigned long long)read_lstar(vcpu));
	if (exits)
		printf("tinyvmm: port 0x80 writes handled: %lu\n", io_exits);
	return 0;
}
