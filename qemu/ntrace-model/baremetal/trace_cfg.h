/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration trace.c reads at TRACE_CFG_ADDR: the host writes it
 * into guest RAM before the program starts (tests/run.sh, with the words
 * tests/trace-cfg.c prints). Shared by the bare-metal program and that
 * host tool; register fields are in include/uapi/linux/ntrace_tci.h.
 */
#ifndef NTRACE_MODEL_TRACE_CFG_H
#define NTRACE_MODEL_TRACE_CFG_H

#include <stdint.h>

#define TRACE_CFG_ADDR	0x80300000UL
#define TRACE_CFG_MAGIC	0x4643544eU	/* "NTCF" */
#define MAX_HARTS	2

/* trace_cfg.flags: what the program does besides programming the encoder */
#define CFG_FILTER_RANGE	(1u << 0)	/* filter 0 + comparator 0: only fib() */
#define CFG_TOGGLE_INST		(1u << 1)	/* trTeInstTracing off/on mid-workload */
#define CFG_TOGGLE_ENABLE	(1u << 2)	/* trTeEnable off/on mid-workload */
#define CFG_FILTER_PRIV		(1u << 3)	/* filter 1, MatchPrivilege: U-mode only */
#define CFG_FILTER_OUT		(1u << 4)	/* comparator 1, match mode 2: all but fib() */
#define CFG_FILTER_LATCH	(1u << 5)	/* match mode 3: fib() entry to spin() entry */
#define CFG_FILTER_MASK		(1u << 6)	/* secondary function 6: classify()'s block */
#define CFG_FILTER_TWO		(1u << 7)	/* MatchComp1 && MatchComp2: two comparators */

/* 32-bit words at TRACE_CFG_ADDR, in this order */
struct trace_cfg {
	uint32_t magic;		/* TRACE_CFG_MAGIC, else the program's defaults */
	uint32_t control;	/* trTeControl: InstMode, Context, InhibitSrc, Sync* */
	uint32_t features;	/* trTeInstFeatures (SrcID of hart 0) */
	uint32_t ts_control;	/* second trTsControl write; 0: unit kept in reset */
	uint32_t flags;		/* CFG_* */
	uint32_t harts;		/* 1..MAX_HARTS */
};

#endif /* NTRACE_MODEL_TRACE_CFG_H */
