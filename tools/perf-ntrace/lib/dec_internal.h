/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Private structures of the flow decoder (dec_*.c). */
#ifndef NTRACE_DEC_INTERNAL_H
#define NTRACE_DEC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "err_internal.h"
#include "ntrace/decoder.h"

/*
 * Block cache: one direct-mapped entry per block start. A block runs from
 * pc by fall-through to the next control-flow instruction ("last"). imask
 * has bit i set when an instruction starts at halfword i (blocks of at most
 * 64 halfwords), so a walk can stop inside a block without decoding.
 */
#define DEC_BC_BITS	16	/* default size: 64K entries, 4 MB */

struct dec_blk {
	uint64_t pc;		/* the block's address (an entry is empty when its
				 * epoch is 0, which is never the decoder's) */
	uint32_t toff, aoff;	/* byte offsets in the cache (dec_bc_off()) of the
				 * entries of target and after: the walk's next
				 * lookup without the hash or a multiply */
	uint64_t last;
	uint64_t target;	/* direct target of last (BRANCH, JUMP, TABLE_JUMP) */
	uint64_t imask;		/* instruction starts when nhalf <= 64, else 0 */
	uint64_t after;		/* the address after last (its fall-through) */
	uint32_t nhalf;		/* halfwords including last */
	uint32_t ninsn;		/* instructions including last */
	uint8_t kind;		/* enum ntrace_ikind of last */
	uint8_t itype;		/* 4-bit itype of last */
	uint8_t lhalf;		/* halfwords of last */
	uint8_t tvalid;		/* target is known */
	uint32_t epoch;		/* decoder's image epoch when filled */
} __attribute__((aligned(64)));	/* one cache line per entry */

/* A queued HIST field: pattern bits (first branch most significant). */
struct dec_hist {
	uint64_t bits;
	uint64_t rep;		/* times the pattern is still to be used */
	uint8_t n;		/* pattern length (1..63) */
	uint8_t pos;		/* bits of the current repetition consumed */
};

#define DEC_RSTACK	32	/* N-Trace 1.0: no encoder stack is deeper */
/* The ring's size: the SiFive v0 call counter goes to 1023 (NTRACE_V0_RETURN_DEPTH) */
#define DEC_RSTACK_MAX	1024
#define DEC_RS_MASK	(DEC_RSTACK_MAX - 1)
/* HIST backlog entries of all sources together (24 bytes each): 24 MB */
#define DEC_HQ_TOTAL	(1u << 20)

/* Decoding state of one message source (SRC). */
struct dec_src {
	bool used;
	bool synced;
	/*
	 * Not synced only because the flow left the images: no message was
	 * missed, so ref_addr still follows the encoder's and the target of
	 * an indirect branch back into an image is known.
	 */
	bool ref_ok;
	bool hinted;		/* a settings-mismatch hint was given */
	bool trap_counted;	/* a trapping instruction ended an I-CNT (warned once) */
	uint8_t quirks_told;	/* bit per enum ntrace_quirk: reported once */
	bool htm;		/* HTM (else BTM), as the messages tell */
	bool mode_known;	/* decided: by a message or, failing one, by the settings */
	struct ntrace_msg *held;	/* messages held until one tells the mode */
	uint32_t nheld;
	uint16_t id;
	uint8_t priv;
	uint64_t context;
	uint64_t pc;		/* next instruction to walk */
	uint64_t ref_addr;	/* last reported address (U-ADDR reference) */
	uint64_t ts;		/* last absolute timestamp */
	uint64_t icnt;		/* half-words reported but not walked yet */
	/* HIST bits ready to use, most significant first, then the backlog ring */
	uint64_t hw;
	uint32_t hn;
	struct dec_hist *hq;
	uint32_t hq_cap, hq_head, hq_len;
	/* return stack, a ring: newest at (rs_top - 1); at most rs_cap entries
	 * are kept (DEC_RSTACK, or DEC_RSTACK_MAX for the SiFive v0 variant) */
	uint64_t rs[DEC_RSTACK_MAX];
	uint32_t rs_top, rs_len, rs_cap;
	/* the open run */
	bool run_open;
	uint64_t run_start;
	uint64_t run_last;
	uint32_t run_ninsn;
	/* last branch message (RepeatBranch replays it): prev, or when
	 * prev_fast, its bytes at prev_off (dec_prev() makes the record) */
	bool prev_valid;
	bool prev_fast;
	struct ntrace_msg prev;
	uint64_t prev_word;
	uint64_t prev_off;
	/* while a walk is noted for the memo: its return-stack operations */
	uint64_t *rs_log;
	uint32_t rs_nlog;
};

