// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Encoder model options against the rules of N-Trace 1.0 "Optimization
 * Extensions", "Synchronizing Messages", "Timestamp Reporting" and the
 * Ownership message: implicit return (full, partial, counting, depth limit,
 * reset by sync), RepeatBranch, repeated history, periodic sync, Ownership,
 * timestamps, SRC, sequential jumps, all jumps, 3-bit itypes, trace gaps.
 * Expected listings were worked out by hand from the rules.
 */
#include "enc_harness.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define I(a, s, t) { .addr = (a), .size = (s), .itype = (t) }
#define NT NTRACE_ITYPE_NOT_TAKEN
#define TK NTRACE_ITYPE_TAKEN

static void base(struct ntrace_enc_cfg *c, unsigned int mode)
{
	ntrace_enc_cfg_default(c);
	c->mode = mode;
}

/* main: 0x100 call f (0x200); f: 0x200 ret -> 0x104 or 0x300 */
static void implicit_return(void)
{
	static const struct ntrace_insn good[] = {
		I(0x100, 4, NTRACE_ITYPE_DIR_CALL), I(0x200, 2, NTRACE_ITYPE_RETURN),
		I(0x104, 4, 0),
	};
	static const struct ntrace_insn bad[] = {
		I(0x100, 4, NTRACE_ITYPE_DIR_CALL), I(0x200, 2, NTRACE_ITYPE_RETURN),
		I(0x304, 4, 0),
	};
	/* 0x100 call g; g: 0x200 call h; h: 0x300 ret; g: 0x204 ret; 0x104 */
	static const struct ntrace_insn nested[] = {
		I(0x100, 4, NTRACE_ITYPE_DIR_CALL), I(0x200, 4, NTRACE_ITYPE_DIR_CALL),
		I(0x300, 2, NTRACE_ITYPE_RETURN), I(0x204, 2, NTRACE_ITYPE_RETURN),
		I(0x104, 4, 0),
	};
	struct ntrace_enc_cfg c;
	struct enc_run r;

	base(&c, NTRACE_MODE_BTM);
	enc_run(&c, good, N(good), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "IndirectBranch btype=0 icnt=3 uaddr=0x2\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
		       "implicit return off: the return is an IndirectBranch");
	c.implicit_return = NTRACE_IRET_FULL;
	enc_run(&c, good, N(good), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=5\n",
		       "implicit return: predicted return sends nothing");
	enc_run(&c, bad, N(bad), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "IndirectBranch btype=0 icnt=3 uaddr=0x102\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
		       "implicit return: mispredicted return is reported");
	c.implicit_return = NTRACE_IRET_PARTIAL;
	c.return_addr_bits = 8;	/* 0x304 and 0x104 agree in the low 8 bits */
	enc_run(&c, bad, N(bad), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=5\n",
		       "implicit return partial: only the low address bits are compared");
	c.implicit_return = NTRACE_IRET_COUNT;
	enc_run(&c, bad, N(bad), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=5\n",
		       "implicit return counting: any return after a call is implicit");

	c.implicit_return = NTRACE_IRET_FULL;
	enc_run(&c, nested, N(nested), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=8\n",
		       "implicit return: nested calls both implicit");
	c.return_depth = 1;
	enc_run(&c, nested, N(nested), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "IndirectBranch btype=0 icnt=6 uaddr=0x2\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
		       "implicit return depth 1: the outer return is reported");
	c.implicit_return = NTRACE_IRET_COUNT;
	enc_run(&c, nested, N(nested), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "IndirectBranch btype=0 icnt=6 uaddr=0x2\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
		       "implicit return counter limit 1: the outer return is reported");

	/* a sync between call and return empties the stack */
	c.implicit_return = NTRACE_IRET_FULL;
	c.return_depth = 16;
	c.sync_mode = NTRACE_SYNCMODE_HWORDS;
	c.sync_max = 0;	/* every 16 half-words */
	{
		struct ntrace_insn s[12];
		size_t i;

		s[0] = (struct ntrace_insn)I(0x100, 4, NTRACE_ITYPE_DIR_CALL);
		for (i = 1; i < 10; i++)
			s[i] = (struct ntrace_insn)I(0x200 + 4 * (i - 1), 4, 0);
		s[10] = (struct ntrace_insn)I(0x224, 2, NTRACE_ITYPE_RETURN);
		s[11] = (struct ntrace_insn)I(0x104, 4, 0);
		enc_run(&c, s, 12, &r);
		expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
			       "ProgTraceSync sync=2(periodic) icnt=16 faddr=0x10e\n"
			       "IndirectBranch btype=0 icnt=5 uaddr=0x18c\n"
			       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
			       "implicit return: stack reset by a sync message");
	}
}

