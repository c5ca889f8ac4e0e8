// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The parallel decoder (ntrace/pardec.h): cutting the stream into pieces
 * and joining the pieces' decodes in the calling thread.
 *
 * The head piece's decoder owns the output. When its own piece is done,
 * it goes on into the next piece, message boundary by message boundary
 * where that piece's decoder recorded its state, and compares: at the
 * first equal state the next piece's decoder takes over (its output from
 * that point on is what the head decoder would have written); with none,
 * the head decoder decodes the whole next piece itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image_internal.h"
#include "pdec_internal.h"

#define PD_MIN_PIECE	64
#define PD_FEED		(64u << 10)	/* the head decoder's steps in the next piece */
#define PD_PIECE_OUT	(2u << 20)	/* output a piece aims at (piece_target()) */
#define PD_PIECE_FLOOR	(1u << 10)	/* the smallest adaptive piece */
#define PD_STEP		(4u << 10)	/* input taken at a time past a piece's target */

void ntrace_pardec_cfg_default(struct ntrace_pardec_cfg *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->runs = true;
	pc->fmt = NTRACE_SINK_PC;
}

static void stats_add(struct ntrace_dec_stats *acc, const struct ntrace_dec_stats *now,
		      const struct ntrace_dec_stats *base)
{
	uint64_t *a = (uint64_t *)acc;
	const uint64_t *n = (const uint64_t *)now, *b = (const uint64_t *)base;
	size_t i;

	for (i = 0; i < sizeof(*acc) / sizeof(uint64_t); i++)
		a[i] += n[i] - b[i];
}

struct ntrace_pardec *ntrace_pardec_new(const struct ntrace_dec_cfg *cfg,
					struct ntrace_images *img,
					const struct ntrace_pardec_cfg *pc, FILE *out,
					int (*event)(void *ctx, const struct ntrace_dec_event *ev),
					void *ctx, const char **why)
{
	const char *e = NULL;
	struct ntrace_images *v = NULL;
	struct ntrace_pardec *p = NULL;
	struct pd_engine *eng;
	int rc;

	if (pc->runs && pc->fmt != NTRACE_SINK_PC && pc->fmt != NTRACE_SINK_BRANCHES)
		e = "parallel decoding writes the PC list or branch records only";
	else if (!img)
		e = "no program images";
	else if (img->fetch)
		e = "images that fetch code on demand cannot be shared by threads";
	if (!e) {
		/* builds the code tables the threads will share */
		v = ntrace_img_share(img, &rc);
		p = v ? calloc(1, sizeof(*p)) : NULL;
		ntrace_images_free(v);
		if (!p)
			e = ntrace_errstr(v ? NTRACE_ENOMEM : rc);
	}
	if (p) {
		p->cfg = *cfg;
		p->pc = *pc;
		p->img = img;
		/* a small decoder checks the settings */
		eng = pd_engine_new(p, &e);
		pd_engine_free(eng);
		if (!eng) {
			free(p);
			p = NULL;
		}
	}
	if (e) {
		if (why)
			*why = e;
		return NULL;
	}
	if (!p->pc.jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		p->pc.jobs = n > 0 ? (unsigned int)n : 1;
	}
	if (!p->pc.out_limit)
		p->pc.out_limit = 8u << 20;
	if (p->pc.out_limit < 4096)
		p->pc.out_limit = 4096;
	if (p->pc.piece_bytes && p->pc.piece_bytes < PD_MIN_PIECE)
		p->pc.piece_bytes = PD_MIN_PIECE;
	p->out = out;
	p->event = event;
	p->ctx = ctx;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_cond_init(&p->full_cv, NULL);
	pthread_cond_init(&p->work_cv, NULL);
	/* an explicit piece size asks for pieces (tests): no deciding */
	if (p->pc.piece_bytes && pd_go_parallel(p)) {
		if (why)
			*why = "out of memory or threads for parallel decoding";
		ntrace_pardec_free(p);
		return NULL;
	}
	return p;
}

