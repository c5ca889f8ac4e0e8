// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * RV64GC (+ Zcmp, Zcmt) control-flow classifier. Only the fields that
 * matter for trace are decoded: length, kind, direct target, and the
 * N-Trace itype including the x1/x5 link-register rules.
 */
#include <string.h>

#include "ntrace/ingress.h"
#include "ntrace/isa.h"

static int is_link(unsigned int r)
{
	return r == 1 || r == 5;
}

/* JAL rd: N-Trace 4-bit itype. */
static uint8_t jal_itype(unsigned int rd)
{
	if (is_link(rd))
		return NTRACE_ITYPE_DIR_CALL;
	if (rd == 0)
		return NTRACE_ITYPE_DIR_JUMP;
	return NTRACE_ITYPE_OTHER_DIR_JUMP;
}

/* JALR rd, rs: N-Trace 4-bit itype (also C.JR = JALR x0, C.JALR = JALR x1). */
static uint8_t jalr_itype(unsigned int rd, unsigned int rs)
{
	if (is_link(rd)) {
		if (!is_link(rs) || rd == rs)
			return NTRACE_ITYPE_IND_CALL;
		return NTRACE_ITYPE_COSWAP;
	}
	if (is_link(rs))
		return NTRACE_ITYPE_RETURN;
	if (rd == 0)
		return NTRACE_ITYPE_IND_JUMP;
	return NTRACE_ITYPE_OTHER_IND_JUMP;
}

static int32_t sext(uint32_t v, unsigned int bits)
{
	uint32_t m = 1u << (bits - 1);

	return (int32_t)((v ^ m) - m);
}

static void set(struct ntrace_idec *d, unsigned int kind, unsigned int itype,
		int32_t off, unsigned int reg)
{
	d->kind = kind;
	d->itype = itype;
	d->off = off;
	d->reg = reg;
}

static int invalid(struct ntrace_idec *d)
{
	set(d, NTRACE_IK_INVALID, NTRACE_ITYPE_NONE, 0, 0);
	return -1;
}

static int decode32(uint32_t x, struct ntrace_idec *d)
{
	unsigned int rd = (x >> 7) & 31, rs1 = (x >> 15) & 31;
	unsigned int f3 = (x >> 12) & 7;
	uint32_t imm;

	switch (x & 0x7f) {
	case 0x63:	/* BRANCH */
		if (f3 == 2 || f3 == 3)
			return invalid(d);
		imm = ((x >> 31) & 1) << 12 | ((x >> 25) & 0x3f) << 5 |
		      ((x >> 8) & 0xf) << 1 | ((x >> 7) & 1) << 11;
		set(d, NTRACE_IK_BRANCH, NTRACE_ITYPE_TAKEN, sext(imm, 13), 0);
		return 0;
	case 0x6f:	/* JAL */
		imm = ((x >> 31) & 1) << 20 | ((x >> 21) & 0x3ff) << 1 |
		      ((x >> 20) & 1) << 11 | ((x >> 12) & 0xff) << 12;
		set(d, NTRACE_IK_JUMP, jal_itype(rd), sext(imm, 21), rd);
		return 0;
	case 0x67:	/* JALR */
		if (f3 != 0)
			return invalid(d);
		set(d, NTRACE_IK_INDIRECT, jalr_itype(rd, rs1), 0, rs1);
		return 0;
	case 0x73:	/* SYSTEM: only the exact trap/return encodings matter */
		switch (x) {
		case 0x00000073:	/* ECALL */
		case 0x00100073:	/* EBREAK */
			set(d, NTRACE_IK_TRAP, NTRACE_ITYPE_EXCEPTION, 0, 0);
			return 0;
		case 0x10200073:	/* SRET */
		case 0x30200073:	/* MRET */
		case 0x70200073:	/* MNRET (Smrnmi) */
			set(d, NTRACE_IK_TRAP_RETURN, NTRACE_ITYPE_TRAP_RETURN, 0, 0);
			return 0;
		}
		break;
	}
	set(d, NTRACE_IK_NONE, NTRACE_ITYPE_NONE, 0, 0);
	return 0;
}

/* Quadrant 2, funct3 101 under Zcmp/Zcmt (the C.FSDSP space). */
static int decode_cm(uint16_t x, const struct ntrace_isa_cfg *cfg,
		     struct ntrace_idec *d)
{
	unsigned int f5 = (x >> 8) & 31;
	unsigned int rlist = (x >> 4) & 15;