static void repeat_branch(void)
{
	struct ntrace_insn loop[16];
	struct ntrace_enc_cfg c;
	struct enc_run r;
	size_t n = 0, i;

	/* 5 iterations of 0x100 add; 0x104 branch back (taken 4 times) */
	for (i = 0; i < 5; i++) {
		loop[n++] = (struct ntrace_insn)I(0x100, 4, 0);
		loop[n++] = (struct ntrace_insn)I(0x104, 4, i < 4 ? TK : NT);
	}
	loop[n++] = (struct ntrace_insn)I(0x108, 4, 0);
	base(&c, NTRACE_MODE_BTM);
	enc_run(&c, loop, n, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "DirectBranch icnt=4\nDirectBranch icnt=4\nDirectBranch icnt=4\n"
		       "DirectBranch icnt=4\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=6\n",
		       "BTM loop without RepeatBranch");
	c.repeat_branch = true;
	enc_run(&c, loop, n, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "DirectBranch icnt=4\nRepeatBranch bcnt=3\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=6\n",
		       "BTM loop with RepeatBranch B-CNT=3");
	c.bcnt_bits = 1;	/* B-CNT at most 1 */
	enc_run(&c, loop, n, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "DirectBranch icnt=4\nRepeatBranch bcnt=1\nRepeatBranch bcnt=1\n"
		       "RepeatBranch bcnt=1\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=6\n",
		       "RepeatBranch split at the B-CNT width");

	/* indirect loop: 0x100 jalr -> 0x200 ... 0x200 jalr -> 0x100 */
	n = 0;
	for (i = 0; i < 4; i++) {
		loop[n++] = (struct ntrace_insn)I(0x100, 4, NTRACE_ITYPE_INDIRECT);
		loop[n++] = (struct ntrace_insn)I(0x200, 4, NTRACE_ITYPE_INDIRECT);
	}
	loop[n++] = (struct ntrace_insn)I(0x100, 4, 0);
	base(&c, NTRACE_MODE_HTM);
	c.repeat_branch = true;
	enc_run(&c, loop, n, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "IndirectBranchHist btype=0 icnt=2 uaddr=0x180 hist=0x1\n"
		       "RepeatBranch bcnt=7\n"
		       "ProgTraceCorrelation evcode=4 cdf=1 icnt=2 hist=0x1\n",
		       "HTM indirect ping-pong: XOR makes every U-ADDR 0x180, 7 repeats");
}

