/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bare-metal startup for qemu-system-riscv64 -M virt -bios none: M-mode,
 * a direct-mode trap vector that calls trap_handler(mcause, mepc) and
 * resumes at the pc it returns, and exit through the virt test device
 * (sifive_test at 0x100000): 0x5555 = pass, (code << 16) | 0x3333 = fail.
 */
	.section .text.start, "ax"
	.globl _start
_start:
	la	sp, __stack_top
	la	t0, trap_entry
	csrw	mtvec, t0
	call	main
	.globl exit_qemu
exit_qemu:
	li	t0, 0x100000
	li	t1, 0x5555
	beqz	a0, 1f
	slli	t1, a0, 16
	li	t2, 0x3333
	or	t1, t1, t2
1:	sw	t1, 0(t0)
	/* QEMU shuts down asynchronously: wait quietly (no interrupt is enabled) */
2:	wfi
	j	2b

	.align	2
trap_entry:
	addi	sp, sp, -136
	sd	ra, 0(sp)
	sd	t0, 8(sp)
	sd	t1, 16(sp)
	sd	t2, 24(sp)
	sd	t3, 32(sp)
	sd	t4, 40(sp)
	sd	t5, 48(sp)
	sd	t6, 56(sp)
	sd	a0, 64(sp)
	sd	a1, 72(sp)
	sd	a2, 80(sp)
	sd	a3, 88(sp)
	sd	a4, 96(sp)
	sd	a5, 104(sp)
	sd	a6, 112(sp)
	sd	a7, 120(sp)
	csrr	a0, mcause
	csrr	a1, mepc
	call	trap_handler
	csrw	mepc, a0
	ld	ra, 0(sp)
	ld	t0, 8(sp)
	ld	t1, 16(sp)
	ld	t2, 24(sp)
	ld	t3, 32(sp)
	ld	t4, 40(sp)
	ld	t5, 48(sp)
	ld	t6, 56(sp)
	ld	a0, 64(sp)
	ld	a1, 72(sp)
	ld	a2, 80(sp)
	ld	a3, 88(sp)
	ld	a4, 96(sp)
	ld	a5, 104(sp)
	ld	a6, 112(sp)
	ld	a7, 120(sp)
	addi	sp, sp, 136
	mret
