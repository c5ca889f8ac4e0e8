// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ingress records out: the records of each block go to the encoder
 * (trace_out.c) and the ground-truth log (gtlog.c), through the address
 * filters, with the last one held back so that a trap can still mark it.
 * A block that ran to its end at a branch or jump goes to the encoder in
 * one call with its outcome (ntrace_encoder_put_block), straight from its
 * translation-time template; otherwise its leading plain records go as
 * one run (ntrace_encoder_put_run).
 */
#include <string.h>

#include "ingress.h"

/* Hand the buffered records to the encoder, all or all but the last. */
void rec_flush(struct hart *h, bool all)
{
	unsigned int n = all || !h->nrec ? h->nrec : h->nrec - 1;

	if (!n)
		return;
	h->records += n;
	gt_records(h, h->rec, n);
	trace_out_records(h, h->rec, n);
	if (n < h->nrec)
		h->rec[0] = h->rec[n];
	h->nrec -= n;
}

/* One retired instruction (or size-0 trap record), after filtering. */
static void put(struct hart *h, const struct ntrace_insn *r)
{
	struct ntrace_insn *d;

	if (h->te.inst_filters && !filter_match(h, r->addr, r->priv)) {
		if (h->in_filter && h->nrec)
			h->rec[h->nrec - 1].flags |= NTRACE_INSN_TRACE_STOP;
		rec_flush(h, true);
		h->in_filter = false;
		return;
	}
	if (h->nrec == MODEL_BATCH)
		rec_flush(h, false);
	d = &h->rec[h->nrec++];
	*d = *r;
	if (!h->in_filter || h->start_pending)
		d->flags |= NTRACE_INSN_TRACE_START;
	h->in_filter = true;
	h->start_pending = false;
}

/*
 * Record timestamp: the timestamp unit's value at the end of the record's
 * block while records need it (ts_needed), else the core clock
 * (instructions) when trTeInstSyncMode=2 counts it, else 0.
 */
static uint64_t tstamp(struct hart *h, uint64_t icount)
{
	if (h->ts_needed)
		return h->ts_now;
	return h->clock_tstamp ? icount : 0;
}

void rec_insn(struct hart *h, const struct tb_insn *ti, uint8_t itype,
		     uint64_t icount)
{
	struct ntrace_insn *d;

	if (h->te.inst_filters) {
		struct ntrace_insn r = {
			.addr = rt_pc(h, ti),
			.size = ti->d.size,
			.itype = itype,
			.priv = h->prev_priv,
			.context = h->context,
			.tstamp = tstamp(h, icount),
			.flags = ti->tb->tmpl[ti->idx].flags,
		};

		put(h, &r);
		return;
	}
	/* no filter: write the record in place, the common fast path */
	if (h->nrec == MODEL_BATCH)
		rec_flush(h, false);
	d = &h->rec[h->nrec++];
	d->addr = rt_pc(h, ti);
	d->context = h->context;
	d->tstamp = tstamp(h, icount);
	d->cause = 0;
	d->tval = 0;
	d->size = ti->d.size;
	d->itype = itype;
	d->priv = h->prev_priv;
	d->flags = ti->tb->tmpl[ti->idx].flags | (h->start_pending ? NTRACE_INSN_TRACE_START : 0);
	h->start_pending = false;
	h->in_filter = true;
}

void rec_trap(struct hart *h, uint64_t epc, uint64_t cause, uint64_t tval,
		     uint64_t icount)
{
	uint8_t itype = cause >> 63 ? NTRACE_ITYPE_INTERRUPT : NTRACE_ITYPE_EXCEPTION;

	struct ntrace_insn *l = rec_last(h);

	if (l && l->itype == NTRACE_ITYPE_NONE) {
		l->itype = itype;
		l->cause = cause;
		l->tval = tval;
		l->flags |= NTRACE_INSN_CAUSE_VALID;
		return;
	}
	{
		struct ntrace_insn r = {
			.addr = epc,
			.size = 0,
			.itype = itype,
			.priv = h->prev_priv,
			.context = h->context,
			.tstamp = tstamp(h, icount),
			.cause = cause,
			.tval = tval,
			.flags = NTRACE_INSN_CAUSE_VALID,
		};

		put(h, &r);
	}
}

