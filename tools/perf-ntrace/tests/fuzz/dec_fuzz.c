// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target for the codec + flow decoder on a synthetic program
 * image (branches, calls, returns, indirect and sequential jumps, ECALL,
 * MRET), placed twice: for RV64 at 0x10000, and for RV32 at 0xffffe000,
 * where addresses have bit 31 set (XLEN-32 address fields and wrap). Input:
 * byte 0 picks the encoder configuration (the round-trip table) and the
 * XLEN (byte 0 / the table's size, odd: RV32), byte 1 decoder options, the
 * rest is the N-Trace byte stream.
 * Checks besides the sanitizers: every decoded instruction lies in the
 * image, and decoding the stream split in two chunks gives the same flow;
 * and the parallel decoder (ntrace/pardec.h, two threads, pieces of 64 to
 * 1024 bytes) writes the same PC list or branch records, events and counts
 * as one decoder.
 *
 * With FUZZ_WRITE_SEEDS=DIR set, it writes a seed corpus instead: random
 * executions of the image run through the encoder model in every
 * configuration. Built and run by tests/fuzz.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntrace/decoder.h"
#include "ntrace/pardec.h"
#include "ntrace/ingress_build.h"
#include "../roundtrip/rt_configs.h"

#define SIZE 4096u

static uint8_t code[SIZE];
static uint32_t starts[SIZE / 2];	/* instruction offsets in code */
static size_t nstarts;

/* The same code for each XLEN: where it runs, and its image set. */
static struct space {
	uint64_t base;
	unsigned int xlen;
	struct ntrace_images *img;
} spaces[2] = { { 0x10000, 64, NULL }, { 0xffffe000u, 32, NULL } };
static const struct space *cur;	/* the one this input decodes */

static uint32_t rng = 1;

static uint32_t rnd(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

static void put(uint32_t a, uint32_t v, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		code[a + i] = (uint8_t)(v >> (8 * i));
}

static uint32_t btype(unsigned int f3, int32_t off)
{
	uint32_t o = (uint32_t)off;

	return ((o >> 12) & 1) << 31 | ((o >> 5) & 0x3f) << 25 | 11u << 20 | 10u << 15 |
	       f3 << 12 | ((o >> 1) & 0xf) << 8 | ((o >> 11) & 1) << 7 | 0x63;
}

static uint32_t jal(unsigned int rd, int32_t off)
{
	uint32_t o = (uint32_t)off;

	return ((o >> 20) & 1) << 31 | ((o >> 1) & 0x3ff) << 21 | ((o >> 11) & 1) << 20 |
	       ((o >> 12) & 0xff) << 12 | rd << 7 | 0x6f;
}

/* c.jal on RV32, c.addiw a0 on RV64: the one encoding whose kind depends on XLEN */
static uint32_t cjal(int32_t off)
{
	uint32_t o = (uint32_t)off;

	return 1u << 13 | ((o >> 11) & 1) << 12 | ((o >> 4) & 1) << 11 | ((o >> 8) & 3) << 9 |
	       ((o >> 10) & 1) << 8 | ((o >> 6) & 1) << 7 | ((o >> 7) & 1) << 6 |
	       ((o >> 1) & 7) << 3 | ((o >> 5) & 1) << 2 | 1;
}

/* Lay out instruction sizes first, then fill encodings whose targets are
 * instruction starts. */
static void build_image(void)
{
	uint8_t kind[SIZE / 2];
	uint32_t a;
	size_t i;

	rng = 7;
	for (a = 0; a + 8 <= SIZE;) {
		unsigned int k = rnd() % 16;

		kind[nstarts] = (uint8_t)k;
		starts[nstarts++] = a;
		a += k == 1 || k == 6 || k == 7 || k == 11 ? 2 : k == 14 ? 8 : 4;
	}
	for (i = 0; i < nstarts; i++) {
		uint32_t pc = starts[i], t = starts[rnd() % nstarts];
		int32_t off = (int32_t)(t - pc);

		switch (kind[i]) {
		case 1: put(pc, 0x952e, 2); break;			/* c.add a0, a1 */
		case 2: case 3: put(pc, btype(kind[i] == 2 ? 0 : 1, off), 4); break;
		case 4: put(pc, jal(1, off), 4); break;			/* call */
		case 5: put(pc, jal(0, off), 4); break;			/* jump */
		case 6: put(pc, 0x8082, 2); break;			/* c.jr ra */
		case 7: put(pc, 0x9582, 2); break;			/* c.jalr a1 */
		case 8: put(pc, 0x00058067, 4); break;			/* jalr x0, 0(a1) */
		case 9: put(pc, 0x00000073, 4); break;			/* ecall */
		case 10: put(pc, 0x30200073, 4); break;			/* mret */
		case 11:	/* c.jal (RV32) within reach, else c.add */
			put(pc, off >= -2048 && off < 2048 ? cjal(off) : 0x952e, 2);
			break;
		case 14:						/* auipc a5; jalr x0, off(a5) */
			off = (int32_t)(t - pc) & 0x7ff;
			put(pc, 0x00000797, 4);
			put(pc + 4, (uint32_t)off << 20 | 15u << 15 | 0x67, 4);
			break;
		default: put(pc, 0x00b50533, 4); break;			/* add */
		}
	}
	for (i = 0; i < 2; i++) {
		struct space *sp = &spaces[i];
		struct ntrace_isa_cfg isa = { .xlen = (uint8_t)sp->xlen, .ext = NTRACE_ISA_C };

		sp->img = ntrace_images_new(&isa);
		if (!sp->img || ntrace_images_add_mem(sp->img, "fuzz-image", code, SIZE, sp->base))
			abort();
	}
}

/* ---- seed corpus: random executions through the encoder ---- */

struct enc_mem {
	const struct ntrace_codec_cfg *codec;
	uint8_t buf[1 << 16];
	size_t n;
};

static int to_mem(void *ctx, const struct ntrace_msg *m)
{
	struct enc_mem *o = ctx;

	if (o->n + NTRACE_MSG_MAX_BYTES > sizeof(o->buf))
		return 1;
	o->n += ntrace_msg_encode(o->codec, m, o->buf + o->n);
	return 0;
}

static void run_program(const struct space *s, struct ntrace_insn_vec *out, unsigned int steps)
{
	struct ntrace_ingress_opts io = { .priv = NTRACE_PRIV_M };
	struct ntrace_builder *b = ntrace_builder_new(&io, ntrace_insn_vec_push, out);
	uint64_t stack[64], pc = s->base + starts[rnd() % nstarts];
	unsigned int sp = 0, i;

	for (i = 0; i < steps; i++) {
		struct ntrace_idec id;
		uint64_t next;

		if (ntrace_images_decode(s->img, pc, &id) || id.kind == NTRACE_IK_INVALID)
			break;
		if (id.kind == NTRACE_IK_TRAP) {	/* ecall: trap, resume after it */
			ntrace_builder_trap(b, pc, 11, 0, 1, NTRACE_PRIV_M);
			pc += id.size;
			continue;
		}
		ntrace_builder_insn(b, pc, &id, NTRACE_PRIV_M);
		next = pc + id.size;
		switch (id.kind) {
		case NTRACE_IK_BRANCH:
			if (rnd() & 1)
				next = pc + (int64_t)id.off;
			break;
		case NTRACE_IK_JUMP:
			if (id.itype == NTRACE_ITYPE_DIR_CALL && sp < 64)
				stack[sp++] = next;
			next = pc + (int64_t)id.off;
			break;
		case NTRACE_IK_INDIRECT:
			if (id.itype == NTRACE_ITYPE_RETURN && sp) {
				next = stack[--sp];
			} else if (id.reg == 15) {	/* auipc a5 before it */
				uint32_t bits;

				ntrace_images_insn_bits(s->img, pc, &bits);
				next = (pc - 4 + (uint64_t)(int64_t)((int32_t)bits >> 20)) & ~1ull;
			} else {
				if (id.itype == NTRACE_ITYPE_IND_CALL && sp < 64)
					stack[sp++] = next;
				next = s->base + starts[rnd() % nstarts];
			}
			break;
		case NTRACE_IK_TRAP_RETURN:
			next = s->base + starts[rnd() % nstarts];
			break;
		default:
			break;
		}
		pc = s->xlen == 32 ? (uint32_t)next : next;
	}
	ntrace_builder_finish(b);
	ntrace_builder_free(b);
}

static void write_seeds(const char *dir)
{
	unsigned int s, c, x;

	for (s = 0; s < 12; s++) {
		struct ntrace_insn_vec v = { 0 };

		x = s & 1;	/* RV64, RV32 */
		rng = 1000 + s;
		run_program(&spaces[x], &v, 300 + 200 * s);
		for (c = 0; c < RT_NCONFIGS; c++) {
			static struct enc_mem o;
			struct ntrace_enc_cfg cfg;
			struct ntrace_encoder e;
			char path[4096];
			FILE *f;

			ntrace_enc_cfg_default(&cfg);
			rt_configs[c].apply(&cfg);
			cfg.codec.xlen = (uint8_t)spaces[x].xlen;
			o.n = 2;
			o.buf[0] = (uint8_t)(c + x * RT_NCONFIGS);
			o.buf[1] = (uint8_t)s;
			o.codec = &cfg.codec;
			if (ntrace_encoder_init(&e, &cfg, to_mem, &o, NULL) ||
			    ntrace_encoder_put(&e, v.v, v.n) || ntrace_encoder_finish(&e))
				continue;
			snprintf(path, sizeof(path), "%s/seed-%u-rv%u-%s", dir, s, spaces[x].xlen,
				 rt_configs[c].name);
			f = fopen(path, "wb");
			if (f) {
				fwrite(o.buf, 1, o.n, f);
				fclose(f);
			}
		}
		ntrace_insn_vec_free(&v);
	}
}

/* ---- the target ---- */

struct fz {
	struct ntrace_decoder *d;
	uint64_t hash, count;
};

static int pcs(void *ctx, const uint64_t *p, size_t n)
{
	struct fz *z = ctx;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] < cur->base || p[i] >= cur->base + SIZE || (p[i] & 1))
			abort();	/* decoded an instruction outside the image */
		z->hash = (z->hash ^ p[i]) * 0x100000001b3ull;
		z->count++;
	}
	return 0;
}

