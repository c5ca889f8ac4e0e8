// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Flow decoder: construction, byte input, statistics and names. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dec_internal.h"

void ntrace_dec_cfg_default(struct ntrace_dec_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	ntrace_enc_cfg_default(&cfg->enc);
	cfg->enc.implicit_return = NTRACE_IRET_FULL;
	cfg->enc.return_depth = NTRACE_IRET_MAX_DEPTH;
	cfg->enc.icnt_bits = NTRACE_MAX_ICNT_BITS;
	cfg->src = -1;
	cfg->merge_not_taken = true;
}

/* Everything but the caches, as a new decoder has it (d zeroed but for them). */
static void init(struct ntrace_decoder *d, const struct ntrace_dec_cfg *cfg,
		 struct ntrace_images *img, const struct ntrace_dec_ops *ops, void *ctx)
{
	d->cfg = *cfg;
	if (!d->cfg.hist_backlog)
		d->cfg.hist_backlog = 1u << 18;
	d->img = img;
	if (ops)
		d->ops = *ops;
	d->ctx = ctx;
	d->htm_default = cfg->enc.mode == NTRACE_MODE_HTM;
	d->iret = cfg->enc.implicit_return != NTRACE_IRET_OFF;	/* checked: 4-bit itype */
	d->seqj = cfg->enc.seq_jump;
	d->alljumps = cfg->enc.all_jumps;
	d->merge = cfg->merge_not_taken;
	d->xlen = cfg->enc.codec.xlen ? cfg->enc.codec.xlen : 64;
	/* a field carries its own width: the configured ones are a check on request */
	d->icnt_limit = d->bcnt_limit = d->hrep_limit = UINT64_MAX;
	if (cfg->check_widths) {
		d->icnt_limit = (1ull << cfg->enc.icnt_bits) - 1;
		d->bcnt_limit = (1ull << cfg->enc.bcnt_bits) - 1;
		d->hrep_limit = (1ull << cfg->enc.hrepeat_bits) - 1;
	}
	ntrace_parser_init(&d->parser, &cfg->enc.codec, 0);
}

struct ntrace_decoder *ntrace_decoder_new(const struct ntrace_dec_cfg *cfg,
					  struct ntrace_images *img,
					  const struct ntrace_dec_ops *ops, void *ctx,
					  const char **why)
{
	struct ntrace_decoder *d;
	const char *e = NULL;

	ntrace_enc_cfg_check(&cfg->enc, &e);
	if (!e && cfg->src >= (1 << cfg->enc.codec.src_bits))
		e = "the selected SRC does not fit in the SRC width";
	if (!e && !img)
		e = "no program images";
	if (!e && cfg->bcache_bits > 24)
		e = "block cache size must be at most 2^24 entries";
	if (e) {
		if (why)
			*why = e;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d) {
		size_t sz = ((size_t)1 << (cfg->bcache_bits ? cfg->bcache_bits : DEC_BC_BITS)) *
			    sizeof(*d->bc);

		d->bc = dec_table_new(sz);	/* zero: all entries empty */
	}
	if (!d || !d->bc) {
		free(d);
		if (why)
			*why = ntrace_errstr(NTRACE_ENOMEM);
		return NULL;
	}
	d->memo = dec_memo_new();	/* without it, every walk is done */
	d->cuts = dec_cuts_new();	/* without it, every message is parsed */
	d->bc_mask = (1u << (cfg->bcache_bits ? cfg->bcache_bits : DEC_BC_BITS)) - 1;
	d->epoch = 1;	/* the zeroed entries, of epoch 0, are empty */
	init(d, cfg, img, ops, ctx);
	return d;
}

static void free_srcs(struct ntrace_decoder *d)
{
	unsigned int i;

	dec_for_each_src(d, i) {
		free(d->srcs[i]->hq);
		free(d->srcs[i]->held);
		free(d->srcs[i]);
	}
}

void dec_renew(struct ntrace_decoder *d, const struct ntrace_dec_cfg *cfg,
	       struct ntrace_images *img, const struct ntrace_dec_ops *ops, void *ctx)
{
	struct dec_blk *bc = d->bc;
	struct dec_memo *memo = d->memo;
	struct fmsg *cuts = d->cuts;
	struct dec_leap *leap = d->leap;
	uint32_t mask = d->bc_mask, epoch = d->epoch;

	free_srcs(d);
	memset(d, 0, sizeof(*d));
	d->bc = bc;
	d->bc_mask = mask;
	d->epoch = epoch;	/* the cached entries carry it */
	d->memo = memo;
	d->cuts = cuts;
	d->leap = leap;
	init(d, cfg, img, ops, ctx);
}

#define SWAP(x, y) do { __typeof__(x) t_ = (x); (x) = (y); (y) = t_; } while (0)

