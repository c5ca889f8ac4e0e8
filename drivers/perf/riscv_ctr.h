/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RISC-V Control Transfer Records (Smctr/Ssctr, ratified 1.0): register
 * layout and the pure translations between CTR state and perf's branch
 * stack ABI. Kept free of CSR accesses so the KUnit test can check every
 * translation without CTR hardware.
 *
 * CSR numbers are those of the ratified specification. The v0.1.4 draft
 * used sctrcontrol = 0x181 and sctrstatus = 0x183 with the depth and a
 * clear bit inside the control register; none of that applies here.
 */
#ifndef _RISCV_CTR_H
#define _RISCV_CTR_H

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/perf_event.h>
#include <linux/types.h>

#define CSR_SCTRCTL		0x14e
#define CSR_SCTRSTATUS		0x14f
#define CSR_SCTRDEPTH		0x15f
/* siselect window of CTR logical entries 0..255; sireg/sireg2/sireg3 */
#define RISCV_CTR_SISELECT_BASE	0x200
#define CSR_SIREG2		0x152
#define CSR_SIREG3		0x153
/* SCTRCLR: SYSTEM opcode, funct12 0x104, rs1 = rd = 0 */
#define RISCV_CTR_SCTRCLR_INSN	0x10400073

/* sctrctl fields */
#define CTRCTL_U		BIT_ULL(0)
#define CTRCTL_S		BIT_ULL(1)
#define CTRCTL_RASEMU		BIT_ULL(7)
#define CTRCTL_STE		BIT_ULL(8)
#define CTRCTL_BPFRZ		BIT_ULL(11)
#define CTRCTL_LCOFIFRZ		BIT_ULL(12)
/* Transfer type filter bit for CTR transfer type t is bit 32 + t. */
#define CTRCTL_TYPE_BIT(t)	BIT_ULL(32 + (t))

/* ctrdata.TYPE encodings (the E-Trace itype values) */
enum riscv_ctr_type {
	CTR_TYPE_NONE		= 0,
	CTR_TYPE_EXC		= 1,
	CTR_TYPE_INTR		= 2,
	CTR_TYPE_TRET		= 3,
	CTR_TYPE_NTBR		= 4,
	CTR_TYPE_TKBR		= 5,
	CTR_TYPE_INDCALL	= 8,
	CTR_TYPE_DIRCALL	= 9,
	CTR_TYPE_INDJMP		= 10,
	CTR_TYPE_DIRJMP		= 11,
	CTR_TYPE_CORSWAP	= 12,
	CTR_TYPE_RET		= 13,
	CTR_TYPE_INDLJMP	= 14,
	CTR_TYPE_DIRLJMP	= 15,
};

#define CTRCTL_EXCINH		CTRCTL_TYPE_BIT(CTR_TYPE_EXC)
#define CTRCTL_INTRINH		CTRCTL_TYPE_BIT(CTR_TYPE_INTR)
#define CTRCTL_TRETINH		CTRCTL_TYPE_BIT(CTR_TYPE_TRET)
#define CTRCTL_NTBREN		CTRCTL_TYPE_BIT(CTR_TYPE_NTBR)
#define CTRCTL_TKBRINH		CTRCTL_TYPE_BIT(CTR_TYPE_TKBR)
#define CTRCTL_INDCALLINH	CTRCTL_TYPE_BIT(CTR_TYPE_INDCALL)
#define CTRCTL_DIRCALLINH	CTRCTL_TYPE_BIT(CTR_TYPE_DIRCALL)
#define CTRCTL_INDJMPINH	CTRCTL_TYPE_BIT(CTR_TYPE_INDJMP)
#define CTRCTL_DIRJMPINH	CTRCTL_TYPE_BIT(CTR_TYPE_DIRJMP)
#define CTRCTL_CORSWAPINH	CTRCTL_TYPE_BIT(CTR_TYPE_CORSWAP)
#define CTRCTL_RETINH		CTRCTL_TYPE_BIT(CTR_TYPE_RET)
#define CTRCTL_INDLJMPINH	CTRCTL_TYPE_BIT(CTR_TYPE_INDLJMP)
#define CTRCTL_DIRLJMPINH	CTRCTL_TYPE_BIT(CTR_TYPE_DIRLJMP)

