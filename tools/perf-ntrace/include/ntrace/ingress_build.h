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

/* A loaded .pcs file; the caller owns it, free with ntrace_gt_free(). */
struct ntrace_gt {
	uint64_t *w;		/* the words after the magic (malloc'ed) */
	size_t n;		/* number of words */
	size_t ninsn, ntrap;	/* retired instructions, trap marks */
};

/*
 * Load a .pcs file into *gt (the whole file, in memory). Returns 0, or
 * NTRACE_ENOENT (cannot open or read), NTRACE_EBADINPUT (no magic, size
 * not 8 + a multiple of 8, trap mark at the end) or NTRACE_ENOMEM, with
 * *gt left empty and a message naming path and the cause in err (errlen
 * bytes).
 */
int ntrace_gt_load(const char *path, struct ntrace_gt *gt, char *err,
		   size_t errlen);
/* Free the words and zero *gt (safe on an empty or failed load). */
void ntrace_gt_free(struct ntrace_gt *gt);

/*
 * Streaming .pcs writer (buffered). ntrace_gt_create() returns NULL (errno
 * set) when path cannot be created. ntrace_gt_pc()/ntrace_gt_trap() cannot
 * fail; a write error is remembered and returned by ntrace_gt_close(),
 * which also frees the writer: 0, or NTRACE_EWRITE with errno set to the
 * first error's.
 */
struct ntrace_gt_writer;
struct ntrace_gt_writer *ntrace_gt_create(const char *path);
void ntrace_gt_pc(struct ntrace_gt_writer *w, uint64_t pc);
void ntrace_gt_trap(struct ntrace_gt_writer *w, uint64_t epc, uint64_t cause);
int ntrace_gt_close(struct ntrace_gt_writer *w);

/* ---- builder ---- */

/*
 * Called for each finished record (in is only valid during the call);
 * non-zero stops the build and is reported as an error by the builder.
 */
typedef int (*ntrace_insn_fn)(void *arg, const struct ntrace_insn *in);

/* Record attributes the inputs do not carry. */
struct ntrace_ingress_opts {
	uint8_t priv;		/* enum ntrace_priv of every record (default U) */
	uint64_t context;	/* context value of every record */
};

/* Opaque builder: turns retired PCs + decodes + traps into records. */
struct ntrace_builder;

/*
 * A builder delivering each finished record to fn(arg, record). o is copied
 * (NULL: U-mode, context 0). Returns NULL when out of memory. A record is
 * held back until its successor is known, so the last one arrives at
 * ntrace_builder_finish().
 */
struct ntrace_builder *ntrace_builder_new(const struct ntrace_ingress_opts *o,
					  ntrace_insn_fn fn, void *arg);
/* Free the builder (NULL allowed); records not yet delivered are dropped. */
void ntrace_builder_free(struct ntrace_builder *b);

/*
 * A retired instruction at pc decoded as d. The previous instruction's
 * record is completed now that its successor is known; a successor that is
 * neither the fall-through nor the direct target of a direct instruction is
 * an unmarked trap (an exception with no cause) and is counted.
 * Returns 0, NTRACE_EBADINPUT when d is an ECALL/EBREAK (those never
 * retire), or fn's non-zero return; ntrace_builder_errmsg() says why.
 */
int ntrace_builder_insn(struct ntrace_builder *b, uint64_t pc,
			const struct ntrace_idec *d, uint8_t priv);
/*
 * A trap taken at epc (see .pcs format) with cause (mcause form) and tval;
 * has_cause = 0 when only bit 63 (interrupt or exception) is known. The
 * trap goes on the previous record when that is a plain (itype 0)
 * instruction, otherwise on a size-0 record at epc, so a branch or jump
 * keeps its own itype. Returns 0 or fn's non-zero return.
 */
int ntrace_builder_trap(struct ntrace_builder *b, uint64_t epc, uint64_t cause,
			uint64_t tval, int has_cause, uint8_t priv);
/* Trace stops: complete the last record (flag TRACE_STOP); a branch with
 * no successor counts as not taken. Returns 0 or fn's non-zero return. */
int ntrace_builder_finish(struct ntrace_builder *b);

/*
 * Records emitted, unmarked discontinuities seen, and the last error (or
 * the first unmarked discontinuity; "no error" if none). The string
 * belongs to the builder.
 */
size_t ntrace_builder_count(const struct ntrace_builder *b);
size_t ntrace_builder_unmarked(const struct ntrace_builder *b);
const char *ntrace_builder_errmsg(const struct ntrace_builder *b);

/* A growable record array, usable as an ntrace_insn_fn target. Start
 * zeroed; the caller owns v and frees it with ntrace_insn_vec_free(). */
struct ntrace_insn_vec {
	struct ntrace_insn *v;	/* records (malloc'ed) */
	size_t n, cap;		/* used, allocated */
};
/* Append *in to vec (a struct ntrace_insn_vec *). 0 or NTRACE_ENOMEM. */
int ntrace_insn_vec_push(void *vec, const struct ntrace_insn *in);
/* Free the records and zero the vector. */
void ntrace_insn_vec_free(struct ntrace_insn_vec *vec);

/*
 * Ground truth + images -> records appended to out (o as for the builder).
 * Returns 0, or with err filled ("ground-truth word N: ..." where a word
 * is at fault) the image layer's code for a PC that is not in executable
 * code (NTRACE_ENOMAP, ...), NTRACE_EBADINPUT for an ECALL/EBREAK recorded
 * as retired, a Zcmt table jump that went elsewhere than its table entry
 * or (strict) any unmarked discontinuity, or NTRACE_ENOMEM. out keeps what
 * was built; free it in any case.
 */
int ntrace_ingress_from_gt(const struct ntrace_gt *gt, struct ntrace_images *img,
			   const struct ntrace_ingress_opts *o, int strict,
			   struct ntrace_insn_vec *out, char *err, size_t errlen);

/* ---- tandem-verification trace (seed 002) ---- */

/*
 * Parse a tandem-verification byte stream into records appended to out.
 * The instruction bits in each group give size and itype (no image
 * needed); the pc comes from "additional state: pc" or "increment pc"; a
 * group writing mcause/scause is a trap (an exception when it carries the
 * faulting instruction, an interrupt otherwise) with epc from mepc/sepc.
 * cfg: ISA (NULL: RV64GC). o->priv is the privilege until the trace sets
 * one (o NULL: M-mode). Returns 0, or NTRACE_EBADINPUT (NTRACE_ENOMEM:
 * out of memory) with err naming the byte offset and the problem (unknown
 * opcode, truncated group, ...). See
 * tests/gt/README.rst for how the seed's inconsistencies are read.
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
 * trapping instruction for an exception, and the privilege. Returns 0, or
 * with err filled the image layer's code for an instruction not in the
 * images (NTRACE_ENOMAP, ...) or NTRACE_EWRITE.
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

/* Print one line for the record: "addr size itype priv flags [cause=..]". */
void ntrace_insn_print(FILE *f, const struct ntrace_insn *in);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_INGRESS_BUILD_H */
