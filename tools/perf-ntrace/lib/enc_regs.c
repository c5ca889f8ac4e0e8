// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Encoder settings from the encoder's Trace Control Interface registers
 * (include/uapi/linux/ntrace_tci.h), as a decoder or a model reads them.
 * The rules for N-Trace are the "Trace Encoder Parameters and Controls"
 * table of N-Trace 1.0.
 */
#include <ntrace/encoder.h>
#include <ntrace/error.h>

#include "../../../include/uapi/linux/ntrace_tci.h"
#include "../../../include/uapi/linux/ntrace_tci_v0.h"

/* The public constants are the register values. */
_Static_assert(NTRACE_MODE_BTM == TCI_TE_INST_MODE_BTM, "trTeInstMode BTM");
_Static_assert(NTRACE_MODE_HTM == TCI_TE_INST_MODE_HTM, "trTeInstMode HTM");
_Static_assert(NTRACE_IRET_COUNT == TCI_TE_IRET_MODE_COUNT &&
	       NTRACE_IRET_PARTIAL == TCI_TE_IRET_MODE_PARTIAL &&
	       NTRACE_IRET_FULL == TCI_TE_IRET_MODE_FULL, "trTeInstImplicitReturnMode");
_Static_assert(NTRACE_SYNCMODE_OFF == TCI_TE_SYNC_MODE_OFF &&
	       NTRACE_SYNCMODE_MSGS == TCI_TE_SYNC_MODE_MSGS &&
	       NTRACE_SYNCMODE_CYCLES == TCI_TE_SYNC_MODE_CYCLES &&
	       NTRACE_SYNCMODE_HWORDS == TCI_TE_SYNC_MODE_HWORDS, "trTeInstSyncMode");
_Static_assert(NTRACE_MAX_SRC_BITS == TCI_TE_SRC_BITS_MAX, "trTeSrcBits");

/* N-Trace hard-wires these to 0: an encoder that sets one is not N-Trace. */
#define NOT_NTRACE_FEATURES	(TCI_TE_F_NO_ADDR_DIFF | TCI_TE_F_NO_TRAP_ADDR | \
				 TCI_TE_F_BRANCH_PREDICTION | TCI_TE_F_JUMP_TARGET_CACHE)

/*
 * SiFive's pre-ratified trace encoder (version 0, as in the HiFive Premier
 * P550), ntrace_tci_v0.h: it has no trTeInstFeatures; what that register
 * would say is fixed by the mode.
 */
/* TSTAMP fields: tsEnable, with the unit out of reset and a timestamp source */
static bool regs_tstamp(uint32_t ts)
{
	return (ts & TCI_TS_ACTIVE) && (ts & TCI_TS_ENABLE) &&
	       TCI_GET(ts, TS_MODE) != TCI_TS_MODE_NONE;
}

/* What the registers say, checked: into cfg, or why it cannot be. */
static const char *regs_take(struct ntrace_enc_cfg *c, struct ntrace_enc_cfg *cfg)
{
	const char *why;

	ntrace_enc_cfg_effective(c);
	if (ntrace_enc_cfg_check(c, &why))
		return why;
	*cfg = *c;
	return NULL;
}

static const char *regs_problem_v0(const struct ntrace_tci_regs *r, struct ntrace_enc_cfg *cfg)
{
	struct ntrace_enc_cfg c = *cfg;
	uint32_t ctl = r->te_control, ts = r->ts_control;
	unsigned int mode = TCI_GET(ctl, V0_TE_INST_MODE), bits;

	if (TCI_GET(ctl, V0_TE_SLICE_FORMAT) != TCI_V0_TE_SLICE_FORMAT_6MDO)
		return "the SiFive v0 teSliceFormat is not 1 (6 MDO + 2 MSEO)";
	if (mode != TCI_V0_TE_INST_MODE_HTM && mode != TCI_V0_TE_INST_MODE_HTM_OPT)
		return "the SiFive v0 teInstruction is not instruction trace (6 or 7)";
	c.codec.variant = NTRACE_VARIANT_SIFIVE_V0;
	c.mode = NTRACE_MODE_HTM;
	c.context = false;	/* Ownership comes from ITC writes, not context changes */
	bits = (ctl & TCI_V0_TE_INHIBIT_SRC) ? 0 : TCI_GET(r->te_impl, V0_TE_SRC_BITS);
	c.codec.src_bits = (uint8_t)bits;
	c.src_id = (uint16_t)(TCI_GET(r->te_impl, V0_TE_SRC_ID) & ((1u << bits) - 1));
	c.codec.ext_addr_msb = false;
	c.seq_jump = false;
	c.all_jumps = false;
	/* the optimizations: the call counter and the branch counts */
	c.repeated_history = mode == TCI_V0_TE_INST_MODE_HTM_OPT;
	c.implicit_return = mode == TCI_V0_TE_INST_MODE_HTM_OPT ? NTRACE_IRET_COUNT : NTRACE_IRET_OFF;
	c.return_depth = NTRACE_V0_RETURN_DEPTH;
	/* the model has one period: by messages, else by I-CNT bytes (half-words) */
	c.sync_mode = NTRACE_SYNCMODE_OFF;
	c.sync_max = 0;
	if (TCI_GET(ctl, V0_TE_SYNC_MAX_BTM) <= TCI_V0_TE_SYNC_MAX_BTM_MAX) {
		c.sync_mode = NTRACE_SYNCMODE_MSGS;
		c.sync_max = (uint8_t)(TCI_GET(ctl, V0_TE_SYNC_MAX_BTM) + 1);
	} else if (TCI_GET(ctl, V0_TE_SYNC_MAX_INST) <= TCI_V0_TE_SYNC_MAX_INST_MAX) {
		c.sync_mode = NTRACE_SYNCMODE_HWORDS;
		c.sync_max = (uint8_t)TCI_GET(ctl, V0_TE_SYNC_MAX_INST);
	}
	/* tsControl: tsActive, tsType and tsEnable where trTsControl has them */
	c.codec.tstamp = regs_tstamp(ts);
	/* tsBranch [17:16]: 0 sync only, 1 and indirect branches, 3 (2 reserved) all */
	switch (TCI_GET(ts, V0_TS_BRANCH)) {
	case TCI_V0_TS_BRANCH_NONE:
		c.v0_ts_branch = NTRACE_V0_TSB_NONE;
		break;
	case TCI_V0_TS_BRANCH_INDIRECT:
		c.v0_ts_branch = NTRACE_V0_TSB_INDIRECT;
		break;
	default:
		c.v0_ts_branch = NTRACE_V0_TSB_ALL;
	}
	return regs_take(&c, cfg);
}