/* Every inhibit bit; NTBREN has the opposite polarity and is not in here. */
#define CTRCTL_ALL_INH	(CTRCTL_EXCINH | CTRCTL_INTRINH | CTRCTL_TRETINH | \
			 CTRCTL_TKBRINH | CTRCTL_INDCALLINH | \
			 CTRCTL_DIRCALLINH | CTRCTL_INDJMPINH | \
			 CTRCTL_DIRJMPINH | CTRCTL_CORSWAPINH | \
			 CTRCTL_RETINH | CTRCTL_INDLJMPINH | \
			 CTRCTL_DIRLJMPINH)

/* Everything this driver may write; the probe learns which are implemented. */
#define CTRCTL_PROBE_MASK	(CTRCTL_U | CTRCTL_S | CTRCTL_RASEMU | \
				 CTRCTL_LCOFIFRZ | CTRCTL_NTBREN | \
				 CTRCTL_ALL_INH)

/* sctrstatus and sctrdepth fields */
#define CTRSTATUS_WRPTR		GENMASK(7, 0)
#define CTRSTATUS_FROZEN	BIT(31)
#define CTRDEPTH_DEPTH		GENMASK(2, 0)
#define RISCV_CTR_DEPTH_MAX_ENC	4	/* 256 entries */
#define RISCV_CTR_MAX_DEPTH	256

/* entry registers */
#define CTRSOURCE_V		BIT_ULL(0)
#define CTRTARGET_MISP		BIT_ULL(0)
#define CTRDATA_TYPE		GENMASK_ULL(3, 0)
#define CTRDATA_CCV		BIT_ULL(15)
#define CTRDATA_CCM		GENMASK_ULL(27, 16)
#define CTRDATA_CCE		GENMASK_ULL(31, 28)

/**
 * riscv_ctr_depth_enc() - sctrdepth.DEPTH encoding for a wanted depth
 * @entries: wanted entries per branch stack; 0 for the deepest (256)
 *
 * Return: the encoding of the largest supported power of two not above
 * @entries (depth = 16 << DEPTH), at least 16 entries.
 */
static inline unsigned int riscv_ctr_depth_enc(unsigned int entries)
{
	unsigned int enc = 0;

	if (!entries)
		return RISCV_CTR_DEPTH_MAX_ENC;
	while (enc < RISCV_CTR_DEPTH_MAX_ENC && (32U << enc) <= entries)
		enc++;
	return enc;
}

/* One raw record as read through sireg, sireg2 and sireg3. */
struct riscv_ctr_record {
	u64 source;
	u64 target;
	u64 data;
};

/* Which optional perf_branch_entry fields the event asked for. */
#define RISCV_CTR_OUT_FLAGS	BIT(0)	/* mispred/predicted */
#define RISCV_CTR_OUT_CYCLES	BIT(1)
#define RISCV_CTR_OUT_TYPE	BIT(2)
#define RISCV_CTR_OUT_PRIV	BIT(3)
/* the hardware implements ctrtarget.MISP: "predicted" is known too */
#define RISCV_CTR_OUT_MISP	BIT(4)

/* branch_sample_type bits that select branch types */
#define RISCV_CTR_TYPE_BITS	(PERF_SAMPLE_BRANCH_ANY | \
				 PERF_SAMPLE_BRANCH_ANY_CALL | \
				 PERF_SAMPLE_BRANCH_ANY_RETURN | \
				 PERF_SAMPLE_BRANCH_IND_CALL | \
				 PERF_SAMPLE_BRANCH_COND | \
				 PERF_SAMPLE_BRANCH_IND_JUMP | \
				 PERF_SAMPLE_BRANCH_CALL)

