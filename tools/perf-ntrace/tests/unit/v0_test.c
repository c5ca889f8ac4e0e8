// SPDX-License-Identifier: GPL-2.0-only
/*
 * SiFive's pre-ratified ("version 0") trace encoder, as in the HiFive
 * Premier P550 (NTRACE_VARIANT_SIFIVE_V0): hand-worked examples of each
 * way it differs from N-Trace 1.0, through the codec, the encoder model,
 * the flow decoder, AUXTRACE_INFO and the register reader. Each example
 * names the public source of the fact it follows:
 *
 *  [TRM]   the P550 register tables published with ganboing/riscv-trace-umd
 *          (rvtrace/platforms/p550.md): teControl, teImpl, tsControl;
 *  [UMD]   the same project's rvtrace/platforms/p550.cfg and README (the
 *          settings a P550 runs with, the register values it reads back);
 *  [NXR]   ganboing/libnexus-rv, a decoder of real P550 traces:
 *          contrib/p550/README.md (XOR timestamps, RCODE 8/9, simple
 *          counting, 1023 deep, measured with test-stack-depth.cpp),
 *          lib/msg-decoder.c (the "p550x4" model: SRC 2 bits, 40-bit
 *          timestamps), lib/trace-decoder.c (how timestamps and RCODE 8/9
 *          are applied), util/inst.cpp (a co-routine swap is a call);
 *  [DQR]   SiFive's trace-decoder (dqr; the fork ganboing/sifive-trace-decoder):
 *          RCODE 8 = not-taken count, 9 = taken count (parseResourceFull),
 *          relative timestamps XORed with the last (Trace::processTS).
 *
 * None of it was checked against a board here; see "Pre-ratified encoders"
 * in Documentation/trace/ntrace-spec-notes.rst for what that leaves open.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../../include/uapi/linux/ntrace.h"
#include "ntrace/ntrace.h"
#include "rv_asm.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- code, assembled by hand ---- */

static uint8_t mem[0x1000];

#define C_ADD		0x952e		/* c.add a0, a1 */
#define C_EBREAK	0x9002
#define C_RET		0x8082		/* c.jr ra */
#define C_JR_T0		0x8282		/* c.jr t0: a return (t0 is a link register) */
#define JALR_T0_RA	0x000082e7u	/* jalr t0, 0(ra): rd and rs1 both links, unequal:
					 * a co-routine swap */

static void build(void)
{
	memset(mem, 0, sizeof(mem));
	/* a loop: 0x400 c.add; 0x402 bne a0, a1, 0x400; 0x406 c.ebreak */
	rv_put16(mem, 0x400, C_ADD);
	rv_put32(mem, 0x402, rv_btype(1, 10, 11, -2));
	rv_put16(mem, 0x406, C_EBREAK);
	/* a loop left by a taken branch: 0x480 c.add; 0x482 beq a0, a1, 0x48a;
	 * 0x486 j 0x480; 0x48a c.ebreak */
	rv_put16(mem, 0x480, C_ADD);
	rv_put32(mem, 0x482, rv_btype(0, 10, 11, 8));
	rv_put32(mem, 0x486, rv_jal(0, -6));
	rv_put16(mem, 0x48a, C_EBREAK);
	/* recursion: 0x100 jal ra, 0x200; 0x104 c.add; 0x106 c.ebreak;
	 * 0x200 bne a0, a1, 0x208; 0x204 jal ra, 0x200; 0x208 c.jr ra */
	rv_put32(mem, 0x100, rv_jal(1, 0x100));
	rv_put16(mem, 0x104, C_ADD);
	rv_put16(mem, 0x106, C_EBREAK);
	rv_put32(mem, 0x200, rv_btype(1, 10, 11, 8));
	rv_put32(mem, 0x204, rv_jal(1, -4));
	rv_put16(mem, 0x208, C_RET);
	/* co-routine swap: 0x300 jal ra, 0x340; 0x304 c.jr t0;
	 * 0x340 jalr t0, 0(ra); 0x344 c.add; 0x346 c.ebreak */
	rv_put32(mem, 0x300, rv_jal(1, 0x40));
	rv_put16(mem, 0x304, C_JR_T0);
	rv_put32(mem, 0x340, JALR_T0_RA);
	rv_put16(mem, 0x344, C_ADD);
	rv_put16(mem, 0x346, C_EBREAK);
}

/* ---- records, encoder, decoder ---- */

struct recs {
	struct ntrace_insn *v;
	size_t n, cap;
};

static void rec(struct recs *r, uint64_t addr, unsigned int size, unsigned int itype)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		if (!r->v)
			abort();
	}
	memset(&r->v[r->n], 0, sizeof(r->v[0]));
	r->v[r->n].addr = addr;
	r->v[r->n].size = (uint8_t)size;
	r->v[r->n].itype = (uint8_t)itype;
	r->v[r->n].priv = NTRACE_PRIV_U;
	r->v[r->n].tstamp = 10 * r->n;
	r->n++;
}