#define DEC_RUNBUF 512
/* Messages of a source held until one tells BTM from HTM (then the setting decides). */
#define DEC_MODE_LOOKAHEAD 256

#define DEC_NSRC	(1u << NTRACE_MAX_SRC_BITS)

struct ntrace_decoder {
	struct ntrace_dec_cfg cfg;
	struct ntrace_images *img;
	struct ntrace_dec_ops ops;
	void *ctx;
	int stopped;
	bool htm_default;	/* the configured mode, for sources whose messages do not tell */
	bool iret, seqj, alljumps, merge;
	uint8_t xlen;
	uint64_t icnt_limit, bcnt_limit, hrep_limit;
	struct ntrace_parser parser;
	struct dec_blk *bc;	/* a table (dec_table_new()) */
	uint32_t bc_mask;
	uint32_t epoch;		/* bumped when the images change: older entries are
				 * stale; never 0 (empty entries) */
	uint64_t hq_total;	/* HIST backlog entries allocated, all sources */
	struct dec_src *srcs[DEC_NSRC];
	uint64_t src_map[DEC_NSRC / 64];	/* the SRCs in srcs[] */
	struct dec_memo *memo;	/* walks by (pc, I-CNT, HIST), dec_memo.c; NULL: none */
	struct fmsg *cuts;	/* cut cache of dec_fast.c; NULL: no direct path */
	struct dec_leap *leap;	/* dec_leap.c, made by the first walk that only
				 * counts; NULL: none (yet) */
	uint64_t nevents;	/* events reported (a noted walk must have none) */
	uint8_t quirks_told;	/* of the stream (no source known): as dec_src's */
	bool aligned;		/* a sync since the start or the last reset, or
				 * set_aligned: later bad bytes are damage, not a
				 * cut message's tail */
	const struct ntrace_msg *cur;	/* message being handled (offsets) */
	struct ntrace_dec_stats st;
	/* one more than DEC_RUNBUF: dec_walk_fast() keeps its open run in
	 * runs[nruns], which is this spare one when the buffer is full */
	struct ntrace_dec_run runs[DEC_RUNBUF + 1];
	uint32_t nruns;
	char text[512];			/* text of the event being reported */
	struct ntrace_errbuf err;	/* text of the decode error being reported */
};

/* dec_bcache.c */
const struct dec_blk *dec_block_fill(struct ntrace_decoder *d, uint64_t pc);

/*
 * The bits set in x. Without the popcnt instruction (baseline x86-64)
 * __builtin_popcountll() is a call to libgcc; this is inline.
 */
static inline unsigned int dec_popcount(uint64_t x)
{
#if defined(__x86_64__) && !defined(__POPCNT__)
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned int)((x * 0x0101010101010101ull) >> 56);
#else
	return (unsigned int)__builtin_popcountll(x);
#endif
}

static inline uint32_t dec_bc_index(const struct ntrace_decoder *d, uint64_t pc)
{
	return (uint32_t)((pc >> 1) ^ (pc >> (DEC_BC_BITS + 1))) & d->bc_mask;
}

/* pc's entry as a byte offset in d->bc (at most 2^24 entries: 1 GB) */
static inline uint32_t dec_bc_off(const struct ntrace_decoder *d, uint64_t pc)
{
	return dec_bc_index(d, pc) * (uint32_t)sizeof(struct dec_blk);
}