	if ((cfg->ext & NTRACE_ISA_ZCMT) && ((x >> 10) & 7) == 0) {
		unsigned int index = (x >> 2) & 0xff;

		/* CM.JT for index < 32, CM.JALT (links x1) above */
		set(d, NTRACE_IK_TABLE_JUMP,
		    index < 32 ? NTRACE_ITYPE_DIR_JUMP : NTRACE_ITYPE_DIR_CALL,
		    (int32_t)index, index < 32 ? 0 : 1);
		return 0;
	}
	if (cfg->ext & NTRACE_ISA_ZCMP) {
		switch (f5) {
		case 0x1e:	/* CM.POPRET */
		case 0x1c:	/* CM.POPRETZ */
			if (rlist < 4)
				return invalid(d);
			set(d, NTRACE_IK_INDIRECT, NTRACE_ITYPE_RETURN, 0, 1);
			return 0;
		case 0x18:	/* CM.PUSH */
		case 0x1a:	/* CM.POP */
			if (rlist < 4)
				return invalid(d);
			set(d, NTRACE_IK_NONE, NTRACE_ITYPE_NONE, 0, 0);
			return 0;
		}
		/* CM.MVSA01, CM.MVA01S */
		if ((x & 0xfc00) == 0xac00 && ((x >> 5) & 1) == 1) {
			set(d, NTRACE_IK_NONE, NTRACE_ITYPE_NONE, 0, 0);
			return 0;
		}
	}
	return invalid(d);
}

static int decode16(uint16_t x, const struct ntrace_isa_cfg *cfg,
		    struct ntrace_idec *d)
{
	unsigned int f3 = x >> 13, r1 = (x >> 7) & 31, r2 = (x >> 2) & 31;
	uint32_t imm;

	if (!(cfg->ext & NTRACE_ISA_C) || x == 0)
		return invalid(d);

	switch ((x & 3) << 3 | f3) {
	case 1 << 3 | 1:	/* C.JAL (RV32) / C.ADDIW (RV64) */
		if (cfg->xlen != 32)
			break;
		/* fallthrough */
	case 1 << 3 | 5:	/* C.J */
		imm = ((x >> 12) & 1) << 11 | ((x >> 11) & 1) << 4 |
		      ((x >> 9) & 3) << 8 | ((x >> 8) & 1) << 10 |
		      ((x >> 7) & 1) << 6 | ((x >> 6) & 1) << 7 |
		      ((x >> 3) & 7) << 1 | ((x >> 2) & 1) << 5;
		set(d, NTRACE_IK_JUMP, f3 == 1 ? NTRACE_ITYPE_DIR_CALL :
		    NTRACE_ITYPE_DIR_JUMP, sext(imm, 12), f3 == 1);
		return 0;
	case 1 << 3 | 6:	/* C.BEQZ */
	case 1 << 3 | 7:	/* C.BNEZ */
		imm = ((x >> 12) & 1) << 8 | ((x >> 10) & 3) << 3 |
		      ((x >> 5) & 3) << 6 | ((x >> 3) & 3) << 1 |
		      ((x >> 2) & 1) << 5;
		set(d, NTRACE_IK_BRANCH, NTRACE_ITYPE_TAKEN, sext(imm, 9), 0);
		return 0;
	case 2 << 3 | 4:
		if (r2 != 0)
			break;	/* C.MV, C.ADD */
		if (!((x >> 12) & 1)) {	/* C.JR */
			if (r1 == 0)
				return invalid(d);
			set(d, NTRACE_IK_INDIRECT, jalr_itype(0, r1), 0, r1);
			return 0;
		}
		if (r1 == 0) {	/* C.EBREAK */
			set(d, NTRACE_IK_TRAP, NTRACE_ITYPE_EXCEPTION, 0, 0);
			return 0;
		}
		/* C.JALR */
		set(d, NTRACE_IK_INDIRECT, jalr_itype(1, r1), 0, r1);
		return 0;
	case 2 << 3 | 5:	/* C.FSDSP, or Zcmp/Zcmt */
		if (cfg->ext & (NTRACE_ISA_ZCMP | NTRACE_ISA_ZCMT))
			return decode_cm(x, cfg, d);
		break;
	}
	set(d, NTRACE_IK_NONE, NTRACE_ITYPE_NONE, 0, 0);
	return 0;
}

int ntrace_isa_decode(uint32_t raw, const struct ntrace_isa_cfg *cfg,
		      struct ntrace_idec *d)
{
	unsigned int len = ntrace_isa_len((uint16_t)raw);

	d->size = (uint8_t)len;
	switch (len) {
	case 2:
		return decode16((uint16_t)raw, cfg, d);
	case 4:
		return decode32(raw, d);
	case 0:
		d->size = 2;	/* step over it as a halfword */
		/* fallthrough */
	default:
		return invalid(d);
	}
}

int ntrace_isa_decode_bytes(const uint8_t *p, size_t avail,
			    const struct ntrace_isa_cfg *cfg,
			    struct ntrace_idec *d)
{
	uint32_t raw;
	unsigned int len;