/*
 * The block ran to its end and left the way its last instruction says (a
 * branch, a jump, a return: an itype other than NONE). Nothing can mark
 * that record any more: a trap after it gets a record of its own, and a
 * remote stop, which marks the last record handed on, is not waiting. So
 * the whole block goes to the encoder in one call, straight from the
 * template, with no record built; seq0 marks a one-instruction block's
 * jump as sequentially inferable. Returns false, having done nothing,
 * when the block does not qualify.
 */
static bool rec_whole_block(struct hart *h, const struct tb_desc *tb, unsigned int from,
			    unsigned int nret, uint64_t succ, bool seq0)
{
	const struct tb_insn *ti = &tb->insn[tb->n - 1];
	struct ntrace_run_attr a;
	struct ntrace_enc_block b;

	if (from + nret != tb->n || h->start_pending || (h->pending & PEND_TE_STOP))
		return false;
	b.itype = itype_at(h, ti, succ);
	if (b.itype == NTRACE_ITYPE_NONE)
		return false;
	b.insn = &tb->tmpl[from];
	b.n = nret;
	b.hw = tb->whole.hw - tb->insn[from].hw_before;
	b.flags = tb->whole.flags | (seq0 && nret == 1 ? NTRACE_INSN_SEQ_INFERABLE : 0);
	run_attr(h, from, &a);
	if (h->nrec)
		rec_flush(h, true);
	rec_whole(h, &b, &a);
	return true;
}

/*
 * Fast path (no filter): the whole block in one call when it can go
 * (rec_whole_block), else copy the block's record template, made at
 * translation, and patch what varies per run.
 */
void rec_block(struct hart *h, const struct tb_desc *tb, unsigned int from,
	       unsigned int nret, uint64_t succ, bool seq0)
{
	struct ntrace_insn *d;
	unsigned int i, last = from + nret - 1;
	bool clock = h->clock_tstamp && !h->ts_needed;

	if (rec_whole_block(h, tb, from, nret, succ, seq0))
		return;
	if (last > from && last <= tb->plain_n && !h->start_pending) {
		/*
		 * The records before the block's last are plain: hand them to
		 * the encoder as one run, straight from the template; hold the
		 * last one back, a trap may still mark it.
		 */
		struct ntrace_run_attr a;

		run_attr(h, from, &a);
		rec_flush(h, true);
		h->records += last - from;
		gt_run(h, &tb->tmpl[from], last - from, &a);
		trace_out_run(h, &tb->tmpl[from], last - from,
			      tb->insn[last].hw_before - tb->insn[from].hw_before, &a);
		d = &h->rec[h->nrec++];
		*d = tb->tmpl[last];
		d->addr += h->delta;
		if (last == tb->n - 1)
			d->itype = itype_at(h, &tb->insn[last], succ);
		d->priv = h->prev_priv;
		d->context = h->context;
		d->tstamp = a.tstamp + (last - from) * a.tstamp_step;
		h->in_filter = true;
		return;
	}
	if (h->nrec + nret > MODEL_BATCH)
		rec_flush(h, false);
	d = &h->rec[h->nrec];
	memcpy(d, &tb->tmpl[from], nret * sizeof(*d));
	h->nrec += nret;
	if (from + nret == tb->n)
		d[nret - 1].itype = itype_at(h, &tb->insn[tb->n - 1], succ);
	if (h->delta)
		for (i = 0; i < nret; i++)
			d[i].addr += h->delta;
	if (h->prev_priv != tb->tmpl_priv || h->context)
		for (i = 0; i < nret; i++) {
			d[i].priv = h->prev_priv;
			d[i].context = h->context;
		}
	if (h->ts_needed)
		for (i = 0; i < nret; i++)
			d[i].tstamp = h->ts_now;
	else if (clock)
		for (i = 0; i < nret; i++)
			d[i].tstamp = h->prev_icount + from + i + 1;
	if (h->start_pending)
		d[0].flags |= NTRACE_INSN_TRACE_START;
	h->start_pending = false;
	h->in_filter = true;
}