struct enc_out {
	struct ntrace_msg m[4096];
	size_t n;
	uint8_t bytes[65536];
	size_t len;
	const struct ntrace_codec_cfg *codec;
};

static int keep(void *ctx, const struct ntrace_msg *m)
{
	struct enc_out *o = ctx;
	uint8_t b[NTRACE_MSG_MAX_BYTES];
	size_t k = ntrace_msg_encode(o->codec, m, b);

	if (o->n == N(o->m) || !k || o->len + k > sizeof(o->bytes))
		return -1;
	o->m[o->n++] = *m;
	memcpy(o->bytes + o->len, b, k);
	o->len += k;
	return 0;
}

static int encode(const struct ntrace_enc_cfg *cfg, const struct recs *r, struct enc_out *o)
{
	struct ntrace_encoder e;
	const char *why = NULL;

	memset(o, 0, sizeof(*o));
	if (ntrace_encoder_init(&e, cfg, keep, o, &why)) {
		tap_diag("encoder: %s", why);
		return -1;
	}
	o->codec = &e.cfg.codec;
	if (ntrace_encoder_put(&e, r->v, r->n) || ntrace_encoder_finish(&e))
		return -1;
	return 0;
}

static struct ntrace_images *img;

struct dec_out {
	struct ntrace_decoder *d;
	uint64_t *pc;
	size_t n, cap;
	unsigned int errors, warns;
	char first_err[256];
};

static int add_pcs(void *ctx, const uint64_t *pcs, size_t n)
{
	struct dec_out *o = ctx;

	if (o->n + n > o->cap) {
		o->cap = 2 * (o->n + n);
		o->pc = realloc(o->pc, o->cap * sizeof(*o->pc));
		if (!o->pc)
			abort();
	}
	memcpy(o->pc + o->n, pcs, n * sizeof(*pcs));
	o->n += n;
	return 0;
}

static int runs(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct dec_out *o = ctx;
	size_t i;

	for (i = 0; i < n; i++)
		ntrace_decoder_run_pcs(o->d, &r[i], add_pcs, o);
	return 0;
}

static int event(void *ctx, const struct ntrace_dec_event *ev)
{
	struct dec_out *o = ctx;

	if (ev->type == NTRACE_DEV_ERROR && !o->errors++)
		snprintf(o->first_err, sizeof(o->first_err), "%s", ev->text);
	if (ev->type == NTRACE_DEV_WARN)
		o->warns++;
	return 0;
}

/* Decode len bytes with cfg's settings; the flow's PCs in o (free o->pc). */
static void decode(const struct ntrace_enc_cfg *enc, const uint8_t *b, size_t len,
		   struct dec_out *o)
{
	struct ntrace_dec_ops ops = { runs, event };
	struct ntrace_dec_cfg cfg;
	const char *why = NULL;

	memset(o, 0, sizeof(*o));
	ntrace_dec_cfg_default(&cfg);
	cfg.enc = *enc;
	o->d = ntrace_decoder_new(&cfg, img, &ops, o, &why);
	if (!o->d) {
		tap_diag("decoder: %s", why);
		o->errors++;
		return;
	}
	ntrace_decoder_feed(o->d, b, len);
	ntrace_decoder_finish(o->d);
	ntrace_decoder_free(o->d);
}

/* The decoded flow is the records' addresses. */
static int same_flow(const struct dec_out *o, const struct recs *r)
{
	size_t i;

	if (o->n != r->n) {
		tap_diag("decoded %zu instructions, want %zu (%s)", o->n, r->n, o->first_err);
		return 0;
	}
	for (i = 0; i < r->n; i++)
		if (o->pc[i] != r->v[i].addr) {
			tap_diag("instruction %zu: 0x%" PRIx64 ", want 0x%" PRIx64, i, o->pc[i],
				 r->v[i].addr);
			return 0;
		}
	return !o->errors;
}

static void v0_cfg(struct ntrace_enc_cfg *c)
{
	ntrace_enc_cfg_default(c);
	c->codec.variant = NTRACE_VARIANT_SIFIVE_V0;
	c->mode = NTRACE_MODE_HTM;
	c->implicit_return = NTRACE_IRET_COUNT;
	c->return_depth = NTRACE_V0_RETURN_DEPTH;
}

/* ---- codec ---- */

