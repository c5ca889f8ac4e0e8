// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The decoding state that decides everything a decoder does from here on,
 * as bytes: two decoders that read the same bytes next and have equal
 * states here deliver the same runs, events and counts (the counters
 * themselves excepted). The parallel decoder proves its cuts with it.
 *
 * What is left out cannot change the output: the block cache, the run
 * buffer, the text buffers, counters, the ring position of the return
 * stack, which quirks were reported (the parallel decoder drops repeated
 * quirk events, pdec_out.c), and for a source that waits for a sync, its
 * flow (pc, I-CNT, history, return stack, open run, last branch message:
 * a sync or a resumption sets them all before they are read again) but
 * the address a resumption follows. A source that does
 * not exist equals one in its initial state. The parser is not included:
 * callers compare at the end of a good message, where it is idle with
 * nothing pending.
 */
#include <stdlib.h>
#include <string.h>

#include "dec_internal.h"

static void put(struct dec_state *st, const void *p, size_t n)
{
	if (st->oom)
		return;
	if (st->len + n > st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 1024;
		uint8_t *b;

		while (cap < st->len + n)
			cap *= 2;
		b = realloc(st->buf, cap);
		if (!b) {
			st->oom = true;
			return;
		}
		st->buf = b;
		st->cap = cap;
	}
	memcpy(st->buf + st->len, p, n);
	st->len += n;
}

static void put64(struct dec_state *st, uint64_t v)
{
	put(st, &v, sizeof(v));
}

/* Every field of a message, one by one (never the struct's padding). */
static void put_msg(struct dec_state *st, const struct ntrace_msg *m)
{
	unsigned int i;

	put64(st, m->offset);
	put64(st, (uint64_t)m->size << 32 | (uint64_t)m->err << 24 | (uint64_t)m->tcode << 16 |
		  (uint64_t)m->flags << 8 | m->addr_bits);
	put64(st, (uint64_t)m->src << 48 | (uint64_t)m->sync << 40 | (uint64_t)m->btype << 32 |
		  (uint64_t)m->code << 24 | (uint64_t)m->cdf << 16 | (uint64_t)m->nraw << 8);
	put64(st, m->icnt);
	put64(st, m->addr);
	put64(st, m->hist);
	put64(st, m->count);
	put64(st, m->data);
	put64(st, m->tstamp);
	for (i = 0; i < m->nraw && i < NTRACE_MSG_RAW_FIELDS; i++)
		put64(st, m->raw[i]);
}

static bool initial(const struct dec_src *s)
{
	return !s->synced && !s->mode_known && !s->nheld && !s->hinted && !s->trap_counted &&
	       !s->priv && !s->context && !s->ts;
}

static void put_src(struct dec_state *st, const struct ntrace_decoder *d,
		    const struct dec_src *s)
{
	uint32_t i;

	put64(st, (uint64_t)s->id << 48 | (uint64_t)s->synced << 40 | (uint64_t)s->hinted << 32 |
		  (uint64_t)s->trap_counted << 24 | (uint64_t)s->mode_known << 16 |
		  (uint64_t)(s->mode_known && s->htm) << 8 | s->priv);
	put64(st, s->context);
	put64(st, s->ts);
	put64(st, s->nheld);
	for (i = 0; i < s->nheld; i++)
		put_msg(st, &s->held[i]);
	if (!s->synced) {
		/* what a resume at an indirect branch target reads */
		put64(st, s->ref_ok);
		if (s->ref_ok)
			put64(st, s->ref_addr);
		return;
	}
	put64(st, s->pc);
	put64(st, s->ref_addr);
	put64(st, s->icnt);
	/* history: the ready word, then the queue in order (its capacity too:
	 * the backlog limits count it) */
	put64(st, s->hw);
	put64(st, (uint64_t)s->hn << 32 | s->hq_len);
	put64(st, s->hq_cap);
	for (i = 0; i < s->hq_len; i++) {
		const struct dec_hist *h = &s->hq[(s->hq_head + i) & (s->hq_cap - 1)];

		put64(st, h->bits);
		put64(st, h->rep);
		put64(st, (uint64_t)h->n << 8 | h->pos);
	}
	/* return stack, newest first */
	put64(st, s->rs_len);
	for (i = 0; i < s->rs_len; i++)
		put64(st, s->rs[(s->rs_top - 1 - i) & DEC_RS_MASK]);
	put64(st, (uint64_t)s->run_open << 32 | (s->run_open ? s->run_ninsn : 0));
	if (s->run_open) {
		put64(st, s->run_start);
		put64(st, s->run_last);
	}
	put64(st, s->prev_valid);
	if (s->prev_valid) {
		struct ntrace_msg tmp;

		put_msg(st, dec_prev(d, s, &tmp));
	}
}

void dec_state_save(const struct ntrace_decoder *d, struct dec_state *st)
{
	uint32_t k;

	st->len = 0;
	st->oom = false;
	put64(st, (uint64_t)d->stopped);
	put64(st, d->aligned);
	dec_for_each_src(d, k)
		if (!initial(d->srcs[k]))
			put_src(st, d, d->srcs[k]);
}

bool dec_state_equal(const struct dec_state *a, const struct dec_state *b)
{
	return !a->oom && !b->oom && a->len == b->len && !memcmp(a->buf, b->buf, a->len);
}

void dec_state_free(struct dec_state *st)
{
	free(st->buf);
	memset(st, 0, sizeof(*st));
}