int pd_go_parallel(struct ntrace_pardec *p)
{
	const char *e = NULL;
	unsigned int i;

	p->mode = PD_PARALLEL;
	/* the threads' caches, the calling thread's last (lazily zeroed pages) */
	p->caches = calloc(p->pc.jobs + 1, sizeof(*p->caches));
	for (i = 0; p->caches && i <= p->pc.jobs && !e; i++)
		p->caches[i] = ntrace_decoder_new(&p->cfg, p->img, NULL, NULL, &e);
	if (!p->caches || e)
		return p->stopped = ntrace_err_set(&p->err, NTRACE_ENOMEM, "%s",
						   e ? e : "out of memory for caches");
	p->thr = calloc(p->pc.jobs, sizeof(*p->thr));
	for (i = 0; p->thr && i < p->pc.jobs; i++) {
		if (pthread_create(&p->thr[i], NULL, pd_thread, p))
			break;
		p->nthr++;
	}
	p->info.threads = p->nthr;
	if (!p->nthr)
		return p->stopped = ntrace_err_set(&p->err, NTRACE_ENOMEM, "cannot start threads");
	return 0;
}

/*
 * Trace bytes for the next piece: about PD_PIECE_OUT of output (at most
 * out_limit / 4, so that a piece that is not written out yet seldom fills
 * its chain and waits). Pieces of 8 MiB of output were no faster on two
 * cores and took twice the memory; smaller ones cost more wake-ups.
 * Until a piece is done the output per trace byte is not known: small
 * pieces then (a trace of loops makes hundreds of bytes of text per
 * trace byte).
 */
static size_t piece_target(const struct ntrace_pardec *p)
{
	uint64_t ratio, t;

	if (p->pc.piece_bytes)
		return p->pc.piece_bytes;
	if (!p->pc.runs)
		return 4u << 20;
	if (!p->retired_in)
		return PD_PIECE_MIN;
	ratio = p->out_bytes / p->retired_in + 1;
	t = (p->pc.out_limit / 4 < PD_PIECE_OUT ? p->pc.out_limit / 4 : PD_PIECE_OUT) / ratio;
	/* once the ratio is known, pieces as small as the output wants */
	return t < PD_PIECE_FLOOR ? PD_PIECE_FLOOR : t > (8u << 20) ? 8u << 20 : (size_t)t;
}

/* An input buffer of at least cap bytes: a spare one, or a new one. */
static uint8_t *in_buf(struct ntrace_pardec *p, size_t cap)
{
	while (p->nspare_in) {
		uint8_t *b = p->spare_in[--p->nspare_in].buf;

		if (p->spare_in[p->nspare_in].cap >= cap)
			return b;
		free(b);
	}
	return malloc(cap);
}