static void test_codec(void)
{
	/*
	 * [TRM] nSrcBits 2, [NXR] model p550x4 src=2; [DQR] parseResourceFull:
	 * TCODE[6] SRC[2] RCODE[4] RDATA[var] (TSTAMP[var]); RCODE 9 = taken
	 * count. Bits after TCODE: SRC 1, RCODE 9 -> MDO 0b100101 = 37.
	 *   byte 0: TCODE 27 << 2 | MSEO 00          = 0x6c
	 *   byte 1: 37 << 2 | 00                     = 0x94
	 *   byte 2: RDATA 5 << 2 | MSEO 11 (end)     = 0x17
	 * RCODE 8 (not taken) with RDATA 100 = 0b1_100100: MDO 1 | 8 << 2 = 33,
	 * then 36 and 1: 0x6c 0x84 0x90 0x07. With a TSTAMP of 42 after RDATA 5:
	 * RDATA ends its field (MSEO 01): 0x15, then 42 << 2 | 11 = 0xab.
	 */
	static const uint8_t taken5[] = { 0x6c, 0x94, 0x17 };
	static const uint8_t ntaken100[] = { 0x6c, 0x84, 0x90, 0x07 };
	static const uint8_t taken5_ts[] = { 0x6c, 0x94, 0x15, 0xab };
	struct ntrace_codec_cfg v0 = { .src_bits = 2, .xlen = 64, .tstamp = true,
				       .variant = NTRACE_VARIANT_SIFIVE_V0 };
	struct ntrace_codec_cfg v1 = v0;
	struct ntrace_msg out[4], m = { .tcode = NTRACE_TC_RESOURCE_FULL, .src = 1,
					.code = NTRACE_RCODE_V0_TAKEN, .count = 5,
					.flags = NTRACE_MSGF_COUNT };
	struct ntrace_parser p;
	uint8_t b[NTRACE_MSG_MAX_BYTES];
	size_t k, used;
	char text[128];

	v1.variant = NTRACE_VARIANT_1_0;
	k = ntrace_msg_encode(&v0, &m, b);
	tap_ok(k == N(taken5) && !memcmp(b, taken5, k),
	       "v0 codec: ResourceFull RCODE 9 RDATA 5 SRC 1 is 6c 94 17 [DQR, TRM]");
	m.code = NTRACE_RCODE_V0_NOT_TAKEN;
	m.count = 100;
	k = ntrace_msg_encode(&v0, &m, b);
	tap_ok(k == N(ntaken100) && !memcmp(b, ntaken100, k),
	       "v0 codec: ResourceFull RCODE 8 RDATA 100 is 6c 84 90 07");

	ntrace_parser_init(&p, &v0, 0);
	k = ntrace_parse(&p, taken5_ts, sizeof(taken5_ts), out, N(out), &used);
	ntrace_msg_format(&out[0], text, sizeof(text));
	tap_ok(k == 1 && !out[0].err && out[0].code == 9 && out[0].count == 5 && out[0].src == 1 &&
	       (out[0].flags & NTRACE_MSGF_COUNT) && out[0].tstamp == 42 &&
	       (out[0].flags & NTRACE_MSGF_TSTAMP) && !strcmp(text,
	       "ResourceFull src=1 rcode=9 taken=5 tstamp=42"),
	       "v0 codec: RCODE 9 parses as a count with its TSTAMP (%s)", text);
	ntrace_parser_init(&p, &v1, 0);
	k = ntrace_parse(&p, taken5_ts, sizeof(taken5_ts), out, N(out), &used);
	tap_ok(k == 1 && !out[0].err && (out[0].flags & NTRACE_MSGF_LAYOUT_RAW) &&
	       out[0].nraw == 2 && out[0].raw[0] == 5,
	       "1.0 codec: the same bytes are a vendor RCODE of unknown layout");
}

/* ---- timestamps ---- */

static void test_tstamp(void)
{
	/*
	 * [NXR] trace-decoder.c: under the SiFive quirk a relative timestamp is
	 * XORed into the last one (1.0: added); [DQR] Trace::processTS: TS_rel
	 * is lastTs ^ newTs; sync messages are absolute (both, and 1.0).
	 *   sync 0x1234 -> 0x1234; field 0x0007 -> 0x1233; field 0x00ff -> 0x12cc
	 * (1.0 would make 0x123b and 0x133a of the same fields).
	 */
	struct ntrace_msg sync = { .tcode = NTRACE_TC_PROG_TRACE_SYNC, .tstamp = 0x1234,
				   .flags = NTRACE_MSGF_TSTAMP };
	struct ntrace_msg a = { .tcode = NTRACE_TC_INDIRECT_BRANCH_HIST, .tstamp = 0x7,
				.flags = NTRACE_MSGF_TSTAMP };
	struct ntrace_msg b = a, none = { .tcode = NTRACE_TC_RESOURCE_FULL };
	uint64_t t = 0, u = 0, r1, r2, r3, s1, s2;

	b.tstamp = 0xff;
	ntrace_tstamp_update_variant(&t, &sync, NTRACE_VARIANT_SIFIVE_V0);
	r1 = ntrace_tstamp_update_variant(&t, &a, NTRACE_VARIANT_SIFIVE_V0);
	r2 = ntrace_tstamp_update_variant(&t, &none, NTRACE_VARIANT_SIFIVE_V0);
	r3 = ntrace_tstamp_update_variant(&t, &b, NTRACE_VARIANT_SIFIVE_V0);
	ntrace_tstamp_update(&u, &sync);
	s1 = ntrace_tstamp_update(&u, &a);
	s2 = ntrace_tstamp_update(&u, &b);
	tap_ok(r1 == 0x1233 && r2 == 0x1233 && r3 == 0x12cc && s1 == 0x123b && s2 == 0x133a,
	       "v0 timestamps: 0x1234, ^0x7 = 0x%" PRIx64 ", ^0xff = 0x%" PRIx64
	       " (1.0 adds: 0x%" PRIx64 ", 0x%" PRIx64 ") [NXR, DQR]", r1, r3, s1, s2);
	tap_ok(ntrace_tstamp_field(0x1300, 0x12cc, NTRACE_VARIANT_SIFIVE_V0) == 0x1cc &&
	       ntrace_tstamp_field(0x1300, 0x12cc, NTRACE_VARIANT_1_0) == 0x34,
	       "v0 timestamps: the encoder's field for 0x1300 after 0x12cc is 0x1cc (1.0: 0x34)");
	/* [TRM] tsWidth reads 0x28: a 40-bit counter; XOR keeps it in 40 bits */
	tap_ok(ntrace_tstamp_field(0xffffffffffull, 0x0000000001ull, NTRACE_VARIANT_SIFIVE_V0) ==
	       0xfffffffffeull, "v0 timestamps: the XOR of two 40-bit times is a 40-bit field");
}