static void repeated_history(void)
{
	struct ntrace_insn loop[40];
	struct ntrace_enc_cfg c;
	struct enc_run r;
	size_t n = 0, i;

	for (i = 0; i < 30; i++)
		loop[n++] = (struct ntrace_insn)I(0x100, 4, TK);	/* branch to itself */
	loop[n++] = (struct ntrace_insn)I(0x100, 4, NTRACE_ITYPE_INDIRECT);
	loop[n++] = (struct ntrace_insn)I(0x400, 4, 0);
	base(&c, NTRACE_MODE_HTM);
	c.hist_bits = 4;	/* stop bit + 3 branches */
	enc_run(&c, loop, n, &r);
	{
		char want[2048] = "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n";

		for (i = 0; i < 10; i++)
			strcat(want, "ResourceFull rcode=1 hist=0xf\n");
		strcat(want, "IndirectBranchHist btype=0 icnt=62 uaddr=0x280 hist=0x1\n"
			     "ProgTraceCorrelation evcode=4 cdf=1 icnt=2 hist=0x1\n");
		expect_listing(&r, want, "HIST full every 3 branches: ResourceFull RCODE=1");
	}
	c.repeated_history = true;
	enc_run(&c, loop, n, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ResourceFull rcode=2 hist=0xf hrepeat=10\n"
		       "IndirectBranchHist btype=0 icnt=62 uaddr=0x280 hist=0x1\n"
		       "ProgTraceCorrelation evcode=4 cdf=1 icnt=2 hist=0x1\n",
		       "repeated history: one ResourceFull RCODE=2 with HREPEAT=10");
	c.hrepeat_bits = 2;	/* at most 3 */
	enc_run(&c, loop, n, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ResourceFull rcode=2 hist=0xf hrepeat=3\n"
		       "ResourceFull rcode=2 hist=0xf hrepeat=3\n"
		       "ResourceFull rcode=2 hist=0xf hrepeat=3\n"
		       "ResourceFull rcode=1 hist=0xf\n"
		       "IndirectBranchHist btype=0 icnt=62 uaddr=0x280 hist=0x1\n"
		       "ProgTraceCorrelation evcode=4 cdf=1 icnt=2 hist=0x1\n",
		       "repeated history split at the HREPEAT width");
}

/*
 * A period that does not divide the HIST width (3 in 4 bits): two full
 * registers are cut into a word of whole periods (1_110), repeated.
 */
static void repeated_history_period(void)
{
	struct ntrace_insn loop[40];
	struct ntrace_enc_cfg c;
	struct enc_run r;
	size_t n = 0, i;

	for (i = 0; i < 24; i++)	/* taken, taken, not taken */
		loop[n++] = (struct ntrace_insn)I(0x100, 4, i % 3 == 2 ? NT : TK);
	loop[n++] = (struct ntrace_insn)I(0x104, 4, NTRACE_ITYPE_INDIRECT);
	loop[n++] = (struct ntrace_insn)I(0x400, 4, 0);
	base(&c, NTRACE_MODE_HTM);
	c.hist_bits = 5;	/* stop bit + 4 branches */
	c.repeated_history = true;
	enc_run(&c, loop, n, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ResourceFull rcode=2 hist=0xe hrepeat=8\n"
		       "IndirectBranchHist btype=0 icnt=50 uaddr=0x280 hist=0x1\n"
		       "ProgTraceCorrelation evcode=4 cdf=1 icnt=2 hist=0x1\n",
		       "repeated history: period 3 in 4-bit registers repeats 1_110");
	c.repeated_history = false;
	enc_run(&c, loop, n, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ResourceFull rcode=1 hist=0x1d\n"
		       "ResourceFull rcode=1 hist=0x1b\n"
		       "ResourceFull rcode=1 hist=0x16\n"
		       "ResourceFull rcode=1 hist=0x1d\n"
		       "ResourceFull rcode=1 hist=0x1b\n"
		       "ResourceFull rcode=1 hist=0x16\n"
		       "IndirectBranchHist btype=0 icnt=50 uaddr=0x280 hist=0x1\n"
		       "ProgTraceCorrelation evcode=4 cdf=1 icnt=2 hist=0x1\n",
		       "without repeated history: six full registers");
	/*
	 * Not taken three times, then the loop: 0001 1011 end with 011 011,
	 * so the two bits before them go first; the last bit (0) stays.
	 */
	loop[0].itype = NT;
	loop[1].itype = NT;
	c.repeated_history = true;
	enc_run(&c, loop, n, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ResourceFull rcode=1 hist=0x4\n"
		       "ResourceFull rcode=2 hist=0xb hrepeat=7\n"
		       "IndirectBranchHist btype=0 icnt=50 uaddr=0x280 hist=0x2\n"
		       "ProgTraceCorrelation evcode=4 cdf=1 icnt=2 hist=0x1\n",
		       "repeated history: the bits before the loop go first (RCODE=1, 2 bits)");
}