	if (avail < 2) {
		d->size = 2;
		return invalid(d);
	}
	raw = (uint32_t)p[0] | (uint32_t)p[1] << 8;
	len = ntrace_isa_len((uint16_t)raw);
	if (len == 4 && avail >= 4)
		raw |= (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	if (len > avail) {
		d->size = (uint8_t)len;
		return invalid(d);
	}
	return ntrace_isa_decode(raw, cfg, d);
}

const char *ntrace_itype_name(unsigned int itype)
{
	static const char *const names[16] = {
		"none", "exception", "interrupt", "trap_return", "not_taken",
		"taken", "indirect", "reserved7", "ind_call", "dir_call",
		"ind_jump", "dir_jump", "coswap", "return", "other_ind_jump",
		"other_dir_jump",
	};

	return itype < 16 ? names[itype] : "bad_itype";
}

const char *ntrace_ikind_name(unsigned int kind)
{
	static const char *const names[] = {
		"none", "branch", "jump", "table_jump", "indirect",
		"trap_return", "trap", "invalid",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "bad_kind";
}

/* Operands of a 32-bit instruction (d already decoded). */
static void ext32(uint32_t x, struct ntrace_iext *e)
{
	unsigned int f3 = (x >> 12) & 7;

	switch (x & 0x7f) {
	case 0x37:	/* LUI */
	case 0x17:	/* AUIPC */
		e->op = (x & 0x7f) == 0x37 ? NTRACE_IOP_LUI : NTRACE_IOP_AUIPC;
		e->rd = (x >> 7) & 31;
		e->imm = (int32_t)(x & 0xfffff000u);
		break;
	case 0x67:	/* JALR */
		if (e->d.kind != NTRACE_IK_INDIRECT)
			break;
		e->op = NTRACE_IOP_JALR;
		e->rd = (x >> 7) & 31;
		e->rs1 = (x >> 15) & 31;
		e->imm = (int32_t)x >> 20;
		break;
	case 0x73:	/* SYSTEM */
		if (e->d.kind == NTRACE_IK_TRAP_RETURN) {
			e->op = NTRACE_IOP_XRET;
			e->csr = x == 0x10200073 ? NTRACE_CSR_SEPC :
				 x == 0x30200073 ? NTRACE_CSR_MEPC : NTRACE_CSR_MNEPC;
		} else if (f3 != 0 && f3 != 4) {
			e->op = NTRACE_IOP_CSR;
			e->rd = (x >> 7) & 31;
			e->rs1 = (x >> 15) & 31;	/* uimm for CSRR*I */
			e->csr = x >> 20;
			/* CSRRS/CSRRC (and the I forms) with rs1/uimm 0 only read */
			e->csr_write = (f3 & 3) == 1 || e->rs1 != 0;
		}
		break;
	}
}

/* Operands of a compressed instruction (d already decoded). */
static void ext16(uint16_t x, struct ntrace_iext *e)
{
	unsigned int r1 = (x >> 7) & 31;

	switch (e->d.kind) {
	case NTRACE_IK_INDIRECT:
		if ((x & 0xe003) == 0x8002) {	/* C.JR, C.JALR */
			e->op = NTRACE_IOP_JALR;
			e->rd = (x >> 12) & 1;
			e->rs1 = r1;
		} else {
			e->op = NTRACE_IOP_POPRET;
		}
		return;
	case NTRACE_IK_TABLE_JUMP:
		e->op = NTRACE_IOP_TABLE;
		return;
	case NTRACE_IK_NONE:
		/* C.LUI; rd 2 is C.ADDI16SP, rd 0 a hint */
		if ((x & 0xe003) == 0x6001 && r1 != 0 && r1 != 2) {
			e->op = NTRACE_IOP_LUI;
			e->rd = r1;
			e->imm = sext(((x >> 12) & 1) << 17 | ((x >> 2) & 31) << 12, 18);
		}
		return;
	default:
		return;
	}
}

/* The operands of x, whose x->d is decoded from raw already. */
static void ext_fill(uint32_t raw, struct ntrace_iext *x)
{
	x->op = NTRACE_IOP_OTHER;
	x->rd = x->rs1 = x->csr_write = 0;
	x->csr = 0;
	x->imm = 0;
	if (x->d.kind == NTRACE_IK_INVALID)
		return;
	if (x->d.size == 2)
		ext16((uint16_t)raw, x);
	else if (x->d.size == 4)
		ext32(raw, x);
}

int ntrace_isa_decode_ext(uint32_t raw, const struct ntrace_isa_cfg *cfg,
			  struct ntrace_iext *x)
{
	int rc = ntrace_isa_decode(raw, cfg, &x->d);

	ext_fill(raw, x);
	return rc;
}

int ntrace_isa_decode_ext_bytes(const uint8_t *p, size_t avail,
				const struct ntrace_isa_cfg *cfg,
				struct ntrace_iext *x)
{
	int rc = ntrace_isa_decode_bytes(p, avail, cfg, &x->d);
	uint32_t raw = 0;
	size_t i;

	for (i = 0; i < avail && i < 4; i++)
		raw |= (uint32_t)p[i] << (8 * i);
	ext_fill(raw, x);
	return rc;
}

int ntrace_isa_seq_jump(const struct ntrace_iext *prev, uint64_t prev_pc,
			const struct ntrace_iext *jump, unsigned int xlen,
			uint64_t *target)
{
	unsigned int rs1 = ntrace_isa_seq_jump_reg(jump);
	uint64_t val;

	if (!rs1 || ntrace_isa_seq_setup_reg(prev) != rs1)
		return 0;
	val = (uint64_t)prev->imm;
	if (prev->op == NTRACE_IOP_AUIPC)
		val += prev_pc;
	*target = ntrace_isa_jalr_target(jump, val, xlen);
	return 1;
}