/* The block starting at pc, or NULL (error text in the image set). */
static inline const struct dec_blk *dec_block(struct ntrace_decoder *d, uint64_t pc)
{
	const struct dec_blk *e = &d->bc[dec_bc_index(d, pc)];

	if (__builtin_expect(e->pc == pc && e->epoch == d->epoch, 1))
		return e;
	return dec_block_fill(d, pc);
}
/*
 * The block at pc for code that runs inside the run callback (expansion):
 * *bp = the cached entry when there is one, else one filled into *tmp;
 * returns 0 or the image layer's code (ntrace_images_errmsg()). It never
 * evicts: the walk holds pointers into the cache while it flushes runs to
 * the callback, and an eviction there would change the block under it.
 */
int dec_block_peek(struct ntrace_decoder *d, uint64_t pc, struct dec_blk *tmp,
		   const struct dec_blk **bp);
/* Instructions in the first nh halfwords of block b (pc = b->pc); returns
 * NTRACE_EBADINPUT when nh does not end on an instruction boundary, or the
 * image layer's code. *lastp gets the address of the last of them. */
int dec_block_prefix(struct ntrace_decoder *d, const struct dec_blk *b, uint32_t nh,
		     uint32_t *ninsn, uint64_t *lastp);
/* Address of the instruction before b->last inside the block, or 0. */
uint64_t dec_block_prev(struct ntrace_decoder *d, const struct dec_blk *b);

/* dec_msg.c: decode the messages held until a source's mode was told */
void dec_release_all(struct ntrace_decoder *d);

/* dec_hist.c */
int dec_hist_queue(struct ntrace_decoder *d, struct dec_src *s, uint64_t hist, uint64_t rep);

/*
 * Add a HIST field (with its stop bit) used rep times. The common cases,
 * nothing queued and room in the ready word (the bits go where a refill
 * would put them) or room in the backlog, are inline; anything else goes
 * through dec_hist_queue().
 */
static inline int dec_hist_push(struct ntrace_decoder *d, struct dec_src *s, uint64_t hist,
				uint64_t rep)
{
	if (hist > 1 && rep == 1) {
		unsigned int n = 63 - (unsigned int)__builtin_clzll(hist);

		if (!s->hq_len && s->hn + n <= 64) {
			s->hw |= (hist & ((1ull << n) - 1)) << (64 - s->hn - n);
			s->hn += n;
			return 0;
		}
		if (s->hq_len < s->hq_cap) {	/* as dec_hist_queue() */
			struct dec_hist *h = &s->hq[(s->hq_head + s->hq_len) & (s->hq_cap - 1)];

			h->bits = hist & ((1ull << n) - 1);
			h->n = (uint8_t)n;
			h->pos = 0;
			h->rep = 1;
			s->hq_len++;
			return 0;
		}
	}
	return dec_hist_queue(d, s, hist, rep);
}
void dec_hist_refill(struct dec_src *s);

/* Next HIST bit (first branch first), or -1 when none is queued. */
static inline int dec_hist_pop(struct dec_src *s)
{
	int bit;

	if (__builtin_expect(!s->hn, 0)) {
		dec_hist_refill(s);
		if (!s->hn)
			return -1;
	}
	bit = (int)(s->hw >> 63);
	s->hw <<= 1;
	s->hn--;
	return bit;
}
uint64_t dec_hist_pending(const struct dec_src *s);
void dec_hist_clear(struct ntrace_decoder *d, struct dec_src *s);

/* dec_msg.c: forget the flow of s; it waits for a sync */
void dec_src_unsync(struct ntrace_decoder *d, struct dec_src *s);
/*
 * Source s, whose walk left the images with no message missed (ref_ok),
 * resumes at target, the address an indirect branch message told, if an
 * image holds code there; true if it did.
 */
bool dec_resume(struct ntrace_decoder *d, struct dec_src *s, unsigned int tcode,
		uint64_t target);
/* dec_msg.c: the end of an indirect branch message (B-TYPE 0) whose I-CNT,
 * HIST and target (U-ADDR applied) are taken; as put_src() would do it */
int dec_final_indirect(struct ntrace_decoder *d, struct dec_src *s, unsigned int tcode,
		       uint64_t target);
