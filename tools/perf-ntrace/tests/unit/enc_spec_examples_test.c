// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The encoder model against the worked examples of N-Trace 1.0 chapter
 * "I-CNT Details": the BTM and HTM I-CNT examples (three runs each of the
 * same code), the I-CNT=1 / I-CNT=0 trap cases, and both "I-CNT Field Full"
 * traces (ResourceFull and SYNC=4). The example code:
 *
 *   0x100 c.add (16)  0x102 branch->0x200 (32)  0x106 add (32)
 *   0x10A branch->0x300 (32)  0x10E c.add  0x110 add  0x114 c.ebreak
 *   0x200 c.add  0x202 c.ebreak        0x300 add  0x304 c.ebreak
 *
 * Trace starts at 0x100 after debug mode (SYNC=3) and stops on entry to
 * debug mode at the c.ebreak (EVCODE=0), which does not retire.
 */
#include "enc_harness.h"

#define NT NTRACE_ITYPE_NOT_TAKEN
#define TK NTRACE_ITYPE_TAKEN
#define STOP NTRACE_INSN_TRACE_STOP

static void cfg_for(struct ntrace_enc_cfg *c, unsigned int mode)
{
	ntrace_enc_cfg_default(c);
	c->mode = mode;
	c->start_sync = NTRACE_SYNC_DEBUG_EXIT;
	c->stop_evcode = NTRACE_EVCODE_DEBUG;
}

static const struct ntrace_insn run1[] = {
	{ .addr = 0x100, .size = 2 },
	{ .addr = 0x102, .size = 4, .itype = TK },
	{ .addr = 0x200, .size = 2, .flags = STOP },
};

static const struct ntrace_insn run2[] = {
	{ .addr = 0x100, .size = 2 },
	{ .addr = 0x102, .size = 4, .itype = NT },
	{ .addr = 0x106, .size = 4 },
	{ .addr = 0x10A, .size = 4, .itype = TK },
	{ .addr = 0x300, .size = 4, .flags = STOP },
};

