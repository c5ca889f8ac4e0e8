// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The parallel decoder's threads: each takes the first waiting piece,
 * decodes it with a decoder that starts at the piece's first byte, and
 * records that decoder's state (dec_state.c) at up to PD_MAXSNAP message
 * boundaries in the first half of the piece, where it has synchronised
 * and holds no message: the places where the decoder before may prove
 * that this one agrees with it from there on.
 */
#include <stdlib.h>
#include <string.h>

#include "image_internal.h"
#include "pdec_internal.h"

struct pd_engine *pd_engine_new(struct ntrace_pardec *p, const char **why)
{
	struct ntrace_dec_cfg cfg = p->cfg;
	struct pd_engine *e = calloc(1, sizeof(*e));
	int rc;

	if (!e) {
		*why = ntrace_errstr(NTRACE_ENOMEM);
		return NULL;
	}
	e->thread = -1;
	e->img = ntrace_img_share(p->img, &rc);
	if (!e->img) {
		*why = ntrace_errstr(rc);
		free(e);
		return NULL;
	}
	/* a small block cache: pieces are decoded with a thread's */
	cfg.bcache_bits = 10;
	e->d = ntrace_decoder_new(&cfg, e->img, NULL, NULL, why);
	if (e->d && p->pc.runs) {
		e->sink = ntrace_sink_new(p->pc.fmt, NULL, e->d, NULL);
		if (!e->sink)
			*why = ntrace_errstr(NTRACE_ENOMEM);
	}
	if (!e->d || (p->pc.runs && !e->sink)) {
		pd_engine_free(e);
		return NULL;
	}
	return e;
}

