// SPDX-License-Identifier: GPL-2.0-only
/*
 * rt-tool: N-Trace round trip on recorded ground truth.
 *
 *   rt-tool all PCS IMAGE...             every encoder configuration: records ->
 *                                        encoder -> bytes -> decoder -> PCs, compared
 *                                        with the recorded PCs; plus corrupted and
 *                                        truncated variants. One TAP line each.
 *   rt-tool encode CONFIG PCS OUT IMAGE... write the trace bytes of one configuration
 *   rt-tool encode-stray CONFIG N PCS OUT IMAGE...  the same with a stray
 *                                        end-of-message byte (0x03, an encoder
 *                                        quirk) after every Nth message
 *   rt-tool expect PCS OUT IMAGE...      write the recorded PCs as "0x%lx" lines
 *   rt-tool configs                      list the configuration names
 *   rt-tool count-ok CONFIG PCS IMAGE... exit 0 unless CONFIG counts calls
 *                                        (simple counting) and the program
 *                                        returns elsewhere than to a call site
 * RT_ONLY=TEXT: "all" runs only the configurations whose name holds TEXT.
 *
 * The records come from the ground truth through the ingress builder; the
 * tool only adds timestamps (record index * 3) and the sequentially-
 * inferable flag the hart would give for LUI/AUIPC + JALR pairs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntrace/decoder.h"
#include "ntrace/ingress_build.h"
#include "rt_configs.h"

struct sync_pt {
	uint64_t offset;
	size_t rec;	/* index of the record the sync message points at */
};

struct enc_out {
	struct ntrace_encoder *e;
	const struct ntrace_codec_cfg *codec;
	uint8_t *buf;
	size_t n, cap;
	struct sync_pt *sp;
	size_t nsp, spcap;
	size_t *ends;		/* end offset of every message */
	size_t nends, endcap;
	int bad;
};

static int emit(void *ctx, const struct ntrace_msg *m)
{
	struct enc_out *o = ctx;
	uint8_t b[NTRACE_MSG_MAX_BYTES];
	size_t len = ntrace_msg_encode(o->codec, m, b);

	if (!len) {
		o->bad = 1;
		return -1;
	}
	if (o->n + len > o->cap) {
		o->cap = (o->cap + len) * 2;
		o->buf = realloc(o->buf, o->cap);
		if (!o->buf)
			abort();
	}
	if (ntrace_tcode_is_sync(m->tcode)) {
		if (o->nsp == o->spcap) {
			o->spcap = o->spcap ? o->spcap * 2 : 256;
			o->sp = realloc(o->sp, o->spcap * sizeof(*o->sp));
			if (!o->sp)
				abort();
		}
		o->sp[o->nsp].offset = o->n;
		o->sp[o->nsp].rec = o->e->records;
		o->nsp++;
	}
	memcpy(o->buf + o->n, b, len);
	o->n += len;
	if (o->nends == o->endcap) {
		o->endcap = o->endcap ? o->endcap * 2 : 1024;
		o->ends = realloc(o->ends, o->endcap * sizeof(*o->ends));
		if (!o->ends)
			abort();
	}
	o->ends[o->nends++] = o->n;
	return 0;
}

/* nover > 0: model that many output FIFO overruns, evenly spaced */
static int encode_lossy(const struct ntrace_enc_cfg *cfg, const struct ntrace_insn *in, size_t n,
			struct enc_out *o, unsigned int nover)
{
	struct ntrace_encoder e;
	const char *err;
	size_t at = 0;
	unsigned int k;

	memset(o, 0, sizeof(*o));
	o->e = &e;
	o->codec = &cfg->codec;
	if (ntrace_encoder_init(&e, cfg, emit, o, &err)) {
		fprintf(stderr, "rt-tool: encoder: %s\n", err);
		return -1;
	}
	for (k = 1; k <= nover; k++) {
		size_t to = n * k / (nover + 1);

		if (ntrace_encoder_put(&e, in + at, to - at))
			return -1;
		ntrace_encoder_overrun(&e, NTRACE_ECODE_PROGRAM_LOST);
		at = to;
	}
	if (ntrace_encoder_put(&e, in + at, n - at) || ntrace_encoder_finish(&e) || o->bad)
		return -1;
	return 0;
}

static int encode(const struct ntrace_enc_cfg *cfg, const struct ntrace_insn *in, size_t n,
		  struct enc_out *o)
{
	struct ntrace_encoder e;
	const char *err;

	memset(o, 0, sizeof(*o));
	o->e = &e;
	o->codec = &cfg->codec;
	if (ntrace_encoder_init(&e, cfg, emit, o, &err)) {
		fprintf(stderr, "rt-tool: encoder: %s\n", err);
		return -1;
	}
	if (ntrace_encoder_put(&e, in, n) || ntrace_encoder_finish(&e) || o->bad)
		return -1;
	return 0;
}

