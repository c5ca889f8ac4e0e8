/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ret_probe(): a return that goes 64 KiB past its call site. Its target
 * has the same low 16 bits as the return address the call pushed, so an
 * encoder comparing only those (trTeInstImplicitReturnMode=2, the model's
 * 16-bit partial return addresses) takes the return as implicit, one
 * comparing full addresses (mode 3) reports it. The landing pad jumps back
 * to the call site's successor, so the program goes on as usual. On RV32
 * the call is a C.JAL, which the trace encoder and decoder must know from
 * the XLEN (the same bits are C.ADDIW on RV64).
 */
#include "xlen.h"

	.option norelax		/* fixed sizes: the .org below needs them */
	.section .text.ret_probe, "ax"
	.balign	65536
	.globl	ret_probe
ret_probe:
	addi	sp, sp, -16
	REG_S	ra, 0(sp)
#if __riscv_xlen == 32
	c.jal	bump_ra		/* RV32 only: RV64 has C.ADDIW at this encoding */
#else
	call	bump_ra
#endif
ret_probe_back:			/* the return address bump_ra() is called with */
	REG_L	ra, 0(sp)
	addi	sp, sp, 16
	ret

bump_ra:
	li	t0, 0x10000
	add	ra, ra, t0
	ret			/* to ret_probe_far */

	.org	0x10000 + (ret_probe_back - ret_probe)
	.globl	ret_probe_far
ret_probe_far:
	j	ret_probe_back
