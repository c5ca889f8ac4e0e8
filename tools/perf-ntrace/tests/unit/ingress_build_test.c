// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Ingress builders: the seed-002 tandem-trace examples (Appendix C, byte
 * for byte) parse into the records they describe; the builder's rules for
 * branches, traps and discontinuities; garbage input fails cleanly.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntrace/ingress_build.h"

static int failed;

static void check(int cond, const char *name)
{
	printf("%sok - %s\n", cond ? "" : "not ", name);
	if (!cond)
		failed++;
}

/* Seed 002, Appendix C (C.5 as printed: opcode 0x10 with a 32-bit insn). */
static const uint8_t c1[] = { 0x01, 0x03, 0x11, 0xb3, 0x81, 0x62, 0x00, 0x04, 0x03, 0x10,
	0x34, 0x12, 0, 0, 0, 0, 0, 0, 0x02 };
static const uint8_t c2[] = { 0x01, 0x07, 0x10, 0x00, 0x01, 0x00, 0x0c, 0, 0, 0, 0,
	0x11, 0x67, 0x00, 0x01, 0x10, 0x02 };
static const uint8_t c3[] = { 0x01, 0x03, 0x11, 0xd3, 0xf3, 0x16, 0x01, 0x04, 0x27, 0x10,
	0xf9, 0xf4, 0xfe, 0x66, 0xff, 0xff, 0xff, 0xff, 0x06, 0x03, 0x00, 0x01, 0x02 };
static const uint8_t c4[] = { 0x01, 0x03, 0x10, 0x0d, 0x8d, 0x04, 0x10, 0x10, 0x78, 0x56,
	0x34, 0x12, 0xff, 0xff, 0xff, 0xff, 0x02 };
static const uint8_t c5[] = { 0x01, 0x03, 0x10, 0x03, 0xa2, 0x82, 0x00, 0x04, 0x04, 0x10,
	0xaa, 0x55, 0xaa, 0x55, 0xaa, 0x55, 0xaa, 0x55, 0x07, 0x02, 0x08, 0x00, 0x00, 0x01,
	0, 0, 0, 0, 0x02 };
static const uint8_t c6[] = { 0x01, 0x03, 0x11, 0xf3, 0xb4, 0x45, 0x30, 0x04, 0x09, 0x10,
	0x88, 0x08, 0, 0, 0, 0, 0, 0, 0x04, 0x04, 0x03, 0x80, 0x08, 0, 0, 0, 0, 0, 0, 0x02 };
static const uint8_t c7[] = { 0x01, 0x07, 0x10, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0,
	0x11, 0, 0, 0, 0, 0x04, 0x41, 0x03, 0x34, 0x12, 0x08, 0, 0, 0, 0, 0,
	0x04, 0x42, 0x03, 0x02, 0, 0, 0, 0, 0, 0, 0,
	0x04, 0x00, 0x03, 0xb0, 0x18, 0x00, 0x00, 0x0a, 0, 0, 0,
	0x04, 0x43, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x07, 0x01, 0x03, 0x02 };
static const uint8_t c8[] = { 0x01, 0x07, 0x10, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0,
	0x04, 0x41, 0x03, 0x56, 0x12, 0x08, 0, 0, 0, 0, 0,
	0x04, 0x42, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0x80,
	0x04, 0x00, 0x03, 0xb0, 0x18, 0x00, 0x00, 0x0a, 0, 0, 0,
	0x04, 0x43, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x07, 0x01, 0x03, 0x02 };

struct stream {
	uint8_t b[1024];
	size_t n;
};