/* ---- decoding into segments ---- */

struct seg {
	uint64_t offset;	/* of the sync message that started it */
	size_t first, n;	/* PCs [first, first + n) of the output */
};

struct dec_out {
	struct ntrace_decoder *d;
	uint64_t *pc;
	size_t n, cap;
	struct seg *seg;
	size_t nseg, segcap;
	size_t errors, lost;
	uint64_t last_ts;
	int ts_backwards;
	int verbose;
	const size_t *rec_of_pc;	/* set: check explicit transfers' timestamps */
	size_t ts_checked, ts_bad;
	int want_src;			/* >= 0: keep only runs of this SRC */
};

static int add_pcs(void *ctx, const uint64_t *pcs, size_t n)
{
	struct dec_out *o = ctx;

	if (o->n + n > o->cap) {
		o->cap = (o->cap + n) * 2;
		o->pc = realloc(o->pc, o->cap * sizeof(*o->pc));
		if (!o->pc)
			abort();
	}
	memcpy(o->pc + o->n, pcs, n * sizeof(*pcs));
	o->n += n;
	if (o->nseg)
		o->seg[o->nseg - 1].n += n;
	return 0;
}

static int on_runs(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct dec_out *o = ctx;
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].tstamp < o->last_ts)
			o->ts_backwards = 1;
		o->last_ts = r[i].tstamp;
		if (o->verbose > 1)
			fprintf(stderr, "# run 0x%" PRIx64 " +%u last 0x%" PRIx64 " -> 0x%" PRIx64
				" %s\n", r[i].start, r[i].ninsn, r[i].last, r[i].to,
				ntrace_dec_kind_name(r[i].kind));
		if (o->want_src >= 0 && r[i].src != o->want_src)
			continue;
		if (r[i].ninsn && ntrace_decoder_run_pcs(o->d, &r[i], add_pcs, o))
			return -1;
		/* a transfer a message reported carries that message's time:
		 * the encoder stamps it with the record's time (index * 3) */
		if (o->rec_of_pc && r[i].ninsn && !r[i].flags && o->n &&
		    (r[i].kind == NTRACE_DK_IND_JUMP || r[i].kind == NTRACE_DK_IND_CALL ||
		     r[i].kind == NTRACE_DK_RETURN || r[i].kind == NTRACE_DK_TRAP_RETURN)) {
			o->ts_checked++;
			if (r[i].tstamp != 3 * (uint64_t)o->rec_of_pc[o->n - 1])
				o->ts_bad++;
		}
	}
	return 0;
}

static int on_event(void *ctx, const struct ntrace_dec_event *ev)
{
	struct dec_out *o = ctx;

	if (o->verbose)
		fprintf(stderr, "# event %s @%" PRIu64 " pc=0x%" PRIx64 ": %s\n",
			ntrace_dec_ev_name(ev->type), ev->offset, ev->pc, ev->text);
	if (ev->type == NTRACE_DEV_ERROR)
		o->errors++;
	if (ev->type == NTRACE_DEV_LOST)
		o->lost++;
	if (ev->type == NTRACE_DEV_SYNC) {
		if (o->nseg == o->segcap) {
			o->segcap = o->segcap ? o->segcap * 2 : 64;
			o->seg = realloc(o->seg, o->segcap * sizeof(*o->seg));
			if (!o->seg)
				abort();
		}
		o->seg[o->nseg].offset = ev->offset;
		o->seg[o->nseg].first = o->n;
		o->seg[o->nseg].n = 0;
		o->nseg++;
	}
	return 0;
}

static int decode_all_src;	/* 1 + SRC: decode every source, keep this one */
static uint8_t decode_bc_bits;	/* block cache size (0: the default) */
static const size_t *check_ts;	/* truth's record index per PC: check timestamps */

static int decode(const struct ntrace_enc_cfg *cfg, struct ntrace_images *img, const uint8_t *buf,
		  size_t len, struct dec_out *o)
{
	struct ntrace_dec_cfg dc;
	struct ntrace_dec_ops ops = { on_runs, on_event };
	const char *err;
	size_t off;

	memset(o, 0, sizeof(*o));
	o->verbose = getenv("RT_VERBOSE") ? atoi(getenv("RT_VERBOSE")) : 0;
	o->want_src = -1;
	o->rec_of_pc = check_ts;
	ntrace_dec_cfg_default(&dc);
	dc.enc = *cfg;
	dc.bcache_bits = decode_bc_bits;
	dc.src = cfg->codec.src_bits ? cfg->src_id : -1;
	if (decode_all_src) {
		dc.src = -1;
		o->want_src = decode_all_src - 1;
	}
	o->d = ntrace_decoder_new(&dc, img, &ops, o, &err);
	if (!o->d) {
		fprintf(stderr, "rt-tool: decoder: %s\n", err);
		return -1;
	}
	/*
	 * Feed in uneven chunks: results must not depend on the split. The
	 * first half goes a byte at a time: the direct path (dec_fast.c)
	 * needs whole messages, so there every message takes the parser and
	 * ntrace_decoder_put(), and both ways meet the same truth.
	 */
	for (off = 0; off < len;) {
		size_t c = off < len / 2 ? 1 : 1 + (off * 7919) % 4093;

		if (c > len - off)
			c = len - off;
		ntrace_decoder_feed(o->d, buf + off, c);
		off += c;
	}
	ntrace_decoder_finish(o->d);
	return 0;
}