/*
 * tsBranch [TRM]: 0 no TSTAMP on branch messages (sync ones only, by
 * tsEnable), 1 on indirect branch and exception messages, 3 on all branch,
 * exception, PTCM and Error messages. Records: start at 0x400, an indirect
 * jump to 0x500, then the end of trace: ProgTraceSync, IndirectBranchHist,
 * ProgTraceCorrelation.
 */
static void test_ts_branch(void)
{
	static const struct { uint8_t tsb; bool ibh, ptcm; const char *name; } want[] = {
		{ NTRACE_V0_TSB_NONE, false, false, "0: the sync message only" },
		{ NTRACE_V0_TSB_INDIRECT, true, false, "1: and the indirect branch" },
		{ NTRACE_V0_TSB_ALL, true, true, "3: and the ProgTraceCorrelation" },
	};
	struct ntrace_enc_cfg c;
	struct enc_out *o = malloc(sizeof(*o));
	struct recs r = { 0 };
	size_t i;

	if (!o)
		abort();
	rec(&r, 0x400, 4, NTRACE_ITYPE_NONE);
	rec(&r, 0x404, 4, NTRACE_ITYPE_IND_JUMP);
	rec(&r, 0x500, 4, NTRACE_ITYPE_NONE);
	for (i = 0; i < N(want); i++) {
		v0_cfg(&c);
		c.codec.tstamp = true;
		c.v0_ts_branch = want[i].tsb;
		tap_ok(!encode(&c, &r, o) && o->n == 3 &&
		       o->m[0].tcode == NTRACE_TC_PROG_TRACE_SYNC &&
		       (o->m[0].flags & NTRACE_MSGF_TSTAMP) &&
		       o->m[1].tcode == NTRACE_TC_INDIRECT_BRANCH_HIST &&
		       !!(o->m[1].flags & NTRACE_MSGF_TSTAMP) == want[i].ibh &&
		       o->m[2].tcode == NTRACE_TC_PROG_TRACE_CORRELATION &&
		       !!(o->m[2].flags & NTRACE_MSGF_TSTAMP) == want[i].ptcm,
		       "v0 encoder: tsBranch %s carries a TSTAMP [TRM]", want[i].name);
	}
	free(r.v);
	free(o);
}

/* ---- repeated history: RCODE 8/9 ---- */

