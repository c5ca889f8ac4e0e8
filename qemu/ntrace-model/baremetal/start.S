/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Entry of the bare-metal test programs (M-mode, -bios none). Hart 0 runs
 * main(); other harts park in WFI unless a program provides hart_main().
 */
#include "xlen.h"

	.section .text.start
	.globl _start
_start:
	li	t0, 1 << 13		/* mstatus.FS: FP on (handlers save FP regs) */
	csrs	mstatus, t0
	csrr	t0, mhartid
	la	sp, __stack_top
	slli	t1, t0, 12
	sub	sp, sp, t1		/* 4 KiB of stack per hart */
	bnez	t0, 2f
	la	t1, __bss_start
	la	t2, __bss_end
1:	bgeu	t1, t2, 3f
	REG_S	zero, 0(t1)
	addi	t1, t1, SZREG
	j	1b
3:	la	t1, boot_done	/* other harts may run now: .bss is clear */
	li	t2, 1
	fence	rw, rw
	sw	t2, 0(t1)
	call	main
	call	exit
2:	la	t1, boot_done	/* wait until hart 0 has cleared .bss */
5:	lw	t2, 0(t1)
	beqz	t2, 5b
	fence	rw, rw
	mv	a0, t0
	call	hart_main
4:	wfi
	j	4b

	.weak	hart_main
hart_main:
	ret

	.data
	.align	2
boot_done:			/* in .data: not cleared with .bss */
	.word	0