static void dec_out_free(struct dec_out *o)
{
	ntrace_decoder_free(o->d);
	free(o->pc);
	free(o->seg);
}

/* ---- ground truth ---- */

static uint8_t rec_priv = NTRACE_PRIV_U;	/* privilege of the recorded flow */

struct truth {
	struct ntrace_insn_vec rec;
	uint64_t *pc;		/* addresses of retired records */
	size_t npc;
	size_t *pos;		/* record index -> index in pc[] */
	size_t *recidx;		/* index in pc[] -> record index */
};

/* The hart's "sequentially inferable" flag (isa.h), for consecutive records. */
static void mark_seq(struct ntrace_images *img, struct ntrace_insn *in, size_t n)
{
	struct ntrace_iext p, j;
	uint64_t target;
	size_t i;

	for (i = 1; i < n; i++) {
		if (in[i - 1].size == 0 || in[i - 1].addr + in[i - 1].size != in[i].addr ||
		    in[i - 1].itype != NTRACE_ITYPE_NONE)
			continue;
		/* the jump first: most records are no candidate */
		if (ntrace_images_decode_ext(img, in[i].addr, &j) || !ntrace_isa_seq_jump_reg(&j) ||
		    ntrace_images_decode_ext(img, in[i - 1].addr, &p))
			continue;
		if (ntrace_isa_seq_jump(&p, in[i - 1].addr, &j, ntrace_images_isa(img)->xlen,
					&target))
			in[i].flags |= NTRACE_INSN_SEQ_INFERABLE;
	}
}

static int load_truth(const char *pcs, struct ntrace_images *img, struct truth *t)
{
	struct ntrace_gt gt;
	struct ntrace_ingress_opts io = { .priv = rec_priv };
	char err[512];
	size_t i;

	memset(t, 0, sizeof(*t));
	if (ntrace_gt_load(pcs, &gt, err, sizeof(err)) < 0 ||
	    ntrace_ingress_from_gt(&gt, img, &io, 0, &t->rec, err, sizeof(err)) < 0) {
		fprintf(stderr, "rt-tool: %s: %s\n", pcs, err);
		return -1;
	}
	ntrace_gt_free(&gt);
	t->pc = malloc((t->rec.n + 1) * sizeof(*t->pc));
	t->pos = malloc((t->rec.n + 1) * sizeof(*t->pos));
	t->recidx = malloc((t->rec.n + 1) * sizeof(*t->recidx));
	if (!t->pc || !t->pos || !t->recidx)
		abort();
	for (i = 0; i < t->rec.n; i++) {
		t->rec.v[i].tstamp = 3 * (uint64_t)i;
		t->pos[i] = t->npc;
		if (t->rec.v[i].size) {
			t->recidx[t->npc] = i;
			t->pc[t->npc++] = t->rec.v[i].addr;
		}
	}
	t->pos[t->rec.n] = t->npc;
	mark_seq(img, t->rec.v, t->rec.n);
	return 0;
}

/* ---- checks ---- */

static void first_diff(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, char *msg,
		       size_t len)
{
	size_t i, n = na < nb ? na : nb;

	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	if (i < n)
		snprintf(msg, len, "first difference at instruction %zu: decoded 0x%" PRIx64
			 ", recorded 0x%" PRIx64, i, a[i], b[i]);
	else
		snprintf(msg, len, "decoded %zu instructions, recorded %zu", na, nb);
}