/* dec_msg.c: a ResourceFull message's walk, after its fields are taken */
int dec_resource_walk(struct ntrace_decoder *d, struct dec_src *s);

/* dec_leap.c: eight HIST bits at a time, for a walk that only counts */
#define DEC_LEAP_BITS	14	/* 16K entries of 64 bytes: 1 MB */
struct dec_leap {
	uint64_t pc;		/* the first block's address */
	uint64_t tag;		/* dec_leap_tag(): epoch, the 8 bits, usable */
	uint64_t to;		/* where it ends: the next block's address */
	uint64_t start;		/* the open run's start after it, when it closes one */
	uint64_t last;		/* its last block's last instruction */
	uint32_t toff;		/* dec_bc_off(to) */
	uint32_t insns;		/* instructions */
	uint32_t nhalf;		/* halfwords: the I-CNT it takes */
	uint32_t tail;		/* instructions after the last run it closes */
	uint8_t closes;		/* runs it closes: taken branches and jumps */
	uint8_t jumps;		/* plain direct jumps (taken, no HIST bit) */
	uint8_t nbits;		/* HIST bits it uses: 8, or fewer where a block
				 * other than a branch or jump ends it */
} __attribute__((aligned(64)));

static inline uint64_t dec_leap_tag(uint32_t epoch, unsigned int bits, bool usable)
{
	return (uint64_t)epoch << 16 | (uint64_t)usable << 8 | bits;
}

static inline struct dec_leap *dec_leap_slot(const struct ntrace_decoder *d, uint64_t pc,
					     unsigned int bits)
{
	uint64_t h = ((pc >> 1) ^ (uint64_t)bits << 48) * 0x9E3779B97F4A7C15ull;

	return &d->leap[h >> (64 - DEC_LEAP_BITS)];
}

struct dec_leap *dec_leap_new(void);
void dec_leap_free(struct dec_leap *t);
void dec_leap_clear(struct ntrace_decoder *d);	/* image epochs wrapped */
/* The leap from pc (at cache offset off) with these 8 HIST bits, made
 * now: NULL when a block on the way is not cached, an entry whose tag
 * says unusable when it would cross fewer than two branches. */
const struct dec_leap *dec_leap_build(struct ntrace_decoder *d, uint64_t pc, uint32_t off,
				      unsigned int bits);

/* dec_memo.c: walks of indirect branch messages, kept and replayed */
#define DEC_MEMO_BITS	12	/* 4K entries of 512 bytes: 2 MB */
#define DEC_MEMO_RUNS	8
#define DEC_MEMO_OPS	8
#define DEC_MEMO_NEED	2	/* return-stack entries from before a walk it may use */
struct dec_memo_rec {
	uint32_t nruns, rs_len;
	uint64_t runs, taken, indirect, implicit, other;
	uint64_t top[DEC_MEMO_NEED];	/* the stack's newest entries at the start */
	uint64_t op[DEC_MEMO_OPS];
};
struct dec_memo *dec_memo_new(void);
void dec_memo_free(struct dec_memo *memo);
void dec_memo_clear(struct ntrace_decoder *d);	/* image epochs wrapped */
/* The walk of the message word (its bytes) from s->pc, if it is known;
 * replay: apply its effect (the message's target included). */
const struct dec_memo *dec_memo_find(struct ntrace_decoder *d, const struct dec_src *s,
				     uint64_t word);
void dec_memo_replay(struct ntrace_decoder *d, struct dec_src *s, const struct dec_memo *e);
/* For a source without pending state in a trace without SRC fields: replay
 * the messages at buf (len bytes) while their walks are known, as
 * dec_fast() takes them; returns the bytes taken (whole messages). */
size_t dec_memo_run(struct ntrace_decoder *d, struct dec_src *s, const uint8_t *buf, size_t len);
/* Note the walk that follows; keep it if it qualifies (rc: the handler's;
 * addr: the message's address field value). */
