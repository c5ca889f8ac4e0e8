/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * RV64GC (+ Zcmp, Zcmt) instruction classifier for trace: how long an
 * instruction is, whether and how it changes control flow, its direct
 * target, which pc may follow it, and on demand its operands (sequential
 * jumps, JALR and trap-return targets). The classification follows the
 * itype table of N-Trace 1.0 ("Trace Ingress Port"). The one home of these
 * facts: the encoder, the decoder, the QEMU model and the ground-truth
 * plugin all ask here.
 *
 * Decoding is pure (no pc, no memory): struct ntrace_idec holds a target
 * offset, so a decode can be cached per halfword of an image and reused at
 * every visit (see image.h, which builds such a table for the flow decoder).
 */
#ifndef NTRACE_ISA_H
#define NTRACE_ISA_H

#include <stddef.h>
#include <stdint.h>

#include "ntrace/ingress.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an instruction does to control flow. */
enum ntrace_ikind {
	NTRACE_IK_NONE = 0,	/* falls through to pc + size */
	NTRACE_IK_BRANCH,	/* conditional branch, direct target */
	NTRACE_IK_JUMP,		/* JAL, C.J, C.JAL: direct target */
	NTRACE_IK_TABLE_JUMP,	/* CM.JT, CM.JALT: target read from the JVT table */
	NTRACE_IK_INDIRECT,	/* JALR, C.JR, C.JALR, CM.POPRET, CM.POPRETZ */
	NTRACE_IK_TRAP_RETURN,	/* MRET, SRET, MNRET */
	NTRACE_IK_TRAP,		/* ECALL, EBREAK, C.EBREAK: trap, never retire */
	NTRACE_IK_INVALID,	/* reserved/illegal encoding or cut off: traps */
};

/* ntrace_isa_cfg.ext */
#define NTRACE_ISA_C	0x01	/* compressed instructions (with Zcd) */
#define NTRACE_ISA_ZCMP	0x02	/* Zcmp: takes the C.FSDSP encodings (no Zcd) */
#define NTRACE_ISA_ZCMT	0x04	/* Zcmt: CM.JT/CM.JALT, same space (no Zcd) */

struct ntrace_isa_cfg {
	uint8_t xlen;		/* 32 or 64 (C.JAL exists on RV32 only) */
	uint8_t ext;		/* NTRACE_ISA_* */
	uint64_t jvt_base;	/* Zcmt jump table base (JVT.base) */
};

/* The default: RV64GC. */
#define NTRACE_ISA_CFG_RV64GC ((struct ntrace_isa_cfg){ .xlen = 64, .ext = NTRACE_ISA_C })

/* One decoded instruction; 8 bytes so per-halfword tables stay small. */
struct ntrace_idec {
	int32_t off;	/* BRANCH, JUMP: target - pc; TABLE_JUMP: table index */
	uint8_t size;	/* bytes: 2 or 4 (6, 8 for long encodings, kind INVALID) */
	uint8_t kind;	/* enum ntrace_ikind */
	uint8_t itype;	/* itype when control leaves (4-bit form), see below */
	uint8_t reg;	/* JALR/C.JR/C.JALR: rs1; JAL: rd; else 0 */
};

/*
 * idec.itype per kind: BRANCH: TAKEN (use ntrace_isa_itype() for the
 * outcome), JUMP/TABLE_JUMP: DIR_CALL, DIR_JUMP or OTHER_DIR_JUMP,
 * INDIRECT: IND_CALL, IND_JUMP, COSWAP, RETURN or OTHER_IND_JUMP,
 * TRAP_RETURN: TRAP_RETURN, TRAP: EXCEPTION, NONE/INVALID: NONE.
 */

/* Length in bytes from the first 16 bits (standard length encoding);
 * 0 for 80-bit and longer or reserved encodings. */
static inline unsigned int ntrace_isa_len(uint16_t lo)
{
	if ((lo & 3) != 3)
		return 2;
	if ((lo & 0x1c) != 0x1c)
		return 4;
	if ((lo & 0x3f) == 0x1f)
		return 6;
	if ((lo & 0x7f) == 0x3f)
		return 8;
	return 0;	/* 80+ bit or reserved: not supported */
}