static const struct sync_pt *find_sync(const struct enc_out *e, uint64_t offset)
{
	size_t lo = 0, hi = e->nsp;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (e->sp[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->nsp && e->sp[lo].offset == offset ? &e->sp[lo] : NULL;
}

/*
 * Corrupted stream: bytes [bad_lo, bad_hi) of the original are damaged and
 * the decoder saw the stream from byte base on. Every segment that starts at
 * a sync message wholly after the damage must match the truth from that
 * sync's record on.
 */
static int check_segments(const struct truth *t, const struct enc_out *e, const struct dec_out *o,
			  uint64_t base, uint64_t bad_lo, uint64_t bad_hi, size_t *checked,
			  char *msg, size_t len)
{
	size_t k;

	*checked = 0;
	(void)bad_lo;
	for (k = 0; k < o->nseg; k++) {
		const struct seg *s = &o->seg[k];
		uint64_t off = s->offset + base;
		const struct sync_pt *sp;
		size_t at;

		if (off < bad_hi)
			continue;
		sp = find_sync(e, off);
		if (!sp) {
			/*
			 * Damaged framing can make the tail of a message look like a
			 * sync message (N-Trace has no alignment pattern). That is
			 * only acceptable if the decoder rejects it before decoding
			 * anything from it.
			 */
			if (!s->n)
				continue;
			snprintf(msg, len, "segment %zu starts at offset %" PRIu64
				 ", which is not a sync message, and decodes %zu instructions",
				 k, off, s->n);
			return -1;
		}
		at = t->pos[sp->rec];
		if (at + s->n > t->npc ||
		    memcmp(o->pc + s->first, t->pc + at, s->n * sizeof(uint64_t))) {
			char d[160];

			first_diff(o->pc + s->first, s->n, t->pc + at,
				   t->npc - at < s->n ? t->npc - at : s->n, d, sizeof(d));
			snprintf(msg, len, "segment %zu (sync at %" PRIu64 ", instruction %zu): %s",
				 k, off, at, d);
			return -1;
		}
		*checked += s->n;
	}
	return 0;
}

static int run_variant(const char *prog, const struct rt_config *c, const struct ntrace_enc_cfg *cfg,
		       struct ntrace_images *img, const struct truth *t, const struct enc_out *e,
		       const char *vname, size_t base, size_t cut, size_t bad_lo, size_t bad_hi,
		       uint8_t xor)
{
	uint8_t *buf = malloc(e->n + 1);
	struct dec_out o;
	char msg[512] = "";
	size_t checked = 0, len = cut - base, i;
	int ok;

	if (!buf)
		abort();
	memcpy(buf, e->buf + base, len);
	for (i = bad_lo; i < bad_hi && i < cut; i++)
		if (i >= base)
			buf[i - base] ^= xor;
	if (decode(cfg, img, buf, len, &o)) {
		free(buf);
		printf("not ok - rt %s %s %s: decoder setup failed\n", prog, c->name, vname);
		return 1;
	}
	ok = !check_segments(t, e, &o, base, bad_lo, bad_hi, &checked, msg, sizeof(msg));
	/* the damage must not hide everything after it: a later sync resyncs */
	/* a sync message after the damage must bring decoding back */
	if (ok && checked == 0 && bad_hi > 0) {
		for (i = 0; i < e->nsp; i++)
			if (e->sp[i].offset >= bad_hi && e->sp[i].offset >= base &&
			    e->sp[i].offset < cut && t->pos[e->sp[i].rec] < t->npc)
				break;
		if (i + 2 < e->nsp) {	/* and more syncs after it: there is flow between */
			ok = 0;
			snprintf(msg, sizeof(msg), "nothing verified after the damage although a"
				 " sync message follows it (offset %" PRIu64 ")", e->sp[i].offset);
		}
	}
	printf("%s - rt %s %s %s # %zu decoded, %zu verified after resync, %zu errors%s%s\n",
	       ok ? "ok" : "not ok", prog, c->name, vname, o.n, checked, o.errors,
	       *msg ? ": " : "", msg);
	dec_out_free(&o);
	free(buf);
	return !ok;
}

/*
 * Simple counting implicit return cannot trace a program that returns
 * somewhere else than to its call site (longjmp): the encoder sends nothing
 * for such a return ("Implicit Return Optimization"). Find out whether the
 * recorded flow does that, with the encoder's counter and a return stack.
 */
static int count_mode_traceable(const struct truth *t, unsigned int depth, bool v0)
{
	static uint64_t st[1024];	/* the deepest counter: SiFive v0's 1023 */
	unsigned int top = 0, len = 0, count = 0;
	size_t i;

	for (i = 0; i + 1 < t->rec.n; i++) {
		const struct ntrace_insn *r = &t->rec.v[i];
		uint64_t after = r->addr + r->size;
		/* SiFive v0 traces a co-routine swap as a call: it does not pop */
		bool ret = r->itype == NTRACE_ITYPE_RETURN || (r->itype == NTRACE_ITYPE_COSWAP && !v0);

		if (r->flags & NTRACE_INSN_TRACE_START)
			count = len = 0;
		if (ret) {
			bool predicted = count > 0;
			uint64_t want = 0;

			if (count)
				count--;
			if (len) {
				top = (top + 1023) % 1024;
				len--;
				want = st[top];
			}
			if (predicted && want != t->rec.v[i + 1].addr)
				return 0;
		}
		if (r->itype == NTRACE_ITYPE_DIR_CALL || r->itype == NTRACE_ITYPE_IND_CALL ||
		    r->itype == NTRACE_ITYPE_COSWAP) {
			st[top] = after;
			top = (top + 1) % 1024;
			if (len < 1024)
				len++;
			if (count < depth)
				count++;
		}
	}
	return 1;
}

/*
 * Two modelled FIFO overruns: the decoder must report both Error messages,
 * and everything it decodes must match the truth from each SYNC=7 on.
 */
static int run_overrun(const char *prog, const struct rt_config *c, const struct ntrace_enc_cfg *cfg,
		       struct ntrace_images *img, const struct truth *t)
{
	struct enc_out e;
	struct dec_out o;
	char msg[512] = "";
	size_t checked = 0;
	int ok;

	if (encode_lossy(cfg, t->rec.v, t->rec.n, &e, 2) || decode(cfg, img, e.buf, e.n, &o)) {
		printf("not ok - rt %s %s overrun: encoding or decoder setup failed\n", prog,
		       c->name);
		return 1;
	}
	ok = !check_segments(t, &e, &o, 0, 0, 0, &checked, msg, sizeof(msg));
	if (ok && o.lost != 2) {
		ok = 0;
		snprintf(msg, sizeof(msg), "%zu Error messages reported, 2 sent", o.lost);
	}
	if (ok && checked < t->npc / 3) {
		ok = 0;
		snprintf(msg, sizeof(msg), "only %zu of %zu instructions decoded", checked, t->npc);
	}
	printf("%s - rt %s %s overrun # %zu decoded and verified, %zu lost reported%s%s\n",
	       ok ? "ok" : "not ok", prog, c->name, checked, o.lost, *msg ? ": " : "", msg);
	dec_out_free(&o);
	free(e.buf);
	free(e.sp);
	free(e.ends);
	return !ok;
}

/*
 * A block cache of two entries: nearly every block evicts another, also
 * while the run callback expands runs in the middle of the walk. The flow
 * must not depend on the cache size.
 */
static int run_tiny_cache(const char *prog, const struct rt_config *c,
			  const struct ntrace_enc_cfg *cfg, struct ntrace_images *img,
			  const struct truth *t, const struct enc_out *e)
{
	struct dec_out o;
	char msg[256] = "";
	int ok;

	decode_bc_bits = 1;
	ok = !decode(cfg, img, e->buf, e->n, &o);
	decode_bc_bits = 0;
	if (!ok)
		return printf("not ok - rt %s %s tiny-cache: decoder setup failed\n", prog,
			      c->name), 1;
	if (o.n != t->npc || memcmp(o.pc, t->pc, o.n * sizeof(uint64_t)) || o.errors) {
		ok = 0;
		first_diff(o.pc, o.n, t->pc, t->npc, msg, sizeof(msg));
	}
	printf("%s - rt %s %s tiny-cache # 2-entry block cache decodes exactly%s%s\n",
	       ok ? "ok" : "not ok", prog, c->name, *msg ? ": " : "", msg);
	dec_out_free(&o);
	return !ok;
}

/*
 * Two encoders sharing a trace stream (SRC 1 and 2, "Decoding trace from
 * multiple harts"): the same flow, messages interleaved in bursts. Decoding
 * every source with its own state must give each flow exactly.
 */
static int run_two_sources(const char *prog, const struct rt_config *c,
			   const struct ntrace_enc_cfg *cfg, struct ntrace_images *img,
			   const struct truth *t, const struct enc_out *a)
{
	struct ntrace_enc_cfg c2 = *cfg;
	struct enc_out b;
	struct dec_out o;
	uint8_t *mix;
	size_t ia = 0, ib = 0, pa = 0, pb = 0, n = 0;
	int ok = 1, k;
	char msg[256] = "";

	c2.src_id = cfg->src_id == 2 ? 1 : 2;
	if (encode(&c2, t->rec.v, t->rec.n, &b))
		return printf("not ok - rt %s %s two-sources: encoding failed\n", prog, c->name), 1;
	mix = malloc(a->n + b.n);
	if (!mix)
		abort();
	while (ia < a->nends || ib < b.nends) {	/* 1..7 messages of each in turn */
		for (k = 1 + (int)((ia + ib) % 7); k-- && ia < a->nends; ia++) {
			memcpy(mix + n, a->buf + pa, a->ends[ia] - pa);
			n += a->ends[ia] - pa;
			pa = a->ends[ia];
		}
		for (k = 1 + (int)((ia * 3 + ib) % 5); k-- && ib < b.nends; ib++) {
			memcpy(mix + n, b.buf + pb, b.ends[ib] - pb);
			n += b.ends[ib] - pb;
			pb = b.ends[ib];
		}
	}
	for (k = 0; k < 2 && ok; k++) {
		decode_all_src = 1 + (k ? c2.src_id : cfg->src_id);
		decode(cfg, img, mix, n, &o);
		decode_all_src = 0;
		if (o.n != t->npc || memcmp(o.pc, t->pc, o.n * sizeof(uint64_t)) || o.errors) {
			ok = 0;
			first_diff(o.pc, o.n, t->pc, t->npc, msg, sizeof(msg));
		}
		dec_out_free(&o);
	}
	printf("%s - rt %s %s two-sources # SRC %u and %u interleaved, each decoded exactly%s%s\n",
	       ok ? "ok" : "not ok", prog, c->name, cfg->src_id, c2.src_id, *msg ? ": " : "", msg);
	free(mix);
	free(b.buf);
	free(b.sp);
	free(b.ends);
	return !ok;
}

static int run_config(const char *prog, const struct rt_config *c, struct ntrace_images *img,
		      const struct truth *t)
{
	struct ntrace_enc_cfg cfg;
	struct enc_out e;
	struct dec_out o;
	char msg[512] = "";
	int ok, fails = 0, rc;

	ntrace_enc_cfg_default(&cfg);
	c->apply(&cfg);
	cfg.codec.xlen = ntrace_images_isa(img)->xlen;	/* the ELF class decides */
	if (cfg.implicit_return == NTRACE_IRET_COUNT && !count_mode_traceable(t, cfg.return_depth,
						   cfg.codec.variant == NTRACE_VARIANT_SIFIVE_V0)) {
		printf("ok - rt %s %s # SKIP the program returns elsewhere than to its call site,"
		       " which counting implicit return cannot trace (spec limitation)\n", prog,
		       c->name);
		return 0;
	}
	if (encode(&cfg, t->rec.v, t->rec.n, &e)) {
		printf("not ok - rt %s %s: encoding failed\n", prog, c->name);
		return 1;
	}
	check_ts = cfg.codec.tstamp && !cfg.repeat_branch ? t->recidx : NULL;
	rc = decode(&cfg, img, e.buf, e.n, &o);
	check_ts = NULL;
	if (rc) {
		printf("not ok - rt %s %s: decoder setup failed\n", prog, c->name);
		return 1;
	}
	ok = o.n == t->npc && !memcmp(o.pc, t->pc, o.n * sizeof(uint64_t));
	if (!ok)
		first_diff(o.pc, o.n, t->pc, t->npc, msg, sizeof(msg));
	if (ok && o.errors) {
		ok = 0;
		snprintf(msg, sizeof(msg), "%zu decode errors on a clean trace", o.errors);
	}
	if (ok && cfg.codec.tstamp && o.ts_backwards) {
		ok = 0;
		snprintf(msg, sizeof(msg), "timestamps go backwards");
	}
	if (ok && o.ts_bad) {
		ok = 0;
		snprintf(msg, sizeof(msg), "%zu of %zu explicit transfers have a wrong timestamp",
			 o.ts_bad, o.ts_checked);
	}
	if (ok && o.ts_checked)
		snprintf(msg, sizeof(msg), "%zu timestamps exact", o.ts_checked);
	printf("%s - rt %s %s # %zu instructions, %zu bytes, %.3f bits/instruction%s%s\n",
	       ok ? "ok" : "not ok", prog, c->name, o.n, e.n,
	       t->npc ? 8.0 * (double)e.n / (double)t->npc : 0.0, *msg ? "; " : "", msg);
	fails += !ok;
	dec_out_free(&o);

	if (c->corrupt && e.n > 64) {
		size_t n = e.n;

		fails += run_variant(prog, c, &cfg, img, t, &e, "cut-head", n / 3, n, 0, n / 3, 0);
		fails += run_variant(prog, c, &cfg, img, t, &e, "cut-tail", 0, 2 * n / 3, 0, 0, 0);
		fails += run_variant(prog, c, &cfg, img, t, &e, "flip", 0, n, n / 2, n / 2 + 1, 0x5c);
		fails += run_variant(prog, c, &cfg, img, t, &e, "smash", 0, n, 2 * n / 5,
				     2 * n / 5 + 48, 0xff);
		fails += run_overrun(prog, c, &cfg, img, t);
		fails += run_tiny_cache(prog, c, &cfg, img, t, &e);
		if (cfg.codec.src_bits)
			fails += run_two_sources(prog, c, &cfg, img, t, &e);
	}
	free(e.buf);
	free(e.sp);
	free(e.ends);
	return fails;
}

/* Image specs, and "--priv u|s|m" (privilege of the recorded flow). */
static struct ntrace_images *load_images(char **spec, int n)
{
	struct ntrace_images *img = ntrace_images_new(NULL);
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(spec[i], "--priv") && i + 1 < n) {
			i++;
			rec_priv = spec[i][0] == 'm' ? NTRACE_PRIV_M : spec[i][0] == 's' ?
				   NTRACE_PRIV_S : NTRACE_PRIV_U;
			continue;
		}
		if (ntrace_images_add_spec(img, spec[i])) {
			fprintf(stderr, "rt-tool: %s\n", ntrace_images_errmsg(img));
			ntrace_images_free(img);
			return NULL;
		}
	}
	return img;
}

