// SPDX-License-Identifier: GPL-2.0-only
/*
 * Flow decoder on hand-built message sequences from the N-Trace 1.0 spec:
 * the I-CNT examples in BTM and HTM ("Example of I-CNT Handling in BTM/HTM
 * mode"), the invalid I-CNT values, the I-CNT full example (ResourceFull
 * and SYNC=4), repeated history (RCODE 2), RepeatBranch, implicit return,
 * traps, U-ADDR chains and corrupt inputs; and the quirks of real
 * encoders (enum ntrace_quirk), decoded through or, strict, errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ntrace/decoder.h"
#include "rv_asm.h"
#include "tap.h"

/* ---- the spec's example code, assembled by hand ---- */

static uint8_t mem[0x800];

#define C_ADD	0x952e		/* c.add a0, a1 */
#define ADD	0x00b50533u	/* add a0, a0, a1 */
#define C_EBREAK 0x9002
#define C_RET	0x8082		/* c.jr ra */
#define ECALL	0x00000073u

static void build(void)
{
	unsigned int a;

	memset(mem, 0, sizeof(mem));
	/* "Example of I-CNT Handling" */
	rv_put16(mem, 0x100, C_ADD);
	rv_put32(mem, 0x102, rv_btype(0, 10, 11, 0x200 - 0x102));
	rv_put32(mem, 0x106, ADD);
	rv_put32(mem, 0x10a, rv_btype(1, 10, 11, 0x300 - 0x10a));
	rv_put16(mem, 0x10e, C_ADD);
	rv_put32(mem, 0x110, ADD);
	rv_put16(mem, 0x114, C_EBREAK);
	rv_put16(mem, 0x200, C_ADD);
	rv_put16(mem, 0x202, C_EBREAK);
	rv_put32(mem, 0x300, ADD);
	rv_put16(mem, 0x304, C_EBREAK);
	/* "Examples of I-CNT Field Full Generation" */
	rv_put16(mem, 0x500, C_ADD);
	rv_put32(mem, 0x502, rv_btype(0, 10, 11, 0x600 - 0x502));
	for (a = 0x506; a < 0x51a; a += 4)
		rv_put32(mem, a, ADD);
	rv_put16(mem, 0x51a, C_ADD);
	rv_put16(mem, 0x51c, C_EBREAK);
	/* a loop: 0x400 c.add; 0x402 bne a0, a1, 0x400; 0x406 c.ebreak */
	rv_put16(mem, 0x400, C_ADD);
	rv_put32(mem, 0x402, rv_btype(1, 10, 11, -2));
	rv_put16(mem, 0x406, C_EBREAK);
	/* call and return: 0x700 jal ra, 0x780; 0x704 c.add; 0x706 c.ebreak;
	 * 0x780 c.add; 0x782 c.jr ra */
	rv_put32(mem, 0x700, rv_jal(1, 0x80));
	rv_put16(mem, 0x704, C_ADD);
	rv_put16(mem, 0x706, C_EBREAK);
	rv_put16(mem, 0x780, C_ADD);
	rv_put16(mem, 0x782, C_RET);
	/* a system call: 0x740 c.add; 0x742 ecall; 0x746 c.add; 0x748 ecall;
	 * 0x74c c.add; 0x74e c.ebreak */
	rv_put16(mem, 0x740, C_ADD);
	rv_put32(mem, 0x742, ECALL);
	rv_put16(mem, 0x746, C_ADD);
	rv_put32(mem, 0x748, ECALL);
	rv_put16(mem, 0x74c, C_ADD);
	rv_put16(mem, 0x74e, C_EBREAK);
}

/* ---- decoding harness ---- */

struct out {
	struct ntrace_decoder *d;
	uint64_t pc[256];
	size_t n;
	unsigned int errors, syncs, warns, quirks;
	unsigned int kinds[NTRACE_DK__COUNT];
	unsigned int last_priv, stops;
	uint64_t trap_to;
	char last_err[256];
	char first_err[256];
	struct ntrace_dec_stats st;
};

