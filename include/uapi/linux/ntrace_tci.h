/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/* Dual: libntrace (LGPL-2.1 OR BSD-2-Clause) includes it too. */
/*
 * RISC-V Trace Control Interface 1.0: register offsets and fields of the
 * trace encoder (with its timestamp unit, filters and comparators), the
 * RAM sink and the funnel. One copy for the driver, the QEMU model, its
 * bare-metal tests and libntrace. It is ABI because ntrace_cpu_info
 * (linux/ntrace.h) carries raw trTeControl, trTeInstFeatures, trTeImpl and
 * trTsControl values.
 *
 * Offsets are from the component's base. A field is TCI_<NAME>_MASK (in
 * place) and TCI_<NAME>_SHIFT; a one-bit field is TCI_<NAME>. Comments
 * give the specification's field names. Plain C, no includes: it builds in
 * the kernel, in userspace and freestanding.
 */
#ifndef _UAPI_LINUX_NTRACE_TCI_H
#define _UAPI_LINUX_NTRACE_TCI_H

/* Read a field from / build a field for a register: TCI_GET(v, TE_INST_MODE) */
#define TCI_GET(reg, name)						\
	(((reg) & TCI_##name##_MASK) >> TCI_##name##_SHIFT)
#define TCI_SET(name, val)						\
	(((unsigned int)(val) << TCI_##name##_SHIFT) & TCI_##name##_MASK)

/* ---- Every component ----------------------------------------------------- */

#define TCI_BLOCK_SIZE			0x1000 /* registers of one component */

#define TCI_CONTROL			0x000 /* tr??Control */
#define TCI_IMPL			0x004 /* tr??Impl */

/* tr??Control */
#define TCI_ACTIVE			(1U << 0) /* tr??Active */
#define TCI_ENABLE			(1U << 1) /* tr??Enable */
#define TCI_EMPTY			(1U << 3) /* tr??Empty */

/* tr??Impl */
#define TCI_IMPL_VER_MAJOR_SHIFT	0 /* tr??VerMajor */
#define TCI_IMPL_VER_MAJOR_MASK		(0xfU << 0)
#define TCI_IMPL_VER_MINOR_SHIFT	4 /* tr??VerMinor */
#define TCI_IMPL_VER_MINOR_MASK		(0xfU << 4)
#define TCI_IMPL_COMP_TYPE_SHIFT	8 /* tr??CompType */
#define TCI_IMPL_COMP_TYPE_MASK		(0xfU << 8)

/* tr??CompType values */
#define TCI_COMP_ENCODER		0x1
#define TCI_COMP_FUNNEL			0x8
#define TCI_COMP_RAM_SINK		0x9
#define TCI_COMP_PIB_SINK		0xa
#define TCI_COMP_ATB_BRIDGE		0xe

/* ---- Trace encoder (trTe??) and its timestamp unit (trTs??) -------------- */

#define TCI_TE_INST_FEATURES		0x008 /* trTeInstFeatures */
#define TCI_TE_INST_FILTERS		0x00c /* trTeInstFilters */
#define TCI_TE_DATA_CONTROL		0x010 /* trTeDataControl */
#define TCI_TE_DATA_FILTERS		0x01c /* trTeDataFilters */
#define TCI_TS_CONTROL			0x040 /* trTsControl (funnels too) */
#define TCI_TS_COUNTER_LOW		0x048 /* trTsCounterLow */
#define TCI_TS_COUNTER_HIGH		0x04c /* trTsCounterHigh */
#define TCI_TE_TRIG_DBG_CONTROL		0x050 /* trTeTrigDbgControl */
#define TCI_TE_TRIG_EXTIN_CONTROL	0x054 /* trTeTrigExtInControl */
#define TCI_TE_TRIG_EXTOUT_CONTROL	0x058 /* trTeTrigExtOutControl */

/* trTeControl */
#define TCI_TE_INST_TRACING		(1U << 2) /* trTeInstTracing */
#define TCI_TE_INST_MODE_SHIFT		4 /* trTeInstMode */
#define TCI_TE_INST_MODE_MASK		(0x7U << 4)
#define TCI_TE_INST_MODE_OFF		0
#define TCI_TE_INST_MODE_BTM		3 /* N-Trace branch trace messaging */
#define TCI_TE_INST_MODE_HTM		6 /* N-Trace history trace messaging */
#define TCI_TE_CONTEXT			(1U << 9) /* trTeContext */
#define TCI_TE_INST_TRIG_ENABLE		(1U << 11) /* trTeInstTrigEnable */
#define TCI_TE_INST_STALL_OR_OVF	(1U << 12) /* trTeInstStallOrOverflow */
#define TCI_TE_INST_STALL_ENA		(1U << 13) /* trTeInstStallEna */
#define TCI_TE_INHIBIT_SRC		(1U << 15) /* trTeInhibitSrc */
#define TCI_TE_SYNC_MODE_SHIFT		16 /* trTeInstSyncMode */
#define TCI_TE_SYNC_MODE_MASK		(0x3U << 16)
#define TCI_TE_SYNC_MODE_OFF		0
#define TCI_TE_SYNC_MODE_MSGS		1 /* count messages */
#define TCI_TE_SYNC_MODE_CYCLES		2 /* count hart clock cycles */
#define TCI_TE_SYNC_MODE_HWORDS		3 /* count instruction half-words */
#define TCI_TE_SYNC_MAX_SHIFT		20 /* trTeInstSyncMax: 2^(n+4) units */
#define TCI_TE_SYNC_MAX_MASK		(0xfU << 20)
#define TCI_TE_FORMAT_SHIFT		24 /* trTeFormat */
#define TCI_TE_FORMAT_MASK		(0x7U << 24)
#define TCI_TE_FORMAT_ETRACE		0
#define TCI_TE_FORMAT_NTRACE		1

/* trTeImpl (besides the common tr??Impl fields) */
#define TCI_TE_IMPL_PROTO_MAJOR_SHIFT	16 /* trTeProtocolMajor */
#define TCI_TE_IMPL_PROTO_MAJOR_MASK	(0xfU << 16)
#define TCI_TE_IMPL_PROTO_MINOR_SHIFT	20 /* trTeProtocolMinor */
#define TCI_TE_IMPL_PROTO_MINOR_MASK	(0xfU << 20)

/* trTeInstFeatures */
#define TCI_TE_F_NO_ADDR_DIFF		(1U << 0) /* trTeInstNoAddrDiff */
#define TCI_TE_F_NO_TRAP_ADDR		(1U << 1) /* trTeInstNoTrapAddr */
#define TCI_TE_F_SEQ_JUMP		(1U << 2) /* trTeInstEnSequentialJump */
#define TCI_TE_F_IMPLICIT_RETURN	(1U << 3) /* trTeInstEnImplicitReturn */
#define TCI_TE_F_BRANCH_PREDICTION	(1U << 4) /* trTeInstEnBranchPrediction */
#define TCI_TE_F_JUMP_TARGET_CACHE	(1U << 5) /* trTeInstEnJumpTargetCache */
#define TCI_TE_F_IRET_MODE_SHIFT	6 /* trTeInstImplicitReturnMode */
#define TCI_TE_F_IRET_MODE_MASK		(0x3U << 6)
#define TCI_TE_IRET_MODE_UNKNOWN	0 /* not supported or not reported */
#define TCI_TE_IRET_MODE_COUNT		1 /* call counting */
#define TCI_TE_IRET_MODE_PARTIAL	2 /* partial return address compare */
#define TCI_TE_IRET_MODE_FULL		3 /* full return address compare */
#define TCI_TE_F_REPEATED_HISTORY	(1U << 8) /* trTeInstEnRepeatedHistory */
#define TCI_TE_F_ALL_JUMPS		(1U << 9) /* trTeInstEnAllJumps */
#define TCI_TE_F_EXTEND_ADDR_MSB	(1U << 10) /* trTeInstExtendAddrMSB */
#define TCI_TE_F_SRC_ID_SHIFT		16 /* trTeSrcID */
#define TCI_TE_F_SRC_ID_MASK		(0xfffU << 16)
#define TCI_TE_F_SRC_BITS_SHIFT		28 /* trTeSrcBits */
#define TCI_TE_F_SRC_BITS_MASK		(0xfU << 28)
#define TCI_TE_SRC_BITS_MAX		12

/* trTsControl */
#define TCI_TS_ACTIVE			(1U << 0) /* trTsActive */
#define TCI_TS_COUNT			(1U << 1) /* trTsCount */
#define TCI_TS_RESET			(1U << 2) /* trTsReset */
#define TCI_TS_RUN_IN_DEBUG		(1U << 3) /* trTsRunInDebug */
#define TCI_TS_MODE_SHIFT		4 /* trTsMode */
#define TCI_TS_MODE_MASK		(0x7U << 4)
#define TCI_TS_MODE_NONE		0
#define TCI_TS_MODE_EXTERNAL		1
#define TCI_TS_MODE_INTERNAL_SYSTEM	2
#define TCI_TS_MODE_INTERNAL_CORE	3
#define TCI_TS_MODE_SHARED		4
#define TCI_TS_PRESCALE_SHIFT		8 /* trTsPrescale: clock / 4^n */
#define TCI_TS_PRESCALE_MASK		(0x3U << 8)
#define TCI_TS_ENABLE			(1U << 15) /* trTsEnable */
#define TCI_TS_WIDTH_SHIFT		24 /* trTsWidth */
#define TCI_TS_WIDTH_MASK		(0x3fU << 24)

/* ---- Filters (trTeFilter<i>??) ------------------------------------------- */

#define TCI_TE_FILTER_BASE		0x400
#define TCI_TE_FILTER_STRIDE		0x20
#define TCI_TE_FILTER(i)		(TCI_TE_FILTER_BASE + TCI_TE_FILTER_STRIDE * (i))
#define TCI_TE_MAX_FILTERS		16 /* bits of trTeInstFilters */

/* Registers of filter i, from TCI_TE_FILTER(i) */
#define TCI_FLT_CONTROL			0x00 /* trTeFilter<i>Control */
#define TCI_FLT_MATCH_INST		0x04 /* trTeFilter<i>MatchInst */
#define TCI_FLT_MATCH_ECAUSE_LOW	0x08 /* trTeFilter<i>MatchEcauseLow */
#define TCI_FLT_MATCH_ECAUSE_HIGH	0x0c /* trTeFilter<i>MatchEcauseHigh */
#define TCI_FLT_MATCH_VALUE_IMPDEF	0x10 /* trTeFilter<i>MatchValueImpdef */
#define TCI_FLT_MATCH_MASK_IMPDEF	0x14 /* trTeFilter<i>MatchMaskImpdef */
#define TCI_FLT_MATCH_DATA		0x18 /* trTeFilter<i>MatchData */

/* trTeFilter<i>Control */
#define TCI_FLT_ENABLE			(1U << 0) /* trTeFilterEnable */
#define TCI_FLT_MATCH_PRIV		(1U << 1) /* trTeFilterMatchPrivilege */
#define TCI_FLT_MATCH_ECAUSE		(1U << 2) /* trTeFilterMatchEcause */
#define TCI_FLT_MATCH_INTERRUPT		(1U << 3) /* trTeFilterMatchInterrupt */
#define TCI_FLT_MATCH_COMP1		(1U << 4) /* trTeFilterMatchComp1 */
#define TCI_FLT_COMP1_SHIFT		5 /* trTeFilterComp1 */
#define TCI_FLT_COMP1_MASK		(0x7U << 5)
#define TCI_FLT_MATCH_COMP2		(1U << 8) /* trTeFilterMatchComp2 */
#define TCI_FLT_COMP2_SHIFT		9 /* trTeFilterComp2 */
#define TCI_FLT_COMP2_MASK		(0x7U << 9)
#define TCI_FLT_MATCH_COMP3		(1U << 12) /* trTeFilterMatchComp3 */
#define TCI_FLT_COMP3_SHIFT		13 /* trTeFilterComp3 */
#define TCI_FLT_COMP3_MASK		(0x7U << 13)
#define TCI_FLT_MATCH_IMPDEF		(1U << 16) /* trTeFilterMatchImpdef */
#define TCI_FLT_MATCH_DTYPE		(1U << 24) /* trTeFilterMatchDtype */
#define TCI_FLT_MATCH_DSIZE		(1U << 25) /* trTeFilterMatchDsize */

/* trTeFilter<i>MatchInst */
#define TCI_FLT_PRIV_CHOICE_SHIFT	0 /* trTeFilterMatchChoicePrivilege */
#define TCI_FLT_PRIV_CHOICE_MASK	(0xffU << 0)
#define TCI_FLT_VALUE_INTERRUPT		(1U << 8) /* trTeFilterMatchValueInterrupt */

/* ---- Comparators (trTeComp<j>??) ----------------------------------------- */

#define TCI_TE_COMP_BASE		0x600
#define TCI_TE_COMP_STRIDE		0x20
#define TCI_TE_COMP(j)			(TCI_TE_COMP_BASE + TCI_TE_COMP_STRIDE * (j))
#define TCI_TE_MAX_COMPS		8 /* trTeFilterComp* are 3 bits */

/* Registers of comparator j, from TCI_TE_COMP(j) */
#define TCI_CMP_CONTROL			0x00 /* trTeComp<j>Control */
#define TCI_CMP_PMATCH_LOW		0x10 /* trTeComp<j>PMatchLow */
#define TCI_CMP_PMATCH_HIGH		0x14 /* trTeComp<j>PMatchHigh */
#define TCI_CMP_SMATCH_LOW		0x18 /* trTeComp<j>SMatchLow */
#define TCI_CMP_SMATCH_HIGH		0x1c /* trTeComp<j>SMatchHigh */

/* trTeComp<j>Control */
#define TCI_CMP_P_INPUT_SHIFT		0 /* trTeCompPInput */
#define TCI_CMP_P_INPUT_MASK		(0x3U << 0)
#define TCI_CMP_S_INPUT_SHIFT		2 /* trTeCompSInput */
#define TCI_CMP_S_INPUT_MASK		(0x3U << 2)
#define TCI_CMP_INPUT_IADDR		0
#define TCI_CMP_INPUT_CONTEXT		1
#define TCI_CMP_INPUT_TVAL		2
#define TCI_CMP_INPUT_DADDR		3
#define TCI_CMP_P_FUNC_SHIFT		4 /* trTeCompPFunction */
#define TCI_CMP_P_FUNC_MASK		(0x7U << 4)
#define TCI_CMP_S_FUNC_SHIFT		8 /* trTeCompSFunction */
#define TCI_CMP_S_FUNC_MASK		(0x7U << 8)
#define TCI_CMP_FUNC_EQ			0 /* input == match */
#define TCI_CMP_FUNC_NE			1
#define TCI_CMP_FUNC_LT			2
#define TCI_CMP_FUNC_LE			3
#define TCI_CMP_FUNC_GT			4
#define TCI_CMP_FUNC_GE			5
#define TCI_CMP_FUNC_SPECIAL		6 /* P: false, primes latch; S: P mask */
#define TCI_CMP_FUNC_TRUE		7
#define TCI_CMP_MATCH_MODE_SHIFT	12 /* trTeCompMatchMode */
#define TCI_CMP_MATCH_MODE_MASK		(0x3U << 12)
#define TCI_CMP_MODE_P			0 /* P */
#define TCI_CMP_MODE_P_AND_S		1 /* P && S */
#define TCI_CMP_MODE_NOT_P_AND_S	2 /* !(P && S) */
#define TCI_CMP_MODE_LATCH		3 /* from P until after S */
#define TCI_CMP_P_NOTIFY		(1U << 14) /* trTeCompPNotify */
#define TCI_CMP_S_NOTIFY		(1U << 15) /* trTeCompSNotify */

/* ---- RAM sink (trRam??) -------------------------------------------------- */

#define TCI_RAM_START_LOW		0x010 /* trRamStartLow */
#define TCI_RAM_START_HIGH		0x014 /* trRamStartHigh */
#define TCI_RAM_LIMIT_LOW		0x018 /* trRamLimitLow */
#define TCI_RAM_LIMIT_HIGH		0x01c /* trRamLimitHigh */
#define TCI_RAM_WP_LOW			0x020 /* trRamWPLow */
#define TCI_RAM_WP_HIGH			0x024 /* trRamWPHigh */
#define TCI_RAM_RP_LOW			0x028 /* trRamRPLow */
#define TCI_RAM_RP_HIGH			0x02c /* trRamRPHigh */
#define TCI_RAM_DATA			0x040 /* trRamData */

/* trRamControl */
#define TCI_RAM_MODE_SMEM		(1U << 4) /* trRamMode: 1 SMEM, 0 SRAM */
#define TCI_RAM_STOP_ON_WRAP		(1U << 8) /* trRamStopOnWrap */
#define TCI_RAM_MEM_FORMAT_SHIFT	9 /* trRamMemFormat */
#define TCI_RAM_MEM_FORMAT_MASK		(0x3U << 9)
#define TCI_RAM_ASYNC_FREQ_SHIFT	12 /* trRamAsyncFreq */
#define TCI_RAM_ASYNC_FREQ_MASK		(0x7U << 12)

/* trRamImpl (besides the common tr??Impl fields) */
#define TCI_RAM_HAS_SRAM		(1U << 12) /* trRamHasSRAM */
#define TCI_RAM_HAS_SMEM		(1U << 13) /* trRamHasSMEM */

/* trRamWPLow */
#define TCI_RAM_WRAP			(1U << 0) /* trRamWrap */

/* ---- Funnel (trFunnel??; timestamp unit at TCI_TS_CONTROL) --------------- */

#define TCI_FUNNEL_DIS_INPUT		0x008 /* trFunnelDisInput */
#define TCI_FUNNEL_DIS_INPUT_MASK	0xffffU /* bit n: input n disabled */
#define TCI_FUNNEL_MAX_INPUTS		16

#endif /* _UAPI_LINUX_NTRACE_TCI_H */
