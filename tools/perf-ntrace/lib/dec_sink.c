// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Output sinks of decoded flow: PC list, branch records, the seed-002
 * tandem-verification partial trace and AutoFDO counts (sink_autofdo.c).
 * Text is formatted by hand into a large buffer: printf per instruction
 * would be the bottleneck.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dec_internal.h"
#include "ntrace/ingress_build.h"
#include "sink_autofdo.h"

#define OUTBUF (DEC_SINK_BUF - 1024)	/* a record at most 1024 bytes past it */
#define TV_CHUNK 65536

struct ntrace_sink {
	enum ntrace_sink_format fmt;
	FILE *out;
	struct ntrace_decoder *d;
	struct ntrace_images *img;	/* NULL: the decoder's, per call */
	struct ntrace_images *cur;	/* the images of this call */
	struct ntrace_errbuf err;	/* the first failure; output stops there */
	bool symbols;
	size_t n;
	char *buf;
	char *(*take)(void *ctx, char *buf, size_t n);	/* dec_sink_to(), or NULL */
	void *take_ctx;
	char prefix[128];		/* at the start of each line */
	size_t plen;
	/* tv: records held until a fall-through boundary (at most ~TV_CHUNK) */
	struct ntrace_insn *tv;
	size_t ntv, tvcap;
	struct ntrace_images *tv_img;	/* the images of the held records */
	bool tv_started;
	/* branches: the text of recent (from, to, kind), cached (line_head()) */
	struct sink_line *lines;
	/* autofdo: counts, written at flush for the image named dso */
	struct ntrace_afdo *afdo;
	char *dso;
	uint64_t afdo_max;
	bool afdo_written;
};

static int out_flush(struct ntrace_sink *s)
{
	if (s->n && s->take) {
		char *b = s->take(s->take_ctx, s->buf, s->n);

		if (b)
			s->buf = b;
		else if (!s->err.code)
			ntrace_err_set(&s->err, NTRACE_ENOMEM, "out of memory for output");
	} else if (s->n && fwrite(s->buf, 1, s->n, s->out) != s->n && !s->err.code) {
		ntrace_err_set(&s->err, NTRACE_EWRITE, "write error: %s", strerror(errno));
	}
	s->n = 0;
	return s->err.code;
}

/* The instructions of run r could not be listed (rc from run_pcs). */
static int run_failed(struct ntrace_sink *s, const struct ntrace_dec_run *r, int rc)
{
	if (s->err.code)	/* the sink's own failure stopped the listing */
		return s->err.code;
	return ntrace_err_set(&s->err, rc, "instructions of the run at 0x%" PRIx64 ": %s",
			      r->start, ntrace_images_errmsg(s->cur));
}

#ifdef __SSE2__
#include <emmintrin.h>

/*
 * The 16 hex digits of v, the most significant first, without a table or
 * a branch: each byte's two nibbles are spread into two bytes, and each
 * becomes its digit ('a'..'f' where it is over 9).
 */
static inline void hex16(char *d, uint64_t v)
{
	const __m128i m = _mm_set1_epi8(0x0f);
	__m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
	__m128i nib = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), m),
					_mm_and_si128(x, m));
	__m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(nib, _mm_set1_epi8(9)),
				      _mm_set1_epi8('a' - '0' - 10));

	_mm_storeu_si128((__m128i *)d, _mm_add_epi8(nib, _mm_add_epi8(alpha,
					_mm_set1_epi8('0'))));
}
#else
/* "00".."ff": two digits per step (constant: sinks may live in several threads) */
#define HD(x) ((x) < 10 ? '0' + (x) : 'a' - 10 + (x))
#define HP(i) HD((i) >> 4), HD((i) & 15)
#define HP4(i) HP(i), HP((i) + 1), HP((i) + 2), HP((i) + 3)
#define HP16(i) HP4(i), HP4((i) + 4), HP4((i) + 8), HP4((i) + 12)
#define HP64(i) HP16(i), HP16((i) + 16), HP16((i) + 32), HP16((i) + 48)
static const char hexpair[512] = { HP64(0), HP64(64), HP64(128), HP64(192) };