static int add(void *ctx, const uint64_t *pcs, size_t n)
{
	struct out *o = ctx;
	size_t i;

	for (i = 0; i < n && o->n < 256; i++)
		o->pc[o->n++] = pcs[i];
	return 0;
}

static int runs(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct out *o = ctx;
	size_t i;

	for (i = 0; i < n; i++) {
		o->kinds[r[i].kind]++;
		o->last_priv = r[i].priv;
		if (r[i].kind == NTRACE_DK_EXCEPTION)
			o->trap_to = r[i].to;
		ntrace_decoder_run_pcs(o->d, &r[i], add, o);
	}
	return 0;
}

static int event(void *ctx, const struct ntrace_dec_event *ev)
{
	struct out *o = ctx;

	if (ev->type == NTRACE_DEV_ERROR) {
		if (!o->errors++)
			snprintf(o->first_err, sizeof(o->first_err), "%s", ev->text);
		snprintf(o->last_err, sizeof(o->last_err), "%s", ev->text);
	}
	if (ev->type == NTRACE_DEV_SYNC)
		o->syncs++;
	if (ev->type == NTRACE_DEV_WARN)
		o->warns++;
	if (ev->type == NTRACE_DEV_QUIRK)
		o->quirks++;
	if (ev->type == NTRACE_DEV_STOP)
		o->stops++;
	return 0;
}

static struct ntrace_images *img;

/* How decode_as() prepares the decoder before the messages. */
enum start { START_NEW, START_ALIGNED, START_ALIGNED_RESET };

static void decode_as(const struct ntrace_dec_cfg *cfg, const struct ntrace_msg *m, size_t n,
		      struct out *o, enum start start)
{
	struct ntrace_dec_ops ops = { runs, event };
	const char *err = NULL;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->d = ntrace_decoder_new(cfg, img, &ops, o, &err);
	if (!o->d) {
		tap_diag("decoder: %s", err);
		return;
	}
	if (start != START_NEW)
		ntrace_decoder_set_aligned(o->d);
	if (start == START_ALIGNED_RESET)
		ntrace_decoder_reset(o->d);
	for (i = 0; i < n; i++)
		ntrace_decoder_put(o->d, &m[i]);
	ntrace_decoder_finish(o->d);
	ntrace_decoder_stats(o->d, &o->st);
	ntrace_decoder_free(o->d);
}

static void decode(const struct ntrace_dec_cfg *cfg, const struct ntrace_msg *m, size_t n,
		   struct out *o)
{
	decode_as(cfg, m, n, o, START_NEW);
}

static struct ntrace_msg sync_at(uint64_t pc)
{
	struct ntrace_msg m = { .tcode = NTRACE_TC_PROG_TRACE_SYNC, .sync = 3,
				.flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR };

	m.addr = pc >> 1;
	return m;
}

static struct ntrace_msg direct(uint64_t icnt)
{
	return (struct ntrace_msg){ .tcode = NTRACE_TC_DIRECT_BRANCH, .icnt = icnt,
				    .flags = NTRACE_MSGF_ICNT };
}

static struct ntrace_msg corr(uint64_t icnt, int htm, uint64_t hist)
{
	struct ntrace_msg m = { .tcode = NTRACE_TC_PROG_TRACE_CORRELATION, .icnt = icnt,
				.flags = NTRACE_MSGF_ICNT };

	if (htm) {
		m.cdf = 1;
		m.hist = hist;
		m.flags |= NTRACE_MSGF_HIST;
	}
	return m;
}

static struct ntrace_msg rfull(unsigned int rcode, uint64_t v, uint64_t rep)
{
	struct ntrace_msg m = { .tcode = NTRACE_TC_RESOURCE_FULL, .code = (uint8_t)rcode };

	if (rcode == NTRACE_RCODE_ICNT) {
		m.icnt = v;
		m.flags = NTRACE_MSGF_ICNT;
	} else {
		m.hist = v;
		m.count = rep;
		m.flags = NTRACE_MSGF_HIST | (rcode == 2 ? NTRACE_MSGF_COUNT : 0);
	}
	return m;
}