static void test_branch_counts(void)
{
	struct ntrace_enc_cfg c;
	struct enc_out *o = malloc(sizeof(*o));
	struct dec_out d;
	struct recs r = { 0 };
	int i, ok;

	if (!o)
		abort();
	/*
	 * [DQR] RCODE 9 RDATA = taken branches; [NXR] trace-decoder.c queues
	 * RDATA copies of one taken bit (0b11) in order with the HIST fields.
	 * The loop at 0x400 taken 40 times, then not taken: a HIST register of
	 * 31 bits fills with taken bits, which starts a run; 9 more taken add
	 * to it; the not-taken exit ends it, so the run goes out first:
	 *   ProgTraceSync(0x400), ResourceFull RCODE 9 RDATA 40,
	 *   ProgTraceCorrelation I-CNT 41 * 3 = 123, HIST 0b10 (stop, not taken)
	 * (how long a run the P550 needs before it counts is not known: the
	 * model counts from a full register).
	 */
	for (i = 0; i < 41; i++) {
		rec(&r, 0x400, 2, NTRACE_ITYPE_NONE);
		rec(&r, 0x402, 4, i < 40 ? NTRACE_ITYPE_TAKEN : NTRACE_ITYPE_NOT_TAKEN);
	}
	v0_cfg(&c);
	c.repeated_history = true;
	ok = !encode(&c, &r, o) && o->n == 3 && o->m[0].tcode == NTRACE_TC_PROG_TRACE_SYNC &&
	     o->m[1].tcode == NTRACE_TC_RESOURCE_FULL && o->m[1].code == NTRACE_RCODE_V0_TAKEN &&
	     o->m[1].count == 40 && o->m[2].tcode == NTRACE_TC_PROG_TRACE_CORRELATION &&
	     o->m[2].icnt == 123 && o->m[2].hist == 2;
	tap_ok(ok, "v0 encoder: 40 taken loop branches are one RCODE 9 RDATA 40 [DQR, NXR]");
	decode(&c, o->bytes, o->len, &d);
	tap_ok(same_flow(&d, &r), "v0 decoder: RCODE 9 RDATA 40 replays the 40 taken branches");
	free(d.pc);

	/* the same bytes read as N-Trace 1.0: an unknown RCODE, ignored */
	c.codec.variant = NTRACE_VARIANT_1_0;
	c.implicit_return = NTRACE_IRET_OFF;
	decode(&c, o->bytes, o->len, &d);
	tap_ok(d.warns && d.errors, "1.0 decoder: RCODE 9 is unknown (%u warning), the flow "
	       "goes wrong (%s)", d.warns, d.first_err);
	free(d.pc);

	/*
	 * RCODE 8 [DQR]: RDATA not-taken branches. Hand-made messages, as the
	 * P550 would send them for the loop at 0x480 left by its taken exit
	 * after 3 passes: ProgTraceSync(0x480), ResourceFull RCODE 8 RDATA 3,
	 * ProgTraceCorrelation I-CNT 3 * (1 + 2 + 2) + 1 + 2 = 18, HIST 0b11.
	 */
	{
		struct ntrace_codec_cfg cc = { .xlen = 64, .variant = NTRACE_VARIANT_SIFIVE_V0 };
		const struct ntrace_msg m[] = {
			{ .tcode = NTRACE_TC_PROG_TRACE_SYNC, .sync = 5, .addr = 0x480 >> 1,
			  .flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR },
			{ .tcode = NTRACE_TC_RESOURCE_FULL, .code = NTRACE_RCODE_V0_NOT_TAKEN,
			  .count = 3, .flags = NTRACE_MSGF_COUNT },
			{ .tcode = NTRACE_TC_PROG_TRACE_CORRELATION, .code = 4, .cdf = 1,
			  .icnt = 18, .hist = 0x3, .flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_HIST },
		};
		uint8_t bytes[64];
		size_t len = 0;

		for (i = 0; i < (int)N(m); i++)
			len += ntrace_msg_encode(&cc, &m[i], bytes + len);
		r.n = 0;
		for (i = 0; i < 4; i++) {
			rec(&r, 0x480, 2, NTRACE_ITYPE_NONE);
			rec(&r, 0x482, 4, i < 3 ? NTRACE_ITYPE_NOT_TAKEN : NTRACE_ITYPE_TAKEN);
			if (i < 3)
				rec(&r, 0x486, 4, NTRACE_ITYPE_DIR_JUMP);
		}
		v0_cfg(&c);
		decode(&c, bytes, len, &d);
		tap_ok(same_flow(&d, &r), "v0 decoder: RCODE 8 RDATA 3 is three not-taken "
		       "branches [DQR]");
		free(d.pc);
	}
	free(r.v);
	free(o);
}

/* ---- implicit return: a call counter of 1023 ---- */

/* The recursion at 0x100/0x200 calls depth times, then returns all the way. */
static void recursion(struct recs *r, int depth)
{
	int i;

	rec(r, 0x100, 4, NTRACE_ITYPE_DIR_CALL);
	for (i = 1; i < depth; i++) {
		rec(r, 0x200, 4, NTRACE_ITYPE_NOT_TAKEN);
		rec(r, 0x204, 4, NTRACE_ITYPE_DIR_CALL);
	}
	rec(r, 0x200, 4, NTRACE_ITYPE_TAKEN);
	for (i = 0; i < depth; i++)
		rec(r, 0x208, 2, NTRACE_ITYPE_RETURN);
	rec(r, 0x104, 2, NTRACE_ITYPE_NONE);
}

