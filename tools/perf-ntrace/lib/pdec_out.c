// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Output of the parallel decoder's pieces: each piece's sink hands its
 * full buffers over (dec_sink_to()) into a chain, its events are recorded
 * with the output position they follow, and the calling thread writes
 * both out in order; written buffers go back to the sinks. A piece's
 * thread waits while its chain holds more than out_limit bytes, until
 * the calling thread has taken them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pdec_internal.h"

void pd_spare_out(struct ntrace_pardec *p, struct pd_blk *b)
{
	b->next = p->spare_blk;
	p->spare_blk = b;
}

char *pd_take(void *ctx, char *buf, size_t n)
{
	struct pd_piece *pc = ctx;
	struct ntrace_pardec *p = pc->p;
	struct pd_blk *b;
	char *nb;

	/* a spare block gives its empty buffer to the sink and takes buf */
	pthread_mutex_lock(&p->mu);
	b = p->spare_blk;
	if (b)
		p->spare_blk = b->next;
	pthread_mutex_unlock(&p->mu);
	if (b) {
		nb = b->data;
	} else {
		b = malloc(sizeof(*b));
		nb = b ? malloc(DEC_SINK_BUF) : NULL;
		if (!nb) {
			free(b);
			return NULL;
		}
	}
	b->next = NULL;
	b->len = n;
	b->data = buf;
	pthread_mutex_lock(&p->mu);
	if (pc->tail)
		pc->tail->next = b;
	else
		pc->head = b;
	pc->tail = b;
	pc->committed += n;
	/*
	 * The calling thread takes output of the head piece only, an eighth
	 * of out_limit at a time (fewer wake-ups; it also takes all of it
	 * when the piece is done), and waits for the others' states: they
	 * end before the chain can fill.
	 */
	if (!pc->snap_done && pc->committed - pc->drained > p->pc.out_limit / 2) {
		pc->snap_done = true;
		pd_wake_main(p, pc);
	} else if (pc == p->head && pc->committed - pc->drained >= p->pc.out_limit / 8) {
		pd_wake_main(p, pc);
	}
	while (!pc->main && !pc->cancel && pc->committed - pc->drained > p->pc.out_limit) {
		pc->full = true;
		pthread_cond_wait(&p->full_cv, &p->mu);
	}
	pc->full = false;
	pthread_mutex_unlock(&p->mu);
	return nb;
}

uint64_t pd_outpos(struct pd_piece *pc)
{
	uint64_t n;

	pthread_mutex_lock(&pc->p->mu);
	n = pc->committed;
	pthread_mutex_unlock(&pc->p->mu);
	return n + (pc->sink ? dec_sink_pending(pc->sink) : 0);
}

int pd_on_runs(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct pd_piece *pc = ctx;

	return ntrace_sink_runs(pc->sink, r, n);
}

int pd_on_event(void *ctx, const struct ntrace_dec_event *ev)
{
	struct pd_piece *pc = ctx;
	struct ntrace_pardec *p = pc->p;
	struct pd_ev e = { .ev = *ev };

	if (p->pc.events && !(p->pc.events & (1u << ev->type)))
		return 0;
	e.pos = pd_outpos(pc);
	if (ev->text && !(e.text = strdup(ev->text)))
		return pc->err = NTRACE_ENOMEM;
	e.ev.text = NULL;
	pthread_mutex_lock(&p->mu);
	if (pc->nev == pc->evcap) {
		size_t cap = pc->evcap ? pc->evcap * 2 : 64;
		struct pd_ev *n = realloc(pc->ev, cap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&p->mu);
			free(e.text);
			return pc->err = NTRACE_ENOMEM;
		}
		pc->ev = n;
		pc->evcap = cap;
	}
	pc->ev[pc->nev++] = e;
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* The head block of pc's chain is written out: its buffer is a spare (under p->mu). */
static void pop_head(struct ntrace_pardec *p, struct pd_piece *pc)
{
	struct pd_blk *b = pc->head;

	pc->head = b->next;
	if (!pc->head)
		pc->tail = NULL;
	pc->head_off = 0;
	pd_spare_out(p, b);
}

/* Hand out bytes [drained, drained + n) of pc's chain, all in its head block (under p->mu). */
static int put_out(struct ntrace_pardec *p, struct pd_piece *pc, size_t n)
{
	const char *src = pc->head->data + pc->head_off;
	size_t drop = pc->drained < pc->skip ? (size_t)(pc->skip - pc->drained) : 0;
	int rc = 0;

	if (drop > n)
		drop = n;
	pthread_mutex_unlock(&p->mu);
	/* the head block does not change: only its reader frees it */
	if (n > drop && !p->stopped) {
		if (fwrite(src + drop, 1, n - drop, p->out) != n - drop)
			rc = ntrace_err_set(&p->err, NTRACE_EWRITE, "write error: %s",
					    strerror(errno));
		p->out_bytes += n - drop;
	}
	pthread_mutex_lock(&p->mu);
	pc->head_off += n;
	pc->drained += n;
	if (pc->head_off == pc->head->len)
		pop_head(p, pc);
	if (pc->full)
		pthread_cond_broadcast(&p->full_cv);
	return rc;
}

/* A quirk event of a kind its source reported before (in an earlier piece). */
static bool told(struct ntrace_pardec *p, const struct ntrace_dec_event *ev)
{
	uint8_t *t = &p->quirks_told[ev->src & ((1u << NTRACE_MAX_SRC_BITS) - 1)];
	uint8_t bit = (uint8_t)(1u << (ev->code & 7));

	if (ev->type != NTRACE_DEV_QUIRK)
		return false;
	if (*t & bit)
		return true;
	*t |= bit;
	return false;
}

int pd_drain(struct ntrace_pardec *p, struct pd_piece *pc)
{
	int rc = 0;

	pthread_mutex_lock(&p->mu);
	while (!rc && !p->stopped) {
		uint64_t avail = pc->committed - pc->drained;

		if (pc->evdone < pc->nev && pc->ev[pc->evdone].pos <= pc->drained) {
			struct pd_ev e = pc->ev[pc->evdone++];

			pthread_mutex_unlock(&p->mu);
			e.ev.text = e.text;
			if (p->event && !told(p, &e.ev))
				rc = p->event(p->ctx, &e.ev);
			free(e.text);
			pthread_mutex_lock(&p->mu);
			if (rc)
				p->stopped = rc;
			continue;
		}
		if (!avail)
			break;
		if (pc->evdone < pc->nev && pc->ev[pc->evdone].pos - pc->drained < avail)
			avail = pc->ev[pc->evdone].pos - pc->drained;
		if (pc->head->len - pc->head_off < avail)
			avail = pc->head->len - pc->head_off;
		rc = put_out(p, pc, (size_t)avail);
	}
	pthread_mutex_unlock(&p->mu);
	if (rc && !p->stopped)
		p->stopped = rc;
	return p->stopped;
}