/**
 * riscv_ctr_filter_to_ctl() - translate a perf branch filter to sctrctl
 * @bst:	  attr.branch_sample_type (privilege bits already filled in by
 *		  the perf core from the exclude_* flags when none were given)
 * @implemented: sctrctl bits the hardware implements (read back at probe)
 * @ctl:	  resulting sctrctl value, without the freeze bits
 *
 * Branch types are selected by clearing inhibit bits. A filter that needs
 * an inhibit bit the hardware lacks would record branches the user did
 * not ask for, so it is refused rather than silently widened.
 *
 * Return: 0, or -EOPNOTSUPP when CTR cannot honour the filter.
 */
static inline int riscv_ctr_filter_to_ctl(u64 bst, u64 implemented, u64 *ctl)
{
	u64 allow = 0, inh, val = 0;

	if (bst & ~(PERF_SAMPLE_BRANCH_MAX - 1))
		return -EOPNOTSUPP;
	if (bst & (PERF_SAMPLE_BRANCH_ABORT_TX | PERF_SAMPLE_BRANCH_IN_TX |
		   PERF_SAMPLE_BRANCH_COUNTERS))
		return -EOPNOTSUPP;

	if (bst & PERF_SAMPLE_BRANCH_USER)
		val |= CTRCTL_U;
	if (bst & PERF_SAMPLE_BRANCH_KERNEL)
		val |= CTRCTL_S;
	if (!val)
		return -EOPNOTSUPP;

	/*
	 * The call stack is CTR's RAS emulation: calls push, returns pop.
	 * The hardware then ignores the type filter bits, so a call stack
	 * combined with a type filter cannot be honoured.
	 */
	if (bst & PERF_SAMPLE_BRANCH_CALL_STACK) {
		if (bst & RISCV_CTR_TYPE_BITS)
			return -EOPNOTSUPP;
		val |= CTRCTL_RASEMU;
		if (val & ~implemented)
			return -EOPNOTSUPP;
		*ctl = val;
		return 0;
	}

	if (bst & PERF_SAMPLE_BRANCH_ANY)
		allow |= CTRCTL_ALL_INH;
	if (bst & PERF_SAMPLE_BRANCH_ANY_CALL)
		allow |= CTRCTL_DIRCALLINH | CTRCTL_INDCALLINH |
			 CTRCTL_CORSWAPINH | CTRCTL_EXCINH | CTRCTL_INTRINH;
	if (bst & PERF_SAMPLE_BRANCH_ANY_RETURN)
		allow |= CTRCTL_RETINH | CTRCTL_CORSWAPINH | CTRCTL_TRETINH;
	if (bst & PERF_SAMPLE_BRANCH_IND_CALL)
		allow |= CTRCTL_INDCALLINH;
	if (bst & PERF_SAMPLE_BRANCH_CALL)
		allow |= CTRCTL_DIRCALLINH;
	if (bst & PERF_SAMPLE_BRANCH_COND)
		allow |= CTRCTL_TKBRINH;
	if (bst & PERF_SAMPLE_BRANCH_IND_JUMP)
		allow |= CTRCTL_INDJMPINH | CTRCTL_INDLJMPINH;
	if (!allow)
		return -EOPNOTSUPP;

	inh = CTRCTL_ALL_INH & ~allow;
	if ((val | inh) & ~implemented)
		return -EOPNOTSUPP;

	*ctl = val | inh;
	return 0;
}

/**
 * riscv_ctr_cycles() - elapsed cycles encoded in ctrdata.CC
 * @data: the ctrdata register
 *
 * CC is a 12-bit mantissa (CCM) and a 4-bit exponent (CCE): CCE = 0 gives
 * CCM cycles, otherwise (4096 + CCM) << (CCE - 1).
 *
 * Return: the count when CCV says it is valid, else 0 (perf's "unknown").
 */
static inline u32 riscv_ctr_cycles(u64 data)
{
	u32 ccm = FIELD_GET(CTRDATA_CCM, data);
	u32 cce = FIELD_GET(CTRDATA_CCE, data);

	if (!(data & CTRDATA_CCV))
		return 0;
	if (!cce)
		return ccm;
	return (4096 + ccm) << (cce - 1);
}