static void test_call_counter(void)
{
	struct ntrace_enc_cfg c;
	struct enc_out *o = malloc(sizeof(*o));
	struct dec_out d;
	struct recs r = { 0 };
	size_t i, explicit = 0;

	if (!o)
		abort();
	/*
	 * [NXR] contrib/p550/README.md: test-stack-depth.cpp calls 1030 deep
	 * and returns; the trace shows 1023 returns implied and the rest as
	 * indirect branch messages: simple counting, 1023 deep. Here: 1030
	 * calls, so 1030 - 1023 = 7 returns are messages, and the decoder's
	 * return stack must hold the newest 1023 targets (1.0's 32 cannot).
	 */
	recursion(&r, 1030);
	v0_cfg(&c);
	if (encode(&c, &r, o))
		tap_ok(0, "v0 encoder: 1030 calls deep");
	for (i = 0; i < o->n; i++)
		explicit += o->m[i].tcode == NTRACE_TC_INDIRECT_BRANCH_HIST;
	tap_ok(explicit == 7, "v0 encoder: 1030 calls deep, %zu of 1030 returns are messages "
	       "(1023 counted) [NXR]", explicit);
	decode(&c, o->bytes, o->len, &d);
	tap_ok(same_flow(&d, &r), "v0 decoder: 1023 implicit returns, each to its own call site");
	free(d.pc);

	/* the same bytes with 1.0's return stack of 32 */
	c.codec.variant = NTRACE_VARIANT_1_0;
	c.return_depth = NTRACE_IRET_MAX_DEPTH;
	decode(&c, o->bytes, o->len, &d);
	tap_ok(d.errors && strstr(d.first_err, "return stack is empty"),
	       "1.0 decoder (32 deep) cannot follow it: %s", d.first_err);
	free(d.pc);

	/* a 1.0 encoder cannot be configured so deep */
	ntrace_enc_cfg_default(&c);
	c.implicit_return = NTRACE_IRET_COUNT;
	c.return_depth = 33;
	tap_ok(ntrace_enc_cfg_check(&c, NULL) == NTRACE_ECONFIG,
	       "1.0: a call counter deeper than 32 is refused");
	v0_cfg(&c);
	c.implicit_return = NTRACE_IRET_FULL;
	c.return_depth = 8;
	tap_ok(ntrace_enc_cfg_check(&c, NULL) == NTRACE_ECONFIG,
	       "v0: a return address stack is refused (counting is hard-wired) [NXR]");
	ntrace_enc_cfg_effective(&c);
	tap_ok(c.implicit_return == NTRACE_IRET_COUNT && c.return_depth == 1023,
	       "v0: the effective settings of a decoder asked for a stack: the counter of 1023");
	free(r.v);
	free(o);
}

/* ---- co-routine swap ---- */

static void test_coswap(void)
{
	struct ntrace_enc_cfg c;
	struct enc_out *o = malloc(sizeof(*o));
	struct dec_out d;
	struct recs r = { 0 };

	if (!o)
		abort();
	/*
	 * [NXR] util/inst.cpp: with the SiFive quirks a co-routine swap (JALR
	 * with two different link registers) is retired as an indirect call:
	 * its target comes from a message, and it pushes; it does not pop.
	 *   0x300 jal ra, 0x340      call: count 1
	 *   0x340 jalr t0, 0(ra)     swap: 1.0 infers it (pop 0x304, push 0x344);
	 *                            v0 sends IndirectBranchHist -> 0x304, count 2
	 *   0x304 c.jr t0            return: implied in both, to 0x344
	 *   0x344
	 */
	rec(&r, 0x300, 4, NTRACE_ITYPE_DIR_CALL);
	rec(&r, 0x340, 4, NTRACE_ITYPE_COSWAP);
	rec(&r, 0x304, 2, NTRACE_ITYPE_RETURN);
	rec(&r, 0x344, 2, NTRACE_ITYPE_NONE);
	v0_cfg(&c);
	tap_ok(!encode(&c, &r, o) && o->n == 3 &&
	       o->m[1].tcode == NTRACE_TC_INDIRECT_BRANCH_HIST && o->m[1].icnt == 4 &&
	       o->m[2].tcode == NTRACE_TC_PROG_TRACE_CORRELATION && o->m[2].icnt == 2,
	       "v0 encoder: the swap is an indirect branch message, the return is implied [NXR]");
	decode(&c, o->bytes, o->len, &d);
	tap_ok(same_flow(&d, &r), "v0 decoder: swap as a call, then the return to 0x344");
	free(d.pc);

	ntrace_enc_cfg_default(&c);
	c.mode = NTRACE_MODE_HTM;
	c.implicit_return = NTRACE_IRET_FULL;
	if (encode(&c, &r, o))
		o->n = 0;
	tap_ok(o->n == 2, "1.0 encoder: the same flow is fully implied (%zu messages: sync, "
	       "stop)", o->n);
	free(r.v);
	free(o);
}

/* ---- AUXTRACE_INFO and registers ---- */

struct payload {
	struct ntrace_auxtrace_info h;
	struct ntrace_cpu_info c;
};

static void p550_payload(struct payload *p)
{
	memset(p, 0, sizeof(*p));
	p->h.magic = NTRACE_AUXTRACE_MAGIC;
	p->h.version = NTRACE_AUXTRACE_VERSION;
	p->h.hdr_size = sizeof(p->h);
	p->h.rec_size = sizeof(p->c);
	p->h.nr_cpus = 1;
	/* [NXR] "CPU 0 was hart 2"; [TRM] nSrcBits 2, tsWidth 40 */
	p->c.cpu = 0;
	p->c.hartid = 2;
	p->c.format = 1;
	p->c.src_bits = 2;
	p->c.src_id = 2;
	p->c.mode = NTRACE_MODE_HTM;
	p->c.iret_mode = NTRACE_IRET_COUNT;
	p->c.options = NTRACE_OPT_IRET | NTRACE_OPT_REPHIST | NTRACE_OPT_TS;
	p->c.ts_width = 40;
	p->c.te_impl = 0x22200100;	/* [TRM] teImpl: version 0, hasFunnelSink,
					 * srcID 2, nSrcBits 2, hartid 2 */
	p->c.variant = NTRACE_PROTO_VARIANT_SIFIVE_V0;
}