/*
 * Decode one instruction. raw holds the instruction bits little-end first
 * (only the low 16 bits matter for a compressed instruction). Always fills
 * *d; returns 0, or -1 when the encoding is not valid for cfg (kind is
 * then INVALID).
 */
int ntrace_isa_decode(uint32_t raw, const struct ntrace_isa_cfg *cfg,
		      struct ntrace_idec *d);

/*
 * Decode from bytes: avail is how many bytes are readable at p. An
 * instruction cut off by the end of the buffer decodes as INVALID with its
 * full size. Returns 0, or -1 when *d is INVALID (as ntrace_isa_decode()).
 */
int ntrace_isa_decode_bytes(const uint8_t *p, size_t avail,
			    const struct ntrace_isa_cfg *cfg,
			    struct ntrace_idec *d);

/* Does this instruction end a basic block (anything but NONE)? */
static inline int ntrace_isa_ends_block(const struct ntrace_idec *d)
{
	return d->kind != NTRACE_IK_NONE;
}

/* Does it have a target known from the instruction (and JVT) alone? */
static inline int ntrace_isa_is_direct(const struct ntrace_idec *d)
{
	return d->kind == NTRACE_IK_BRANCH || d->kind == NTRACE_IK_JUMP ||
	       d->kind == NTRACE_IK_TABLE_JUMP;
}

/* Ingress itype of a retired instruction, given whether a branch was taken. */
static inline uint8_t ntrace_isa_itype(const struct ntrace_idec *d, int taken)
{
	if (d->kind == NTRACE_IK_BRANCH)
		return taken ? NTRACE_ITYPE_TAKEN : NTRACE_ITYPE_NOT_TAKEN;
	return d->itype;
}

/*
 * 4-bit itype to the 3-bit form (N-Trace itype tables): indirect kinds
 * become INDIRECT (6); direct jumps and calls become TAKEN (5) when the
 * ingress port reports all jumps (trTeInstEnAllJumps), else NONE (0), as
 * does the reserved value 7.
 */
static inline uint8_t ntrace_itype_3bit(uint8_t itype, int all_jumps)
{
	switch (itype) {
	case NTRACE_ITYPE_IND_CALL:
	case NTRACE_ITYPE_IND_JUMP:
	case NTRACE_ITYPE_COSWAP:
	case NTRACE_ITYPE_RETURN:
	case NTRACE_ITYPE_OTHER_IND_JUMP:
		return NTRACE_ITYPE_INDIRECT;
	case NTRACE_ITYPE_DIR_CALL:
	case NTRACE_ITYPE_DIR_JUMP:
	case NTRACE_ITYPE_OTHER_DIR_JUMP:
		return all_jumps ? NTRACE_ITYPE_TAKEN : NTRACE_ITYPE_NONE;
	case 7:		/* reserved */
		return NTRACE_ITYPE_NONE;
	default:
		return itype;
	}
}

/* Can pc follow the instruction d at ipc? */
enum ntrace_follow {
	NTRACE_FOLLOW_NO = 0,	/* not without a trap (or it never retires) */
	NTRACE_FOLLOW_YES = 1,	/* the fall-through or the direct target */
	NTRACE_FOLLOW_RUNTIME = -1,	/* indirect, table jump, trap return:
					 * only the run-time target can tell */
};

/* Where control goes when d at ipc retires without a trap (enum ntrace_follow). */
static inline int ntrace_isa_may_follow(const struct ntrace_idec *d, uint64_t ipc,
					uint64_t pc)
{
	uint64_t fall = ipc + d->size, target = ipc + (uint64_t)(int64_t)d->off;

	switch (d->kind) {
	case NTRACE_IK_NONE:
		return pc == fall;
	case NTRACE_IK_BRANCH:
		return pc == fall || pc == target;
	case NTRACE_IK_JUMP:
		return pc == target;
	case NTRACE_IK_TABLE_JUMP:
	case NTRACE_IK_INDIRECT:
	case NTRACE_IK_TRAP_RETURN:
		return NTRACE_FOLLOW_RUNTIME;
	default:	/* ECALL, EBREAK, invalid: trap, never retire */
		return NTRACE_FOLLOW_NO;
	}
}