int pd_engine_stock(struct ntrace_pardec *p, const char **why)
{
	struct pd_engine *e;
	bool need;

	pthread_mutex_lock(&p->mu);
	need = p->nspare_eng <= p->nwant_eng;
	pthread_mutex_unlock(&p->mu);
	if (!need)
		return 0;
	e = pd_engine_new(p, why);
	if (!e)
		return -1;
	pthread_mutex_lock(&p->mu);
	e->next = p->spare_eng;
	p->spare_eng = e;
	p->nspare_eng++;
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* The spare engine thread t used last, else any (under p->mu; one is there). */
static struct pd_engine *engine_take(struct ntrace_pardec *p, int t)
{
	struct pd_engine **pp = &p->spare_eng, *e;

	while ((*pp)->thread != t && (*pp)->next)
		pp = &(*pp)->next;
	if ((*pp)->thread != t)
		pp = &p->spare_eng;
	e = *pp;
	*pp = e->next;
	p->nspare_eng--;
	e->thread = t;
	return e;
}

void pd_engine_free(struct pd_engine *e)
{
	if (!e)
		return;
	ntrace_sink_free(e->sink);
	ntrace_decoder_free(e->d);
	ntrace_images_free(e->img);
	free(e);
}

void pd_piece_setup(struct pd_piece *pc)
{
	struct ntrace_pardec *p = pc->p;
	struct ntrace_dec_cfg cfg = p->cfg;
	struct ntrace_dec_ops ops = { p->pc.runs ? pd_on_runs : NULL, pd_on_event };
	struct pd_engine *e = pc->eng;

	/* every piece but the first starts right after an end of message */
	if (pc->index)
		cfg.enc.codec.wait_for_eom = false;
	dec_renew(e->d, &cfg, e->img, &ops, pc);
	pc->d = e->d;
	ntrace_parser_init(&pc->d->parser, &cfg.enc.codec, pc->start);
	if (e->sink) {
		dec_sink_to(e->sink, pd_take, pc);
		ntrace_sink_set_symbols(e->sink, p->pc.symbols);
		pc->sink = e->sink;
	}
}

void pd_piece_free(struct pd_piece *pc)
{
	struct ntrace_pardec *p;
	size_t i;
	unsigned int k;

	if (!pc)
		return;
	p = pc->p;
	pthread_mutex_lock(&p->mu);
	if (pc->eng) {
		pc->eng->next = p->spare_eng;
		p->spare_eng = pc->eng;
		p->nspare_eng++;
	}
	while (pc->head) {
		struct pd_blk *b = pc->head;

		pc->head = b->next;
		pd_spare_out(p, b);
	}
	pthread_mutex_unlock(&p->mu);
	for (i = pc->evdone; i < pc->nev; i++)
		free(pc->ev[i].text);
	free(pc->ev);
	for (k = 0; k < PD_MAXSNAP; k++)
		dec_state_free(&pc->snap[k].state);
	if (p->nspare_in < PD_INSPARE) {
		p->spare_in[p->nspare_in].buf = pc->buf;
		p->spare_in[p->nspare_in++].cap = pc->cap;
	} else {
		free(pc->buf);
	}
	free(pc);
}

static void snap_close(struct pd_piece *pc)
{
	pthread_mutex_lock(&pc->p->mu);
	pc->snap_done = true;
	pd_wake_main(pc->p, pc);
	pthread_mutex_unlock(&pc->p->mu);
}

/*
 * After message m (known: its source's mode was decided before it): record
 * the state if this is a place to compare. Returns false when no more
 * states are wanted.
 */
static bool consider(struct pd_piece *pc, const struct ntrace_msg *m, bool known)
{
	struct ntrace_decoder *d = pc->d;
	const struct dec_src *s;
	struct pd_snap *sn;
	uint32_t k;

	if (pc->snap_done)	/* set by this thread's own output only */
		return false;
	if (m->offset + m->size - pc->start > pc->len / 2 || d->stopped) {
		snap_close(pc);
		return false;
	}
	if (m->err || (d->cfg.src >= 0 && m->src != d->cfg.src))
		return true;
	s = d->srcs[m->src];
	/* after a sync, or where the source's mode has just been decided */
	if (!s || !s->synced || !s->mode_known || s->nheld ||
	    (known && !ntrace_tcode_is_sync(m->tcode)))
		return true;
	dec_for_each_src(d, k)
		if (d->srcs[k]->nheld)
			return true;
	sn = &pc->snap[pc->nsnap];
	dec_flush(d);
	sn->end = m->offset + m->size;
	sn->outpos = pd_outpos(pc);
	sn->st = d->st;
	dec_state_save(d, &sn->state);
	pthread_mutex_lock(&pc->p->mu);
	sn->nev = pc->nev;
	pc->nsnap++;
	if (pc->nsnap == PD_MAXSNAP) {
		pc->snap_done = true;
		pd_wake_main(pc->p, pc);
	}
	pthread_mutex_unlock(&pc->p->mu);
	return !pc->snap_done;
}

static void piece_decode(struct pd_piece *pc)
{
	struct ntrace_decoder *d = pc->d;
	const uint8_t *b = pc->buf;
	size_t len = pc->len;
	bool snaps = pc->index > 0;
	struct ntrace_msg m[64];

	d->st.bytes += len;
	while (len && !d->stopped && !__atomic_load_n(&pc->cancel, __ATOMIC_RELAXED)) {
		/*
		 * As one decoder does: the direct path, the parser where it
		 * stops. The direct path takes no message after which a state
		 * may be recorded (a sync, or one whose source's mode is not
		 * known yet); while states are wanted it stops at the piece's
		 * half, where the parser's message closes them.
		 */
		size_t at = (size_t)(b - pc->buf), fast = len, used = 0, n, i, k;

		if (snaps)
			fast = at >= pc->len / 2 ? 0 : pc->len / 2 - at < len ? pc->len / 2 - at : len;
		k = fast ? dec_fast(d, b, fast) : 0;

		b += k;
		len -= k;
		if (!len || d->stopped)
			break;
		n = ntrace_parse(&d->parser, b, len, m, k || snaps ? 1 : 64, &used);
		for (i = 0; i < n && !d->stopped; i++) {
			if (snaps) {
				const struct dec_src *s = d->srcs[m[i].src &
								 ((1u << NTRACE_MAX_SRC_BITS) - 1)];
				bool known = s && s->mode_known;

				ntrace_decoder_put(d, &m[i]);
				snaps = consider(pc, &m[i], known);
			} else {
				ntrace_decoder_put(d, &m[i]);
			}
		}
		b += used;
		len -= used;
		if (!n && !used)
			break;
	}
	dec_flush(d);
	if (pc->sink)	/* the merger takes only what reached the chain */
		ntrace_sink_flush(pc->sink);
}

void *pd_thread(void *arg)
{
	struct ntrace_pardec *p = arg;
	struct pd_piece *pc;
	int t = (int)__atomic_fetch_add(&p->nthreads_up, 1, __ATOMIC_RELAXED);

	for (;;) {
		pthread_mutex_lock(&p->mu);
		for (;;) {
			for (pc = p->head; pc && pc->state != PD_QUEUED; pc = pc->next)
				;
			if (pc || p->shutdown)
				break;
			pthread_cond_wait(&p->work_cv, &p->mu);
		}
		if (!pc) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		pc->state = PD_RUNNING;
		if (!pc->nocut) {
			p->nwant_eng--;
			if (!__atomic_load_n(&pc->cancel, __ATOMIC_RELAXED))
				pc->eng = engine_take(p, t);
		}
		pthread_mutex_unlock(&p->mu);

		if (pc->eng && !__atomic_load_n(&pc->cancel, __ATOMIC_RELAXED)) {
			pd_piece_setup(pc);
			dec_caches_swap(pc->d, pd_caches(p, t));
			piece_decode(pc);
			dec_caches_swap(pc->d, pd_caches(p, t));
		}
		pthread_mutex_lock(&p->mu);
		pc->snap_done = true;
		pc->state = PD_DONE;
		pd_wake_main(p, pc);
		pthread_mutex_unlock(&p->mu);
	}
}
