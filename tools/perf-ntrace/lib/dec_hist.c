// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HIST backlog of one source. HIST bits arrive ahead of the I-CNT that
 * lets the decoder walk to the branches they describe (ResourceFull with
 * RCODE 1/2 before RCODE 0 or the next branch message), so they queue
 * here. A repeated pattern (RCODE 2, HREPEAT) is one entry with a count, so
 * a long loop costs no memory. The ring grows on demand up to the
 * configured backlog limit.
 */
#include <stdlib.h>
#include <string.h>

#include "dec_internal.h"

int dec_hist_queue(struct ntrace_decoder *d, struct dec_src *s, uint64_t hist, uint64_t rep)
{
	struct dec_hist *h;
	unsigned int n;

	if (!hist)
		return dec_error(d, s, "HIST field is 0 (no stop bit)");
	n = 63 - (unsigned int)__builtin_clzll(hist);
	if (!n || !rep)
		return 0;	/* empty history, or repeated zero times */
	if (s->hq_len == s->hq_cap) {
		uint32_t cap = s->hq_cap ? s->hq_cap * 2 : 64;
		struct dec_hist *nq;

		if (s->hq_cap >= d->cfg.hist_backlog || d->hq_total + cap - s->hq_cap > DEC_HQ_TOTAL)
			return dec_error(d, s, "more than %u HIST fields wait for an I-CNT",
					 s->hq_len);
		/* realloc: a large backlog (a trace whose I-CNT comes only with
		 * the rare indirect branch) grows in place, without copying
		 * or touching its pages again */
		nq = realloc(s->hq, cap * sizeof(*nq));
		if (!nq)
			return dec_error(d, s, "out of memory for the HIST backlog");
		/* the full ring ran from head to its end, then from 0: the
		 * entries before head go on after the old end */
		memcpy(nq + s->hq_cap, nq, s->hq_head * sizeof(*nq));
		d->hq_total += cap - s->hq_cap;
		s->hq = nq;
		s->hq_cap = cap;
	}
	h = &s->hq[(s->hq_head + s->hq_len) & (s->hq_cap - 1)];
	h->bits = hist & ((1ull << n) - 1);
	h->n = (uint8_t)n;
	h->pos = 0;
	h->rep = rep;
	s->hq_len++;
	return 0;
}

/* Move up to 64 queued bits into the ready word. (Locals: the stores to
 * the queue could alias the source's fields.) */
void dec_hist_refill(struct dec_src *s)
{
	uint64_t hw = s->hw;
	uint32_t hn = s->hn, head = s->hq_head, len = s->hq_len;
	const uint32_t mask = s->hq_cap - 1;

	while (hn < 64 && len) {
		struct dec_hist *h = &s->hq[head];
		unsigned int left = h->n - h->pos, k = 64 - hn < left ? 64 - hn : left;
		uint64_t bits = (h->bits >> (left - k)) & ((1ull << k) - 1);

		hw |= bits << (64 - hn - k);
		hn += k;
		h->pos = (uint8_t)(h->pos + k);
		if (h->pos == h->n) {
			h->pos = 0;
			if (!--h->rep) {
				head = (head + 1) & mask;
				len--;
			}
		}
	}
	s->hw = hw;
	s->hn = hn;
	s->hq_head = head;
	s->hq_len = len;
}

/* Bits still queued (saturating). */
uint64_t dec_hist_pending(const struct dec_src *s)
{
	uint64_t total = s->hn;
	uint32_t i;

	for (i = 0; i < s->hq_len; i++) {
		const struct dec_hist *h = &s->hq[(s->hq_head + i) & (s->hq_cap - 1)];
		uint64_t t = h->rep * h->n - (i == 0 ? h->pos : 0);

		if (h->rep > UINT64_MAX / 64 || total + t < total)
			return UINT64_MAX;
		total += t;
	}
	return total;
}

/*
 * Forget the queue and give its memory back: what the backlog limits see
 * then depends only on the messages since the last resynchronisation, not
 * on older history (a piece of trace decoded alone agrees with the whole).
 */
void dec_hist_clear(struct ntrace_decoder *d, struct dec_src *s)
{
	s->hw = 0;
	s->hn = 0;
	s->hq_head = 0;
	s->hq_len = 0;
	if (s->hq_cap) {
		d->hq_total -= s->hq_cap;
		free(s->hq);
		s->hq = NULL;
		s->hq_cap = 0;
	}
}
