/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one place where the bare-metal programs' assembly depends on XLEN:
 * register-sized loads and stores and the size of a saved register, for
 * RV64 (-mabi=lp64d) and RV32 (-mabi=ilp32) builds of the same sources.
 */
#ifndef NTRACE_BM_XLEN_H
#define NTRACE_BM_XLEN_H

#if __riscv_xlen == 64
#define REG_S	sd
#define REG_L	ld
#define SZREG	8
#elif __riscv_xlen == 32
#define REG_S	sw
#define REG_L	lw
#define SZREG	4
#else
#error "unknown __riscv_xlen"
#endif

#endif /* NTRACE_BM_XLEN_H */
