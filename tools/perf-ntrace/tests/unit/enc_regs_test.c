// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The Trace Control Interface register map (include/uapi/linux/ntrace_tci.h)
 * and ntrace_enc_cfg_from_regs() against the specifications. Expected
 * values are typed from the register tables of the Trace Control Interface
 * 1.0 ("Trace Encoder Control Interface", "Timestamp Unit", "Trace Encoder
 * Filter Registers", "Trace RAM Sink", "Trace Funnel") and the "Trace
 * Encoder Parameters and Controls" table of N-Trace 1.0, never computed
 * from the header.
 */
#include <string.h>

#include <ntrace/encoder.h>
#include <ntrace/error.h>

#include "../../../../include/uapi/linux/ntrace_tci.h"
#include "tap.h"

struct field {
	const char *name;	/* the specification's name */
	unsigned long got, want;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check_fields(const char *what, const struct field *f, size_t n)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++) {
		if (f[i].got == f[i].want)
			continue;
		tap_diag("%s: header 0x%lx, specification 0x%lx", f[i].name, f[i].got, f[i].want);
		bad++;
	}
	tap_ok(!bad, "ntrace_tci.h: %s as the specification places them (%zu fields)", what, n);
}

static void header_encoder(void)
{
	static const struct field offsets[] = {
		{ "tr??Control", TCI_CONTROL, 0x000 },
		{ "tr??Impl", TCI_IMPL, 0x004 },
		{ "trTeInstFeatures", TCI_TE_INST_FEATURES, 0x008 },
		{ "trTeInstFilters", TCI_TE_INST_FILTERS, 0x00c },
		{ "trTeDataControl", TCI_TE_DATA_CONTROL, 0x010 },
		{ "trTeDataFilters", TCI_TE_DATA_FILTERS, 0x01c },
		{ "trTsControl", TCI_TS_CONTROL, 0x040 },
		{ "trTsCounterLow", TCI_TS_COUNTER_LOW, 0x048 },
		{ "trTsCounterHigh", TCI_TS_COUNTER_HIGH, 0x04c },
		{ "trTeTrigDbgControl", TCI_TE_TRIG_DBG_CONTROL, 0x050 },
		{ "trTeTrigExtInControl", TCI_TE_TRIG_EXTIN_CONTROL, 0x054 },
		{ "trTeTrigExtOutControl", TCI_TE_TRIG_EXTOUT_CONTROL, 0x058 },
		{ "trTeFilter0Control", TCI_TE_FILTER(0) + TCI_FLT_CONTROL, 0x400 },
		{ "trTeFilter3MatchInst", TCI_TE_FILTER(3) + TCI_FLT_MATCH_INST, 0x464 },
		{ "trTeFilter1MatchEcauseLow", TCI_TE_FILTER(1) + TCI_FLT_MATCH_ECAUSE_LOW, 0x428 },
		{ "trTeFilter1MatchEcauseHigh", TCI_TE_FILTER(1) + TCI_FLT_MATCH_ECAUSE_HIGH, 0x42c },
		{ "trTeFilter1MatchValueImpdef", TCI_TE_FILTER(1) + TCI_FLT_MATCH_VALUE_IMPDEF, 0x430 },
		{ "trTeFilter1MatchMaskImpdef", TCI_TE_FILTER(1) + TCI_FLT_MATCH_MASK_IMPDEF, 0x434 },
		{ "trTeFilter15MatchData", TCI_TE_FILTER(15) + TCI_FLT_MATCH_DATA, 0x5f8 },
		{ "trTeComp0Control", TCI_TE_COMP(0) + TCI_CMP_CONTROL, 0x600 },
		{ "trTeComp2PMatchLow", TCI_TE_COMP(2) + TCI_CMP_PMATCH_LOW, 0x650 },
		{ "trTeComp2PMatchHigh", TCI_TE_COMP(2) + TCI_CMP_PMATCH_HIGH, 0x654 },
		{ "trTeComp7SMatchLow", TCI_TE_COMP(7) + TCI_CMP_SMATCH_LOW, 0x6f8 },
		{ "trTeComp7SMatchHigh", TCI_TE_COMP(7) + TCI_CMP_SMATCH_HIGH, 0x6fc },
		{ "filters (trTeInstFilters bits)", TCI_TE_MAX_FILTERS, 16 },
	};
	static const struct field control[] = {
		{ "tr??Active", TCI_ACTIVE, 0x1 },
		{ "tr??Enable", TCI_ENABLE, 0x2 },
		{ "trTeInstTracing", TCI_TE_INST_TRACING, 0x4 },
		{ "tr??Empty", TCI_EMPTY, 0x8 },
		{ "trTeInstMode", TCI_TE_INST_MODE_MASK, 0x70 },
		{ "trTeInstMode shift", TCI_TE_INST_MODE_SHIFT, 4 },
		{ "trTeInstMode BTM", TCI_TE_INST_MODE_BTM, 3 },
		{ "trTeInstMode HTM", TCI_TE_INST_MODE_HTM, 6 },
		{ "trTeContext", TCI_TE_CONTEXT, 0x200 },
		{ "trTeInstTrigEnable", TCI_TE_INST_TRIG_ENABLE, 0x800 },
		{ "trTeInstStallOrOverflow", TCI_TE_INST_STALL_OR_OVF, 0x1000 },
		{ "trTeInstStallEna", TCI_TE_INST_STALL_ENA, 0x2000 },
		{ "trTeInhibitSrc", TCI_TE_INHIBIT_SRC, 0x8000 },
		{ "trTeInstSyncMode", TCI_TE_SYNC_MODE_MASK, 0x30000 },
		{ "trTeInstSyncMode shift", TCI_TE_SYNC_MODE_SHIFT, 16 },
		{ "trTeInstSyncMax", TCI_TE_SYNC_MAX_MASK, 0xf00000 },
		{ "trTeInstSyncMax shift", TCI_TE_SYNC_MAX_SHIFT, 20 },
		{ "trTeFormat", TCI_TE_FORMAT_MASK, 0x7000000 },
		{ "trTeFormat shift", TCI_TE_FORMAT_SHIFT, 24 },
		{ "trTeFormat N-Trace", TCI_TE_FORMAT_NTRACE, 1 },
	};
	static const struct field impl[] = {
		{ "tr??VerMajor", TCI_IMPL_VER_MAJOR_MASK, 0xf },
		{ "tr??VerMinor", TCI_IMPL_VER_MINOR_MASK, 0xf0 },
		{ "tr??CompType", TCI_IMPL_COMP_TYPE_MASK, 0xf00 },
		{ "trTeProtocolMajor", TCI_TE_IMPL_PROTO_MAJOR_MASK, 0xf0000 },
		{ "trTeProtocolMinor", TCI_TE_IMPL_PROTO_MINOR_MASK, 0xf00000 },
		{ "trTeCompType (Trace Encoder)", TCI_COMP_ENCODER, 0x1 },
		{ "trFunnelCompType (Trace Funnel)", TCI_COMP_FUNNEL, 0x8 },
		{ "trRamCompType (RAM Sink)", TCI_COMP_RAM_SINK, 0x9 },
		{ "trPibCompType (PIB Sink)", TCI_COMP_PIB_SINK, 0xa },
		{ "trAtbBridgeCompType (ATB Bridge)", TCI_COMP_ATB_BRIDGE, 0xe },
	};
	static const struct field features[] = {
		{ "trTeInstNoAddrDiff", TCI_TE_F_NO_ADDR_DIFF, 0x1 },
		{ "trTeInstNoTrapAddr", TCI_TE_F_NO_TRAP_ADDR, 0x2 },
		{ "trTeInstEnSequentialJump", TCI_TE_F_SEQ_JUMP, 0x4 },
		{ "trTeInstEnImplicitReturn", TCI_TE_F_IMPLICIT_RETURN, 0x8 },
		{ "trTeInstEnBranchPrediction", TCI_TE_F_BRANCH_PREDICTION, 0x10 },
		{ "trTeInstEnJumpTargetCache", TCI_TE_F_JUMP_TARGET_CACHE, 0x20 },
		{ "trTeInstImplicitReturnMode", TCI_TE_F_IRET_MODE_MASK, 0xc0 },
		{ "trTeInstImplicitReturnMode shift", TCI_TE_F_IRET_MODE_SHIFT, 6 },
		{ "trTeInstEnRepeatedHistory", TCI_TE_F_REPEATED_HISTORY, 0x100 },
		{ "trTeInstEnAllJumps", TCI_TE_F_ALL_JUMPS, 0x200 },
		{ "trTeInstExtendAddrMSB", TCI_TE_F_EXTEND_ADDR_MSB, 0x400 },
		{ "trTeSrcID", TCI_TE_F_SRC_ID_MASK, 0x0fff0000 },
		{ "trTeSrcID shift", TCI_TE_F_SRC_ID_SHIFT, 16 },
		{ "trTeSrcBits", TCI_TE_F_SRC_BITS_MASK, 0xf0000000 },
		{ "trTeSrcBits shift", TCI_TE_F_SRC_BITS_SHIFT, 28 },
	};
	static const struct field ts[] = {
		{ "trTsActive", TCI_TS_ACTIVE, 0x1 },
		{ "trTsCount", TCI_TS_COUNT, 0x2 },
		{ "trTsReset", TCI_TS_RESET, 0x4 },
		{ "trTsRunInDebug", TCI_TS_RUN_IN_DEBUG, 0x8 },
		{ "trTsMode", TCI_TS_MODE_MASK, 0x70 },
		{ "trTsMode External", TCI_TS_MODE_EXTERNAL, 1 },
		{ "trTsMode Internal System", TCI_TS_MODE_INTERNAL_SYSTEM, 2 },
		{ "trTsMode Internal Core", TCI_TS_MODE_INTERNAL_CORE, 3 },
		{ "trTsMode Shared", TCI_TS_MODE_SHARED, 4 },
		{ "trTsPrescale", TCI_TS_PRESCALE_MASK, 0x300 },
		{ "trTsEnable", TCI_TS_ENABLE, 0x8000 },
		{ "trTsWidth", TCI_TS_WIDTH_MASK, 0x3f000000 },
	};
	static const struct field filters[] = {
		{ "trTeFilterEnable", TCI_FLT_ENABLE, 0x1 },
		{ "trTeFilterMatchPrivilege", TCI_FLT_MATCH_PRIV, 0x2 },
		{ "trTeFilterMatchEcause", TCI_FLT_MATCH_ECAUSE, 0x4 },
		{ "trTeFilterMatchInterrupt", TCI_FLT_MATCH_INTERRUPT, 0x8 },
		{ "trTeFilterMatchComp1", TCI_FLT_MATCH_COMP1, 0x10 },
		{ "trTeFilterComp1", TCI_FLT_COMP1_MASK, 0xe0 },
		{ "trTeFilterMatchComp2", TCI_FLT_MATCH_COMP2, 0x100 },
		{ "trTeFilterComp2", TCI_FLT_COMP2_MASK, 0xe00 },
		{ "trTeFilterMatchComp3", TCI_FLT_MATCH_COMP3, 0x1000 },
		{ "trTeFilterComp3", TCI_FLT_COMP3_MASK, 0xe000 },
		{ "trTeFilterMatchImpdef", TCI_FLT_MATCH_IMPDEF, 0x10000 },
		{ "trTeFilterMatchDtype", TCI_FLT_MATCH_DTYPE, 0x1000000 },
		{ "trTeFilterMatchDsize", TCI_FLT_MATCH_DSIZE, 0x2000000 },
		{ "trTeFilterMatchChoicePrivilege", TCI_FLT_PRIV_CHOICE_MASK, 0xff },
		{ "trTeFilterMatchValueInterrupt", TCI_FLT_VALUE_INTERRUPT, 0x100 },
		{ "trTeCompPInput", TCI_CMP_P_INPUT_MASK, 0x3 },
		{ "trTeCompSInput", TCI_CMP_S_INPUT_MASK, 0xc },
		{ "trTeCompPFunction", TCI_CMP_P_FUNC_MASK, 0x70 },
		{ "trTeCompSFunction", TCI_CMP_S_FUNC_MASK, 0x700 },
		{ "trTeCompMatchMode", TCI_CMP_MATCH_MODE_MASK, 0x3000 },
		{ "trTeCompPNotify", TCI_CMP_P_NOTIFY, 0x4000 },
		{ "trTeCompSNotify", TCI_CMP_S_NOTIFY, 0x8000 },
		{ "function: greater than or equal", TCI_CMP_FUNC_GE, 5 },
		{ "function: less than", TCI_CMP_FUNC_LT, 2 },
		{ "match mode: P && S", TCI_CMP_MODE_P_AND_S, 1 },
		{ "match mode: latch", TCI_CMP_MODE_LATCH, 3 },
	};

	check_fields("encoder register offsets", offsets, N(offsets));
	check_fields("trTeControl fields", control, N(control));
	check_fields("tr??Impl/trTeImpl fields and component types", impl, N(impl));
	check_fields("trTeInstFeatures fields", features, N(features));
	check_fields("trTsControl fields", ts, N(ts));
	check_fields("filter and comparator fields", filters, N(filters));
}