/* perf branch type of a CTR transfer type. */
static inline void riscv_ctr_perf_type(unsigned int ctr_type,
				       struct perf_branch_entry *e)
{
	static const u8 map[16] = {
		[CTR_TYPE_EXC]		= PERF_BR_SYSCALL,
		[CTR_TYPE_INTR]		= PERF_BR_IRQ,
		[CTR_TYPE_TRET]		= PERF_BR_ERET,
		[CTR_TYPE_NTBR]		= PERF_BR_COND,
		[CTR_TYPE_TKBR]		= PERF_BR_COND,
		[CTR_TYPE_INDCALL]	= PERF_BR_IND_CALL,
		[CTR_TYPE_DIRCALL]	= PERF_BR_CALL,
		[CTR_TYPE_INDJMP]	= PERF_BR_IND,
		[CTR_TYPE_DIRJMP]	= PERF_BR_UNCOND,
		[CTR_TYPE_CORSWAP]	= PERF_BR_IND_CALL,
		[CTR_TYPE_RET]		= PERF_BR_RET,
		[CTR_TYPE_INDLJMP]	= PERF_BR_IND,
		[CTR_TYPE_DIRLJMP]	= PERF_BR_UNCOND,
	};

	e->type = map[ctr_type & 15];
	e->new_type = 0;
}

/*
 * Privilege of a recorded address: RV64 kernel virtual addresses have the
 * top bit set in every paging mode (Sv39/48/57 sign-extend). A trap from a
 * disabled mode records source 0, so the target decides then.
 */
static inline unsigned int riscv_ctr_priv(u64 from, u64 to)
{
	u64 pc = from ? from : to;

	return (pc >> 63) ? PERF_BR_PRIV_KERNEL : PERF_BR_PRIV_USER;
}

/**
 * riscv_ctr_decode() - one CTR record as a perf_branch_entry
 * @rec: the raw record
 * @out: RISCV_CTR_OUT_* fields to fill
 * @e:   the entry to fill
 *
 * Return: false when the record is not valid (ctrsource.V clear).
 */
static inline bool riscv_ctr_decode(const struct riscv_ctr_record *rec,
				    unsigned int out,
				    struct perf_branch_entry *e)
{
	u32 cycles;

	if (!(rec->source & CTRSOURCE_V))
		return false;

	*e = (struct perf_branch_entry){ };
	e->from = rec->source & ~CTRSOURCE_V;
	e->to = rec->target & ~CTRTARGET_MISP;
	/* MISP is optional: absent, it reads 0 and tells nothing. */
	if ((out & RISCV_CTR_OUT_FLAGS) && (out & RISCV_CTR_OUT_MISP)) {
		e->mispred = !!(rec->target & CTRTARGET_MISP);
		e->predicted = !e->mispred;
	}
	if (out & RISCV_CTR_OUT_CYCLES) {
		cycles = riscv_ctr_cycles(rec->data);
		e->cycles = min_t(u32, cycles, 0xffff);
	}
	if (out & RISCV_CTR_OUT_TYPE)
		riscv_ctr_perf_type(FIELD_GET(CTRDATA_TYPE, rec->data), e);
	if (out & RISCV_CTR_OUT_PRIV)
		e->priv = riscv_ctr_priv(e->from, e->to);
	return true;
}

/* RISCV_CTR_OUT_* flags for a branch_sample_type. */
static inline unsigned int riscv_ctr_out_flags(u64 bst)
{
	unsigned int out = 0;

	if (!(bst & PERF_SAMPLE_BRANCH_NO_FLAGS))
		out |= RISCV_CTR_OUT_FLAGS;
	if (!(bst & PERF_SAMPLE_BRANCH_NO_CYCLES))
		out |= RISCV_CTR_OUT_CYCLES;
	if (bst & PERF_SAMPLE_BRANCH_TYPE_SAVE)
		out |= RISCV_CTR_OUT_TYPE;
	if (bst & PERF_SAMPLE_BRANCH_PRIV_SAVE)
		out |= RISCV_CTR_OUT_PRIV;
	return out;
}

#endif /* _RISCV_CTR_H */