/*
 * I-CNT full while a HIST word is held: ResourceFull RCODE=0 goes out, the
 * repeat count goes on.
 */
static void repeated_history_icnt(void)
{
	struct ntrace_insn loop[40];
	struct ntrace_enc_cfg c;
	struct enc_run r;
	size_t n = 0, i;

	for (i = 0; i < 30; i++)
		loop[n++] = (struct ntrace_insn)I(0x100, 4, TK);
	loop[n++] = (struct ntrace_insn)I(0x100, 4, NTRACE_ITYPE_INDIRECT);
	loop[n++] = (struct ntrace_insn)I(0x400, 4, 0);
	base(&c, NTRACE_MODE_HTM);
	c.hist_bits = 4;
	c.icnt_bits = 6;	/* full at 32 half-words */
	c.repeated_history = true;
	enc_run(&c, loop, n, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ResourceFull rcode=0 icnt=32\n"
		       "ResourceFull rcode=2 hist=0xf hrepeat=10\n"
		       "IndirectBranchHist btype=0 icnt=30 uaddr=0x280 hist=0x1\n"
		       "ProgTraceCorrelation evcode=4 cdf=1 icnt=2 hist=0x1\n",
		       "repeated history goes on through ResourceFull RCODE=0");
}

static void periodic_sync(void)
{
	struct ntrace_insn s[12];
	struct ntrace_enc_cfg c;
	struct enc_run r;
	size_t i;

	for (i = 0; i < 10; i++)
		s[i] = (struct ntrace_insn)I(0x100 + 4 * i, 4, 0);
	base(&c, NTRACE_MODE_BTM);
	c.sync_mode = NTRACE_SYNCMODE_HWORDS;
	c.sync_max = 0;
	enc_run(&c, s, 10, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ProgTraceSync sync=2(periodic) icnt=16 faddr=0x90\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=4\n",
		       "periodic sync every 16 half-words (BTM: ProgTraceSync)");
	c.mode = NTRACE_MODE_HTM;
	s[3].itype = NT;
	enc_run(&c, s, 10, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "IndirectBranchHistSync sync=2(periodic) btype=0 icnt=16 faddr=0x90 hist=0x2\n"
		       "ProgTraceCorrelation evcode=4 cdf=1 icnt=4 hist=0x1\n",
		       "periodic sync in HTM keeps HIST (IndirectBranchHistSync)");
	c.mode = NTRACE_MODE_BTM;
	s[3].itype = 0;
	s[7].itype = TK;	/* the due point is a taken branch to 0x200 */
	s[8].addr = 0x200;
	s[9].addr = 0x204;
	enc_run(&c, s, 10, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "DirectBranchSync sync=2(periodic) icnt=16 faddr=0x100\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=4\n",
		       "periodic sync upgrades a DirectBranch to DirectBranchSync");
	c.sync_mode = NTRACE_SYNCMODE_MSGS;	/* every 16 messages */
	{
		struct ntrace_insn t[40];

		for (i = 0; i < 40; i += 2) {
			t[i] = (struct ntrace_insn)I(0x100, 4, 0);
			t[i + 1] = (struct ntrace_insn)I(0x104, 4, TK);
		}
		enc_run(&c, t, 40, &r);
		tap_ok(strstr(r.text, "DirectBranch icnt=4\nProgTraceSync sync=2(periodic) icnt=2 faddr=0x82\n") &&
		       r.nmsg == 22, "periodic sync every 16 messages");
	}
}