void dec_memo_start(struct ntrace_decoder *d, struct dec_src *s, struct dec_memo_rec *r);
void dec_memo_stop(struct ntrace_decoder *d, struct dec_src *s, const struct dec_memo_rec *r,
		   uint64_t pc, uint64_t word, uint64_t addr, uint64_t target, int rc);

/* dec_fast.c: messages taken straight from the bytes; see there */
#define DEC_CUTS_BITS	12	/* 4K messages by their bytes, 192 KB */
struct fmsg *dec_cuts_new(void);
void dec_cuts_free(struct fmsg *cuts);
/* The last branch message of s as the parser's record (s->prev_valid). */
const struct ntrace_msg *dec_prev(const struct ntrace_decoder *d, const struct dec_src *s,
				  struct ntrace_msg *tmp);
size_t dec_fast(struct ntrace_decoder *d, const uint8_t *buf, size_t len);

/* dec_core.c: the names of ntrace_dec_kind_name(), with their lengths (formatting) */
struct dec_name {
	char s[16];		/* NUL-padded: sinks copy all 16 bytes at once */
	size_t len;
};
extern const struct dec_name dec_kind_names[NTRACE_DK__COUNT];

/* dec_sink.c: bytes formatted but not written out yet */
size_t dec_sink_pending(const struct ntrace_sink *s);
/* A sink's output buffer: its size, and what a hand-off must give back. */
#define DEC_SINK_BUF	((1u << 18) + 1024)
/*
 * PC list and branch records without a FILE: each full buffer (buf, n
 * bytes, from malloc) goes to take(ctx, buf, n), which keeps it and
 * returns an empty one of DEC_SINK_BUF bytes (NULL: out of memory, the
 * sink fails). Forgets what was not handed over yet and an earlier
 * failure: the sink starts afresh (the parallel decoder's pieces).
 */
void dec_sink_to(struct ntrace_sink *s, char *(*take)(void *ctx, char *buf, size_t n),
		 void *ctx);

/*
 * A zeroed table of size bytes (a cache), page aligned, in pages the
 * kernel zeroes when first touched: a decode uses few of them. Not
 * calloc: malloc may hand out memory it has used, which calloc clears,
 * touching every page (once it has freed a mapped block, glibc serves
 * sizes up to that block's, at most 32 MiB, from its heap). NULL when out
 * of memory.
 */
void *dec_table_new(size_t size);
void dec_table_free(void *t, size_t size);

/*
 * d as ntrace_decoder_new(cfg, img, ops, ctx) makes it, but with the block
 * cache, walk memo, cut cache and leaps it has: what they hold depends on
 * the code and the message bytes only, so a decoder used again starts warm.
 * The images must hold the same code as before.
 */
void dec_renew(struct ntrace_decoder *d, const struct ntrace_dec_cfg *cfg,
	       struct ntrace_images *img, const struct ntrace_dec_ops *ops, void *ctx);
/*
 * Exchange the block caches, walk memos, cut caches and leaps of a and b (same
 * settings and code): the parallel decoder keeps one set per thread and
 * lends it to the piece's decoder the thread runs.
 */
void dec_caches_swap(struct ntrace_decoder *a, struct ntrace_decoder *b);

/* dec_state.c: the state that decides the rest of a decode (see there) */
struct dec_state {
	uint8_t *buf;
	size_t len, cap;
	bool oom;
};
void dec_state_save(const struct ntrace_decoder *d, struct dec_state *st);
bool dec_state_equal(const struct dec_state *a, const struct dec_state *b);
void dec_state_free(struct dec_state *st);

/* dec_walk.c */
enum { W_PAUSE, W_DONE, W_AT_END, W_ERROR };
int dec_walk(struct ntrace_decoder *d, struct dec_src *s, bool final, const struct dec_blk **endp);
/* dec_walk_fast.c: the part of a walk that needs no decision (dec_walk()
 * goes on from where it stops) */
void dec_walk_fast(struct ntrace_decoder *d, struct dec_src *s);
int dec_flush(struct ntrace_decoder *d);