static void header_sink_funnel(void)
{
	static const struct field ram[] = {
		{ "trRamStartLow", TCI_RAM_START_LOW, 0x010 },
		{ "trRamStartHigh", TCI_RAM_START_HIGH, 0x014 },
		{ "trRamLimitLow", TCI_RAM_LIMIT_LOW, 0x018 },
		{ "trRamLimitHigh", TCI_RAM_LIMIT_HIGH, 0x01c },
		{ "trRamWPLow", TCI_RAM_WP_LOW, 0x020 },
		{ "trRamWPHigh", TCI_RAM_WP_HIGH, 0x024 },
		{ "trRamRPLow", TCI_RAM_RP_LOW, 0x028 },
		{ "trRamRPHigh", TCI_RAM_RP_HIGH, 0x02c },
		{ "trRamData", TCI_RAM_DATA, 0x040 },
		{ "trRamMode", TCI_RAM_MODE_SMEM, 0x10 },
		{ "trRamStopOnWrap", TCI_RAM_STOP_ON_WRAP, 0x100 },
		{ "trRamMemFormat", TCI_RAM_MEM_FORMAT_MASK, 0x600 },
		{ "trRamAsyncFreq", TCI_RAM_ASYNC_FREQ_MASK, 0x7000 },
		{ "trRamHasSRAM", TCI_RAM_HAS_SRAM, 0x1000 },
		{ "trRamHasSMEM", TCI_RAM_HAS_SMEM, 0x2000 },
		{ "trRamWrap", TCI_RAM_WRAP, 0x1 },
		{ "trFunnelDisInput", TCI_FUNNEL_DIS_INPUT, 0x008 },
		{ "component block", TCI_BLOCK_SIZE, 0x1000 },
	};

	check_fields("RAM sink and funnel registers", ram, N(ram));
	tap_ok(TCI_GET(0x01810039u, TE_SYNC_MAX) == 8 && TCI_SET(TE_F_SRC_BITS, 3) == 0x30000000u &&
	       TCI_SET(TE_F_SRC_ID, 0x1fff) == 0x0fff0000u,
	       "ntrace_tci.h: TCI_GET()/TCI_SET() read and build fields (SET masks)");
}

