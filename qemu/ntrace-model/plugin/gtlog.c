// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ground-truth log: every record the model hands to its encoder, one file
 * per hart (PREFIX.hartN.txt), in the text ingress format that
 * "perf-ntrace encode" reads: ADDR SIZE ITYPE PRIV CONTEXT TSTAMP FLAGS,
 * with the trap cause and value as a comment. Re-encoding this log must
 * give the bytes the model wrote to the sink; decoding the sink must give
 * these instructions back.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "model.h"

void gt_open(struct hart *h)
{
	char path[4096];

	if (!M.gt_prefix || h->gt)
		return;
	snprintf(path, sizeof(path), "%s.hart%u.txt", M.gt_prefix, h->idx);
	h->gt = fopen(path, "w");
	if (!h->gt) {
		fprintf(stderr, "ntrace-model: cannot write ground truth %s\n", path);
		exit(1);
	}
	/* full buffering: flushed when trace stops and at exit */
	setvbuf(h->gt, NULL, _IOFBF, 1 << 20);
	fprintf(h->gt, "# ntrace-model ground truth, hart %u: "
		"addr size itype priv context tstamp flags\n", h->idx);
}

static void gt_record(struct hart *h, const struct ntrace_insn *r)
{
	fprintf(h->gt, "0x%" PRIx64 " %u %u %u 0x%" PRIx64 " %" PRIu64 " %u", r->addr,
		r->size, r->itype, r->priv, r->context, r->tstamp, r->flags);
	if (r->flags & NTRACE_INSN_CAUSE_VALID)
		fprintf(h->gt, " # cause=0x%" PRIx64 " tval=0x%" PRIx64, r->cause, r->tval);
	fputc('\n', h->gt);
}

void gt_records(struct hart *h, const struct ntrace_insn *r, size_t n)
{
	size_t i;

	if (!h->gt)
		return;
	for (i = 0; i < n; i++)
		gt_record(h, &r[i]);
}

/* A run of plain records (see trace_out_run). */
void gt_run(struct hart *h, const struct ntrace_insn *r, size_t n,
	    const struct ntrace_run_attr *a)
{
	struct ntrace_insn t;
	size_t i;

	if (!h->gt)
		return;
	for (i = 0; i < n; i++) {
		ntrace_run_record(&t, r, i, a);
		gt_record(h, &t);
	}
}

void gt_flush(struct hart *h)
{
	if (h->gt)
		fflush(h->gt);
}

void gt_close(struct hart *h)
{
	if (h->gt)
		fclose(h->gt);
	h->gt = NULL;
}