/* Move fill[0, cut) into a new piece; the next piece starts mid-message if nocut_next. */
static int make_piece(struct ntrace_pardec *p, size_t cut, bool nocut_next)
{
	struct pd_piece *pc = calloc(1, sizeof(*pc));
	size_t cap = p->fill_cap ? p->fill_cap : PD_MIN_PIECE;
	uint8_t *rest = pc ? in_buf(p, cap) : NULL;
	const char *why;

	if (!pc || !rest) {
		free(pc);
		free(rest);
		return ntrace_err_set(&p->err, NTRACE_ENOMEM, "out of memory for a piece");
	}
	pc->p = p;
	pc->index = p->next_index++;
	pc->start = p->fill_start;
	pc->buf = p->fill;
	pc->cap = p->fill_cap;
	pc->len = cut;
	/*
	 * A piece's decoder records states only after a sync in the first
	 * half of its piece: without one, the decoder before decodes it
	 * anyway, so no thread should.
	 */
	pc->nocut = p->fill_nocut || (pc->index && !pd_starts_sync(p->fill, cut) &&
				      !pd_sync_in(p->fill, 1, cut / 2));
	if (!pc->nocut && pd_engine_stock(p, &why)) {
		free(pc);
		free(rest);
		return ntrace_err_set(&p->err, NTRACE_ENOMEM, "cannot make a decoder: %s", why);
	}
	if (p->fill_len > cut)
		memcpy(rest, p->fill + cut, p->fill_len - cut);
	p->fill_cap = cap;
	p->fill = rest;
	p->fill_len -= cut;
	p->fill_start += cut;
	p->fill_nocut = nocut_next;
	p->scan = 0;
	p->info.pieces++;
	pthread_mutex_lock(&p->mu);
	if (p->tail)
		p->tail->next = pc;
	else
		p->head = pc;
	p->tail = pc;
	p->npieces++;
	if (!pc->nocut)
		p->nwant_eng++;
	pthread_cond_signal(&p->work_cv);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/*
 * Cut the filled bytes at or after target: before a sync message within
 * [target, 2 target), else at the first message start after target, else
 * (no end of message at all) at 2 target, where the next piece starts
 * mid-message. Returns 0 (with or without a cut) or a failure.
 */
static int try_cut(struct ntrace_pardec *p, size_t target)
{
	const uint8_t *b = p->fill;
	size_t i;

	if (p->scan < target)
		p->scan = target > 0 ? target : 1;
	for (i = p->scan; i < p->fill_len; i++)
		if (pd_msg_starts(b, i) && ntrace_tcode_is_sync(b[i] >> 2))
			return make_piece(p, i, false);
	p->scan = i;
	if (p->fill_len < 2 * target)
		return 0;
	for (i = target; i < p->fill_len; i++)
		if (pd_msg_starts(b, i))
			return make_piece(p, i, false);
	return make_piece(p, p->fill_len, true);
}

/* Wait until the head piece's thread is done, writing its output meanwhile. */
static int lead_ready(struct ntrace_pardec *p, struct pd_piece *L)
{
	int rc;

	for (;;) {
		rc = pd_drain(p, L);
		if (rc)
			return rc;
		pthread_mutex_lock(&p->mu);
		if (L->state == PD_DONE) {
			pthread_mutex_unlock(&p->mu);
			break;
		}
		pd_wait_main(p, L);
		pthread_mutex_unlock(&p->mu);
	}
	if (!L->main) {
		pthread_mutex_lock(&p->mu);
		L->main = true;	/* its thread is done: the calling thread drives it */
		pthread_mutex_unlock(&p->mu);
		p->lead_pos = L->start + L->len;
	}
	if (L->err)
		return p->stopped = ntrace_err_set(&p->err, L->err, "out of memory in a piece");
	if (L->d->stopped)
		return p->stopped = ntrace_err_set(&p->err, L->d->stopped, "%s",
						   L->sink ? ntrace_sink_errmsg(L->sink) :
						   ntrace_errstr(L->d->stopped));
	return pd_drain(p, L);
}

/* The head decoder decodes N's bytes up to stream offset upto. */
static int lead_feed(struct ntrace_pardec *p, struct pd_piece *L, struct pd_piece *N,
		     uint64_t upto)
{
	int rc = 0;

	dec_caches_swap(L->d, pd_caches(p, PD_CALLER));
	while (p->lead_pos < upto && !rc) {
		size_t n = upto - p->lead_pos < PD_FEED ? (size_t)(upto - p->lead_pos) : PD_FEED;

		ntrace_decoder_feed(L->d, N->buf + (p->lead_pos - N->start), n);
		p->lead_pos += n;
		if (L->d->stopped)
			rc = p->stopped = ntrace_err_set(&p->err, L->d->stopped, "%s",
							 L->sink ? ntrace_sink_errmsg(L->sink) :
							 ntrace_errstr(L->d->stopped));
		else
			rc = pd_drain(p, L);
	}
	dec_caches_swap(L->d, pd_caches(p, PD_CALLER));
	return rc;
}

static void unlink_after(struct ntrace_pardec *p, struct pd_piece *prev, struct pd_piece *pc)
{
	if (prev)
		prev->next = pc->next;
	else
		p->head = pc->next;
	if (p->tail == pc)
		p->tail = prev;
	p->npieces--;
}

/* N's decoder takes over after the message that ends at sn->end. */
static int join(struct ntrace_pardec *p, struct pd_piece *L, struct pd_piece *N,
		const struct pd_snap *sn)
{
	size_t i;
	int rc = 0;

	if (L->sink && ntrace_sink_flush(L->sink))
		return p->stopped = ntrace_err_set(&p->err, NTRACE_ENOMEM, "%s",
						   ntrace_sink_errmsg(L->sink));
	rc = pd_drain(p, L);
	if (rc)
		return rc;
	stats_add(&p->acc, &L->d->st, &L->base);
	p->retired_in += p->lead_pos - L->start;
	pthread_mutex_lock(&p->mu);
	unlink_after(p, NULL, L);
	N->skip = sn->outpos;
	for (i = N->evdone; i < sn->nev; i++)
		free(N->ev[i].text);
	N->evdone = sn->nev;
	pthread_mutex_unlock(&p->mu);
	N->base = sn->st;
	pd_piece_free(L);
	p->info.joined++;
	return 0;
}

/*
 * Bring the head piece's output up to where the next piece's decoder takes
 * over (or, when no piece follows yet, as far as the input goes).
 */
static int merge_one(struct ntrace_pardec *p)
{
	struct pd_piece *L = p->head, *N;
	unsigned int i;
	int rc = lead_ready(p, L);

	while (!rc && (N = L->next)) {
		pthread_mutex_lock(&p->mu);
		while (!N->snap_done)
			pd_wait_main(p, N);
		pthread_mutex_unlock(&p->mu);
		for (i = 0; i < N->nsnap && !rc; i++) {
			const struct pd_snap *sn = &N->snap[i];

			if (sn->end <= p->lead_pos)
				continue;
			p->info.overlap_bytes += sn->end - p->lead_pos;
			rc = lead_feed(p, L, N, sn->end);
			if (rc)
				return rc;
			dec_state_save(L->d, &p->cmp);
			if (dec_state_equal(&p->cmp, &sn->state))
				return join(p, L, N, sn);
		}
		/* no equal state: the head decoder decodes all of N itself */
		pthread_mutex_lock(&p->mu);
		__atomic_store_n(&N->cancel, true, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&p->full_cv);
		while (N->state == PD_RUNNING)
			pd_wait_main(p, N);
		if (N->state == PD_QUEUED && !N->nocut)
			p->nwant_eng--;	/* no thread will take it */
		unlink_after(p, L, N);
		pthread_mutex_unlock(&p->mu);
		p->info.overlap_bytes += N->start + N->len - p->lead_pos;
		rc = lead_feed(p, L, N, N->start + N->len);
		pd_piece_free(N);
		p->info.redecoded++;
	}
	return rc;
}

/* At most 2 x jobs pieces in memory. */
static int keep_in_flight(struct ntrace_pardec *p)
{
	int rc = 0;

	while (!rc && p->npieces >= 2 * p->nthr && p->npieces >= 2)
		rc = merge_one(p);
	return rc;
}

/*
 * Hold the first bytes until pd_decide() can tell one decoder from pieces:
 * at most PD_DECIDE (the caller gives no more), where it decides.
 */
static int hold(struct ntrace_pardec *p, const uint8_t *buf, size_t len)
{
	if (!p->fill) {
		p->fill = malloc(PD_DECIDE);
		if (!p->fill)
			return p->stopped = ntrace_err_set(&p->err, NTRACE_ENOMEM,
							   "out of memory for input");
		p->fill_cap = PD_DECIDE;
	}
	memcpy(p->fill + p->fill_len, buf, len);
	p->fill_len += len;
	return pd_decide(p, false);
}

/* Cut what is held past two pieces' worth (just split, or fed a lot). */
static int cut_held(struct ntrace_pardec *p)
{
	int rc = 0;

	while (!rc && p->fill_len >= 2 * piece_target(p)) {
		rc = try_cut(p, piece_target(p));
		if (!rc)
			rc = keep_in_flight(p);
	}
	return rc ? (p->stopped = rc) : 0;
}

int ntrace_pardec_feed(struct ntrace_pardec *p, const uint8_t *buf, size_t len)
{
	int rc;

	if (p->stopped || p->finished)
		return p->stopped;
	p->in_bytes += len;
	/* at most PD_DECIDE bytes held, whatever a call gives */
	while (len && p->mode == PD_UNDECIDED) {
		size_t n = PD_DECIDE - p->fill_len < len ? PD_DECIDE - p->fill_len : len;

		rc = hold(p, buf, n);
		if (!rc && p->mode == PD_PARALLEL)
			rc = cut_held(p);
		if (rc)
			return rc;
		buf += n;
		len -= n;
	}
	if (!len)
		return 0;
	if (p->mode == PD_DIRECT) {
		ntrace_decoder_feed(p->direct, buf, len);
		return pd_direct_stopped(p);
	}
	while (len) {
		size_t target = piece_target(p), want = 2 * target, n;

		if (p->fill_cap < want) {
			uint8_t *f = realloc(p->fill, want);

			if (!f)
				return p->stopped = ntrace_err_set(&p->err, NTRACE_ENOMEM,
								   "out of memory for input");
			p->fill = f;
			p->fill_cap = want;
		}
		/*
		 * Up to the target at once, then a step at a time while
		 * looking for a sync: the bytes after a cut are copied into
		 * the next piece's buffer.
		 */
		n = p->fill_len < target ? target - p->fill_len : PD_STEP;
		if (n > want - p->fill_len)
			n = want > p->fill_len ? want - p->fill_len : 0;
		if (n > len)
			n = len;
		memcpy(p->fill + p->fill_len, buf, n);
		p->fill_len += n;
		buf += n;
		len -= n;
		rc = try_cut(p, target);
		if (!rc)
			rc = keep_in_flight(p);
		if (rc)
			return p->stopped = rc;
	}
	return 0;
}

int ntrace_pardec_finish(struct ntrace_pardec *p)
{
	struct pd_piece *L;
	int rc = p->stopped;

	if (p->finished)
		return rc;
	p->finished = true;
	if (!rc && p->mode == PD_UNDECIDED)
		rc = pd_decide(p, true);
	if (!rc && p->mode == PD_PARALLEL)
		rc = cut_held(p);
	if (p->mode == PD_DIRECT) {
		if (!rc)
			rc = pd_direct_finish(p);
		if (!rc && p->pc.runs && fflush(p->out))
			rc = ntrace_err_set(&p->err, NTRACE_EWRITE, "write error: %s",
					    strerror(errno));
		if (rc && !p->stopped)
			p->stopped = rc;
		return p->stopped;
	}
	if (!rc && (p->fill_len || !p->head))
		rc = make_piece(p, p->fill_len, false);
	while (!rc && p->head->next)
		rc = merge_one(p);
	L = p->head;
	if (!rc)
		rc = lead_ready(p, L);
	if (!rc) {
		ntrace_decoder_finish(L->d);
		if (L->d->stopped)
			rc = ntrace_err_set(&p->err, L->d->stopped, "%s", L->sink ?
					    ntrace_sink_errmsg(L->sink) : ntrace_errstr(L->d->stopped));
		else if (L->sink && ntrace_sink_flush(L->sink))
			rc = ntrace_err_set(&p->err, NTRACE_ENOMEM, "%s",
					    ntrace_sink_errmsg(L->sink));
	}
	if (!rc)
		rc = pd_drain(p, L);
	if (L && L->d) {
		stats_add(&p->acc, &L->d->st, &L->base);
		L->base = L->d->st;
	}
	if (!rc && p->pc.runs && fflush(p->out))
		rc = ntrace_err_set(&p->err, NTRACE_EWRITE, "write error: %s", strerror(errno));
	if (rc && !p->stopped)
		p->stopped = rc;
	return p->stopped;
}

void ntrace_pardec_stats(const struct ntrace_pardec *p, struct ntrace_dec_stats *s)
{
	if (p->mode == PD_DIRECT) {
		ntrace_decoder_stats(p->direct, s);
		return;
	}
	*s = p->acc;
	if (!p->finished && p->head && p->head->d && p->head->main)
		stats_add(s, &p->head->d->st, &p->head->base);
	s->bytes = p->in_bytes;
}

void ntrace_pardec_info(const struct ntrace_pardec *p, struct ntrace_pardec_info *i)
{
	*i = p->info;
}

const char *ntrace_pardec_errmsg(const struct ntrace_pardec *p)
{
	return ntrace_err_msg(&p->err);
}

void ntrace_pardec_free(struct ntrace_pardec *p)
{
	struct pd_piece *pc;
	unsigned int i;

	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->shutdown = true;
	for (pc = p->head; pc; pc = pc->next)
		__atomic_store_n(&pc->cancel, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&p->full_cv);
	pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->nthr; i++)
		pthread_join(p->thr[i], NULL);
	while ((pc = p->head)) {
		p->head = pc->next;
		pd_piece_free(pc);
	}
	while (p->spare_eng) {
		struct pd_engine *e = p->spare_eng;

		p->spare_eng = e->next;
		pd_engine_free(e);
	}
	while (p->spare_blk) {
		struct pd_blk *b = p->spare_blk;

		p->spare_blk = b->next;
		free(b->data);
		free(b);
	}
	while (p->nspare_in)
		free(p->spare_in[--p->nspare_in].buf);
	for (i = 0; p->caches && i <= p->pc.jobs; i++)
		ntrace_decoder_free(p->caches[i]);
	free(p->caches);
	free(p->thr);
	ntrace_decoder_free(p->direct);
	ntrace_sink_free(p->dsink);
	free(p->fill);
	dec_state_free(&p->cmp);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	pthread_cond_destroy(&p->full_cv);
	pthread_cond_destroy(&p->work_cv);
	free(p);
}