void dec_caches_swap(struct ntrace_decoder *a, struct ntrace_decoder *b)
{
	SWAP(a->bc, b->bc);
	SWAP(a->bc_mask, b->bc_mask);
	SWAP(a->epoch, b->epoch);	/* the cached entries carry it */
	SWAP(a->memo, b->memo);
	SWAP(a->cuts, b->cuts);
	SWAP(a->leap, b->leap);
}

void *dec_table_new(size_t size)
{
	void *t = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return t == MAP_FAILED ? NULL : t;
}

void dec_table_free(void *t, size_t size)
{
	if (t)
		munmap(t, size);
}

void ntrace_decoder_free(struct ntrace_decoder *d)
{
	if (!d)
		return;
	free_srcs(d);
	dec_memo_free(d->memo);
	dec_cuts_free(d->cuts);
	dec_leap_free(d->leap);
	dec_table_free(d->bc, ((size_t)d->bc_mask + 1) * sizeof(*d->bc));
	free(d);
}

void ntrace_decoder_set_images(struct ntrace_decoder *d, struct ntrace_images *img)
{
	d->img = img;
	/* Cached blocks describe the old code; on the rare wrap, empty the cache. */
	if (++d->epoch == 0) {
		memset(d->bc, 0, ((size_t)d->bc_mask + 1) * sizeof(*d->bc));
		dec_memo_clear(d);
		dec_leap_clear(d);
		d->epoch = 1;	/* 0 marks empty entries */
	}
}

struct ntrace_images *ntrace_decoder_images(const struct ntrace_decoder *d)
{
	return d->img;
}

int ntrace_decoder_feed(struct ntrace_decoder *d, const uint8_t *buf, size_t len)
{
	struct ntrace_msg m[64];

	d->st.bytes += len;
	while (len && !d->stopped) {
		size_t used = 0, n, i, k = dec_fast(d, buf, len);

		buf += k;
		len -= k;
		if (!len || d->stopped)
			break;
		/* one message where the direct path stopped, then back to it;
		 * a batch where it takes nothing (BTM, before a sync, ...) */
		n = ntrace_parse(&d->parser, buf, len, m, k ? 1 : 64, &used);
		for (i = 0; i < n && !d->stopped; i++)
			ntrace_decoder_put(d, &m[i]);
		buf += used;
		len -= used;
		if (!n && !used)
			break;	/* cannot happen: the parser always progresses */
	}
	dec_flush(d);
	return d->stopped;
}

/* End of input: the cut-off message, and open runs closed as stops. */
static void cut(struct ntrace_decoder *d)
{
	struct ntrace_msg m[2];
	size_t n, i;
	uint32_t k;

	n = ntrace_parse_finish(&d->parser, m);
	for (i = 0; i < n && !d->stopped; i++)
		ntrace_decoder_put(d, &m[i]);
	dec_release_all(d);
	/* a trace cut off mid-flow: deliver what was decoded, as a stop */
	dec_for_each_src(d, k) {
		struct dec_src *s = d->srcs[k];

		if (d->stopped)
			break;
		if (s->synced && s->run_open) {
			dec_run_close(d, s, s->run_last, 0, NTRACE_DK_STOP, 0);
			s->run_open = false;
		}
	}
	dec_flush(d);
}

int ntrace_decoder_finish(struct ntrace_decoder *d)
{
	cut(d);
	return d->stopped;
}

int ntrace_decoder_reset(struct ntrace_decoder *d)
{
	uint32_t k;

	cut(d);
	ntrace_parser_init(&d->parser, &d->cfg.enc.codec, d->st.bytes);
	d->aligned = false;
	dec_for_each_src(d, k)
		dec_src_unsync(d, d->srcs[k]);
	return d->stopped;
}

void ntrace_decoder_set_aligned(struct ntrace_decoder *d)
{
	d->aligned = true;
}

void ntrace_decoder_stats(const struct ntrace_decoder *d, struct ntrace_dec_stats *s)
{
	*s = d->st;
}

#define KIND(s) { s, sizeof(s) - 1 }
const struct dec_name dec_kind_names[NTRACE_DK__COUNT] = {
	KIND("fall"), KIND("not_taken"), KIND("taken"), KIND("jump"), KIND("call"),
	KIND("ind_jump"), KIND("ind_call"), KIND("return"), KIND("trap_return"),
	KIND("exception"), KIND("interrupt"), KIND("trap"), KIND("stop"),
};

const char *ntrace_dec_kind_name(unsigned int kind)
{
	return kind < NTRACE_DK__COUNT ? dec_kind_names[kind].s : "?";
}

const char *ntrace_dec_ev_name(unsigned int type)
{
	static const char *const names[NTRACE_DEV__COUNT] = {
		"sync", "error", "warning", "lost", "stop", "ownership", "quirk",
	};

	return type < NTRACE_DEV__COUNT ? names[type] : "?";
}