static int same(const struct out *o, const uint64_t *want, size_t n)
{
	size_t i;

	if (o->n != n) {
		tap_diag("decoded %zu instructions, want %zu", o->n, n);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (o->pc[i] != want[i]) {
			tap_diag("instruction %zu: 0x%" PRIx64 ", want 0x%" PRIx64, i, o->pc[i],
				 want[i]);
			return 0;
		}
	return 1;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * What real encoders do where 1.0 says otherwise: by default decoded
 * through, counted and reported once; strict, an error (or, for messages
 * nothing uses, a warning each).
 */
static void quirks(const struct ntrace_dec_cfg *btm, const struct ntrace_dec_cfg *htm)
{
	struct ntrace_dec_cfg sbtm = *btm, shtm = *htm;
	struct out o;
	int ok;

	sbtm.enc.codec.strict = shtm.enc.codec.strict = true;
	{	/* BTM example 1 with end-of-message bytes between its messages */
		struct ntrace_msg eom = { .err = NTRACE_MSG_ERR_STRAY_EOM, .offset = 4, .size = 1 };
		struct ntrace_msg m[] = { sync_at(0x100), eom, direct(3), eom, corr(1, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x200 };

		decode(btm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && !o.warns && o.quirks == 1 &&
		       o.st.quirks[NTRACE_QUIRK_STRAY_EOM] == 2,
		       "quirk: stray end-of-message bytes are skipped, counted, reported once");
		decode(&sbtm, m, N(m), &o);
		tap_ok(o.errors == 2 && strstr(o.first_err, "end-of-message bytes between") &&
		       !o.st.quirks[NTRACE_QUIRK_STRAY_EOM],
		       "strict: each stray end-of-message byte is damage");
	}
	{	/* an Ownership whose PROCESS field had no bits */
		struct ntrace_msg own = { .tcode = NTRACE_TC_OWNERSHIP,
					  .flags = NTRACE_MSGF_EMPTY_FIELD };
		struct ntrace_msg m[] = { sync_at(0x100), own, direct(3), own, corr(1, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x200 };

		decode(btm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && !o.warns && o.quirks == 1 &&
		       o.st.quirks[NTRACE_QUIRK_EMPTY_FIELD] == 2,
		       "quirk: a field of no bits is 0, counted, reported once per source");
	}
	{
		/*
		 * The I-CNT full example in HTM with SYNC=4, as rc7 allowed:
		 * the HIST bit of 0x502 (not taken) first, in ResourceFull.
		 */
		struct ntrace_msg s4 = sync_at(0x512);
		static const uint64_t want[] = { 0x500, 0x502, 0x506, 0x50a, 0x50e, 0x512, 0x516,
						 0x51a };
		struct ntrace_msg m[4];

		s4.sync = NTRACE_SYNC_ICNT;
		s4.icnt = 9;
		m[0] = sync_at(0x500);
		m[1] = rfull(NTRACE_RCODE_HIST, 0x2, 0);
		m[2] = s4;
		m[3] = corr(5, 1, 0x1);
		decode(htm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && !o.warns && o.quirks == 1 &&
		       o.syncs == 2 && o.st.quirks[NTRACE_QUIRK_SYNC4_HTM] == 1,
		       "quirk: SYNC=4 in HTM decodes as a sync, counted, reported");
		decode(&shtm, m, N(m), &o);
		ok = same(&o, want + 5, 3) && o.errors == 1 && strstr(o.first_err, "SYNC=4 in HTM");
		tap_ok(ok, "strict: SYNC=4 in HTM is an error, decoding goes on from the sync");
	}
	{	/* vendor messages (TCODE 60) nothing decodes */
		struct ntrace_msg v = { .tcode = 60, .flags = NTRACE_MSGF_LAYOUT_RAW };
		struct ntrace_msg m[] = { sync_at(0x100), v, direct(3), v, corr(1, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x200 };

		decode(btm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && !o.warns && o.quirks == 1 &&
		       o.st.quirks[NTRACE_QUIRK_UNEXPECTED] == 2,
		       "quirk: vendor messages are skipped, counted, reported once per source");
		decode(&sbtm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && o.warns == 2 && !o.quirks,
		       "strict: each vendor message is reported as a warning");
	}
}

int main(void)
{
	struct ntrace_dec_cfg btm, htm;
	struct out o;

	build();
	img = ntrace_images_new(NULL);
	if (ntrace_images_add_mem(img, "spec-example", mem, sizeof(mem), 0)) {
		printf("not ok - image: %s\n", ntrace_images_errmsg(img));
		return 1;
	}
	ntrace_dec_cfg_default(&btm);
	btm.enc.implicit_return = NTRACE_IRET_OFF;
	htm = btm;
	htm.enc.mode = NTRACE_MODE_HTM;

	{	/* BTM run 1: DirectBranch I-CNT=3, then I-CNT=1 */
		struct ntrace_msg m[] = { sync_at(0x100), direct(3), corr(1, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x200 };

		decode(&btm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && o.kinds[NTRACE_DK_TAKEN] == 1,
		       "spec BTM example 1: DirectBranch I-CNT=3 takes the branch at 0x102");
	}
	{	/* BTM run 2: I-CNT=7, then I-CNT=2 */
		struct ntrace_msg m[] = { sync_at(0x100), direct(7), corr(2, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x106, 0x10a, 0x300 };

		decode(&btm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors,
		       "spec BTM example 2: I-CNT=7 passes 0x102 not taken, takes 0x10a");
	}
	{	/* BTM run 3: only I-CNT=10 */
		struct ntrace_msg m[] = { sync_at(0x100), corr(10, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x106, 0x10a, 0x10e, 0x110 };

		decode(&btm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors,
		       "spec BTM example 3: I-CNT=10 covers 0x100..0x113, both branches not taken");
	}
	{	/* HTM: I-CNT=4 HIST=0b1_1 */
		struct ntrace_msg m[] = { sync_at(0x100), corr(4, 1, 0x3) };
		static const uint64_t want[] = { 0x100, 0x102, 0x200 };

		decode(&htm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors, "spec HTM example 1: I-CNT=4 HIST=0x3");
	}
	{	/* HTM: I-CNT=9 HIST=0b1_01 */
		struct ntrace_msg m[] = { sync_at(0x100), corr(9, 1, 0x5) };
		static const uint64_t want[] = { 0x100, 0x102, 0x106, 0x10a, 0x300 };

		decode(&htm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors, "spec HTM example 2: I-CNT=9 HIST=0x5");
	}
	{	/* HTM: I-CNT=10 HIST=0b1_00 */
		struct ntrace_msg m[] = { sync_at(0x100), corr(10, 1, 0x4) };
		static const uint64_t want[] = { 0x100, 0x102, 0x106, 0x10a, 0x10e, 0x110 };

		decode(&htm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors, "spec HTM example 3: I-CNT=10 HIST=0x4");
	}
	{	/* invalid I-CNT values 4, 6, 9 end inside a 32-bit instruction */
		static const unsigned int bad[] = { 4, 6, 9 };
		unsigned int i, ok = 1;

		for (i = 0; i < 3; i++) {
			struct ntrace_msg m[] = { sync_at(0x100), corr(bad[i], 0, 0) };

			decode(&btm, m, N(m), &o);
			ok &= o.errors == 1 && strstr(o.last_err, "inside an instruction") != NULL;
		}
		tap_ok(ok, "spec: I-CNT=4, 6 and 9 are reported as incorrect");
	}
	{	/* exception at 0x102: IndirectBranch B-TYPE=2 I-CNT=1 */
		struct ntrace_msg m[] = { sync_at(0x100),
			{ .tcode = NTRACE_TC_INDIRECT_BRANCH, .btype = 2, .icnt = 1,
			  .addr = (0x100 ^ 0x300) >> 1, .flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR },
			corr(2, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x300 };

		decode(&btm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && o.trap_to == 0x300 &&
		       o.kinds[NTRACE_DK_EXCEPTION] == 1,
		       "spec: I-CNT=1 with B-TYPE=2 is an exception before 0x102; U-ADDR XOR chain");
	}
	{	/* I-CNT running into the c.ebreak cannot retire */
		struct ntrace_msg m[] = { sync_at(0x200), corr(2, 0, 0) };

		decode(&btm, m, N(m), &o);
		tap_ok(o.errors == 1 && strstr(o.last_err, "cannot retire"),
		       "I-CNT covering C.EBREAK is an error");
	}
	{	/* an encoder that counts ECALL as retired and reports the system
		 * call as an indirect jump (NexRv, the task group's reference
		 * code): decoded as retired, with one warning per source */
		struct ntrace_msg m[] = { sync_at(0x740),
			{ .tcode = NTRACE_TC_INDIRECT_BRANCH, .icnt = 3,
			  .addr = (0x740 ^ 0x746) >> 1, .flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR },
			{ .tcode = NTRACE_TC_INDIRECT_BRANCH_HIST, .icnt = 3, .hist = 1,
			  .addr = (0x746 ^ 0x74c) >> 1,
			  .flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR | NTRACE_MSGF_HIST },
			corr(1, 1, 1) };
		static const uint64_t want[] = { 0x740, 0x742, 0x746, 0x748, 0x74c };

		decode(&htm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && o.warns == 1 &&
		       o.kinds[NTRACE_DK_EXCEPTION] == 2 && o.trap_to == 0x74c,
		       "I-CNT that counts ECALL, target in the message: retired, one warning");
	}
	{	/* the same with B-TYPE=2 (exception) */
		struct ntrace_msg m[] = { sync_at(0x740),
			{ .tcode = NTRACE_TC_INDIRECT_BRANCH, .btype = 2, .icnt = 3,
			  .addr = (0x740 ^ 0x746) >> 1, .flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR },
			corr(1, 0, 0) };
		static const uint64_t want[] = { 0x740, 0x742, 0x746 };

		decode(&btm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && o.warns == 1 && o.trap_to == 0x746,
		       "I-CNT that counts ECALL, B-TYPE=2: retired, one warning");
	}
	{	/* I-CNT past an ECALL, or ending on it without a target, is wrong */
		struct ntrace_msg past[] = { sync_at(0x740),
			{ .tcode = NTRACE_TC_INDIRECT_BRANCH, .icnt = 4,
			  .addr = (0x740 ^ 0x74c) >> 1, .flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR } };
		struct ntrace_msg stop[] = { sync_at(0x740), rfull(0, 3, 0), corr(0, 0, 0) };
		int ok;

		decode(&btm, past, N(past), &o);
		ok = o.errors == 1 && strstr(o.last_err, "cannot retire") && !o.warns;
		decode(&btm, stop, N(stop), &o);
		tap_ok(ok && o.errors == 1 && strstr(o.last_err, "cannot retire") && !o.warns,
		       "I-CNT past an ECALL, or up to it with no target, is an error");
	}
	{	/* I-CNT full, HTM: ResourceFull RDATA=9, then ProgTraceCorrelation I-CNT=5 HIST=0b10 */
		struct ntrace_msg m[] = { sync_at(0x500), rfull(0, 9, 0), corr(5, 1, 0x2) };
		static const uint64_t want[] = { 0x500, 0x502, 0x506, 0x50a, 0x50e, 0x512, 0x516,
						 0x51a };

		decode(&htm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors,
		       "spec I-CNT full example: ResourceFull RCODE=0 + correlation I-CNT=5");
	}
	{	/* the same with SYNC=4 (BTM): ProgTraceSync I-CNT=9 F-ADDR=0x512 */
		struct ntrace_msg s4 = sync_at(0x512), m[3];
		static const uint64_t want[] = { 0x500, 0x502, 0x506, 0x50a, 0x50e, 0x512, 0x516,
						 0x51a };

		s4.sync = NTRACE_SYNC_ICNT;
		s4.icnt = 9;
		m[0] = sync_at(0x500);
		m[1] = s4;
		m[2] = corr(5, 0, 0);
		decode(&btm, m, 3, &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && o.syncs == 2,
		       "spec I-CNT full example: SYNC=4 sync message in BTM");
		s4.addr = 0x514 >> 1;	/* a sync that disagrees with the code */
		m[1] = s4;
		decode(&btm, m, 3, &o);
		tap_ok(o.errors >= 1 && strstr(o.first_err, "sync message says pc 0x514"),
		       "a sync address the code does not lead to is reported");
	}
	{	/* repeated history: 6 taken loop branches as HIST 0b1_11 x 3, then one not taken */
		struct ntrace_msg m[] = { sync_at(0x400), rfull(2, 0x7, 3), corr(21, 1, 0x2) };
		uint64_t want[14];
		unsigned int i;

		for (i = 0; i < 7; i++) {
			want[2 * i] = 0x400;
			want[2 * i + 1] = 0x402;
		}
		decode(&htm, m, N(m), &o);
		tap_ok(same(&o, want, 14) && !o.errors,
		       "repeated history: RCODE=2 HREPEAT=3 replays the HIST pattern");
		m[1] = rfull(1, 0x7f, 0);	/* RCODE=1 with six taken bits: same flow */
		decode(&htm, m, N(m), &o);
		tap_ok(same(&o, want, 14) && !o.errors, "HIST full: RCODE=1 RDATA=0x7f");
		m[2] = corr(21, 1, 0x6);	/* one HIST bit too many */
		decode(&htm, m, N(m), &o);
		tap_ok(o.errors == 1 && strstr(o.last_err, "HIST bits left"),
		       "HIST with more branches than the code has is reported");
	}
	{	/* RepeatBranch: DirectBranch I-CNT=3 repeated 4 more times, then not taken */
		struct ntrace_msg rb = { .tcode = NTRACE_TC_REPEAT_BRANCH, .count = 4,
					 .flags = NTRACE_MSGF_COUNT };
		struct ntrace_msg m[] = { sync_at(0x400), direct(3), rb, corr(3, 0, 0) };
		uint64_t want[12];
		unsigned int i;

		for (i = 0; i < 6; i++) {
			want[2 * i] = 0x400;
			want[2 * i + 1] = 0x402;
		}
		decode(&btm, m, N(m), &o);
		tap_ok(same(&o, want, 12) && !o.errors && o.kinds[NTRACE_DK_TAKEN] == 5,
		       "RepeatBranch B-CNT=4 repeats the previous DirectBranch");
	}
	{	/* implicit return: call, return inferred from the return stack */
		struct ntrace_msg m[] = { sync_at(0x700), corr(5, 1, 0x1) };
		static const uint64_t want[] = { 0x700, 0x780, 0x782, 0x704 };
		struct ntrace_dec_cfg c = htm;

		c.enc.implicit_return = NTRACE_IRET_FULL;
		decode(&c, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors &&
		       o.kinds[NTRACE_DK_RETURN] == 1 && o.kinds[NTRACE_DK_CALL] == 1,
		       "implicit return (stack): I-CNT passes the return, target from the stack");
		c.enc.implicit_return = NTRACE_IRET_COUNT;
		decode(&c, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors, "implicit return (counting)");
		decode(&htm, m, N(m), &o);
		tap_ok(o.errors == 1 && strstr(o.last_err, "indirect jump"),
		       "without implicit return, I-CNT past a return is an error");
	}
	{	/* explicit return target through IndirectBranchHist */
		struct ntrace_msg m[] = { sync_at(0x700),
			{ .tcode = NTRACE_TC_INDIRECT_BRANCH_HIST, .icnt = 4, .hist = 1,
			  .addr = (0x700 ^ 0x104) >> 1,
			  .flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR | NTRACE_MSGF_HIST },
			corr(1, 1, 1) };
		static const uint64_t want[] = { 0x700, 0x780, 0x782, 0x104 };

		decode(&htm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors,
		       "IndirectBranchHist gives the return target explicitly");
	}
	{	/* I-CNT reported up to a return by ResourceFull: the walk waits;
		 * more I-CNT makes the return implicit, a message makes it explicit */
		struct ntrace_msg m[] = { sync_at(0x700), rfull(0, 4, 0), corr(1, 1, 1),
					  corr(1, 1, 1) };
		static const uint64_t want[] = { 0x700, 0x780, 0x782, 0x704 };
		struct ntrace_dec_cfg c = htm;

		c.enc.implicit_return = NTRACE_IRET_FULL;
		decode(&c, m, 3, &o);
		tap_ok(same(&o, want, N(want)) && !o.errors && o.kinds[NTRACE_DK_RETURN] == 1,
		       "ResourceFull I-CNT ending at a return, then more I-CNT: implicit return");
		m[2] = (struct ntrace_msg){ .tcode = NTRACE_TC_INDIRECT_BRANCH_HIST, .hist = 1,
			.addr = (0x700 ^ 0x10e) >> 1,
			.flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR | NTRACE_MSGF_HIST };
		decode(&c, m, N(m), &o);
		tap_ok(o.n == 4 && o.pc[2] == 0x782 && o.pc[3] == 0x10e && !o.errors,
		       "ResourceFull I-CNT ending at a return, then IndirectBranchHist I-CNT=0: "
		       "explicit return target");
	}
	{	/* HTM: HIST arrives before the I-CNT that reaches its branches */
		struct ntrace_msg m[] = { sync_at(0x100), rfull(1, 0x3, 0), rfull(0, 3, 0),
					  corr(1, 1, 1) };
		static const uint64_t want[] = { 0x100, 0x102, 0x200 };

		decode(&htm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors,
		       "ResourceFull HIST before ResourceFull I-CNT is queued until reached");
	}
	{	/* Ownership gives the privilege of the runs; correlation stops */
		struct ntrace_msg own = { .tcode = NTRACE_TC_OWNERSHIP,
					  .data = ntrace_process_make(NTRACE_PROCESS_FMT_SCONTEXT, 0,
								      3, 0x1d) };
		struct ntrace_msg m[] = { sync_at(0x100), own, direct(3), corr(1, 0, 0), direct(3) };

		decode(&btm, m, N(m), &o);
		tap_ok(o.n == 3 && o.last_priv == NTRACE_PRIV_M && o.stops == 1 && !o.errors,
		       "Ownership sets the privilege; after ProgTraceCorrelation messages wait "
		       "for a sync");
	}
	{	/* Error message: messages were lost, decoding waits for the next sync */
		struct ntrace_msg err = { .tcode = NTRACE_TC_ERROR, .data = NTRACE_ECODE_PROGRAM_LOST };
		struct ntrace_msg s7 = sync_at(0x100), m[5];

		s7.sync = NTRACE_SYNC_FIFO_OVERRUN;
		m[0] = sync_at(0x300);
		m[1] = err;
		m[2] = direct(3);	/* skipped: not synchronised */
		m[3] = s7;
		m[4] = corr(10, 0, 0);
		decode(&btm, m, 5, &o);
		tap_ok(o.n == 6 && o.pc[0] == 0x100 && o.syncs == 2 && !o.errors,
		       "Error message: skip until the SYNC=7 restart");
	}
	{	/* messages before the first sync are skipped; a DirectBranch that does
		 * not end at a branch is reported and decoding resumes at the next sync */
		struct ntrace_msg m[] = { direct(3), sync_at(0x100), direct(2), direct(3),
					  sync_at(0x100), direct(3), corr(1, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x200 };

		decode(&btm, m, N(m), &o);
		tap_ok(o.errors == 1 && o.syncs == 2 && o.n >= 3 &&
		       !memcmp(o.pc + o.n - 3, want, sizeof(want)),
		       "skip to the first sync; resync after an inconsistent DirectBranch");
	}
	{	/* a PC outside every image */
		struct ntrace_msg m[] = { sync_at(0x10000), corr(2, 0, 0) };

		decode(&btm, m, N(m), &o);
		tap_ok(o.errors == 1 && strstr(o.last_err, "outside every loaded image"),
		       "a PC outside every image is reported");
	}
	{	/* I-CNT wider than the counter: reported only when asked */
		struct ntrace_msg m[] = { sync_at(0x100), corr(10, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x106, 0x10a, 0x10e, 0x110 };
		struct ntrace_dec_cfg narrow = btm;

		narrow.enc.icnt_bits = 3;	/* at most 7 */
		decode(&narrow, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors,
		       "an I-CNT wider than the configured counter decodes by default");
		narrow.check_widths = true;
		decode(&narrow, m, N(m), &o);
		tap_ok(o.errors == 1 && strstr(o.last_err, "wider") &&
		       strstr(o.last_err, "--icnt-bits"),
		       "with check_widths it is reported, naming the option");
	}
	{	/* the mode comes from the messages, not from the setting */
		struct ntrace_msg h[] = { sync_at(0x100), corr(9, 1, 0x5) };
		struct ntrace_msg b[] = { sync_at(0x100), direct(7), corr(2, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x106, 0x10a, 0x300 };
		int ok;

		decode(&btm, h, N(h), &o);
		ok = same(&o, want, N(want)) && !o.errors;
		decode(&htm, b, N(b), &o);
		tap_ok(ok && same(&o, want, N(want)) && !o.errors,
		       "an HTM trace decodes with BTM set, and a BTM trace with HTM set");
	}
	{	/* before the first sync a message tells nothing (bytes of a cut one) */
		struct ntrace_msg m[] = { corr(3, 0, 0), sync_at(0x100), corr(9, 1, 0x5) };
		static const uint64_t want[] = { 0x100, 0x102, 0x106, 0x10a, 0x300 };

		decode(&btm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors,
		       "a BTM-looking message before the first sync does not decide the mode");
	}
	{	/* per source: SRC 1 is HTM, SRC 2 BTM, interleaved */
		struct ntrace_msg m[] = { sync_at(0x100), sync_at(0x100), corr(9, 1, 0x5),
					  direct(7), corr(2, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x106, 0x10a, 0x300,
						 0x100, 0x102, 0x106, 0x10a, 0x300 };

		m[0].src = m[2].src = 1;
		m[1].src = m[3].src = m[4].src = 2;
		decode(&btm, m, N(m), &o);
		tap_ok(same(&o, want, N(want)) && !o.errors,
		       "each source's mode comes from its own messages");
	}
	{	/*
		 * Bad bytes while no source decodes: between a stop and the next
		 * sync they are damage (the sync they replaced is lost), before
		 * the first sync the tail of a message cut off at the start.
		 */
		struct ntrace_msg bad = { .err = NTRACE_MSG_ERR_GARBAGE, .offset = 8, .size = 64 };
		struct ntrace_msg gap[] = { sync_at(0x100), corr(3, 0, 0), bad, sync_at(0x100),
					    corr(3, 0, 0) };
		struct ntrace_msg lead[] = { bad, sync_at(0x100), corr(3, 0, 0) };
		static const uint64_t want[] = { 0x100, 0x102, 0x100, 0x102 };
		int ok;

		gap[1].code = gap[4].code = NTRACE_EVCODE_TRACE_DISABLED;
		lead[2].code = NTRACE_EVCODE_TRACE_DISABLED;
		decode(&btm, gap, N(gap), &o);
		ok = same(&o, want, N(want)) && o.errors == 1 && !o.warns &&
		     strstr(o.last_err, "bad bytes at offset 8 (64 bytes)");
		tap_ok(ok, "bad bytes after a stop are a decode error: a sync may be lost there");
		decode(&btm, lead, N(lead), &o);
		tap_ok(same(&o, want, 2) && !o.errors && o.warns == 1,
		       "bad bytes before the first sync are a warning: a cut message");
		/* an input the caller knows starts at a message boundary */
		decode_as(&btm, lead, N(lead), &o, START_ALIGNED);
		ok = same(&o, want, 2) && o.errors == 1 && !o.warns &&
		     strstr(o.first_err, "bad bytes at offset 8 (64 bytes)");
		tap_ok(ok, "after set_aligned bad bytes before the first sync are a decode error");
		decode_as(&btm, lead, N(lead), &o, START_ALIGNED_RESET);
		tap_ok(same(&o, want, 2) && !o.errors && o.warns == 1,
		       "reset forgets set_aligned: bad bytes before the first sync are a warning");
	}
	quirks(&btm, &htm);
	ntrace_images_free(img);
	return tap_done();
}
