/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny guest with a kernel (CPL0) and two user programs (CPL3) in two
 * address spaces, for exact checks of guest-context sampling:
 *
 *   kernel_work   70% of the time, entered through syscall (LSTAR)
 *   user_a_spin   15%, CR3 = page tables A
 *   user_b_spin   15%, CR3 = page tables B
 *
 * All three loops have the same body, so time follows iteration counts.
 * The VMM (tinyvmm.c) sets up long mode, the GDT, EFER.SCE and both page
 * table trees; their physical addresses are fixed below and in tinyvm.h.
 */
#define CR3_A		0x2000
#define CR3_B		0x3000
#define USER_ITERS	150000
#define KERNEL_ITERS	350000	/* per syscall; two syscalls per cycle: 700k vs 300k */

#define MSR_APICBASE	0x1b	/* always intercepted: each rdmsr is one MSR exit */
#define EXIT_PORT	0x80	/* no in-kernel device: each out is one I/O exit */
#define MSR_STAR	0xc0000081
#define MSR_LSTAR	0xc0000082
#define MSR_FMASK	0xc0000084

	.section .text.kernel, "ax"
	.code64
	.globl _text
_text:
	.globl kstart
kstart:
	/*
	 * The VMM passes a count in %rdi (tinyvmm --exits N): that many port
	 * writes and MSR reads first, so exit counters can be checked exactly.
	 */
	mov	%rdi, %r12
	.globl exit_burst
exit_burst:
	test	%r12, %r12
	jz	exit_burst_end
	mov	$EXIT_PORT, %dx
	outb	%al, %dx
	mov	$MSR_APICBASE, %ecx
	rdmsr
	dec	%r12
	jmp	exit_burst
	.globl exit_burst_end
exit_burst_end:
	mov	$MSR_LSTAR, %ecx
	lea	entry_syscall(%rip), %rax
	mov	%rax, %rdx
	shr	$32, %rdx
	wrmsr
	/* syscall: CS=0x08 SS=0x10; sysret: SS=0x18|3, CS=0x20|3 */
	mov	$MSR_STAR, %ecx
	xor	%eax, %eax
	mov	$0x00100008, %edx
	wrmsr
	mov	$MSR_FMASK, %ecx
	mov	$0x200, %eax	/* keep interrupts off in the kernel */
	xor	%edx, %edx
	wrmsr
	jmp	switch_to_a

	.globl entry_syscall
	.p2align 6
entry_syscall:
	mov	%rax, %rbx		/* 1: came from user A, 2: from user B */
	.globl kernel_work
kernel_work:
	mov	$KERNEL_ITERS, %r8
1:	add	%r8, %r9
	xor	%r9, %r10
	dec	%r8
	jnz	1b
	.globl kernel_work_end
kernel_work_end:
	cmp	$1, %rbx
	je	switch_to_b
	.globl switch_to_a
switch_to_a:
	mov	$CR3_A, %rax
	mov	%rax, %cr3
	mov	$USER_A_ENTRY, %rcx
	mov	$0x2, %r11
	sysretq
	.globl switch_to_b
switch_to_b:
	mov	$CR3_B, %rax
	mov	%rax, %cr3
	mov	$USER_B_ENTRY, %rcx
	mov	$0x2, %r11
	sysretq
	.globl _etext
_etext:

	.section .text.user_a, "ax"
	.globl user_a_spin
user_a_spin:
	mov	$USER_ITERS, %r8
1:	add	%r8, %r9
	xor	%r9, %r10
	dec	%r8
	jnz	1b
	.globl user_a_spin_end
user_a_spin_end:
	mov	$1, %eax
	syscall
	jmp	user_a_spin

	.section .text.user_b, "ax"
	.globl user_b_spin
user_b_spin:
	mov	$USER_ITERS, %r8
1:	add	%r8, %r9
	xor	%r9, %r10
	dec	%r8
	jnz	1b
	.globl user_b_spin_end
user_b_spin_end:
	mov	$2, %eax
	syscall
	jmp	user_b_spin