/* Runs: inline, they are built once or twice per message (dec_walk_fast.c has its own way). */
static inline void dec_emit_run(struct ntrace_decoder *d, struct dec_src *s, uint64_t start,
				uint32_t ninsn, uint64_t last, uint64_t to, unsigned int kind,
				unsigned int flags)
{
	struct ntrace_dec_run *r;

	if (__builtin_expect(d->nruns == DEC_RUNBUF, 0))
		dec_flush(d);
	r = &d->runs[d->nruns++];
	r->start = start;
	r->last = last;
	r->to = to;
	r->tstamp = s->ts;
	r->ninsn = ninsn;
	r->kind = (uint8_t)kind;
	r->flags = (uint8_t)flags;
	r->priv = s->priv;
	r->pad = 0;
	r->src = s->id;
	r->pad2 = 0;
	r->pad3 = 0;
	d->st.insns += ninsn;
	d->st.runs++;
}

static inline void dec_run_add(struct dec_src *s, uint64_t start, uint32_t n, uint64_t last)
{
	if (!n)
		return;
	if (!s->run_open) {
		s->run_open = true;
		s->run_start = start;
		s->run_ninsn = 0;
	}
	s->run_ninsn += n;
	s->run_last = last;
}

/* Close the open run (or make an empty one at last) with a transfer. */
static inline void dec_run_close(struct ntrace_decoder *d, struct dec_src *s, uint64_t last,
				 uint64_t to, unsigned int kind, unsigned int flags)
{
	if (s->run_open) {
		dec_emit_run(d, s, s->run_start, s->run_ninsn, s->run_last, to, kind, flags);
		s->run_open = false;
	} else {
		dec_emit_run(d, s, last, 0, last, to, kind, flags);
	}
}

/* Take the whole block b, ending the run with a transfer to next. */
static inline void dec_end_block(struct ntrace_decoder *d, struct dec_src *s,
				 const struct dec_blk *b, uint64_t next, unsigned int kind,
				 unsigned int flags)
{
	dec_run_add(s, s->pc, b->ninsn, b->last);
	dec_run_close(d, s, b->last, next, kind, flags);
	s->pc = next;
}
/* Report a decode error (an ERROR event); returns NTRACE_EBADINPUT. */
int dec_error(struct ntrace_decoder *d, struct dec_src *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int dec_event(struct ntrace_decoder *d, struct dec_src *s, unsigned int type, unsigned int code,
	      const char *text);
void dec_rs_push(struct dec_src *s, uint64_t ret);
/* Pop a return address that decides where the flow goes; drop: one that
 * does not (a return whose target a message gives). For the memo's notes
 * (s->rs_log): a push is the address (even), a pop DEC_RS_POP or DROP. */
#define DEC_RS_POP	1
#define DEC_RS_DROP	3
bool dec_rs_pop(struct dec_src *s, uint64_t *ret);
void dec_rs_drop(struct dec_src *s);
int dec_end_insn(struct ntrace_decoder *d, struct dec_src *s, const struct dec_blk *b,
		 uint64_t *next, unsigned int *kind, unsigned int *flags);
int dec_trap_counted(struct ntrace_decoder *d, struct dec_src *s, const struct dec_blk *b);

/*
 * The first SRC from k on that has a source (DEC_NSRC: none). Sources are
 * visited in SRC order by dec_for_each_src(), so that two decoders that
 * met them in another order still report and save them alike; a trace
 * uses a few of the 4096.
 */
static inline unsigned int dec_src_next(const struct ntrace_decoder *d, unsigned int k)
{
	unsigned int w = k / 64;
	uint64_t m;

	if (k >= DEC_NSRC)
		return DEC_NSRC;
	m = d->src_map[w] & (~0ull << (k % 64));
	while (!m) {
		if (++w == DEC_NSRC / 64)
			return DEC_NSRC;
		m = d->src_map[w];
	}
	return w * 64 + (unsigned int)__builtin_ctzll(m);
}

#define dec_for_each_src(d, k) \
	for ((k) = dec_src_next(d, 0); (k) < DEC_NSRC; (k) = dec_src_next(d, (k) + 1))

#endif /* NTRACE_DEC_INTERNAL_H */
