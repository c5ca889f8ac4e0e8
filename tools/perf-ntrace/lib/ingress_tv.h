/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Constants of the tandem-verification trace protocol (seed 002, Bluespec
 * "Trace Protocol Specification" 2018-11-20), shared by parser and exporter.
 */
#ifndef NTRACE_INGRESS_TV_H
#define NTRACE_INGRESS_TV_H

enum tv_op {
	TV_BEGIN = 1,
	TV_END = 2,
	TV_INCR_PC = 3,
	TV_FULL_REG = 4,	/* 16-bit address + XLEN/FLEN data (8 bytes on RV64GC) */
	TV_INCR_REG = 5,	/* 16-bit address + 8-bit signed offset */
	TV_INCR_REG_OR = 6,	/* 16-bit address + 8-bit OR mask */
	TV_ADDL = 7,		/* identifier + type-dependent data */
	TV_MEM_REQ = 8,
	TV_MEM_RSP = 9,
	TV_RESET = 10,
	TV_STATE_INIT = 11,
	TV_INSN16 = 16,
	TV_INSN32 = 17,
};

/*
 * Additional-state identifiers. The seed's table gives the pc identifier
 * as 10; its examples show the byte 0x10. We write 10 (0x0a, as in the
 * table) and accept both when reading.
 */
enum tv_addl {
	TV_ADDL_PRIV = 1,
	TV_ADDL_PADDR = 2,
	TV_ADDL_EADDR = 3,
	TV_ADDL_DATA8 = 4,
	TV_ADDL_DATA16 = 5,
	TV_ADDL_DATA32 = 6,
	TV_ADDL_DATA64 = 7,
	TV_ADDL_MTIME = 8,
	TV_ADDL_PC_PADDR = 9,
	TV_ADDL_PC = 10,
	TV_ADDL_PC_ALT = 0x10,	/* as printed in the seed's examples */
};

/* Register addresses (RISC-V Debug Specification numbering). */
#define TV_REG_GPR(n)	(0x1000 + (n))
#define TV_REG_SEPC	0x141
#define TV_REG_SCAUSE	0x142
#define TV_REG_STVAL	0x143
#define TV_REG_VSEPC	0x241
#define TV_REG_VSCAUSE	0x242
#define TV_REG_MEPC	0x341
#define TV_REG_MCAUSE	0x342
#define TV_REG_MTVAL	0x343

#endif /* NTRACE_INGRESS_TV_H */
