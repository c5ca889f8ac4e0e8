/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run_user(fn): run fn() in U-mode and come back. PMP entry 0 opens all
 * memory to U-mode; fn returns to user_exit, whose ECALL traps to M-mode,
 * where the trap handler calls user_trap_return() to resume here.
 */
	.text
	.globl	run_user
	.align	2
run_user:
	addi	sp, sp, -112
	sd	ra, 0(sp)
	sd	s0, 8(sp)
	sd	s1, 16(sp)
	sd	s2, 24(sp)
	sd	s3, 32(sp)
	sd	s4, 40(sp)
	sd	s5, 48(sp)
	sd	s6, 56(sp)
	sd	s7, 64(sp)
	sd	s8, 72(sp)
	sd	s9, 80(sp)
	sd	s10, 88(sp)
	sd	s11, 96(sp)
	csrw	mscratch, sp		/* per hart: where user_resume finds it */
	li	t0, -1
	csrw	pmpaddr0, t0
	li	t0, 0x1f		/* NAPOT, R W X: everything */
	csrw	pmpcfg0, t0
	li	t0, 3 << 11
	csrc	mstatus, t0		/* MPP = U */
	csrw	mepc, a0
	la	ra, user_exit
	addi	sp, sp, -64		/* user frame below ours */
	mret

	.align	2
user_exit:
	li	a7, 93
	ecall				/* never returns: M-mode resumes below */

	.globl	user_resume
	.align	2
user_resume:
	csrr	sp, mscratch
	ld	ra, 0(sp)
	ld	s0, 8(sp)
	ld	s1, 16(sp)
	ld	s2, 24(sp)
	ld	s3, 32(sp)
	ld	s4, 40(sp)
	ld	s5, 48(sp)
	ld	s6, 56(sp)
	ld	s7, 64(sp)
	ld	s8, 72(sp)
	ld	s9, 80(sp)
	ld	s10, 88(sp)
	ld	s11, 96(sp)
	addi	sp, sp, 112
	ret