static const char *base_name(const char *path)
{
	static char name[256];
	const char *s = strrchr(path, '/');
	char *dot;

	snprintf(name, sizeof(name), "%s", s ? s + 1 : path);
	dot = strrchr(name, '.');
	if (dot)
		*dot = 0;
	return name;
}

/*
 * The trace of configuration name for the ground truth pcs with images
 * spec: 0, 1 (encoding failed) or 2 (bad arguments or input).
 */
static int encode_named(const char *name, const char *pcs, char **spec, int n,
			struct truth *t, struct enc_out *e)
{
	const struct rt_config *c = rt_config_find(name);
	struct ntrace_images *img = load_images(spec, n);
	struct ntrace_enc_cfg cfg;

	if (!c || !img || load_truth(pcs, img, t))
		return 2;
	ntrace_enc_cfg_default(&cfg);
	c->apply(&cfg);
	cfg.codec.xlen = ntrace_images_isa(img)->xlen;
	return encode(&cfg, t->rec.v, t->rec.n, e) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ntrace_images *img;
	struct truth t;
	int fails = 0;
	size_t i;

	if (argc >= 2 && !strcmp(argv[1], "configs")) {
		for (i = 0; i < RT_NCONFIGS; i++)
			printf("%s\n", rt_configs[i].name);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "all")) {
		char prog[256];

		img = load_images(argv + 3, argc - 3);
		if (!img || load_truth(argv[2], img, &t))
			return 2;
		snprintf(prog, sizeof(prog), "%s", base_name(argv[2]));
		for (i = 0; i < RT_NCONFIGS; i++)
			if (!getenv("RT_ONLY") || strstr(rt_configs[i].name, getenv("RT_ONLY")))
				fails += run_config(prog, &rt_configs[i], img, &t);
		return fails ? 1 : 0;
	}
	/* count-ok CONFIG PCS IMAGE...: exit 0 if CONFIG's implicit return can trace it */
	if (argc >= 5 && !strcmp(argv[1], "count-ok")) {
		const struct rt_config *c = rt_config_find(argv[2]);
		struct ntrace_enc_cfg cfg;

		if (!c)
			return 2;
		ntrace_enc_cfg_default(&cfg);
		c->apply(&cfg);
		img = load_images(argv + 4, argc - 4);
		if (!img || load_truth(argv[3], img, &t))
			return 2;
		return cfg.implicit_return != NTRACE_IRET_COUNT ||
		       count_mode_traceable(&t, cfg.return_depth,
					    cfg.codec.variant == NTRACE_VARIANT_SIFIVE_V0) ? 0 : 1;
	}
	if (argc >= 5 && !strcmp(argv[1], "check-sub")) {	/* PCLIST PCS IMAGE... */
		uint64_t *v = NULL, x;
		size_t n = 0, cap = 0, k;
		FILE *f;

		img = load_images(argv + 4, argc - 4);
		if (!img || load_truth(argv[3], img, &t))
			return 2;
		f = fopen(argv[2], "r");
		if (!f)
			return 2;
		while (fscanf(f, "%" SCNx64, &x) == 1) {
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					abort();
			}
			v[n++] = x;
		}
		fclose(f);
		/* the decoded list must be a contiguous part of the recorded one */
		for (k = 0; n && k + n <= t.npc; k++)
			if (!memcmp(t.pc + k, v, n * sizeof(*v))) {
				printf("%zu instructions = recorded [%zu, %zu)\n", n, k, k + n);
				return 0;
			}
		printf("%zu decoded instructions are not a contiguous part of the %zu recorded\n",
		       n, t.npc);
		return 1;
	}
	if (argc >= 5 && !strcmp(argv[1], "check-tv")) {	/* TV PCS IMAGE...: tv export = truth */
		struct ntrace_insn_vec v = { 0 };
		char err[256];
		uint8_t *buf;
		size_t n = 0, k = 0;
		FILE *f;

		img = load_images(argv + 4, argc - 4);
		if (!img || load_truth(argv[3], img, &t))
			return 2;
		f = fopen(argv[2], "rb");
		buf = malloc(1 << 26);
		if (!f || !buf)
			return 2;
		n = fread(buf, 1, 1 << 26, f);
		fclose(f);
		if (ntrace_tv_parse(buf, n, NULL, NULL, &v, err, sizeof(err)) < 0) {
			printf("tandem trace does not parse: %s\n", err);
			return 1;
		}
		for (i = 0; i < v.n; i++) {
			if (!v.v[i].size)
				continue;
			if (k >= t.npc || v.v[i].addr != t.pc[k]) {
				printf("record %zu: 0x%" PRIx64 ", truth 0x%" PRIx64 "\n", i,
				       v.v[i].addr, k < t.npc ? t.pc[k] : 0);
				return 1;
			}
			k++;
		}
		if (k != t.npc) {
			printf("%zu instructions in the tandem trace, %zu recorded\n", k, t.npc);
			return 1;
		}
		printf("%zu instructions\n", k);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "check-branches")) {	/* BR PCS IMAGE... */
		struct br { uint64_t from, to; int trap; } *br = NULL;
		size_t nbr = 0, cap = 0, k = 0, nrec = 0, disc = 0;
		char line[256];
		FILE *f;

		img = load_images(argv + 4, argc - 4);
		if (!img || load_truth(argv[3], img, &t))
			return 2;
		/* discontinuities of the recorded flow not caused by a trap */
		for (i = 1; i < t.rec.n; i++) {
			const struct ntrace_insn *a = &t.rec.v[i - 1], *b = &t.rec.v[i];

			if (a->size && b->size && b->addr != a->addr + a->size &&
			    a->itype != NTRACE_ITYPE_EXCEPTION && a->itype != NTRACE_ITYPE_INTERRUPT)
				disc++;
		}
		f = fopen(argv[2], "r");
		if (!f)
			return 2;
		while (fgets(line, sizeof(line), f)) {
			char kind[32];

			if (nbr == cap) {
				cap = cap ? 2 * cap : 4096;
				br = realloc(br, cap * sizeof(*br));
				if (!br)
					abort();
			}
			if (sscanf(line, "%" SCNx64 " %" SCNx64 " %31s", &br[nbr].from, &br[nbr].to,
				   kind) != 3) {
				printf("bad line: %s", line);
				return 1;
			}
			br[nbr].trap = !strcmp(kind, "exception") || !strcmp(kind, "interrupt") ||
				       !strcmp(kind, "trap") || !strcmp(kind, "stop");
			nbr++;
		}
		fclose(f);
		/* every transfer record is a step of the recorded flow, in order; a
		 * transfer whose target traps before retiring is followed by the trap */
		for (i = 0; i < nbr; i++) {
			bool trapped = i + 1 < nbr && br[i + 1].trap && br[i + 1].from == br[i].to;

			if (br[i].trap)
				continue;
			nrec++;
			while (k + 1 < t.npc && !(t.pc[k] == br[i].from &&
						  (t.pc[k + 1] == br[i].to || trapped)))
				k++;
			if (k + 1 >= t.npc) {
				printf("record %zu (0x%" PRIx64 " -> 0x%" PRIx64 ") is not a transfer"
				       " of the recorded flow after the previous one\n", i,
				       br[i].from, br[i].to);
				return 1;
			}
			k++;
		}
		free(br);
		printf("%zu transfer records in flow order, %zu discontinuities recorded\n", nrec,
		       disc);
		return nrec >= disc ? 0 : 1;
	}
	if (argc >= 6 && !strcmp(argv[1], "encode")) {
		struct enc_out e;
		int rc = encode_named(argv[2], argv[3], argv + 5, argc - 5, &t, &e);
		FILE *f;

		if (rc)
			return rc;
		f = fopen(argv[4], "wb");
		if (!f || fwrite(e.buf, 1, e.n, f) != e.n || fclose(f))
			return 1;
		return 0;
	}
	if (argc >= 7 && !strcmp(argv[1], "encode-stray")) {
		unsigned long every = strtoul(argv[3], NULL, 0);
		struct enc_out e;
		size_t at = 0, k;
		int rc = every ? encode_named(argv[2], argv[4], argv + 6, argc - 6, &t, &e) : 2;
		FILE *f;

		if (rc)
			return rc;
		f = fopen(argv[5], "wb");
		if (!f)
			return 1;
		for (k = every - 1; k < e.nends; k += every) {
			if (fwrite(e.buf + at, 1, e.ends[k] - at, f) != e.ends[k] - at ||
			    fputc(0x03, f) == EOF) {
				fclose(f);
				return 1;
			}
			at = e.ends[k];
		}
		if (fwrite(e.buf + at, 1, e.n - at, f) != e.n - at || fclose(f))
			return 1;
		printf("%zu stray bytes\n", e.nends / every);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "expect")) {
		FILE *f;

		img = load_images(argv + 4, argc - 4);
		if (!img || load_truth(argv[2], img, &t))
			return 2;
		f = fopen(argv[3], "w");
		if (!f)
			return 1;
		for (i = 0; i < t.npc; i++)
			fprintf(f, "0x%" PRIx64 "\n", t.pc[i]);
		return fclose(f) ? 1 : 0;
	}
	fprintf(stderr, "usage: rt-tool all PCS IMAGE... | encode CONFIG PCS OUT IMAGE... |"
			" encode-stray CONFIG N PCS OUT IMAGE... | expect PCS OUT IMAGE... |"
			" configs\n");
	return 2;
}
