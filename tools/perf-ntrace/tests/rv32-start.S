/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Entry of the RV32 ground-truth programs (tests/rv32.sh) under
 * qemu-riscv32 user mode, with no libc: main's value is the exit status.
 */
	.section .text.start, "ax"
	.globl _start
_start:
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	call	main
	li	a7, 93		/* exit */
	ecall
1:	j	1b
