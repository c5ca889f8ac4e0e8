/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/* Dual: libntrace (LGPL-2.1 OR BSD-2-Clause) includes it too. */
/*
 * SiFive's pre-ratified ("version 0") trace encoder and trace funnel, as
 * on the HiFive Premier P550 (ESWIN EIC7700X): register offsets and
 * fields. Source: the P550 register tables published with
 * ganboing/riscv-trace-umd (rvtrace/platforms/p550.md, encoder.py,
 * funnel.py, timestamp.py). A version 0 component has no component type
 * in its implementation register (the compatible string says which it
 * is); its RAM sink, when it has one, is in its own register block, and
 * the control register chooses the sink.
 *
 * Same conventions as linux/ntrace_tci.h: TCI_V0_<NAME>_MASK/_SHIFT for a
 * field, TCI_V0_<NAME> for one bit; TCI_GET()/TCI_SET() work on them.
 */
#ifndef _UAPI_LINUX_NTRACE_TCI_V0_H
#define _UAPI_LINUX_NTRACE_TCI_V0_H

/* ---- Both: control, implementation, embedded sink, timestamp unit -------- */

#define TCI_V0_CONTROL			0x000 /* teControl / tfControl */
#define TCI_V0_IMPL			0x004 /* teImpl / tfImpl */
#define TCI_V0_SINK_BASE		0x010 /* teSinkBase: [31:2] */
#define TCI_V0_SINK_BASE_HIGH		0x014 /* teSinkBaseHigh: also of Limit, WP */
#define TCI_V0_SINK_LIMIT		0x018 /* teSinkLimit: the last word's address */
#define TCI_V0_SINK_WP			0x01c /* teSinkWP */
#define TCI_V0_TS_CONTROL		0x040 /* tsControl */
#define TCI_V0_TS_LOWER			0x044 /* tsLower */
#define TCI_V0_TS_UPPER			0x048 /* tsUpper */

/* te/tfControl bits both have */
#define TCI_V0_ACTIVE			(1U << 0) /* teActive / tfActive */
#define TCI_V0_ENABLE			(1U << 1) /* teEnable / tfEnable */
#define TCI_V0_EMPTY			(1U << 3) /* teEmpty / tfEmpty (RO) */
#define TCI_V0_STOP_ON_WRAP		(1U << 14) /* te/tfStopOnWrap */
#define TCI_V0_SINK_ERROR		(1U << 27) /* te/tfSinkError (W1C) */
#define TCI_V0_SINK_SHIFT		28 /* teSink / tfSink (WARL) */
#define TCI_V0_SINK_MASK		(0xfU << 28)
#define TCI_V0_SINK_DEFAULT		0x0 /* the one sink connected */
#define TCI_V0_SINK_SRAM		0x4
#define TCI_V0_SINK_ATB			0x5
#define TCI_V0_SINK_PIB			0x6
#define TCI_V0_SINK_SBA			0x7 /* system memory, bus master */
#define TCI_V0_SINK_FUNNEL		0x8

/* te/tfImpl bits both have */
#define TCI_V0_IMPL_VERSION_SHIFT	0 /* version: 0 */
#define TCI_V0_IMPL_VERSION_MASK	(0xfU << 0)
#define TCI_V0_HAS_SRAM_SINK		(1U << 4) /* hasSRAMSink */
#define TCI_V0_HAS_ATB_SINK		(1U << 5) /* hasATBSink */
#define TCI_V0_HAS_PIB_SINK		(1U << 6) /* hasPIBSink */
#define TCI_V0_HAS_SBA_SINK		(1U << 7) /* hasSBASink */
#define TCI_V0_HAS_FUNNEL_SINK		(1U << 8) /* hasFunnelSink */
#define TCI_V0_SINK_BYTES_SHIFT		16 /* sinkBytes: word of 4 << n bytes */
#define TCI_V0_SINK_BYTES_MASK		(0x3U << 16)

/* teSinkWP */
#define TCI_V0_SINK_WRAPPED		(1U << 0) /* teSinkWrapped */

