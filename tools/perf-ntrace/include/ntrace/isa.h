/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * RV64GC (+ Zcmp, Zcmt) instruction classifier for trace: how long an
 * instruction is, whether and how it changes control flow, and its direct
 * target. The classification follows the itype table of N-Trace 1.0
 * ("Trace Ingress Port").
 *
 * Decoding is pure (no pc, no memory): struct ntrace_idec holds a target
 * offset, so a decode can be cached per halfword of an image and reused at
 * every visit (see image.h, which builds such a table for the flow decoder).
 */
#ifndef NTRACE_ISA_H
#define NTRACE_ISA_H

#include <stddef.h>
#include <stdint.h>

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
		return taken ? 5 : 4;	/* NTRACE_ITYPE_TAKEN / _NOT_TAKEN */
	return d->itype;
}

/* 4-bit itype to the 3-bit form (N-Trace itype table). */
static inline uint8_t ntrace_itype_3bit(uint8_t itype)
{
	switch (itype) {
	case 8: case 10: case 12: case 13: case 14:
		return 6;
	case 9: case 11: case 15:
		return 0;
	default:
		return itype;
	}
}

/* Static names for logs and test output ("dir_call", "branch", ...);
 * out-of-range values give a placeholder name, never NULL. */
const char *ntrace_itype_name(unsigned int itype);
const char *ntrace_ikind_name(unsigned int kind);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_ISA_H */