static const struct ntrace_insn run3[] = {
	{ .addr = 0x100, .size = 2 },
	{ .addr = 0x102, .size = 4, .itype = NT },
	{ .addr = 0x106, .size = 4 },
	{ .addr = 0x10A, .size = 4, .itype = NT },
	{ .addr = 0x10E, .size = 2 },
	{ .addr = 0x110, .size = 4, .flags = STOP },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define START "ProgTraceSync sync=3(debug-exit) icnt=0 faddr=0x80\n"

static void icnt_btm(void)
{
	struct ntrace_enc_cfg c;
	struct enc_run r;

	cfg_for(&c, NTRACE_MODE_BTM);
	enc_run(&c, run1, N(run1), &r);
	expect_listing(&r, START "DirectBranch icnt=3\n"
		       "ProgTraceCorrelation evcode=0 cdf=0 icnt=1\n", "BTM I-CNT example run 1");
	enc_run(&c, run2, N(run2), &r);
	expect_listing(&r, START "DirectBranch icnt=7\n"
		       "ProgTraceCorrelation evcode=0 cdf=0 icnt=2\n", "BTM I-CNT example run 2");
	enc_run(&c, run3, N(run3), &r);
	expect_listing(&r, START "ProgTraceCorrelation evcode=0 cdf=0 icnt=10\n",
		       "BTM I-CNT example run 3");
}

static void icnt_htm(void)
{
	struct ntrace_enc_cfg c;
	struct enc_run r;

	cfg_for(&c, NTRACE_MODE_HTM);
	enc_run(&c, run1, N(run1), &r);
	expect_listing(&r, START "ProgTraceCorrelation evcode=0 cdf=1 icnt=4 hist=0x3\n",
		       "HTM I-CNT example run 1");
	enc_run(&c, run2, N(run2), &r);
	expect_listing(&r, START "ProgTraceCorrelation evcode=0 cdf=1 icnt=9 hist=0x5\n",
		       "HTM I-CNT example run 2");
	enc_run(&c, run3, N(run3), &r);
	expect_listing(&r, START "ProgTraceCorrelation evcode=0 cdf=1 icnt=10 hist=0x4\n",
		       "HTM I-CNT example run 3");
}

/* "I-CNT=1": exception at 0x102; "I-CNT=0": interrupt pending at start. */
static void icnt_traps(void)
{
	static const struct ntrace_insn exc[] = {
		{ .addr = 0x100, .size = 2, .itype = NTRACE_ITYPE_EXCEPTION },
		{ .addr = 0x800, .size = 4, .flags = STOP },
	};
	static const struct ntrace_insn irq[] = {
		{ .addr = 0x100, .size = 0, .itype = NTRACE_ITYPE_INTERRUPT },
		{ .addr = 0x800, .size = 4, .flags = STOP },
	};
	struct ntrace_enc_cfg c;
	struct enc_run r;

	cfg_for(&c, NTRACE_MODE_BTM);
	enc_run(&c, exc, N(exc), &r);
	expect_listing(&r, START "IndirectBranch btype=2 icnt=1 uaddr=0x480\n"
		       "ProgTraceCorrelation evcode=0 cdf=0 icnt=2\n",
		       "I-CNT=1: exception after the first instruction");
	enc_run(&c, irq, N(irq), &r);
	expect_listing(&r, START "IndirectBranch btype=3 icnt=0 uaddr=0x480\n"
		       "ProgTraceCorrelation evcode=0 cdf=0 icnt=2\n",
		       "I-CNT=0: interrupt before the first instruction");
	c.trap_btype1 = true;
	enc_run(&c, exc, N(exc), &r);
	expect_listing(&r, START "IndirectBranch btype=1 icnt=1 uaddr=0x480\n"
		       "ProgTraceCorrelation evcode=0 cdf=0 icnt=2\n",
		       "B-TYPE=1 for traps when 2/3 are not used");
}

/* "Examples of I-CNT Field Full Generation" with a 4-bit I-CNT. */
static const struct ntrace_insn full_code[] = {
	{ .addr = 0x100, .size = 2 },
	{ .addr = 0x102, .size = 4, .itype = NT },
	{ .addr = 0x106, .size = 4 },
	{ .addr = 0x10A, .size = 4 },
	{ .addr = 0x10E, .size = 4 },
	{ .addr = 0x112, .size = 4 },
	{ .addr = 0x116, .size = 4 },
	{ .addr = 0x11A, .size = 2, .flags = STOP },
};

static void icnt_full(void)
{
	struct ntrace_enc_cfg c;
	struct enc_run r;

	cfg_for(&c, NTRACE_MODE_HTM);
	c.icnt_bits = 4;
	enc_run(&c, full_code, N(full_code), &r);
	expect_listing(&r, START "ResourceFull rcode=0 icnt=9\n"
		       "ProgTraceCorrelation evcode=0 cdf=1 icnt=5 hist=0x2\n",
		       "I-CNT full: ResourceFull trace (HTM)");

	cfg_for(&c, NTRACE_MODE_BTM);
	c.icnt_bits = 4;
	c.icnt_full_sync = true;
	enc_run(&c, full_code, N(full_code), &r);
	expect_listing(&r, START "ProgTraceSync sync=4(icnt-full) icnt=9 faddr=0x89\n"
		       "ProgTraceCorrelation evcode=0 cdf=0 icnt=5\n",
		       "I-CNT full: SYNC=4 trace (BTM)");
}

/* The pseudo-code encoder's HTM output for an indirect jump. */
static void htm_indirect(void)
{
	static const struct ntrace_insn code[] = {
		{ .addr = 0x1000, .size = 4, .itype = TK },
		{ .addr = 0x1010, .size = 4, .itype = NT },
		{ .addr = 0x1014, .size = 2, .itype = NTRACE_ITYPE_INDIRECT },
		{ .addr = 0x1200, .size = 4 },
	};
	struct ntrace_enc_cfg c;
	struct enc_run r;

	cfg_for(&c, NTRACE_MODE_HTM);
	enc_run(&c, code, N(code), &r);
	expect_listing(&r, "ProgTraceSync sync=3(debug-exit) icnt=0 faddr=0x800\n"
		       "IndirectBranchHist btype=0 icnt=5 uaddr=0x100 hist=0x6\n"
		       "ProgTraceCorrelation evcode=0 cdf=1 icnt=2 hist=0x1\n",
		       "HTM: IndirectBranchHist carries I-CNT, U-ADDR and HIST");
}

int main(void)
{
	icnt_btm();
	icnt_htm();
	icnt_traps();
	icnt_full();
	htm_indirect();
	return tap_done();
}