static void add(struct stream *s, const uint8_t *p, size_t n)
{
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

/* A group setting pc (identifier 10, as in the seed's table) and M-mode. */
static void init(struct stream *s, uint64_t pc)
{
	uint8_t g[] = { 0x01, 0x07, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0x07, 0x01, 0x03, 0x02 };
	int i;

	for (i = 0; i < 8; i++)
		g[3 + i] = (uint8_t)(pc >> (8 * i));
	add(s, g, sizeof(g));
}

static int parse(const struct stream *s, struct ntrace_insn_vec *v, char *err)
{
	struct ntrace_ingress_opts o = { .priv = NTRACE_PRIV_M };

	memset(v, 0, sizeof(*v));
	return ntrace_tv_parse(s->b, s->n, NULL, &o, v, err, 256);
}

static int rec(const struct ntrace_insn *r, uint64_t addr, unsigned int size,
	       unsigned int itype)
{
	if (r->addr == addr && r->size == size && r->itype == itype &&
	    r->priv == NTRACE_PRIV_M)
		return 1;
	printf("# got ");
	ntrace_insn_print(stdout, r);
	return 0;
}

/* One example after a pc-setting group: expect exactly one record. */
static void one(const char *name, const uint8_t *ex, size_t n, uint64_t pc,
		unsigned int size, unsigned int itype)
{
	struct stream s = { .n = 0 };
	struct ntrace_insn_vec v;
	char err[256], t[96];
	int rc;

	init(&s, pc);
	add(&s, ex, n);
	rc = parse(&s, &v, err);
	snprintf(t, sizeof(t), "tv: seed example %s", name);
	if (rc)
		printf("# %s\n", err);
	check(!rc && v.n == 1 && rec(&v.v[0], pc, size, itype) &&
	      (v.v[0].flags & NTRACE_INSN_TRACE_START) &&
	      (v.v[0].flags & NTRACE_INSN_TRACE_STOP), t);
	ntrace_insn_vec_free(&v);
}

static void test_seed_examples(void)
{
	struct stream s = { .n = 0 };
	struct ntrace_insn_vec v;
	uint8_t fixed5[sizeof(c5)];
	char err[256];
	int rc;

	one("C.1 add", c1, sizeof(c1), 0x80000000, 4, NTRACE_ITYPE_NONE);
	one("C.2 jr 256(sp)", c2, sizeof(c2), 0x80000000, 4, NTRACE_ITYPE_IND_JUMP);
	one("C.3 fadd.s", c3, sizeof(c3), 0x80000000, 4, NTRACE_ITYPE_NONE);
	one("C.4 c.sub", c4, sizeof(c4), 0x80000000, 2, NTRACE_ITYPE_NONE);
	one("C.6 csrrc", c6, sizeof(c6), 0x80000000, 4, NTRACE_ITYPE_NONE);

	/* C.5 as printed puts a 32-bit instruction behind the 16-bit opcode */
	init(&s, 0x80000000);
	add(&s, c5, sizeof(c5));
	rc = parse(&s, &v, err);
	check(rc && strstr(err, "offset"), "tv: seed example C.5 as printed is refused");
	printf("# %s\n", err);
	ntrace_insn_vec_free(&v);
	memcpy(fixed5, c5, sizeof(c5));
	fixed5[2] = 0x11;
	one("C.5 lw (opcode corrected to 17)", fixed5, sizeof(fixed5), 0x80000000, 4,
	    NTRACE_ITYPE_NONE);

	/* C.7: illegal instruction at mepc 0x81234 (did not retire) */
	s.n = 0;
	init(&s, 0x81234);
	add(&s, c7, sizeof(c7));
	rc = parse(&s, &v, err);
	check(!rc && v.n == 1 && rec(&v.v[0], 0x81234, 0, NTRACE_ITYPE_EXCEPTION) &&
	      v.v[0].cause == 2 && (v.v[0].flags & NTRACE_INSN_CAUSE_VALID),
	      "tv: seed example C.7 illegal instruction is a trap record");
	ntrace_insn_vec_free(&v);

	/* C.8: interrupt; after it an add runs at the handler (0x10000) */
	s.n = 0;
	init(&s, 0x81256);
	add(&s, c8, sizeof(c8));
	add(&s, c1, sizeof(c1));
	rc = parse(&s, &v, err);
	check(!rc && v.n == 2 && rec(&v.v[0], 0x81256, 0, NTRACE_ITYPE_INTERRUPT) &&
	      v.v[0].cause == 0x8000000000000003ull && rec(&v.v[1], 0x10000, 4, 0),
	      "tv: seed example C.8 interrupt, then the handler");
	ntrace_insn_vec_free(&v);

	/* add; jr -> 0xc000100; c.sub; interrupt (on the c.sub); add at handler */
	s.n = 0;
	init(&s, 0x80000000);
	add(&s, c1, sizeof(c1));
	add(&s, c2, sizeof(c2));
	add(&s, c4, sizeof(c4));
	{
		uint8_t irq[sizeof(c8)];

		memcpy(irq, c8, sizeof(c8));
		irq[14] = 0x02;	/* mepc = 0xc000102, after the c.sub */
		irq[15] = 0x01;
		irq[16] = 0x00;
		irq[17] = 0x0c;
		add(&s, irq, sizeof(irq));
	}
	add(&s, c1, sizeof(c1));
	rc = parse(&s, &v, err);
	if (rc)
		printf("# %s\n", err);
	check(!rc && v.n == 4 && rec(&v.v[0], 0x80000000, 4, NTRACE_ITYPE_NONE) &&
	      rec(&v.v[1], 0x80000004, 4, NTRACE_ITYPE_IND_JUMP) &&
	      rec(&v.v[2], 0xc000100, 2, NTRACE_ITYPE_INTERRUPT) &&
	      rec(&v.v[3], 0x10000, 4, NTRACE_ITYPE_NONE),
	      "tv: seed examples chained (pc state carried across groups)");
	ntrace_insn_vec_free(&v);
}

static void test_builder(void)
{
	struct ntrace_isa_cfg cfg = NTRACE_ISA_CFG_RV64GC;
	struct ntrace_insn_vec v = { 0 };
	struct ntrace_builder *b = ntrace_builder_new(NULL, ntrace_insn_vec_push, &v);
	struct ntrace_idec add, beq, ecall, ret;

	ntrace_isa_decode(0x00c58533, &cfg, &add);	/* add */
	ntrace_isa_decode(0x00b50463, &cfg, &beq);	/* beq .+8 */
	ntrace_isa_decode(0x00000073, &cfg, &ecall);
	ntrace_isa_decode(0x8082, &cfg, &ret);

	ntrace_builder_trap(b, 0x100, 0, 0, 1, 0);		/* trap before anything */
	ntrace_builder_insn(b, 0x1000, &add, 0);
	ntrace_builder_insn(b, 0x1004, &beq, 0);		/* taken */
	ntrace_builder_insn(b, 0x100c, &beq, 0);		/* not taken */
	ntrace_builder_insn(b, 0x1010, &add, 0);
	ntrace_builder_trap(b, 0x1014, 8, 0, 1, 0);		/* ecall after add */
	ntrace_builder_insn(b, 0x2000, &beq, 0);
	ntrace_builder_trap(b, 0x2008, 1ull << 63 | 7, 0, 1, 0);	/* irq after branch */
	ntrace_builder_insn(b, 0x3000, &ret, 0);
	ntrace_builder_insn(b, 0x4000, &add, 0);
	ntrace_builder_insn(b, 0x5000, &add, 0);		/* unmarked jump */
	check(ntrace_builder_insn(b, 0x5004, &ecall, 0) < 0 &&
	      strstr(ntrace_builder_errmsg(b), "recorded as retired"),
	      "builder: ECALL recorded as retired is an error");
	ntrace_builder_insn(b, 0x5004, &beq, 0);
	ntrace_builder_finish(b);

	check(v.n == 11, "builder: record count");
	if (v.n == 11) {
		check(v.v[0].size == 0 && v.v[0].itype == NTRACE_ITYPE_EXCEPTION &&
		      v.v[0].addr == 0x100 && (v.v[0].flags & NTRACE_INSN_TRACE_START),
		      "builder: a trap with nothing retired is a size-0 record");
		check(v.v[2].itype == NTRACE_ITYPE_TAKEN && v.v[3].itype == NTRACE_ITYPE_NOT_TAKEN,
		      "builder: taken / not taken from the successor");
		check(v.v[4].itype == NTRACE_ITYPE_EXCEPTION && v.v[4].addr == 0x1010 &&
		      v.v[4].cause == 8, "builder: a trap after a plain instruction goes on it");
		check(v.v[5].itype == NTRACE_ITYPE_TAKEN && v.v[6].size == 0 &&
		      v.v[6].addr == 0x2008 && v.v[6].itype == NTRACE_ITYPE_INTERRUPT,
		      "builder: a trap after a branch gets its own size-0 record");
		check(v.v[7].itype == NTRACE_ITYPE_RETURN, "builder: return itype");
		check(v.v[8].itype == NTRACE_ITYPE_EXCEPTION &&
		      !(v.v[8].flags & NTRACE_INSN_CAUSE_VALID) &&
		      ntrace_builder_unmarked(b) == 1,
		      "builder: unmarked discontinuity is counted and reported");
		check(v.v[10].itype == NTRACE_ITYPE_NOT_TAKEN &&
		      (v.v[10].flags & NTRACE_INSN_TRACE_STOP),
		      "builder: last record carries TRACE_STOP");
	}
	ntrace_builder_free(b);
	ntrace_insn_vec_free(&v);
}

static void test_garbage(void)
{
	struct ntrace_insn_vec v;
	uint8_t buf[256];
	char err[256];
	unsigned int seed = 12345, i, j, errors = 0;

	/* random streams: must finish with records or a clean error */
	for (i = 0; i < 2000; i++) {
		size_t n = rand_r(&seed) % sizeof(buf);

		for (j = 0; j < n; j++)
			buf[j] = (uint8_t)(rand_r(&seed) % 20);
		memset(&v, 0, sizeof(v));
		errors += ntrace_tv_parse(buf, n, NULL, NULL, &v, err, sizeof(err)) != 0;
		ntrace_insn_vec_free(&v);
	}
	check(errors > 0, "tv: random byte streams end in clean errors, no crash");
}

int main(void)
{
	test_seed_examples();
	test_builder();
	test_garbage();
	printf("# ingress_build_test: %d failed\n", failed);
	return failed != 0;
}
