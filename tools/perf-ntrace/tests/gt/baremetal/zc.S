/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Zcmp and Zcmt in real execution (N-Trace itype table rows CM.JT, CM.JALT,
 * CM.POPRET): five table calls through JVT entry 32 into a function that
 * returns with CM.POPRET, then a table jump through entry 1 to the exit.
 * Assembled by llvm-mc-19 (binutils 2.40 has no Zcmp/Zcmt); run with
 * -cpu rv64,zcd=false,zcmp=true,zcmt=true. The table address is the symbol
 * jvt_table.
 */
	.text
	.globl _start
_start:
	li	sp, 0x80100000
	la	t0, jvt_table
	csrw	0x017, t0		# jvt: base, mode 0
	li	s0, 5
1:	cm.jalt	32			# call f
	addi	s0, s0, -1
	bnez	s0, 1b
	cm.jt	1			# jump to done
	j	.
f:	cm.push	{ra, s0}, -16
	addi	a0, a0, 1
	cm.popret {ra, s0}, 16
done:
	li	t0, 0x100000
	li	t1, 0x5555
	sw	t1, 0(t0)		# sifive_test: pass
2:	wfi
	j	2b

	.section .rodata
	.balign	64
	.globl	jvt_table
jvt_table:
	.8byte	0, done
	.fill	30, 8, 0
	.8byte	f