/* The 16 hex digits of v, the most significant first. */
static inline void hex16(char *d, uint64_t v)
{
	int i;

	for (i = 14; i >= 0; i -= 2, v >>= 8)
		memcpy(d + i, hexpair + 2 * (v & 255), 2);
}
#endif

/*
 * "0x" and the hex digits of v, without leading zeros. Writes up to 18
 * bytes at p whatever v is (callers leave room); returns the end.
 */
static inline char *hex(char *p, uint64_t v)
{
	unsigned int nd = v ? (67 - (unsigned int)__builtin_clzll(v)) >> 2 : 1;
	char d[48];		/* the copy reads up to 16 bytes past the digits */

	hex16(d + 16, v);
	p[0] = '0';
	p[1] = 'x';
	memcpy(p + 2, d + 32 - nd, 16);	/* a constant size: no call */
	return p + 2 + nd;
}

static inline char *dec(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	if (v < 10) {	/* no timestamps: always 0 */
		*p = (char)('0' + v);
		return p + 1;
	}
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static int pcs_text(void *ctx, const uint64_t *pcs, size_t n)
{
	struct ntrace_sink *s = ctx;
	size_t i;
	char *p;

	if (s->n + n * (20 + s->plen) > OUTBUF && out_flush(s))
		return s->err.code;
	p = s->buf + s->n;
	for (i = 0; i < n; i++) {
		if (s->plen) {
			memcpy(p, s->prefix, s->plen);
			p += s->plen;
		}
		p = hex(p, pcs[i]);
		*p++ = '\n';
	}
	s->n = (size_t)(p - s->buf);
	return 0;
}

static char *sym(struct ntrace_sink *s, char *p, uint64_t addr)
{
	uint64_t off = 0;
	const char *name = addr ? ntrace_images_symbol(s->cur, addr, &off, NULL) : NULL;

	if (!name)
		return p + sprintf(p, "?");
	return p + snprintf(p, 200, "%.160s+0x%" PRIx64, name, off);
}

/*
 * "FROM TO KIND " of a branch record. A program's branches repeat (its
 * loops), so the text of each (from, to, kind) is kept in a small
 * direct-mapped table: a hit is one compare and a copy of a constant
 * size, where formatting takes several times that. The text is followed
 * by "0\n", the rest of the line when there are no timestamps.
 */
#define LINE_BITS	11
struct sink_line {
	uint64_t from, to;
	uint8_t kind, len;	/* kind 0 (fall) is never cached: empty slot */
	char text[64];		/* at most 2 x 18 + 15 + 3 bytes, and "0\n" */
};

static char *line_text(char *p, uint64_t from, uint64_t to, unsigned int kind)
{
	const struct dec_name *k;

	p = hex(p, from);
	*p++ = ' ';
	p = hex(p, to);
	*p++ = ' ';
	if (kind < NTRACE_DK__COUNT) {
		k = &dec_kind_names[kind];
		memcpy(p, k->s, sizeof(k->s));	/* a constant size: no call */
		p += k->len;
	} else {
		*p++ = '?';	/* as ntrace_dec_kind_name() */
	}
	*p++ = ' ';
	return p;
}

/* Make e the entry of (from, to, kind). Out of line: a miss is rare, and
 * inline the compiler prepares its stores on the path of every hit. */
static __attribute__((noinline)) void line_fill(struct sink_line *e, uint64_t from, uint64_t to,
						unsigned int kind)
{
	char *end = line_text(e->text, from, to, kind);

	memcpy(end, "0\n", 2);
	e->from = from;
	e->to = to;
	e->kind = (uint8_t)kind;
	e->len = (uint8_t)(end - e->text);
}

/* The cached text of (from, to, kind < NTRACE_DK__COUNT), made on a miss. */
static inline const struct sink_line *line_get(struct sink_line *lines, uint64_t from, uint64_t to,
					       unsigned int kind)
{
	/* both addresses mixed by the multiply: with only to's, the calls of
	 * a function (one to, many from) shared a slot and evicted each other */
	uint64_t h = (from ^ (to << 32 | to >> 32)) * 0x9e3779b97f4a7c15ull;
	struct sink_line *e = &lines[h >> (64 - LINE_BITS)];

	if (__builtin_expect(e->from != from || e->to != to || e->kind != kind, 0))
		line_fill(e, from, to, kind);
	return e;
}

static inline char *line_head(struct ntrace_sink *s, char *p, uint64_t from, uint64_t to,
			      unsigned int kind)
{
	const struct sink_line *e;

	if (!s->lines || kind >= NTRACE_DK__COUNT)
		return line_text(p, from, to, kind);
	e = line_get(s->lines, from, to, kind);
	memcpy(p, e->text, sizeof(e->text));	/* the line's room holds it */
	return p + e->len;
}

/* One line of branch text at p; returns its end. */
static inline char *branch_line(struct ntrace_sink *s, char *p, const struct ntrace_dec_run *r)
{
	if (s->plen) {
		memcpy(p, s->prefix, s->plen);
		p += s->plen;
	}
	p = line_head(s, p, r->ninsn ? r->last : r->start, r->to, r->kind);
	p = dec(p, r->tstamp);
	if (s->symbols) {
		*p++ = ' ';
		p = sym(s, p, r->ninsn ? r->last : r->start);
		memcpy(p, " -> ", 4);
		p = sym(s, p + 4, r->to);
	}
	*p++ = '\n';
	return p;
}

/*
 * branch_line() with neither prefix nor symbols and the cache there, for
 * the lines plain_lines() does not copy whole: with a timestamp, or with
 * a kind that has no name.
 */
static inline char *plain_line(struct sink_line *lines, char *p, const struct ntrace_dec_run *r)
{
	uint64_t from = r->ninsn ? r->last : r->start;
	const struct sink_line *e;

	if (__builtin_expect(r->kind >= NTRACE_DK__COUNT, 0)) {
		p = line_text(p, from, r->to, r->kind);
	} else {
		e = line_get(lines, from, r->to, r->kind);
		memcpy(p, e->text, sizeof(e->text));
		p += e->len;
	}
	p = dec(p, r->tstamp);
	*p++ = '\n';
	return p;
}

/* The branch records of n runs (those that fall through have none). */
static int branch_lines(struct ntrace_sink *s, const struct ntrace_dec_run *r, size_t n)
{
	/* a line takes at most 512 bytes past the prefix (two symbols of 200) */
	const size_t most = 512 + s->plen;
	char *p = s->buf + s->n;
	size_t i, left = 0;	/* lines that surely fit without a flush */

	for (i = 0; i < n; i++) {
		if (r[i].kind == NTRACE_DK_FALL || r[i].kind == NTRACE_DK_NOT_TAKEN)
			continue;
		if (!left) {
			if ((size_t)(p - s->buf) > OUTBUF - most) {
				s->n = (size_t)(p - s->buf);
				if (out_flush(s))
					return s->err.code;
				p = s->buf;
			}
			left = (OUTBUF - (size_t)(p - s->buf)) / most;
		}
		left--;
		p = branch_line(s, p, &r[i]);
	}
	s->n = (size_t)(p - s->buf);
	return 0;
}

/*
 * branch_lines() for neither prefix nor symbols, with the cache there: the
 * line of a run without timestamp and with a named kind is the cached
 * text, copied inline; plain_line() makes the others. One bound on the
 * end of the buffer rather than a count of the lines that fit, and the
 * cache's pointer and the hash's constant stay in registers (in the loop
 * shared with branch_line() they were reloaded for each record).
 */
static int plain_lines(struct ntrace_sink *s, const struct ntrace_dec_run *r, size_t n)
{
	struct sink_line *const lines = s->lines;
	const struct ntrace_dec_run *const end = r + n;
	char *p = s->buf + s->n;
	/* plain_line() writes at most 64 + 21 bytes: a flush before p passes lim */
	char *lim = s->buf + OUTBUF - 128;

	for (; r < end; r++) {
		unsigned int kind = r->kind;
		uint64_t from = r->ninsn ? r->last : r->start;
		const struct sink_line *e;

		if (kind == NTRACE_DK_FALL || kind == NTRACE_DK_NOT_TAKEN)
			continue;
		if (__builtin_expect(p > lim, 0)) {
			s->n = (size_t)(p - s->buf);
			if (out_flush(s))
				return s->err.code;
			p = s->buf;
			lim = s->buf + OUTBUF - 128;
		}
		if (__builtin_expect(kind >= NTRACE_DK__COUNT || r->tstamp, 0)) {
			p = plain_line(lines, p, r);
			continue;
		}
		/* the whole line: a short one (32-bit addresses) as 32 bytes */
		e = line_get(lines, from, r->to, kind);
		memcpy(p, e->text, 32);
		if (e->len + 2 > 32)
			memcpy(p + 32, e->text + 32, sizeof(e->text) - 32);
		p += e->len + 2;
	}
	s->n = (size_t)(p - s->buf);
	return 0;
}

static int branch_text(struct ntrace_sink *s, const struct ntrace_dec_run *r, size_t n)
{
	if (!s->plen && !s->symbols && s->lines)
		return plain_lines(s, r, n);
	return branch_lines(s, r, n);
}

static int tv_flush(struct ntrace_sink *s, size_t upto)
{
	char why[NTRACE_ERRBUF_SIZE];
	int rc;

	if (!upto)
		return 0;
	rc = ntrace_tv_export(s->tv, upto, s->tv_img, s->out, why, sizeof(why));
	if (rc)
		return ntrace_err_set(&s->err, rc, "tandem-verification export: %s", why);
	memmove(s->tv, s->tv + upto, (s->ntv - upto) * sizeof(*s->tv));
	s->ntv -= upto;
	return 0;
}

static int tv_push(struct ntrace_sink *s, const struct ntrace_insn *in)
{
	if (s->ntv == s->tvcap) {
		size_t cap = s->tvcap ? s->tvcap * 2 : TV_CHUNK * 2;
		struct ntrace_insn *n = realloc(s->tv, cap * sizeof(*n));

		if (!n)
			return ntrace_err_set(&s->err, NTRACE_ENOMEM,
					      "out of memory for %zu records", cap);
		s->tv = n;
		s->tvcap = cap;
	}
	s->tv[s->ntv++] = *in;
	return 0;
}

struct tv_ctx {
	struct ntrace_sink *s;
	const struct ntrace_dec_run *r;
	uint32_t done;
};

static uint8_t kind_itype(unsigned int kind)
{
	switch (kind) {
	case NTRACE_DK_TAKEN: return NTRACE_ITYPE_TAKEN;
	case NTRACE_DK_NOT_TAKEN: return NTRACE_ITYPE_NOT_TAKEN;
	case NTRACE_DK_JUMP: return NTRACE_ITYPE_DIR_JUMP;
	case NTRACE_DK_CALL: return NTRACE_ITYPE_DIR_CALL;
	case NTRACE_DK_IND_JUMP: return NTRACE_ITYPE_IND_JUMP;
	case NTRACE_DK_IND_CALL: return NTRACE_ITYPE_IND_CALL;
	case NTRACE_DK_RETURN: return NTRACE_ITYPE_RETURN;
	case NTRACE_DK_TRAP_RETURN: return NTRACE_ITYPE_TRAP_RETURN;
	case NTRACE_DK_INTERRUPT: return NTRACE_ITYPE_INTERRUPT;
	case NTRACE_DK_EXCEPTION:
	case NTRACE_DK_TRAP: return NTRACE_ITYPE_EXCEPTION;
	default: return NTRACE_ITYPE_NONE;
	}
}

static int tv_pcs(void *ctx, const uint64_t *pcs, size_t n)
{
	struct tv_ctx *t = ctx;
	struct ntrace_sink *s = t->s;
	struct ntrace_insn in;
	struct ntrace_idec id;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		memset(&in, 0, sizeof(in));
		in.addr = pcs[i];
		in.priv = t->r->priv;
		in.tstamp = t->r->tstamp;
		rc = ntrace_images_decode(s->cur, pcs[i], &id);
		if (rc)
			return ntrace_err_set(&s->err, rc, "%s", ntrace_images_errmsg(s->cur));
		in.size = id.size;
		if (++t->done == t->r->ninsn && t->r->kind != NTRACE_DK_STOP)
			in.itype = kind_itype(t->r->kind);
		if (!s->tv_started) {
			in.flags |= NTRACE_INSN_TRACE_START;
			s->tv_started = true;
		}
		if (tv_push(s, &in))
			return s->err.code;
		/* export in chunks, cut after a record that falls through (inside
		 * a run), so the exporter's "increment pc" is right; the next
		 * chunk starts with a group that sets the pc again */
		if (s->ntv >= TV_CHUNK && t->done < t->r->ninsn && tv_flush(s, s->ntv))
			return s->err.code;
	}
	return 0;
}