static int runs(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct fz *z = ctx;
	size_t i;

	for (i = 0; i < n; i++) {
		z->hash = (z->hash ^ r[i].kind ^ r[i].to) * 0x100000001b3ull;
		if (ntrace_decoder_run_pcs(z->d, &r[i], pcs, z) < 0)
			abort();	/* a run the decoder cannot expand again */
	}
	return 0;
}

static int event(void *ctx, const struct ntrace_dec_event *ev)
{
	struct fz *z = ctx;

	z->hash = (z->hash ^ ev->type ^ ev->offset) * 0x100000001b3ull;
	return 0;
}

static void decode(const struct ntrace_dec_cfg *cfg, const uint8_t *d, size_t n, size_t cut,
		   struct fz *z)
{
	struct ntrace_dec_ops ops = { runs, event };

	memset(z, 0, sizeof(*z));
	z->d = ntrace_decoder_new(cfg, cur->img, &ops, z, NULL);
	if (!z->d)
		abort();
	ntrace_decoder_feed(z->d, d, cut);
	ntrace_decoder_feed(z->d, d + cut, n - cut);
	ntrace_decoder_finish(z->d);
	ntrace_decoder_free(z->d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("FUZZ_WRITE_SEEDS");

	(void)argc;
	(void)argv;
	build_image();
	if (dir) {
		write_seeds(dir);
		exit(0);
	}
	return 0;
}

/* Events as text, one line each: what a consumer of events sees. */
static int ev_line(void *ctx, const struct ntrace_dec_event *ev)
{
	fprintf(ctx, "%u %u %u %u %llu %llx %llx %llx %s\n", ev->type, ev->priv, ev->src, ev->code,
		(unsigned long long)ev->offset, (unsigned long long)ev->pc,
		(unsigned long long)ev->context, (unsigned long long)ev->tstamp,
		ev->text ? ev->text : "-");
	return 0;
}

struct text {
	char *buf;
	size_t len;
	FILE *f;
};

static void text_open(struct text *t)
{
	t->buf = NULL;
	t->len = 0;
	t->f = open_memstream(&t->buf, &t->len);
	if (!t->f)
		abort();
}

static bool text_same(struct text *a, struct text *b)
{
	bool same;

	fclose(a->f);
	fclose(b->f);
	same = a->len == b->len && !memcmp(a->buf, b->buf, a->len);
	free(a->buf);
	free(b->buf);
	return same;
}

/* One decoder against the parallel decoder: output, events, counters. */
static void par_check(const struct ntrace_dec_cfg *cfg, const uint8_t *data, size_t size,
		      enum ntrace_sink_format fmt, size_t piece)
{
	struct ntrace_pardec_cfg pc;
	struct ntrace_dec_stats s1, s2;
	struct text o1, o2, e1, e2;
	struct ntrace_decoder *d;
	struct ntrace_pardec *p;
	struct ntrace_sink *sk;
	struct ntrace_dec_ops ops = { ntrace_sink_runs, NULL };
	int r1, r2;