/*
 * The rest of an instruction, for the few callers that need its operands
 * (libipt's pt_insn_ext): not cached per halfword, so kept out of
 * struct ntrace_idec.
 */
enum ntrace_iop {
	NTRACE_IOP_OTHER = 0,
	NTRACE_IOP_LUI,		/* LUI, C.LUI: rd = imm */
	NTRACE_IOP_AUIPC,	/* AUIPC: rd = pc + imm */
	NTRACE_IOP_JALR,	/* JALR, C.JR, C.JALR: to (rs1 + imm) & ~1 */
	NTRACE_IOP_POPRET,	/* CM.POPRET, CM.POPRETZ: to ra loaded from the stack */
	NTRACE_IOP_TABLE,	/* CM.JT, CM.JALT: to the JVT entry */
	NTRACE_IOP_XRET,	/* MRET, SRET, MNRET: to the epc CSR named in csr */
	NTRACE_IOP_CSR,		/* Zicsr access (csr; writes it unless CSRRS/C x0) */
};

/* CSR numbers the trace cares about. */
#define NTRACE_CSR_SATP		0x180
#define NTRACE_CSR_MTVEC	0x305
#define NTRACE_CSR_SEPC		0x141
#define NTRACE_CSR_MEPC		0x341
#define NTRACE_CSR_MNEPC	0x741

struct ntrace_iext {
	struct ntrace_idec d;
	uint8_t op;		/* enum ntrace_iop */
	uint8_t rd, rs1;	/* 0 where the instruction has none */
	uint8_t csr_write;	/* CSR: may write the CSR */
	uint16_t csr;		/* CSR: the CSR; XRET: the epc CSR */
	int64_t imm;		/* LUI: value; AUIPC, JALR: offset */
};

/* Decode d and the operands (as ntrace_isa_decode(): 0, or -1 if invalid). */
int ntrace_isa_decode_ext(uint32_t raw, const struct ntrace_isa_cfg *cfg,
			  struct ntrace_iext *x);

/* The same from bytes (as ntrace_isa_decode_bytes()). */
int ntrace_isa_decode_ext_bytes(const uint8_t *p, size_t avail,
				const struct ntrace_isa_cfg *cfg,
				struct ntrace_iext *x);

/* Target of a JALR-type jump x, rs1 holding rs1v; xlen 32 wraps it. */
static inline uint64_t ntrace_isa_jalr_target(const struct ntrace_iext *x, uint64_t rs1v,
					      unsigned int xlen)
{
	uint64_t t = (rs1v + (uint64_t)x->imm) & ~1ull;

	return xlen == 32 ? (uint32_t)t : t;
}

/*
 * Sequential jump (N-Trace "Sequential Jump Optimization"): an indirect
 * jump or call whose rs1 was written by the instruction just before it,
 * a LUI, C.LUI or AUIPC, has a target known from the code.
 */

/* The register a LUI, C.LUI or AUIPC sets up, else 0. */
static inline unsigned int ntrace_isa_seq_setup_reg(const struct ntrace_iext *x)
{
	return x->op == NTRACE_IOP_LUI || x->op == NTRACE_IOP_AUIPC ? x->rd : 0;
}

/* rs1 of a jump the rule applies to (not a return or co-routine swap), else 0. */
static inline unsigned int ntrace_isa_seq_jump_reg(const struct ntrace_iext *x)
{
	if (x->op != NTRACE_IOP_JALR)
		return 0;
	if (x->d.itype != NTRACE_ITYPE_IND_CALL && x->d.itype != NTRACE_ITYPE_IND_JUMP &&
	    x->d.itype != NTRACE_ITYPE_OTHER_IND_JUMP)
		return 0;
	return x->rs1;
}

/* For such a pair (prev at prev_pc, then jump): 1 and *target, else 0. */
int ntrace_isa_seq_jump(const struct ntrace_iext *prev, uint64_t prev_pc,
			const struct ntrace_iext *jump, unsigned int xlen,
			uint64_t *target);

/* Static names for logs and test output ("dir_call", "branch", ...);
 * out-of-range values give a placeholder name, never NULL. */
const char *ntrace_itype_name(unsigned int itype);
const char *ntrace_ikind_name(unsigned int kind);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_ISA_H */