/*
 * tsControl: the fields the ratified trTsControl has are where it has them
 * (Active, Count, Reset, RunInDebug, type = trTsMode, Prescale, Enable,
 * Width); the counter is at another offset (tsLower/tsUpper).
 */
#define TCI_V0_TS_BRANCH_SHIFT		16 /* tsBranch */
#define TCI_V0_TS_BRANCH_MASK		(0x3U << 16)
#define TCI_V0_TS_BRANCH_NONE		0
#define TCI_V0_TS_BRANCH_INDIRECT	1 /* indirect branches, exceptions */
#define TCI_V0_TS_BRANCH_ALL		3 /* every branch, PTCM, Error message */
#define TCI_V0_TS_ITC			(1U << 18) /* tsITC */
#define TCI_V0_TS_OWNERSHIP		(1U << 19) /* tsOwnership */

/* ---- Trace encoder (te??) ------------------------------------------------ */

#define TCI_V0_TE_ITC_TRACE_ENABLE	0x060 /* itcTraceEnable */
#define TCI_V0_TE_ITC_TRIG_ENABLE	0x064 /* itcTrigEnable */
#define TCI_V0_TE_ITC_STIMULUS		0x080 /* itcStimulus 0..31 */

/* teControl */
#define TCI_V0_TE_TRACING		(1U << 2) /* teTracing */
#define TCI_V0_TE_INST_MODE_SHIFT	4 /* teInstruction (WARL) */
#define TCI_V0_TE_INST_MODE_MASK	(0x7U << 4)
#define TCI_V0_TE_INST_MODE_OFF		0
#define TCI_V0_TE_INST_MODE_HTM		6 /* HTM and Sync, no optimization */
#define TCI_V0_TE_INST_MODE_HTM_OPT	7 /* HTM, call counter, branch counts */
#define TCI_V0_TE_ITC_MODE_SHIFT	7 /* teInstrumentation */
#define TCI_V0_TE_ITC_MODE_MASK		(0x3U << 7)
#define TCI_V0_TE_STALL_OR_OVF		(1U << 12) /* teStallOrOverflow: write 0 clears */
#define TCI_V0_TE_STALL_ENABLE		(1U << 13) /* teStallEnable */
#define TCI_V0_TE_INHIBIT_SRC		(1U << 15) /* teInhibitSrc */
#define TCI_V0_TE_SYNC_BTM_SHIFT	16 /* teSyncMaxBTM: 2^(n+5) BTMs, 0..0xb */
#define TCI_V0_TE_SYNC_BTM_MASK		(0xfU << 16)
#define TCI_V0_TE_SYNC_INST_SHIFT	20 /* teSyncMaxInst: 2^(n+5) bytes, 0..5 */
#define TCI_V0_TE_SYNC_INST_MASK	(0xfU << 20)
#define TCI_V0_TE_SYNC_OFF		0xf /* either: no Sync for this reason */
#define TCI_V0_TE_SYNC_BTM_MAX		0xb
#define TCI_V0_TE_SYNC_INST_MAX		0x5
#define TCI_V0_TE_SLICE_FORMAT_SHIFT	24 /* teSliceFormat (RO): 1 */
#define TCI_V0_TE_SLICE_FORMAT_MASK	(0x7U << 24)
#define TCI_V0_TE_SLICE_FORMAT_6MDO	1 /* 6 MDO + 2 MSEO bits */

/* teImpl */
#define TCI_V0_TE_CROSSING_SHIFT	18 /* crossingType */
#define TCI_V0_TE_CROSSING_MASK		(0x3U << 18)
#define TCI_V0_TE_SRC_ID_SHIFT		20 /* srcID: fixed */
#define TCI_V0_TE_SRC_ID_MASK		(0xfU << 20)
#define TCI_V0_TE_SRC_BITS_SHIFT	24 /* nSrcBits: fixed */
#define TCI_V0_TE_SRC_BITS_MASK		(0x7U << 24)
#define TCI_V0_TE_HARTID_SHIFT		28 /* hartid */
#define TCI_V0_TE_HARTID_MASK		(0xfU << 28)

#endif /* _UAPI_LINUX_NTRACE_TCI_V0_H */