/* Decoder-style defaults with values no register holds, to see them kept. */
static void start(struct ntrace_enc_cfg *c)
{
	ntrace_enc_cfg_default(c);
	c->icnt_bits = 22;
	c->return_depth = 7;
	c->codec.xlen = 32;
	c->implicit_return = NTRACE_IRET_FULL;	/* the decoder's default */
}

/* The library's message, or NULL; its code must say the same. */
static const char *from_regs(const struct ntrace_tci_regs *r, struct ntrace_enc_cfg *c)
{
	const char *why = "unset";
	int rc = ntrace_enc_cfg_from_regs(r, c, &why);

	if (rc ? rc != NTRACE_ECONFIG || !why : why != NULL)
		return "return code and message disagree";
	return why;
}

static void from_regs_ok(void)
{
	struct ntrace_enc_cfg c;
	/*
	 * trTeControl: Active, HTM (6:4=6), Context (9), SyncMode 3 (17:16),
	 * SyncMax 10 (23:20), Format 1 (26:24). trTeInstFeatures:
	 * EnSequentialJump (2), EnImplicitReturn (3), ImplicitReturnMode 2
	 * (7:6), EnRepeatedHistory (8), EnAllJumps (9), ExtendAddrMSB (10),
	 * SrcID 5 (27:16), SrcBits 3 (31:28). trTsControl: Active, Count,
	 * Mode 1 External (6:4), Prescale 2 (9:8), Enable (15), Width 48.
	 */
	struct ntrace_tci_regs r = { 0x01a30261, 0x3005078c, 0x30008213, 0x00010101 };
	const char *err;

	start(&c);
	err = from_regs(&r, &c);
	tap_ok(!err && c.mode == NTRACE_MODE_HTM && c.context && c.sync_mode == 3 &&
	       c.sync_max == 10 && c.seq_jump && c.all_jumps && c.repeated_history &&
	       c.implicit_return == NTRACE_IRET_PARTIAL && c.codec.ext_addr_msb &&
	       c.codec.src_bits == 3 && c.src_id == 5 && c.codec.tstamp,
	       "from_regs: every option of trTeControl, trTeInstFeatures, trTsControl (%s)",
	       err ? err : "ok");
	tap_ok(c.icnt_bits == 22 && c.return_depth == 7 && c.codec.xlen == 32 &&
	       c.itype_bits == 4 && c.hist_bits == 32,
	       "from_regs: settings no register shows are left as they were");

	/* the QEMU model's trTeControl after reset: Active Empty BTM SyncMode 1 SyncMax 8 */
	r = (struct ntrace_tci_regs){ 0x01810039, 0, 0x30000000, 0 };
	start(&c);
	err = from_regs(&r, &c);
	tap_ok(!err && c.mode == NTRACE_MODE_BTM && !c.context && c.sync_mode == 1 &&
	       c.sync_max == 8 && !c.seq_jump && !c.all_jumps && !c.repeated_history &&
	       c.implicit_return == NTRACE_IRET_OFF && !c.codec.ext_addr_msb &&
	       !c.codec.src_bits && !c.src_id && !c.codec.tstamp,
	       "from_regs: a reset encoder (0x01810039): BTM, no option, implicit return off");

	/* trTeInhibitSrc (15): no SRC field whatever trTeSrcBits says */
	r = (struct ntrace_tci_regs){ 0x01008030, 0x40090000, 0, 0 };
	start(&c);
	err = from_regs(&r, &c);
	tap_ok(!err && c.codec.src_bits == 0 && c.src_id == 0,
	       "from_regs: trTeInhibitSrc=1: no SRC (trTeSrcBits 4, trTeSrcID 9 ignored)");
	r.te_control = 0x01000030;
	err = from_regs(&r, &c);
	tap_ok(!err && c.codec.src_bits == 4 && c.src_id == 9,
	       "from_regs: trTeInhibitSrc=0: SRC of trTeSrcBits=4 bits holding trTeSrcID=9");
	r.te_features = 0x20070000;	/* SrcBits 2, SrcID 7 */
	err = from_regs(&r, &c);
	tap_ok(!err && c.codec.src_bits == 2 && c.src_id == 3,
	       "from_regs: SRC holds the low trTeSrcBits bits of trTeSrcID (7 in 2 bits: 3)");

	/* implicit return: N-Trace enables it with a mode other than 0 */
	r = (struct ntrace_tci_regs){ 0x01000060, 0x08, 0, 0 };
	start(&c);
	err = from_regs(&r, &c);
	tap_ok(!err && c.implicit_return == NTRACE_IRET_OFF,
	       "from_regs: trTeInstEnImplicitReturn with trTeInstImplicitReturnMode 0: off");
	r.te_features = 0xc0;
	err = from_regs(&r, &c);
	tap_ok(!err && c.implicit_return == NTRACE_IRET_OFF,
	       "from_regs: trTeInstImplicitReturnMode 3 without trTeInstEnImplicitReturn: off");
	r.te_features = 0x48;
	err = from_regs(&r, &c);
	tap_ok(!err && c.implicit_return == NTRACE_IRET_COUNT,
	       "from_regs: EnImplicitReturn, mode 1: call counting");
	r.te_features = 0xc8;
	err = from_regs(&r, &c);
	tap_ok(!err && c.implicit_return == NTRACE_IRET_FULL,
	       "from_regs: EnImplicitReturn, mode 3: full address compare");

	/* TSTAMP needs trTsEnable, trTsActive and a trTsMode other than 0 */
	r = (struct ntrace_tci_regs){ 0x01000030, 0, 0x8003, 0 };
	start(&c);
	err = from_regs(&r, &c);
	tap_ok(!err && !c.codec.tstamp, "from_regs: trTsEnable with trTsMode 0 (none): no TSTAMP");
	r.ts_control = 0x8012;	/* Enable, External, Count, not Active */
	err = from_regs(&r, &c);
	tap_ok(!err && !c.codec.tstamp, "from_regs: timestamp unit in reset (trTsActive 0): no TSTAMP");
	r.ts_control = 0x0013;
	err = from_regs(&r, &c);
	tap_ok(!err && !c.codec.tstamp, "from_regs: trTsEnable 0: no TSTAMP");
	r.ts_control = 0x8043;	/* Shared */
	err = from_regs(&r, &c);
	tap_ok(!err && c.codec.tstamp, "from_regs: trTsEnable, Active, trTsMode 4 (shared): TSTAMP");
}