static int tv_run(struct ntrace_sink *s, const struct ntrace_dec_run *r)
{
	struct tv_ctx t = { s, r, 0 };
	struct ntrace_insn in;
	int rc;

	/* held records are exported with the images they were decoded with */
	if (s->cur != s->tv_img) {
		rc = tv_flush(s, s->ntv);
		if (rc)
			return rc;
		s->tv_img = s->cur;
	}
	rc = r->ninsn ? ntrace_decoder_run_pcs(s->d, r, tv_pcs, &t) : 0;
	if (rc)
		return run_failed(s, r, rc);
	if (!r->ninsn && (r->kind == NTRACE_DK_EXCEPTION || r->kind == NTRACE_DK_INTERRUPT ||
			  r->kind == NTRACE_DK_TRAP)) {
		memset(&in, 0, sizeof(in));
		in.addr = r->start;
		in.itype = kind_itype(r->kind);
		in.priv = r->priv;
		if (tv_push(s, &in))
			return s->err.code;
	}
	if (r->kind == NTRACE_DK_STOP)
		s->tv_started = false;
	return 0;
}

int ntrace_sink_runs(void *sink, const struct ntrace_dec_run *r, size_t n)
{
	struct ntrace_sink *s = sink;
	size_t i;
	int rc;

	s->cur = s->img ? s->img : ntrace_decoder_images(s->d);
	if (s->fmt == NTRACE_SINK_BRANCHES)	/* the common case: one test a call */
		return s->err.code ? s->err.code : branch_text(s, r, n);
	if (s->afdo)
		ntrace_afdo_new_call(s->afdo);
	for (i = 0; i < n && !s->err.code; i++) {
		switch (s->fmt) {
		case NTRACE_SINK_PC:
			rc = r[i].ninsn ? ntrace_decoder_run_pcs(s->d, &r[i], pcs_text, s) : 0;
			if (rc)
				run_failed(s, &r[i], rc);
			break;
		case NTRACE_SINK_TV:
			tv_run(s, &r[i]);
			break;
		case NTRACE_SINK_BRANCHES:	/* above */
			break;
		case NTRACE_SINK_AUTOFDO:
		case NTRACE_SINK_AUTOFDO_TEXT:
			rc = ntrace_afdo_run(s->afdo, s->cur, &r[i]);
			if (rc)
				ntrace_err_set(&s->err, rc, "out of memory for AutoFDO counts");
			break;
		}
	}
	return s->err.code;
}