static void ownership_ts_src(void)
{
	static const struct ntrace_insn s[] = {
		{ .addr = 0x100, .size = 4, .priv = 0, .context = 7, .tstamp = 1000 },
		{ .addr = 0x104, .size = 4, .itype = NTRACE_ITYPE_EXCEPTION, .priv = 0,
		  .context = 7, .tstamp = 1010 },
		{ .addr = 0x8000, .size = 4, .itype = NTRACE_ITYPE_TRAP_RETURN, .priv = 1,
		  .context = 7, .tstamp = 1020 },
		{ .addr = 0x108, .size = 4, .priv = 0, .context = 9, .tstamp = 1100 },
	};
	struct ntrace_enc_cfg c;
	struct enc_run r;

	base(&c, NTRACE_MODE_BTM);
	c.context = true;
	enc_run(&c, s, N(s), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "Ownership process=0xe2 fmt=2 v=0 prv=0 context=0x7\n"
		       "IndirectBranch btype=2 icnt=4 uaddr=0x4080\n"
		       "Ownership process=0x4 fmt=0 v=0 prv=1\n"
		       "IndirectBranch btype=0 icnt=2 uaddr=0x4084\n"
		       "Ownership process=0x122 fmt=2 v=0 prv=0 context=0x9\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
		       "Ownership after sync, on privilege change and on context change");
	c.context = false;
	c.codec.tstamp = true;
	c.codec.src_bits = 4;
	c.src_id = 5;
	enc_run(&c, s, N(s), &r);
	expect_listing(&r, "ProgTraceSync src=5 sync=5(trace-enable) icnt=0 faddr=0x80 tstamp=1000\n"
		       "IndirectBranch src=5 btype=2 icnt=4 uaddr=0x4080 tstamp=10\n"
		       "IndirectBranch src=5 btype=0 icnt=2 uaddr=0x4084 tstamp=10\n"
		       "ProgTraceCorrelation src=5 evcode=4 cdf=0 icnt=2 tstamp=80\n",
		       "timestamps absolute at sync, relative otherwise; SRC on every message");
}

static void jumps(void)
{
	static const struct ntrace_insn seq[] = {
		I(0x100, 4, 0),	/* auipc */
		{ .addr = 0x104, .size = 4, .itype = NTRACE_ITYPE_IND_JUMP,
		  .flags = NTRACE_INSN_SEQ_INFERABLE },
		I(0x2000, 4, 0),
	};
	static const struct ntrace_insn direct[] = {
		I(0x100, 4, NTRACE_ITYPE_DIR_JUMP), I(0x200, 4, 0),
	};
	static const struct ntrace_insn four[] = {
		I(0x100, 4, NTRACE_ITYPE_DIR_CALL), I(0x200, 2, NTRACE_ITYPE_RETURN),
		I(0x104, 4, 0),
	};
	struct ntrace_enc_cfg c;
	struct enc_run r;

	base(&c, NTRACE_MODE_BTM);
	enc_run(&c, seq, N(seq), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "IndirectBranch btype=0 icnt=4 uaddr=0x1080\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
		       "sequential jump off: the jump is reported");
	c.seq_jump = true;
	enc_run(&c, seq, N(seq), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=6\n",
		       "sequential jump: inferable jump sends nothing");
	enc_run(&c, seq + 1, 2, &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x82\n"
		       "IndirectBranch btype=0 icnt=2 uaddr=0x1082\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
		       "sequential jump: the constant load must be in the same message");
	c.seq_jump = false;
	enc_run(&c, direct, N(direct), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=4\n",
		       "direct jump is inferable");
	c.all_jumps = true;
	enc_run(&c, direct, N(direct), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "DirectBranch icnt=2\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
		       "all jumps (BTM): direct jump sends DirectBranch");
	c.mode = NTRACE_MODE_HTM;
	enc_run(&c, direct, N(direct), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ProgTraceCorrelation evcode=4 cdf=1 icnt=4 hist=0x3\n",
		       "all jumps (HTM): direct jump adds a taken bit");
	base(&c, NTRACE_MODE_BTM);
	c.itype_bits = 3;
	enc_run(&c, four, N(four), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "IndirectBranch btype=0 icnt=3 uaddr=0x2\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
		       "3-bit itype: 4-bit call/return folded to 0 and 6");
	c.mode = NTRACE_MODE_HTM;
	c.htm_ib_no_hist = true;
	enc_run(&c, four, N(four), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "IndirectBranch btype=0 icnt=3 uaddr=0x2\n"
		       "ProgTraceCorrelation evcode=4 cdf=1 icnt=2 hist=0x1\n",
		       "HTM: IndirectBranch when HIST is empty (option)");
}

