/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run_user(fn): run fn() in U-mode and come back. PMP entry 0 opens all
 * memory to U-mode; fn returns to user_exit, whose ECALL traps to M-mode,
 * where the trap handler calls user_trap_return() to resume here.
 */
#include "xlen.h"

/* ra, s0-s11, rounded up to the 16-byte stack alignment */
#define FRAME	((13 * SZREG + 15) & ~15)

	.text
	.globl	run_user
	.align	2
run_user:
	addi	sp, sp, -FRAME
	REG_S	ra, 0*SZREG(sp)
	REG_S	s0, 1*SZREG(sp)
	REG_S	s1, 2*SZREG(sp)
	REG_S	s2, 3*SZREG(sp)
	REG_S	s3, 4*SZREG(sp)
	REG_S	s4, 5*SZREG(sp)
	REG_S	s5, 6*SZREG(sp)
	REG_S	s6, 7*SZREG(sp)
	REG_S	s7, 8*SZREG(sp)
	REG_S	s8, 9*SZREG(sp)
	REG_S	s9, 10*SZREG(sp)
	REG_S	s10, 11*SZREG(sp)
	REG_S	s11, 12*SZREG(sp)
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
	REG_L	ra, 0*SZREG(sp)
	REG_L	s0, 1*SZREG(sp)
	REG_L	s1, 2*SZREG(sp)
	REG_L	s2, 3*SZREG(sp)
	REG_L	s3, 4*SZREG(sp)
	REG_L	s4, 5*SZREG(sp)
	REG_L	s5, 6*SZREG(sp)
	REG_L	s6, 7*SZREG(sp)
	REG_L	s7, 8*SZREG(sp)
	REG_L	s8, 9*SZREG(sp)
	REG_L	s9, 10*SZREG(sp)
	REG_L	s10, 11*SZREG(sp)
	REG_L	s11, 12*SZREG(sp)
	addi	sp, sp, FRAME
	ret