/* The first field that makes the registers unusable, or NULL. */
static const char *regs_problem(const struct ntrace_tci_regs *r, struct ntrace_enc_cfg *cfg)
{
	struct ntrace_enc_cfg c = *cfg;
	uint32_t ctl = r->te_control, f = r->te_features, ts = r->ts_control;
	unsigned int bits, iret;

	/* the implementation register's version field: 0 is pre-ratified */
	if (r->te_impl && !TCI_GET(r->te_impl, V0_IMPL_VERSION))
		return regs_problem_v0(r, cfg);
	if (TCI_GET(ctl, TE_FORMAT) != TCI_TE_FORMAT_NTRACE)
		return "trTeFormat is not N-Trace (1)";
	if (r->te_impl) {
		if (TCI_GET(r->te_impl, IMPL_COMP_TYPE) != TCI_COMP_ENCODER)
			return "trTeImpl is not a trace encoder's (trTeCompType 1)";
		if (TCI_GET(r->te_impl, TE_IMPL_PROTO_MAJOR) != 1)
			return "trTeProtocolMajor is not 1 (N-Trace 1.x)";
	}
	if (f & NOT_NTRACE_FEATURES)
		return "trTeInstNoAddrDiff, NoTrapAddr, EnBranchPrediction and "
		       "EnJumpTargetCache must be 0 in N-Trace";

	c.mode = (uint8_t)TCI_GET(ctl, TE_INST_MODE);
	c.context = ctl & TCI_TE_CONTEXT;
	c.sync_mode = (uint8_t)TCI_GET(ctl, TE_SYNC_MODE);
	c.sync_max = (uint8_t)TCI_GET(ctl, TE_SYNC_MAX);

	/* No SRC field when trTeInhibitSrc is set; it holds the low trTeSrcBits of trTeSrcID. */
	bits = (ctl & TCI_TE_INHIBIT_SRC) ? 0 : TCI_GET(f, TE_F_SRC_BITS);
	if (bits > TCI_TE_SRC_BITS_MAX)
		return "trTeSrcBits must be 0..12";
	c.codec.src_bits = (uint8_t)bits;
	c.src_id = (uint16_t)(TCI_GET(f, TE_F_SRC_ID) & ((1u << bits) - 1));

	c.codec.ext_addr_msb = f & TCI_TE_F_EXTEND_ADDR_MSB;
	c.seq_jump = f & TCI_TE_F_SEQ_JUMP;
	c.all_jumps = f & TCI_TE_F_ALL_JUMPS;
	c.repeated_history = f & TCI_TE_F_REPEATED_HISTORY;
	/* N-Trace: implicit return is on with a trTeInstImplicitReturnMode other than 0 */
	iret = TCI_GET(f, TE_F_IRET_MODE);
	c.implicit_return = (uint8_t)((f & TCI_TE_F_IMPLICIT_RETURN) ? iret : NTRACE_IRET_OFF);

	c.codec.tstamp = regs_tstamp(ts);
	return regs_take(&c, cfg);
}

int ntrace_enc_cfg_from_regs(const struct ntrace_tci_regs *r, struct ntrace_enc_cfg *cfg,
			     const char **why)
{
	const char *w = regs_problem(r, cfg);

	if (why)
		*why = w;
	return w ? NTRACE_ECONFIG : 0;
}
