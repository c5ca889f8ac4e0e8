/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Builders of the ingress record stream (struct ntrace_insn, ingress.h)
 * from ground truth, and the tandem-verification (seed 002) formats.
 *
 *  - Ground-truth PC files (.pcs): what QEMU retired, with trap marks.
 *  - Builder: retired instructions + traps -> ntrace_insn, deriving size
 *    and itype from the instruction and taken/not-taken from the successor.
 *  - Tandem-verification trace (Bluespec "Trace Protocol", seed 002): parse
 *    into ntrace_insn, and export ntrace_insn as its "partial trace"
 *    (pc + instruction per group).
 *  - Comparison of two record streams, for end-to-end tests.
 *
 * .pcs file format (little-endian): the 8-byte magic "NTGTPCS1", then
 * 64-bit words. A word with bit 0 clear is the address of a retired
 * instruction, in retirement order. A word with bit 0 set is a trap mark:
 * the trap was taken at address (word & ~1) (the faulting instruction,
 * which did not retire, or for an interrupt the next instruction), and the
 * following word is the cause in mcause form (bit 63 = interrupt). The next
 * address after a trap mark is the first instruction of the handler (in
 * user mode, where the kernel is invisible, where execution resumed).
 */
#ifndef NTRACE_INGRESS_BUILD_H
#define NTRACE_INGRESS_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ntrace/image.h"
#include "ntrace/ingress.h"
#include "ntrace/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NTRACE_GT_MAGIC "NTGTPCS1"
#define NTRACE_GT_TRAP ((uint64_t)1)	/* bit 0 of a trap-mark word */
#define NTRACE_CAUSE_INTERRUPT ((uint64_t)1 << 63)

/* A loaded .pcs file. */
struct ntrace_gt {
	uint64_t *w;		/* the words after the magic */
	size_t n;
	size_t ninsn, ntrap;	/* retired instructions, trap marks */
};

/* Load a .pcs file; on error returns negative and fills err. */
int ntrace_gt_load(const char *path, struct ntrace_gt *gt, char *err,
		   size_t errlen);
void ntrace_gt_free(struct ntrace_gt *gt);

/* Streaming .pcs writer. */
struct ntrace_gt_writer;
struct ntrace_gt_writer *ntrace_gt_create(const char *path);
void ntrace_gt_pc(struct ntrace_gt_writer *w, uint64_t pc);
void ntrace_gt_trap(struct ntrace_gt_writer *w, uint64_t epc, uint64_t cause);
int ntrace_gt_close(struct ntrace_gt_writer *w);	/* 0 or -errno */

/* ---- builder ---- */

/* Called for each finished record; non-zero stops the build. */
typedef int (*ntrace_insn_fn)(void *arg, const struct ntrace_insn *in);

struct ntrace_ingress_opts {
	uint8_t priv;		/* enum ntrace_priv of every record (default U) */
	uint64_t context;
};

struct ntrace_builder;

struct ntrace_builder *ntrace_builder_new(const struct ntrace_ingress_opts *o,
					  ntrace_insn_fn fn, void *arg);
void ntrace_builder_free(struct ntrace_builder *b);

/*
 * A retired instruction at pc decoded as d. The previous instruction's
 * record is completed now that its successor is known; a successor that is
 * neither the fall-through nor the direct target of a direct instruction is
 * an unmarked trap (an exception with no cause) and is counted.
 */
int ntrace_builder_insn(struct ntrace_builder *b, uint64_t pc,
			const struct ntrace_idec *d, uint8_t priv);
/*
 * A trap taken at epc (see .pcs format) with cause (mcause form);
 * has_cause = 0 when only bit 63 (interrupt or exception) is known. The trap goes on the previous record when
 * that is a plain (itype 0) instruction, otherwise on a size-0 record at
 * epc, so a branch or jump keeps its own itype.
 */
int ntrace_builder_trap(struct ntrace_builder *b, uint64_t epc, uint64_t cause,
			uint64_t tval, int has_cause, uint8_t priv);
/* Trace stops: complete the last record (flag TRACE_STOP). */
int ntrace_builder_finish(struct ntrace_builder *b);

/* Records emitted, unmarked discontinuities seen, and the last error. */
size_t ntrace_builder_count(const struct ntrace_builder *b);
size_t ntrace_builder_unmarked(const struct ntrace_builder *b);
const char *ntrace_builder_errmsg(const struct ntrace_builder *b);

/* A growable record array, usable as an ntrace_insn_fn target. */
struct ntrace_insn_vec {
	struct ntrace_insn *v;
	size_t n, cap;
};
int ntrace_insn_vec_push(void *vec, const struct ntrace_insn *in);
void ntrace_insn_vec_free(struct ntrace_insn_vec *vec);

/*
 * Ground truth + images -> records. Fails (negative, err filled) on a PC
 * outside the images, an ECALL/EBREAK recorded as retired, or (strict) any
 * unmarked discontinuity.
 */
int ntrace_ingress_from_gt(const struct ntrace_gt *gt, struct ntrace_images *img,
			   const struct ntrace_ingress_opts *o, int strict,
			   struct ntrace_insn_vec *out, char *err, size_t errlen);

/* ---- tandem-verification trace (seed 002) ---- */

/*
 * Parse a tandem-verification byte stream into records. The instruction
 * bits in each group give size and itype (no image needed); the pc comes
 * from "additional state: pc" or "increment pc"; a group writing mcause/
 * scause is a trap (an exception when it carries the faulting instruction,
 * an interrupt otherwise) with epc from mepc/sepc. cfg: ISA (NULL: RV64GC).
 * o->priv is the privilege until the trace sets one (o NULL: M-mode).
 */
int ntrace_tv_parse(const uint8_t *buf, size_t len,
		    const struct ntrace_isa_cfg *cfg,
		    const struct ntrace_ingress_opts *o,
		    struct ntrace_insn_vec *out, char *err, size_t errlen);

/*
 * Export records as a partial tandem-verification trace: a group setting
 * pc and privilege at each trace start, one group per retired instruction
 * (instruction bits from the images, then "increment pc" or the new pc),
 * and per trap a group with the handler pc, xepc, xcause (when known), the
 * trapping instruction for an exception, and the privilege.
 */
int ntrace_tv_export(const struct ntrace_insn *in, size_t n,
		     struct ntrace_images *img, FILE *out, char *err,
		     size_t errlen);

/* ---- comparison and text form ---- */

/*
 * Compare two record streams on addr, size, itype, priv and (when both
 * are valid) cause. Returns 0 when equal, else 1 and a message naming the
 * first difference (index, both records).
 */
int ntrace_insn_compare(const struct ntrace_insn *a, size_t na,
			const struct ntrace_insn *b, size_t nb, char *msg,
			size_t msglen);

/* One line per record: "addr size itype priv flags [cause]". */
void ntrace_insn_print(FILE *f, const struct ntrace_insn *in);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_INGRESS_BUILD_H */