static void gaps(void)
{
	static const struct ntrace_insn s[] = {
		{ .addr = 0x100, .size = 4, .itype = TK, .flags = NTRACE_INSN_TRACE_STOP },
		I(0x200, 4, 0),	/* not traced */
		{ .addr = 0x204, .size = 4, .flags = NTRACE_INSN_TRACE_START },
		I(0x208, 2, 0),
	};
	struct ntrace_enc_cfg c;
	struct enc_run r;
	const char *why;

	base(&c, NTRACE_MODE_BTM);
	enc_run(&c, s, N(s), &r);
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n"
		       "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x102\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=3\n",
		       "trace stop and restart: correlation, then a new sync");

	/*
	 * A user-only trace stops at an exception (the handler is not
	 * traced) and restarts after it; then a return goes elsewhere than
	 * its call (longjmp). Its IndirectBranch is B-TYPE 0, not the
	 * exception's B-TYPE left from before the stop.
	 */
	{
		static const struct ntrace_insn t[] = {
			{ .addr = 0x100, .size = 4, .itype = NTRACE_ITYPE_EXCEPTION,
			  .flags = NTRACE_INSN_TRACE_STOP },
			I(0x8000, 4, 0),	/* the handler, not traced */
			{ .addr = 0x104, .size = 4, .itype = NTRACE_ITYPE_DIR_CALL,
			  .flags = NTRACE_INSN_TRACE_START },
			I(0x200, 2, NTRACE_ITYPE_RETURN),
			I(0x304, 4, 0),
		};

		c.implicit_return = NTRACE_IRET_FULL;
		enc_run(&c, t, N(t), &r);
		expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
			       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n"
			       "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x82\n"
			       "IndirectBranch btype=0 icnt=3 uaddr=0x100\n"
			       "ProgTraceCorrelation evcode=4 cdf=0 icnt=2\n",
			       "a mispredicted return after a stop at an exception is B-TYPE 0");
	}
	tap_ok(ntrace_enc_cfg_check(&(struct ntrace_enc_cfg){ .mode = 4 }, &why) == NTRACE_ECONFIG &&
	       !strcmp(why, "trTeInstMode must be 3 (BTM) or 6 (HTM)"),
	       "bad configuration is named");
}

/* "Error Message": sent right before the sync that restarts after an overrun. */
static void overrun(void)
{
	static const struct ntrace_insn a[] = { I(0x100, 4, TK), I(0x200, 4, 0) };
	static const struct ntrace_insn b[] = { I(0x300, 4, 0), I(0x304, 2, 0) };
	struct ntrace_enc_cfg c;
	struct ntrace_encoder e;
	struct enc_run r;

	base(&c, NTRACE_MODE_BTM);
	memset(&r, 0, sizeof(r));
	ntrace_encoder_init(&e, &c, harness_collect, &r, NULL);
	ntrace_encoder_put(&e, a, 2);
	ntrace_encoder_overrun(&e, NTRACE_ECODE_PROGRAM_LOST);
	ntrace_encoder_put(&e, b, 2);
	ntrace_encoder_finish(&e);
	r.reparse_ok = 1;
	expect_listing(&r, "ProgTraceSync sync=5(trace-enable) icnt=0 faddr=0x80\n"
		       "DirectBranch icnt=2\n"
		       "Error etype=0 ecode=0x4\n"
		       "ProgTraceSync sync=7(fifo-overrun) icnt=0 faddr=0x180\n"
		       "ProgTraceCorrelation evcode=4 cdf=0 icnt=3\n",
		       "FIFO overrun: Error then ProgTraceSync SYNC=7");
}

int main(void)
{
	overrun();
	implicit_return();
	repeat_branch();
	repeated_history();
	repeated_history_period();
	repeated_history_icnt();
	periodic_sync();
	ownership_ts_src();
	jumps();
	gaps();
	return tap_done();
}