struct ntrace_sink *ntrace_sink_new(enum ntrace_sink_format fmt, FILE *out,
				    struct ntrace_decoder *d, struct ntrace_images *img)
{
	struct ntrace_sink *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->buf = malloc(DEC_SINK_BUF);
	if (!s->buf) {
		free(s);
		return NULL;
	}
	if ((fmt == NTRACE_SINK_AUTOFDO || fmt == NTRACE_SINK_AUTOFDO_TEXT) &&
	    !(s->afdo = ntrace_afdo_new())) {
		free(s->buf);
		free(s);
		return NULL;
	}
	/* the cache is a speed-up only: without memory, no cache */
	if (fmt == NTRACE_SINK_BRANCHES)
		s->lines = calloc(1u << LINE_BITS, sizeof(*s->lines));
	s->fmt = fmt;
	s->out = out;
	s->d = d;
	s->img = img;
	return s;
}

void ntrace_sink_set_decoder(struct ntrace_sink *s, struct ntrace_decoder *d)
{
	s->d = d;
}

void ntrace_sink_set_symbols(struct ntrace_sink *s, bool on)
{
	s->symbols = on;
}

void ntrace_sink_set_prefix(struct ntrace_sink *s, const char *prefix)
{
	s->plen = prefix ? strnlen(prefix, sizeof(s->prefix) - 1) : 0;
	memcpy(s->prefix, prefix ? prefix : "", s->plen);
}

