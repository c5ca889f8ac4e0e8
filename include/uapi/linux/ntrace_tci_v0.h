/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/* Dual: libntrace (LGPL-2.1 OR BSD-2-Clause) may include it too. */
/*
 * SiFive pre-ratified ("version 0") trace encoder (TE) and trace funnel
 * (TF) registers, as in the HiFive Premier P550 (ESWIN EIC7700X). One
 * copy for the driver, the QEMU model and its bare-metal tests.
 *
 * Source of the layout: the P550 register tables published with
 * ganboing/riscv-trace-umd (rvtrace/platforms/p550.md, encoder.py,
 * funnel.py, timestamp.py). A version-0 component has its version in
 * bits 3:0 of the implementation register (0), where a Trace Control
 * Interface 1.0 component has trVerMajor (1); sinks are embedded in the
 * TE's or TF's own register block (SinkBase..SinkWP) and selected by the
 * component's teSink/tfSink field.
 *
 * Same conventions as ntrace_tci.h: TCI_V0_<NAME>_MASK (in place) and
 * _SHIFT, so TCI_GET(v, V0_TE_INST_MODE) works; a one-bit field is
 * TCI_V0_<NAME>. Plain C, no includes.
 */
#ifndef _UAPI_LINUX_NTRACE_TCI_V0_H
#define _UAPI_LINUX_NTRACE_TCI_V0_H

#define TCI_V0_BLOCK_SIZE		0x1000

/* ---- Offsets (TE and TF share them up to 0x48) ------------------------------ */

#define TCI_V0_CONTROL			0x000 /* teControl / tfControl */
#define TCI_V0_IMPL			0x004 /* teImpl / tfImpl */
#define TCI_V0_SINK_BASE		0x010 /* teSinkBase: buffer start, bits 31:0 */
/* teSinkBaseHigh: bits 63:32 of base, limit and write pointer */
#define TCI_V0_SINK_BASE_HIGH		0x014
#define TCI_V0_SINK_LIMIT		0x018 /* teSinkLimit: address of the LAST word */
#define TCI_V0_SINK_WP			0x01c /* teSinkWP: next word, wrapped flag */
#define TCI_V0_TS_CONTROL		0x040 /* tsControl */
#define TCI_V0_TS_LOWER			0x044 /* tsLower */
#define TCI_V0_TS_UPPER			0x048 /* tsUpper */
#define TCI_V0_XTI_CONTROL		0x050 /* xtiControl (TE) */
#define TCI_V0_XTO_CONTROL		0x054 /* xtoControl (TE) */
#define TCI_V0_WP_CONTROL		0x058 /* wpControl (TE) */
#define TCI_V0_ITC_TRACE_ENABLE		0x060 /* itcTraceEnable (TE) */
#define TCI_V0_ITC_TRIG_ENABLE		0x064 /* itcTrigEnable (TE) */
#define TCI_V0_ITC_STIMULUS(n)		(0x080 + 4 * (n)) /* itcStimulus[0..31] (TE) */
#define TCI_V0_ITC_CHANNELS		32

/* ---- teControl ------------------------------------------------------------- */

#define TCI_V0_ACTIVE			(1U << 0) /* teActive / tfActive */
#define TCI_V0_ENABLE			(1U << 1) /* teEnable / tfEnable */
#define TCI_V0_TE_TRACING		(1U << 2) /* teTracing */
#define TCI_V0_EMPTY			(1U << 3) /* teEmpty / tfEmpty (RO) */
#define TCI_V0_TE_INST_MODE_SHIFT	4 /* teInstruction (teInstMode), WARL */
#define TCI_V0_TE_INST_MODE_MASK	(0x7U << 4)
#define TCI_V0_TE_INST_MODE_OFF		0
#define TCI_V0_TE_INST_MODE_HTM		6 /* HTM and sync, no optimisation */
#define TCI_V0_TE_INST_MODE_HTM_OPT	7 /* HTM and sync, full optimisation */
#define TCI_V0_TE_ITC_MODE_SHIFT	7 /* teInstrumentation (teITCMode) */
#define TCI_V0_TE_ITC_MODE_MASK		(0x3U << 7)
#define TCI_V0_TE_STALL_OR_OVF		(1U << 12) /* teStallOrOverflow: write 0 clears */
#define TCI_V0_TE_STALL_ENABLE		(1U << 13) /* teStallEnable */
#define TCI_V0_STOP_ON_WRAP		(1U << 14) /* teStopOnWrap / tfStopOnWrap */
#define TCI_V0_TE_INHIBIT_SRC		(1U << 15) /* teInhibitSrc */
#define TCI_V0_TE_SYNC_MAX_BTM_SHIFT	16 /* teSyncMaxBTM: 2^(n+5) BTMs, 0xF off */
#define TCI_V0_TE_SYNC_MAX_BTM_MASK	(0xfU << 16)
#define TCI_V0_TE_SYNC_MAX_INST_SHIFT	20 /* teSyncMaxInst: 2^(n+5) I-CNT bytes, 0xF off */
#define TCI_V0_TE_SYNC_MAX_INST_MASK	(0xfU << 20)
#define TCI_V0_TE_SYNC_OFF		0xf
#define TCI_V0_TE_SYNC_MAX_BTM_MAX	0xb /* largest period: 65536 BTMs */
#define TCI_V0_TE_SYNC_MAX_INST_MAX	0x5 /* largest period: 1024 bytes */
#define TCI_V0_TE_SLICE_FORMAT_SHIFT	24 /* teSliceFormat (RO): 1 = 6 MDO + 2 MSEO */
#define TCI_V0_TE_SLICE_FORMAT_MASK	(0x7U << 24)
#define TCI_V0_TE_SLICE_FORMAT_6MDO	1
#define TCI_V0_SINK_ERROR		(1U << 27) /* teSinkError / tfSinkError, RW1C */
#define TCI_V0_SINK_SHIFT		28 /* teSink / tfSink, WARL */
#define TCI_V0_SINK_MASK		(0xfU << 28)
#define TCI_V0_SINK_SRAM		4
#define TCI_V0_SINK_ATB			5
#define TCI_V0_SINK_PIB			6
#define TCI_V0_SINK_SBA			7 /* system memory through the front port */
#define TCI_V0_SINK_FUNNEL		8