	text_open(&o1);
	text_open(&o2);
	text_open(&e1);
	text_open(&e2);
	sk = ntrace_sink_new(fmt, o1.f, NULL, cur->img);
	d = ntrace_decoder_new(cfg, cur->img, &ops, sk, NULL);
	if (!sk || !d)
		abort();
	ntrace_sink_set_decoder(sk, d);
	{
		/* the events of one decoder, from a decode of their own (the
		 * sink is the other decoder's callback context) */
		struct ntrace_decoder *de;
		struct ntrace_dec_ops eo = { NULL, ev_line };

		de = ntrace_decoder_new(cfg, cur->img, &eo, e1.f, NULL);
		if (!de)
			abort();
		ntrace_decoder_feed(de, data, size);
		ntrace_decoder_finish(de);
		ntrace_decoder_free(de);
	}
	r1 = ntrace_decoder_feed(d, data, size);
	if (!r1)
		r1 = ntrace_decoder_finish(d);
	ntrace_sink_flush(sk);
	ntrace_decoder_stats(d, &s1);

	ntrace_pardec_cfg_default(&pc);
	pc.jobs = 2;
	pc.piece_bytes = piece;
	pc.fmt = fmt;
	pc.out_limit = 4096;	/* the threads wait for the writer often */
	p = ntrace_pardec_new(cfg, cur->img, &pc, o2.f, ev_line, e2.f, NULL);
	if (!p)
		abort();
	r2 = ntrace_pardec_feed(p, data, size / 2);
	if (!r2)
		r2 = ntrace_pardec_feed(p, data + size / 2, size - size / 2);
	if (!r2)
		r2 = ntrace_pardec_finish(p);
	ntrace_pardec_stats(p, &s2);
	ntrace_pardec_free(p);
	if (r1 != r2 || !text_same(&o1, &o2) || !text_same(&e1, &e2) ||
	    memcmp(&s1, &s2, sizeof(s1)))
		abort();	/* the parallel decode differs */
	ntrace_decoder_free(d);
	ntrace_sink_free(sk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ntrace_dec_cfg cfg;
	struct fz a, b;

	if (size < 2)
		return 0;
	ntrace_dec_cfg_default(&cfg);
	ntrace_enc_cfg_default(&cfg.enc);	/* as the seeds were encoded */
	rt_configs[data[0] % RT_NCONFIGS].apply(&cfg.enc);
	cur = &spaces[data[0] / RT_NCONFIGS & 1];
	cfg.enc.codec.xlen = (uint8_t)cur->xlen;
	cfg.enc.icnt_bits = 16;		/* bound the work one message can ask for */
	cfg.merge_not_taken = data[1] & 1;
	if (cfg.enc.codec.src_bits && (data[1] & 2))
		cfg.src = -1;
	else if (cfg.enc.codec.src_bits)
		cfg.src = cfg.enc.src_id;
	cfg.enc.codec.wait_for_eom = (data[1] & 4) != 0;
	cfg.hist_backlog = 4096;
	cfg.bcache_bits = 8 + (data[1] >> 6);	/* small: cheap to create, collisions */
	data += 2;
	size -= 2;
	decode(&cfg, data, size, size, &a);
	decode(&cfg, data, size, size / 3, &b);
	if (a.hash != b.hash || a.count != b.count)
		abort();	/* the flow depends on how the stream is split */
	par_check(&cfg, data, size, data[-1] & 8 ? NTRACE_SINK_BRANCHES : NTRACE_SINK_PC,
		  64 + (size_t)(data[-1] >> 4 & 3) * 320);
	return 0;
}