static void from_regs_rejects(void)
{
	static const struct {
		struct ntrace_tci_regs r;
		const char *field, *what;
	} bad[] = {
		{ { 0x00000030, 0, 0, 0 }, "trTeFormat", "trTeFormat 0 (E-Trace)" },
		{ { 0x07000030, 0, 0, 0 }, "trTeFormat", "trTeFormat 7 (vendor)" },
		{ { 0x01000000, 0, 0, 0 }, "trTeInstMode", "trTeInstMode 0 (no instruction trace)" },
		{ { 0x01000070, 0, 0, 0 }, "trTeInstMode", "trTeInstMode 7 (vendor)" },
		{ { 0x01000030, 0x1, 0, 0 }, "NoAddrDiff", "trTeInstNoAddrDiff set" },
		{ { 0x01000030, 0x2, 0, 0 }, "NoTrapAddr", "trTeInstNoTrapAddr set" },
		{ { 0x01000030, 0x10, 0, 0 }, "BranchPrediction", "trTeInstEnBranchPrediction set" },
		{ { 0x01000030, 0x20, 0, 0 }, "JumpTargetCache", "trTeInstEnJumpTargetCache set" },
		{ { 0x01000030, 0xd0000000, 0, 0 }, "trTeSrcBits", "trTeSrcBits 13" },
		{ { 0x01000030, 0, 0, 0x00002901 }, "trTeCompType", "trTeImpl of a RAM sink" },
		{ { 0x01000030, 0, 0, 0x00020101 }, "trTeProtocolMajor", "N-Trace protocol 2.0" },
	};
	struct ntrace_enc_cfg c, before;
	const char *err;
	size_t i;

	for (i = 0; i < N(bad); i++) {
		start(&c);
		before = c;
		err = from_regs(&bad[i].r, &c);
		tap_ok(err && strstr(err, bad[i].field) && !memcmp(&c, &before, sizeof(c)),
		       "from_regs rejects %s, naming %s, and leaves the settings (%s)", bad[i].what,
		       bad[i].field, err ? err : "accepted");
	}
	start(&c);
	err = from_regs(&(struct ntrace_tci_regs){ 0x01000030, 0, 0, 0x00f10101 },
				       &c);
	tap_ok(!err, "from_regs: trTeProtocolMinor 15 with major 1 is accepted (%s)",
	       err ? err : "ok");
}

int main(void)
{
	header_encoder();
	header_sink_funnel();
	from_regs_ok();
	from_regs_rejects();
	return tap_done();
}