static void test_auxinfo(void)
{
	struct ntrace_auxinfo info;
	struct payload p;
	char err[256];
	int rc;

	p550_payload(&p);
	rc = ntrace_auxinfo_parse(&p, sizeof(p), &info, err, sizeof(err));
	tap_ok(!rc && info.cpus[0].cfg.enc.codec.variant == NTRACE_VARIANT_SIFIVE_V0 &&
	       info.cpus[0].cfg.enc.implicit_return == NTRACE_IRET_COUNT &&
	       info.cpus[0].cfg.enc.return_depth == 1023 &&
	       info.cpus[0].cfg.enc.codec.src_bits == 2 && info.cpus[0].cfg.enc.src_id == 2 &&
	       info.cpus[0].cfg.enc.repeated_history && info.cpus[0].cfg.enc.codec.tstamp,
	       "auxinfo: variant 1 is the SiFive v0 decoder, its call counter 1023 deep%s%s",
	       rc ? ": " : "", rc ? err : "");
	ntrace_auxinfo_free(&info);

	p.c.variant = NTRACE_PROTO_VARIANT_1_0;
	rc = ntrace_auxinfo_parse(&p, sizeof(p), &info, err, sizeof(err));
	tap_ok(rc == NTRACE_ECONFIG && strstr(err, "pre-ratified"),
	       "auxinfo: a version-0 trTeImpl without the variant is refused (%s)", err);
	ntrace_auxinfo_free(&info);

	p.c.variant = 7;
	rc = ntrace_auxinfo_parse(&p, sizeof(p), &info, err, sizeof(err));
	tap_ok(rc == NTRACE_ECONFIG && strstr(err, "variant"),
	       "auxinfo: an unknown variant is refused (%s)", err);
	ntrace_auxinfo_free(&info);

	/* a file from before the field: the byte was reserved and 0 */
	p550_payload(&p);
	p.c.variant = 0;
	p.c.te_impl = 0;
	p.c.iret_mode = NTRACE_IRET_FULL;
	p.c.return_depth = 32;
	rc = ntrace_auxinfo_parse(&p, sizeof(p), &info, err, sizeof(err));
	tap_ok(!rc && info.cpus[0].cfg.enc.codec.variant == NTRACE_VARIANT_1_0 &&
	       info.cpus[0].cfg.enc.return_depth == 32,
	       "auxinfo: a record with 0 there (every older file) is N-Trace 1.0");
	ntrace_auxinfo_free(&info);
	tap_ok(offsetof(struct ntrace_cpu_info, variant) == 36 &&
	       offsetof(struct ntrace_cpu_info, ts_zero) == NTRACE_CPU_INFO_SIZE_V1 &&
	       sizeof(struct ntrace_cpu_info) == 72,
	       "auxinfo: the record keeps its layout (variant in the old reserved0, byte 36; ts_zero appended at 64)");
}

/*
 * A v0 unit counts from its own reset: the record's ts_zero (the time CSR
 * value at which it read 0) places its values on perf's clock, at the
 * unit's own rate; a record without the field (rec_size 64) converts as
 * before.
 */
static void test_ts_zero(void)
{
	struct ntrace_auxinfo info;
	struct payload p;
	char err[256];
	uint64_t t;
	int rc;

	p550_payload(&p);
	p.h.time_mult = 100u << 20;	/* 100 ns per tick: a 10 MHz time CSR */
	p.h.time_shift = 20;
	p.h.time_zero = 5;
	p.h.time_flags = NTRACE_TIME_CAP_ZERO;
	p.c.ts_rate_hz = 10000000;
	p.c.ts_zero = 287000000;	/* the unit started 28.7 s after the CSR */
	rc = ntrace_auxinfo_parse(&p, sizeof(p), &info, err, sizeof(err));
	t = rc ? 0 : ntrace_auxinfo_perf_time(&info, &info.cpus[0], 1000);
	tap_ok(!rc && info.cpus[0].ts_zero == 287000000 && t == 5 + 287001000ull * 100,
	       "auxinfo: ts_zero + TSTAMP is a time CSR value (%llu ns) %s",
	       (unsigned long long)t, rc ? err : "");
	ntrace_auxinfo_free(&info);

	p.c.ts_rate_hz = 700000000;	/* [NXR] the P550's trace timer */
	rc = ntrace_auxinfo_parse(&p, sizeof(p), &info, err, sizeof(err));
	t = rc ? 0 : ntrace_auxinfo_perf_time(&info, &info.cpus[0], 700);
	tap_ok(!rc && t == 5 + 287000000ull * 100 + 1000,
	       "auxinfo: a unit at its own rate (700 MHz): 700 ticks after ts_zero are 1000 ns (%llu)",
	       (unsigned long long)t);
	ntrace_auxinfo_free(&info);

	p.c.ts_rate_hz = 10000000;
	p.h.rec_size = NTRACE_CPU_INFO_SIZE_V1;
	rc = ntrace_auxinfo_parse(&p, sizeof(p.h) + NTRACE_CPU_INFO_SIZE_V1, &info, err,
				  sizeof(err));
	t = rc ? 0 : ntrace_auxinfo_perf_time(&info, &info.cpus[0], 1000);
	tap_ok(!rc && !info.cpus[0].ts_zero && t == 5 + 1000 * 100,
	       "auxinfo: a 64-byte record (older recorder) has no ts_zero: TSTAMP is the time CSR %s",
	       rc ? err : "");
	ntrace_auxinfo_free(&info);
}