int ntrace_sink_set_dso(struct ntrace_sink *s, const char *dso)
{
	char *d = dso ? strdup(dso) : NULL;

	if (dso && !d)
		return NTRACE_ENOMEM;
	free(s->dso);
	s->dso = d;
	return 0;
}

void ntrace_sink_set_max_count(struct ntrace_sink *s, uint64_t max)
{
	s->afdo_max = max;
}

const char *ntrace_sink_dso(const struct ntrace_sink *s, uint64_t *insns)
{
	uint32_t k;

	if (!s->afdo || ntrace_afdo_pick(s->afdo, s->dso, &k))
		return NULL;
	return ntrace_afdo_name(s->afdo, k, insns);
}

/* The AutoFDO counts, once, at the first flush after the trace's end. */
static int afdo_flush(struct ntrace_sink *s)
{
	uint32_t k;
	int rc;

	if (s->afdo_written)
		return 0;
	s->afdo_written = true;
	if (ntrace_afdo_pick(s->afdo, s->dso, &k)) {
		if (s->dso)
			return ntrace_err_set(&s->err, NTRACE_EINVAL,
					      "no instruction of the trace is in %s", s->dso);
		/* nothing decoded: an empty profile */
		fputs(s->fmt == NTRACE_SINK_AUTOFDO ? "0\n0\n" : "0\n0\n0\n", s->out);
		return 0;
	}
	rc = ntrace_afdo_write(s->afdo, k, s->fmt == NTRACE_SINK_AUTOFDO_TEXT, s->afdo_max,
			       s->out);
	if (rc)
		return ntrace_err_set(&s->err, rc, "out of memory for AutoFDO counts");
	return 0;
}

int ntrace_sink_flush(struct ntrace_sink *s)
{
	if (s->fmt == NTRACE_SINK_TV && !s->err.code)
		tv_flush(s, s->ntv);
	if (s->afdo && !s->err.code)
		afdo_flush(s);
	out_flush(s);
	if (s->out && fflush(s->out) && !s->err.code)
		ntrace_err_set(&s->err, NTRACE_EWRITE, "write error: %s", strerror(errno));
	return s->err.code;
}

void dec_sink_to(struct ntrace_sink *s, char *(*take)(void *ctx, char *buf, size_t n),
		 void *ctx)
{
	s->take = take;
	s->take_ctx = ctx;
	s->out = NULL;
	s->n = 0;
	ntrace_err_clear(&s->err);
}

size_t dec_sink_pending(const struct ntrace_sink *s)
{
	return s->n;
}

const char *ntrace_sink_errmsg(const struct ntrace_sink *s)
{
	return ntrace_err_msg(&s->err);
}

void ntrace_sink_free(struct ntrace_sink *s)
{
	if (!s)
		return;
	free(s->tv);
	free(s->buf);
	free(s->lines);
	ntrace_afdo_free(s->afdo);
	free(s->dso);
	free(s);
}
