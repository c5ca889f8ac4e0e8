/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The trace ingress port as ntrace models it: one record per retired
 * instruction, in program order.
 *
 * N-Trace takes its ingress port from the E-Trace specification (chapter 4),
 * which groups instructions into blocks. ntrace uses one record per retired
 * instruction instead: a block is just a run of records, and the per-
 * instruction form is what ground-truth logs, the QEMU model and the flow
 * decoder all speak, so comparing them needs no conversion.
 *
 * Producers: the ingress builders (PC list + ELF, tandem-verification
 * trace), the QEMU hardware model. Consumer: the encoder model.
 */
#ifndef NTRACE_INGRESS_H
#define NTRACE_INGRESS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * itype: how control leaves a retired instruction (N-Trace 1.0, "Trace
 * Ingress Port"). 0..6 are the 3-bit values; 8..15 the 4-bit values needed
 * for implicit return. An ingress port of 3-bit itypes folds them as
 * ntrace_itype_3bit() (isa.h) does.
 */
enum ntrace_itype {
	NTRACE_ITYPE_NONE = 0,		/* no special type */
	NTRACE_ITYPE_EXCEPTION = 1,	/* exception trap after this record */
	NTRACE_ITYPE_INTERRUPT = 2,	/* interrupt trap after this record */
	NTRACE_ITYPE_TRAP_RETURN = 3,	/* MRET, SRET */
	NTRACE_ITYPE_NOT_TAKEN = 4,	/* conditional branch, not taken */
	NTRACE_ITYPE_TAKEN = 5,		/* conditional branch, taken */
	NTRACE_ITYPE_INDIRECT = 6,	/* indirect jump (3-bit form) */
	NTRACE_ITYPE_IND_CALL = 8,	/* indirect call (JALR/C.JALR with link) */
	NTRACE_ITYPE_DIR_CALL = 9,	/* direct call (JAL/C.JAL with link) */
	NTRACE_ITYPE_IND_JUMP = 10,	/* indirect jump without linkage */
	NTRACE_ITYPE_DIR_JUMP = 11,	/* direct jump without linkage */
	NTRACE_ITYPE_COSWAP = 12,	/* co-routine swap */
	NTRACE_ITYPE_RETURN = 13,	/* function return */
	NTRACE_ITYPE_OTHER_IND_JUMP = 14, /* indirect jump with linkage */
	NTRACE_ITYPE_OTHER_DIR_JUMP = 15, /* direct jump with linkage */
};

/* Privilege levels as the ingress port reports them. */
enum ntrace_priv {
	NTRACE_PRIV_U = 0,	/* user */
	NTRACE_PRIV_S = 1,	/* HS when virtualisation is off */
	NTRACE_PRIV_M = 3,	/* machine (2 is reserved) */
	NTRACE_PRIV_VU = 4,	/* V=1 variants */
	NTRACE_PRIV_VS = 5,
};

/* ntrace_insn.flags */
#define NTRACE_INSN_TRACE_START	0x01	/* trace (re)starts at this record */
#define NTRACE_INSN_TRACE_STOP	0x02	/* trace stops after this record */
#define NTRACE_INSN_CAUSE_VALID	0x04	/* cause/tval hold the trap's values */
/*
 * Indirect jump whose target is sequentially inferable: the record before
 * it is an LUI/C.LUI/AUIPC writing the jump's rs1 ("Sequential Jump
 * Optimization"; the hart tells the encoder, the encoder decides).
 */
#define NTRACE_INSN_SEQ_INFERABLE 0x08

/*
 * One retired instruction.
 *
 * For a trap, itype is EXCEPTION or INTERRUPT on the last instruction that
 * retired before it (the trapping ECALL/EBREAK itself does not retire), and
 * the next record's addr is the handler address. A trap with no instruction
 * retired since the previous trap (for example a fault on the handler's
 * first fetch) is a record with size 0: addr is then the address the trap
 * was taken at and nothing is counted for it.
 *
 * Targets are never stored: the next record's addr is the target of every
 * taken branch, jump and trap, exactly as on a real ingress port.
 */
struct ntrace_insn {
	uint64_t addr;		/* instruction address */
	uint64_t context;	/* scontext/ASID-derived context value */
	uint64_t tstamp;	/* timestamp of retirement (encoder units) */
	uint64_t cause;		/* trap cause (mcause/scause form), if CAUSE_VALID */
	uint64_t tval;		/* trap value, if CAUSE_VALID */
	uint8_t size;		/* 2 or 4; 0 for a trap-only record */
	uint8_t itype;		/* enum ntrace_itype */
	uint8_t priv;		/* enum ntrace_priv */
	uint8_t flags;		/* NTRACE_INSN_* */
};

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_INGRESS_H */