static void test_regs(void)
{
	/*
	 * [UMD] README's "rvtrace config" readback on a P550: active=1
	 * inst_mode=7 itc_mode=3 stallovf=1 syncmaxbtm=11 syncmaxinst=10
	 * nexusformat=1 sink=FUNNEL; [TRM] layouts:
	 *   teControl 0x8 << 28 | 1 << 24 | 10 << 20 | 11 << 16 | 1 << 12 |
	 *             3 << 7 | 7 << 4 | 1                        = 0x81ab11f1
	 *   teImpl    hart 1: hartid 1 << 28 | nSrcBits 2 << 24 | srcID 1 << 20 |
	 *             hasFunnelSink 1 << 8 | version 0           = 0x12100100
	 *   tsControl [UMD] p550.cfg timestamp: slave, branch 3, itc, ownership:
	 *             tsWidth 40 << 24 | 1 << 19 | 1 << 18 | 3 << 16 | tsEnable
	 *             1 << 15 | tsType 4 << 4 | tsActive 1       = 0x280f8041
	 */
	struct ntrace_tci_regs r = { .te_control = 0x81ab11f1, .te_features = 0,
				     .ts_control = 0x280f8041, .te_impl = 0x12100100 };
	struct ntrace_enc_cfg c;
	const char *why = NULL;
	int rc;

	ntrace_enc_cfg_default(&c);
	rc = ntrace_enc_cfg_from_regs(&r, &c, &why);
	tap_ok(!rc && c.codec.variant == NTRACE_VARIANT_SIFIVE_V0 && c.mode == NTRACE_MODE_HTM &&
	       c.codec.src_bits == 2 && c.src_id == 1 && c.implicit_return == NTRACE_IRET_COUNT &&
	       c.return_depth == 1023 && c.repeated_history && c.codec.tstamp &&
	       c.sync_mode == NTRACE_SYNCMODE_MSGS && c.sync_max == 12,
	       "regs: a P550 hart 1 encoder's registers (trTeImpl version 0) [UMD, TRM]%s%s",
	       why ? ": " : "", why ? why : "");
	r.te_control = (r.te_control & ~0x70u) | 6 << 4;	/* HTM without optimizations */
	r.te_control |= 1u << 15;				/* teInhibitSrc */
	ntrace_enc_cfg_default(&c);
	rc = ntrace_enc_cfg_from_regs(&r, &c, &why);
	tap_ok(!rc && c.codec.variant == NTRACE_VARIANT_SIFIVE_V0 && !c.implicit_return &&
	       !c.repeated_history && !c.codec.src_bits,
	       "regs: teInstruction 6 (no optimization) and teInhibitSrc [TRM]");
	tap_ok(c.v0_ts_branch == NTRACE_V0_TSB_ALL, "regs: tsBranch 3 is TSTAMP on all messages");
	r.ts_control &= ~(3u << 16);
	ntrace_enc_cfg_from_regs(&r, &c, &why);
	tap_ok(c.v0_ts_branch == NTRACE_V0_TSB_NONE && c.codec.tstamp,
	       "regs: tsBranch 0 is TSTAMP on sync messages only");
	r.ts_control |= 1u << 16;
	ntrace_enc_cfg_from_regs(&r, &c, &why);
	tap_ok(c.v0_ts_branch == NTRACE_V0_TSB_INDIRECT, "regs: tsBranch 1 is indirect branches too");
	r.te_control = (r.te_control & ~0x70u) | 3 << 4;	/* reserved on the P550 */
	rc = ntrace_enc_cfg_from_regs(&r, &c, &why);
	tap_ok(rc == NTRACE_ECONFIG && why && strstr(why, "teInstruction"),
	       "regs: teInstruction 3 is refused (%s)", why ? why : "no reason");
}

int main(void)
{
	build();
	img = ntrace_images_new(NULL);
	if (ntrace_images_add_mem(img, "v0-examples", mem, sizeof(mem), 0)) {
		printf("not ok - image: %s\n", ntrace_images_errmsg(img));
		return 1;
	}
	test_codec();
	test_tstamp();
	test_ts_branch();
	test_branch_counts();
	test_call_counter();
	test_coswap();
	test_auxinfo();
	test_ts_zero();
	test_regs();
	ntrace_images_free(img);
	return tap_done();
}