/* ---- teImpl / tfImpl (RO) -------------------------------------------------- */

#define TCI_V0_IMPL_VERSION_SHIFT	0 /* version: 0 */
#define TCI_V0_IMPL_VERSION_MASK	(0xfU << 0)
#define TCI_V0_HAS_SRAM_SINK		(1U << 4) /* hasSRAMSink */
#define TCI_V0_HAS_ATB_SINK		(1U << 5) /* hasATBSink */
#define TCI_V0_HAS_PIB_SINK		(1U << 6) /* hasPIBSink */
#define TCI_V0_HAS_SBA_SINK		(1U << 7) /* hasSBASink */
#define TCI_V0_HAS_FUNNEL_SINK		(1U << 8) /* hasFunnelSink */
#define TCI_V0_SINK_BYTES_SHIFT		16 /* sinkBytes: word of 4 << n bytes */
#define TCI_V0_SINK_BYTES_MASK		(0x3U << 16)
#define TCI_V0_TE_CROSSING_SHIFT	18 /* crossingType (TE) */
#define TCI_V0_TE_CROSSING_MASK		(0x3U << 18)
#define TCI_V0_TE_SRC_ID_SHIFT		20 /* srcID (TE) */
#define TCI_V0_TE_SRC_ID_MASK		(0xfU << 20)
#define TCI_V0_TE_SRC_BITS_SHIFT	24 /* nSrcBits (TE) */
#define TCI_V0_TE_SRC_BITS_MASK		(0x7U << 24)
#define TCI_V0_TE_HARTID_SHIFT		28 /* hartid (TE) */
#define TCI_V0_TE_HARTID_MASK		(0xfU << 28)

/* ---- teSinkWP ------------------------------------------------------------- */

#define TCI_V0_SINK_WRAPPED		(1U << 0) /* teSinkWrapped: set when WP wraps */

/* ---- tsControl (TE and TF) ------------------------------------------------- */

#define TCI_V0_TS_ACTIVE		(1U << 0) /* tsActive */
#define TCI_V0_TS_COUNT			(1U << 1) /* tsCount (internal units) */
#define TCI_V0_TS_RESET			(1U << 2) /* tsReset (WO, internal units) */
#define TCI_V0_TS_RUN_IN_DBG		(1U << 3) /* tsRunInDbg */
#define TCI_V0_TS_TYPE_SHIFT		4 /* tsType (RO) */
#define TCI_V0_TS_TYPE_MASK		(0x7U << 4)
#define TCI_V0_TS_TYPE_NONE		0
#define TCI_V0_TS_TYPE_EXTERNAL		1
#define TCI_V0_TS_TYPE_BUS		2 /* internal, bus clock */
#define TCI_V0_TS_TYPE_CORE		3 /* internal, core clock */
#define TCI_V0_TS_TYPE_SLAVE		4 /* follows the system (funnel) unit */
#define TCI_V0_TS_PRESCALE_SHIFT	8 /* tsPrescale: clock / 4^n */
#define TCI_V0_TS_PRESCALE_MASK		(0x3U << 8)
#define TCI_V0_TS_ENABLE		(1U << 15) /* tsEnable: TSTAMP in sync messages */
#define TCI_V0_TS_BRANCH_SHIFT		16 /* tsBranch: TSTAMP in branch messages */
#define TCI_V0_TS_BRANCH_MASK		(0x3U << 16)
#define TCI_V0_TS_BRANCH_NONE		0
#define TCI_V0_TS_BRANCH_INDIRECT	1 /* indirect branches and exceptions */
#define TCI_V0_TS_BRANCH_ALL		3 /* all branches, exceptions, PTCM, Error */
#define TCI_V0_TS_ITC			(1U << 18) /* tsInstrumentation */
#define TCI_V0_TS_OWNERSHIP		(1U << 19) /* tsOwnership */
#define TCI_V0_TS_WIDTH_SHIFT		24 /* tsWidth (RO) */
#define TCI_V0_TS_WIDTH_MASK		(0x3fU << 24)

#endif /* _UAPI_LINUX_NTRACE_TCI_V0_H */
