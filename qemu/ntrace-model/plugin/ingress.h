/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to the ingress port (ingress.c: outcome of each block and the
 * callbacks; ingress_records.c: records to the encoder and the log;
 * ingress_translate.c: block descriptors made at translation).
 */
#ifndef NTRACE_MODEL_INGRESS_H
#define NTRACE_MODEL_INGRESS_H

#include "model.h"

/* Where this run of a block (or an instruction of it) really is. */
static inline uint64_t rt_pc(const struct hart *h, const struct tb_insn *ti)
{
	return ti->pc + h->delta;
}

/* itype of ti given where control went; both in translation addresses. */
static inline uint8_t itype_for(const struct tb_insn *ti, uint64_t next)
{
	return ntrace_isa_itype(&ti->d, next == xaddr(ti->pc + (int64_t)ti->d.off));
}

/* The same for a run, next being a run-time address. */
static inline uint8_t itype_at(const struct hart *h, const struct tb_insn *ti, uint64_t next)
{
	return itype_for(ti, next - h->delta);
}

/*
 * What the records of the open block from instruction from on share: the
 * timestamp is the same for every record of the block (ts_needed), or the
 * core clock counting one per record (sync mode 2), else 0.
 */
static inline void run_attr(const struct hart *h, unsigned int from, struct ntrace_run_attr *a)
{
	bool clock = h->clock_tstamp && !h->ts_needed;

	a->priv = h->prev_priv;
	a->context = h->context;
	a->tstamp = h->ts_needed ? h->ts_now : clock ? h->prev_icount + from + 1 : 0;
	a->tstamp_step = clock;
	a->addr_offset = h->delta;
}

/* The last record not yet handed to the encoder, or NULL. */
static inline struct ntrace_insn *rec_last(struct hart *h)
{
	return h->nrec ? &h->rec[h->nrec - 1] : NULL;
}

/* A whole block whose records are final, to the encoder and the log. */
static inline void rec_whole(struct hart *h, const struct ntrace_enc_block *b,
			     const struct ntrace_run_attr *a)
{
	h->records += b->n;
	if (h->gt) {
		struct ntrace_insn r;

		gt_run(h, b->insn, b->n - 1, a);
		ntrace_enc_block_record(&r, b, b->n - 1, a);
		gt_records(h, &r, 1);
	}
	trace_out_block(h, b, a);
	h->in_filter = true;
}

/* ingress_records.c */
void rec_flush(struct hart *h, bool all);
void rec_insn(struct hart *h, const struct tb_insn *ti, uint8_t itype, uint64_t icount);
void rec_trap(struct hart *h, uint64_t epc, uint64_t cause, uint64_t tval, uint64_t icount);
void rec_block(struct hart *h, const struct tb_desc *tb, unsigned int from,
	       unsigned int nret, uint64_t succ, bool seq0);

/* ingress.c: what translation registers */
uint8_t ingress_read_priv(void);
void ingress_tb_exec(unsigned int vcpu, void *udata);
void ingress_indirect_exec(unsigned int vcpu, void *udata);
void ingress_xret_exec(unsigned int vcpu, void *udata);
void ingress_csr_exec(unsigned int vcpu, void *udata);
void ingress_store_exec(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
			void *udata);

#endif /* NTRACE_MODEL_INGRESS_H */
