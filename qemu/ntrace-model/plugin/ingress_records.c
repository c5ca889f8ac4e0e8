// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ingress records out: the records of each block go to the encoder
 * (trace_out.c) and the ground-truth log (gtlog.c), through the address
 * filters, with the last one held back so that a trap can still mark it.
 * A block whose leading records are plain goes as one run
 * (ntrace_encoder_put_run) straight from its translation-time template.
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

struct ntrace_insn *rec_last(struct hart *h)
{
	return h->nrec ? &h->rec[h->nrec - 1] : NULL;
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
 * Fast path (no filter): copy the block's record template, made at
 * translation, and patch what varies per run. The timestamp is the same
 * for every record of the block (ts_needed), or the core clock counting
 * one per record (sync mode 2), else 0.
 */
void rec_block(struct hart *h, const struct tb_desc *tb, unsigned int from,
		      unsigned int nret, uint64_t succ)
{
	struct ntrace_insn *d;
	unsigned int i, last = from + nret - 1;
	bool clock = h->clock_tstamp && !h->ts_needed;

	if (last > from && last <= tb->plain_n && !h->start_pending && !h->delta) {
		/*
		 * The records before the block's last are plain: hand them to
		 * the encoder as one run, straight from the template; hold the
		 * last one back, a trap may still mark it.
		 */
		struct ntrace_run_attr a = {
			.priv = h->prev_priv,
			.context = h->context,
			.tstamp = h->ts_needed ? h->ts_now :
				  clock ? h->prev_icount + from + 1 : 0,
			.tstamp_step = clock,
		};

		rec_flush(h, true);
		h->records += last - from;
		gt_run(h, &tb->tmpl[from], last - from, &a);
		trace_out_run(h, &tb->tmpl[from], last - from,
			      tb->insn[last].hw_before - tb->insn[from].hw_before, &a);
		d = &h->rec[h->nrec++];
		*d = tb->tmpl[last];
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
