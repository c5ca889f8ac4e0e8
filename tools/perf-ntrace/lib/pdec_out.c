// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Output of the parallel decoder's pieces: each piece's sink writes into a
 * chain of blocks (a FILE of its own), its events are recorded with the
 * output position they follow, and the calling thread writes both out in
 * order. A piece's thread waits while its chain holds more than out_limit
 * bytes, until the calling thread has taken them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pdec_internal.h"

static ssize_t chain_write(void *cookie, const char *buf, size_t len)
{
	struct pd_piece *pc = cookie;
	struct ntrace_pardec *p = pc->p;
	size_t left = len;

	while (left) {
		struct pd_blk *t = pc->tail;
		size_t n;

		if (!t || t->len == PD_BLK) {
			struct pd_blk *nb = malloc(sizeof(*nb));

			if (!nb) {
				errno = ENOMEM;
				return -1;
			}
			nb->next = NULL;
			nb->len = 0;
			pthread_mutex_lock(&p->mu);
			if (t)
				t->next = nb;
			else
				pc->head = nb;
			pc->tail = t = nb;
			pthread_mutex_unlock(&p->mu);
		}
		/* only this thread writes past t->len */
		n = PD_BLK - t->len < left ? PD_BLK - t->len : left;
		memcpy(t->data + t->len, buf, n);
		buf += n;
		left -= n;
		pthread_mutex_lock(&p->mu);
		t->len += n;
		pc->committed += n;
		/* the merger may wait for the recorded states: they end before
		 * the chain can fill */
		if (!pc->snap_done && pc->committed - pc->drained > p->pc.out_limit / 2)
			pc->snap_done = true;
		pthread_cond_broadcast(&p->cv);
		while (!pc->main && !pc->cancel && pc->committed - pc->drained > p->pc.out_limit)
			pthread_cond_wait(&p->cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
	}
	return (ssize_t)len;
}

FILE *pd_chain_open(struct pd_piece *pc)
{
	cookie_io_functions_t io = { .write = chain_write };
	FILE *f = fopencookie(pc, "w", io);

	if (f)
		setvbuf(f, NULL, _IONBF, 0);	/* the sink buffers already */
	return f;
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

/* Hand out bytes [drained, drained + n) of pc's chain (under p->mu). */
static int put_out(struct ntrace_pardec *p, struct pd_piece *pc, size_t n)
{
	const char *src = pc->head->data + pc->head_off;
	size_t drop = pc->drained < pc->skip ? (size_t)(pc->skip - pc->drained) : 0;
	int rc = 0;

	if (drop > n)
		drop = n;
	pthread_mutex_unlock(&p->mu);
	if (n > drop && !p->stopped) {
		if (fwrite(src + drop, 1, n - drop, p->out) != n - drop)
			rc = ntrace_err_set(&p->err, NTRACE_EWRITE, "write error: %s",
					    strerror(errno));
		p->out_bytes += n - drop;
	}
	pthread_mutex_lock(&p->mu);
	pc->head_off += n;
	pc->drained += n;
	if (pc->head_off == PD_BLK && pc->head->next) {
		struct pd_blk *b = pc->head;

		pc->head = b->next;
		pc->head_off = 0;
		free(b);
	}
	pthread_cond_broadcast(&p->cv);
	return rc;
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
			if (p->event)
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
		if (avail)
			rc = put_out(p, pc, (size_t)avail);
		else if (pc->head_off == PD_BLK && pc->head->next) {
			struct pd_blk *b = pc->head;

			pc->head = b->next;
			pc->head_off = 0;
			free(b);
		}
	}
	pthread_mutex_unlock(&p->mu);
	if (rc && !p->stopped)
		p->stopped = rc;
	return p->stopped;
}
