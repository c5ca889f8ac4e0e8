/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ingress inputs of perf-ntrace encode other than its own text form: a
 * retired-PC list plus program images, and a seed-002 tandem-verification
 * trace. Both go through the library's builders (ingress_build.h).
 */
#ifndef PERF_NTRACE_INGRESS_LOAD_H
#define PERF_NTRACE_INGRESS_LOAD_H

#include <ntrace/ingress_build.h>

/*
 * Load a PC list: a ground-truth .pcs file (magic NTRACE_GT_MAGIC), or text
 * with one hex PC per line, "trap EPC CAUSE" lines for trap marks, '#'
 * comments and blank lines. Builds the records with ntrace_ingress_from_gt()
 * against img (size and itype from the instructions). Returns 0, or -1 after
 * printing "perf-ntrace encode: PATH: reason" on stderr. unmarked gets the
 * number of successors no instruction explains (treated as traps).
 */
int ingress_load_pcs(const char *path, struct ntrace_images *img,
		     const struct ntrace_ingress_opts *o, int strict,
		     struct ntrace_insn_vec *out, size_t *unmarked);

/* Load a seed-002 tandem-verification trace; same error convention. */
int ingress_load_tv(const char *path, const struct ntrace_isa_cfg *isa,
		    const struct ntrace_ingress_opts *o, struct ntrace_insn_vec *out);

#endif /* PERF_NTRACE_INGRESS_LOAD_H */
