// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model's SiFive pre-ratified (v0) components, programmed as the P550
 * tools do it (riscv-trace-umd): topology p550 (encoders into the system
 * funnel and its memory sink) or sifive-hart (each encoder with its own
 * memory sink), told apart by teImpl (hasFunnelSink / hasSBASink).
 *
 * The host configures a run by words at 0x80300000 (struct pcfg) and the
 * number of harts at BM_HARTS_ADDR. With pcfg.regs = 1 the program tests
 * the registers (reset values, WARL, RW1C, write-0-to-clear, the empty
 * handshakes, the timestamp units) and prints TAP lines. Otherwise every
 * hart traces its own workload at once with the configured teControl and
 * tsControl, and the program reports what the registers read back ("HART
 * h control= impl= ts=") and where each sink's trace is ("SINK s base=
 * limit= wp= control="); tests/p550.sh checks the bytes.
 */
#include "ntrace_v0_bm.h"

struct pcfg {
	uint32_t regs;		/* 1: register tests only */
	uint32_t inst_mode;	/* teInstruction: 6 or 7 */
	uint32_t sync_btm;	/* teSyncMaxBTM */
	uint32_t sync_inst;	/* teSyncMaxInst */
	uint32_t inhibit;	/* teInhibitSrc */
	uint32_t ts;		/* tsEnable (and the counters running) */
	uint32_t ts_branch;	/* tsBranch */
	uint32_t buf_bytes;	/* buffer size (0: 1 MiB) */
	uint32_t stop_on_wrap;	/* tfStopOnWrap / teStopOnWrap */
};
#define CFG	((volatile struct pcfg *)0x80300000UL)
#define BUF(s)	(0x80400000UL + (uintptr_t)(s) * 0x100000)

static int emb;	/* sifive-hart: each encoder has its own sink */
static volatile uint32_t te_ctl[BM_MAX_HARTS], te_impl[BM_MAX_HARTS], ts_ctl[BM_MAX_HARTS];
static volatile unsigned int result[BM_MAX_HARTS];

static uint32_t buf_bytes(void)
{
	return CFG->buf_bytes ? CFG->buf_bytes : 0x100000;
}

static uint32_t word_bytes(void)
{
	return emb ? 4 : 8;	/* sinkBytes: 0 in the TE, 1 in the TF */
}

static void workload(unsigned int h)
{
	unsigned int i, r, acc = 0;

	for (r = 0; r < 6; r++)
		for (i = 1; i < 40 + 8 * h; i++)
			acc += (i + h) & 1 ? sum_to(i + h + r) : collatz(i + 3 * h + r);
	result[h] = acc;
}

/* Program a memory sink's registers at base: [buf, buf + bytes). */
static void sink_program(uintptr_t base, uintptr_t buf, uint32_t bytes)
{
	wr32(base + TCI_V0_SINK_BASE_HIGH, 0);
	wr32(base + TCI_V0_SINK_BASE, (uint32_t)buf);
	wr32(base + TCI_V0_SINK_LIMIT, (uint32_t)(buf + bytes - word_bytes()));
	wr32(base + TCI_V0_SINK_WP, (uint32_t)buf);
}

static uint32_t te_control(void)
{
	return TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, CFG->inst_mode) |
	       TCI_SET(V0_TE_SYNC_MAX_BTM, CFG->sync_btm) |
	       TCI_SET(V0_TE_SYNC_MAX_INST, CFG->sync_inst) |
	       (CFG->inhibit ? TCI_V0_TE_INHIBIT_SRC : 0) |
	       (emb && CFG->stop_on_wrap ? TCI_V0_STOP_ON_WRAP : 0) |
	       TCI_SET(V0_SINK, emb ? TCI_V0_SINK_SBA : TCI_V0_SINK_FUNNEL);
}

/* Each hart, at once: its own encoder, then its workload. */
static void hart_trace(unsigned int h)
{
	uintptr_t te = V0_TE(h);
	uint32_t ctl = te_control();

	if (v0_reset(te))
		return;
	if (emb)
		sink_program(te, BUF(h), buf_bytes());
	if (CFG->ts) {
		wr32(te + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE);
		wr32(te + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_V0_TS_ENABLE |
		     TCI_SET(V0_TS_BRANCH, CFG->ts_branch) | (emb ? TCI_V0_TS_COUNT : 0));
	}
	wr32(te + TCI_V0_CONTROL, ctl);
	wr32(te + TCI_V0_CONTROL, ctl | TCI_V0_ENABLE | TCI_V0_TE_TRACING);
	workload(h);
	wr32(te + TCI_V0_CONTROL, ctl);
	v0_poll(te + TCI_V0_CONTROL, TCI_V0_ENABLE | TCI_V0_EMPTY, TCI_V0_EMPTY);
	te_ctl[h] = rd32(te + TCI_V0_CONTROL);
	te_impl[h] = rd32(te + TCI_V0_IMPL);
	ts_ctl[h] = rd32(te + TCI_V0_TS_CONTROL);
}

static void report_sink(unsigned int s, uintptr_t base)
{
	puts_("SINK ");
	putdec(s);
	puts_(" base=");
	puthex(rd32(base + TCI_V0_SINK_BASE));
	puts_(" limit=");
	puthex(rd32(base + TCI_V0_SINK_LIMIT));
	puts_(" wp=");
	puthex(rd32(base + TCI_V0_SINK_WP));
	puts_(" control=");
	puthex(rd32(base + TCI_V0_CONTROL));
	putch('\n');
}

void hart_main(unsigned long hartid)
{
	if (!CFG->regs)
		bm_hart_join(hartid);
}

static void trace_run(void)
{
	unsigned int h, n = bm_harts(), done;
	uint32_t tf = TCI_V0_ACTIVE | (CFG->stop_on_wrap ? TCI_V0_STOP_ON_WRAP : 0) |
		      TCI_SET(V0_SINK, TCI_V0_SINK_SBA);

	if (!emb) {
		/* the funnel and its sink first, then the encoders */
		check(v0_reset(V0_TF) == 0, "funnel reset handshake (tfActive)");
		wr32(V0_TF + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE);
		wr32(V0_TF + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_V0_TS_COUNT);
		sink_program(V0_TF, BUF(0), buf_bytes());
		wr32(V0_TF + TCI_V0_CONTROL, tf);
		wr32(V0_TF + TCI_V0_CONTROL, tf | TCI_V0_ENABLE);
		check_eq(rd32(V0_TF + TCI_V0_CONTROL) & (TCI_V0_ENABLE | TCI_V0_STOP_ON_WRAP),
			 TCI_V0_ENABLE | (tf & TCI_V0_STOP_ON_WRAP), "tfEnable (and tfStopOnWrap) set");
	}
	done = bm_all_harts(hart_trace);
	for (h = 0; h < n; h++) {
		puts_("HART ");
		putdec(h);
		puts_(" control=");
		puthex(te_ctl[h]);
		puts_(" impl=");
		puthex(te_impl[h]);
		puts_(" ts=");
		puthex(ts_ctl[h]);
		putch('\n');
		check(done >> h & 1, "hart traced its workload");
		check_eq(te_ctl[h] & ~TCI_V0_EMPTY, te_control() | TCI_SET(V0_TE_SLICE_FORMAT, 1),
			 "teControl reads back as written, teSliceFormat 1 (encoder disabled)");
		check(te_ctl[h] & TCI_V0_EMPTY, "teEmpty=1 after teEnable=0");
	}
	if (!emb) {
		if (CFG->stop_on_wrap)
			check_eq(rd32(V0_TF + TCI_V0_CONTROL) & TCI_V0_ENABLE, 0,
				 "stop-on-wrap: the funnel cleared tfEnable itself");
		wr32(V0_TF + TCI_V0_CONTROL, tf);
		check(v0_poll(V0_TF + TCI_V0_CONTROL, TCI_V0_ENABLE | TCI_V0_EMPTY,
			      TCI_V0_EMPTY) >= 0, "tfEnable=0: tfEmpty=1 (partial word flushed)");
		report_sink(0, V0_TF);
	} else {
		for (h = 0; h < n; h++)
			report_sink(h, V0_TE(h));
	}
}

/* ---- register tests ---------------------------------------------------------- */

/*
 * The unit read through b's tsLower/tsUpper counts what the time CSR
 * counts: over a spin, both advance alike. The model refreshes the
 * registers at the reading hart's blocks (every 64th while it does not
 * trace), so either reading may trail, by as long as a loaded host stops
 * the vCPU in between (200 us in a CI run): over a spin of some 40 ms the
 * two must agree within a quarter and TS_TRAIL ticks (100 us at 10 MHz),
 * which a unit at another rate (the P550's 700 MHz) or stopped misses.
 */
#define TS_TRAIL	1000

static void ts_rate_check(uintptr_t b, const char *what)
{
	uint64_t t0, t1, a, c;
	uint32_t hi;
	long t;
	int ok;

	t0 = rdtime();
	hi = rd32(b + TCI_V0_TS_UPPER);
	a = (uint64_t)hi << 32 | rd32(b + TCI_V0_TS_LOWER);
	for (t = 0; t < 4000000; t++)
		__asm__ volatile("nop");
	hi = rd32(b + TCI_V0_TS_UPPER);
	c = (uint64_t)hi << 32 | rd32(b + TCI_V0_TS_LOWER);
	t1 = rdtime();
	ok = c > a && c - a <= t1 - t0 + TS_TRAIL && c - a + ((t1 - t0) >> 2) + TS_TRAIL >= t1 - t0;
	check(ok, what);
	if (!ok) {
		puts_("# counter advanced ");
		puthex(c - a);
		puts_(" time CSR ");
		puthex(t1 - t0);
		puts_("\n");
	}
}

static void regs_encoder(void)
{
	uintptr_t te = V0_TE(0);
	uint32_t sink = emb ? TCI_V0_SINK_SBA : TCI_V0_SINK_FUNNEL;
	uint32_t rst = TCI_SET(V0_TE_SYNC_MAX_BTM, 3) | TCI_SET(V0_TE_SYNC_MAX_INST, 0xa) |
		       TCI_SET(V0_TE_SLICE_FORMAT, 1) | TCI_SET(V0_SINK, sink);
	uint32_t impl = emb ? TCI_V0_HAS_SBA_SINK : TCI_V0_HAS_FUNNEL_SINK | TCI_SET(V0_TE_SRC_BITS, 2);
	uint32_t c, ts;

	check_eq(rd32(te + TCI_V0_CONTROL), rst | TCI_V0_EMPTY,
		 "teControl reset value: teEmpty, teSyncMaxBTM 3, teSyncMaxInst 0xA, teSliceFormat 1, teSink");
	check_eq(rd32(te + TCI_V0_IMPL), impl,
		 "teImpl: version 0, sink type, sinkBytes 0, srcID 0, nSrcBits, hartid 0");
	check_eq(rd32(V0_TE(1) + TCI_V0_IMPL),
		 impl | TCI_SET(V0_TE_SRC_ID, 1) | TCI_SET(V0_TE_HARTID, 1),
		 "teImpl of encoder 1: srcID 1, hartid 1");
	wr32(te + TCI_V0_CONTROL, TCI_V0_ACTIVE);
	check_eq(rd32(te + TCI_V0_CONTROL) & TCI_V0_ACTIVE, 0,
		 "teActive: release from reset is not instantaneous");
	check(v0_poll(te + TCI_V0_CONTROL, TCI_V0_ACTIVE, TCI_V0_ACTIVE) >= 0,
	      "teActive reads 1 after polling");
	check_eq(rd32(te + TCI_V0_CONTROL), rst | TCI_V0_EMPTY | TCI_V0_ACTIVE,
		 "teControl after release: reset fields, teEmpty");
	/* teInstruction WARL {0, 6, 7} */
	wr32(te + TCI_V0_CONTROL, TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, 6));
	check_eq(TCI_GET(rd32(te), V0_TE_INST_MODE), 6, "teInstruction 6 (HTM) is legal");
	wr32(te + TCI_V0_CONTROL, TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, 7));
	check_eq(TCI_GET(rd32(te), V0_TE_INST_MODE), 7, "teInstruction 7 (HTM, optimised) is legal");
	wr32(te + TCI_V0_CONTROL, TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, 3));
	check_eq(TCI_GET(rd32(te), V0_TE_INST_MODE), 7, "teInstruction 3 is not legal: keeps 7");
	wr32(te + TCI_V0_CONTROL, TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, 1));
	check_eq(TCI_GET(rd32(te), V0_TE_INST_MODE), 7, "teInstruction 1 (event trace) is not legal");
	/* sync periods WARL */
	wr32(te, TCI_V0_ACTIVE | TCI_SET(V0_TE_SYNC_MAX_BTM, 0xb) | TCI_SET(V0_TE_SYNC_MAX_INST, 5));
	c = rd32(te);
	check(TCI_GET(c, V0_TE_SYNC_MAX_BTM) == 0xb && TCI_GET(c, V0_TE_SYNC_MAX_INST) == 5,
	      "teSyncMaxBTM 0xB, teSyncMaxInst 5 are legal");
	wr32(te, TCI_V0_ACTIVE | TCI_SET(V0_TE_SYNC_MAX_BTM, 0xc) | TCI_SET(V0_TE_SYNC_MAX_INST, 6));
	c = rd32(te);
	check(TCI_GET(c, V0_TE_SYNC_MAX_BTM) == 0xb && TCI_GET(c, V0_TE_SYNC_MAX_INST) == 5,
	      "teSyncMaxBTM 0xC and teSyncMaxInst 6 (reserved) keep the old values");
	wr32(te, TCI_V0_ACTIVE | TCI_SET(V0_TE_SYNC_MAX_BTM, 0xf) | TCI_SET(V0_TE_SYNC_MAX_INST, 0xf));
	c = rd32(te);
	check(TCI_GET(c, V0_TE_SYNC_MAX_BTM) == 0xf && TCI_GET(c, V0_TE_SYNC_MAX_INST) == 0xf,
	      "teSyncMaxBTM and teSyncMaxInst 0xF (off) are legal");
	/* RW, RO and reads-0 fields */
	wr32(te, TCI_V0_ACTIVE | TCI_SET(V0_TE_ITC_MODE, 3) | TCI_V0_TE_INHIBIT_SRC |
	     TCI_V0_TE_STALL_ENABLE | TCI_V0_STOP_ON_WRAP | TCI_SET(V0_SINK, 0) |
	     TCI_SET(V0_TE_SLICE_FORMAT, 0) | 0x0e00);
	c = rd32(te);
	check_eq(c & (TCI_V0_TE_ITC_MODE_MASK | TCI_V0_TE_INHIBIT_SRC | TCI_V0_TE_STALL_ENABLE |
		      TCI_V0_STOP_ON_WRAP | TCI_V0_SINK_MASK | TCI_V0_TE_SLICE_FORMAT_MASK | 0x0e00),
		 TCI_SET(V0_TE_ITC_MODE, 3) | TCI_V0_TE_INHIBIT_SRC |
		 (emb ? TCI_V0_STOP_ON_WRAP : 0) | TCI_SET(V0_SINK, sink) |
		 TCI_SET(V0_TE_SLICE_FORMAT, 1),
		 "teITCMode, teInhibitSrc RW; teStallEnable 0; teStopOnWrap only with an own sink; "
		 "teSink WARL (one sink); teSliceFormat RO 1; reserved bits 0");
	wr32(te + TCI_V0_IMPL, 0);
	check_eq(rd32(te + TCI_V0_IMPL), impl, "teImpl is read-only");
	/* ITC registers: plain storage; reserved offsets read 0 */
	wr32(te + TCI_V0_ITC_TRACE_ENABLE, 0xffffffff);
	wr32(te + TCI_V0_ITC_TRIG_ENABLE, 0x12345678);
	wr32(te + TCI_V0_ITC_STIMULUS(31), 0xcafef00d);
	wr32(te + 0x00c, 0x1234);
	wr32(te + TCI_V0_XTI_CONTROL, 0x1234);
	check(rd32(te + TCI_V0_ITC_TRACE_ENABLE) == 0xffffffff &&
	      rd32(te + TCI_V0_ITC_TRIG_ENABLE) == 0x12345678 &&
	      rd32(te + TCI_V0_ITC_STIMULUS(31)) == 0xcafef00d && !rd32(te + 0x00c) &&
	      !rd32(te + TCI_V0_XTI_CONTROL),
	      "itcTraceEnable, itcTrigEnable, itcStimulus keep what was written; reserved offsets read 0");
	/* the encoder's timestamp unit */
	ts = TCI_SET(V0_TS_TYPE, emb ? TCI_V0_TS_TYPE_BUS : TCI_V0_TS_TYPE_SLAVE) |
	     TCI_SET(V0_TS_WIDTH, 40);
	check_eq(rd32(te + TCI_V0_TS_CONTROL), ts,
		 emb ? "tsControl reset: tsType 2 (internal, bus clock), tsWidth 40" :
		       "tsControl reset: tsType 4 (slave), tsWidth 40");
	wr32(te + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE);
	wr32(te + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_SET(V0_TS_BRANCH, 1) | TCI_V0_TS_ENABLE |
	     TCI_V0_TS_ITC | TCI_V0_TS_OWNERSHIP | TCI_SET(V0_TS_TYPE, 1));
	check_eq(rd32(te + TCI_V0_TS_CONTROL), ts | TCI_V0_TS_ACTIVE | TCI_SET(V0_TS_BRANCH, 1) |
		 TCI_V0_TS_ENABLE | TCI_V0_TS_ITC | TCI_V0_TS_OWNERSHIP,
		 "tsActive, tsEnable, tsBranch 1, tsInstrumentation, tsOwnership RW; tsType RO");
	wr32(te + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_SET(V0_TS_BRANCH, 2));
	check_eq(TCI_GET(rd32(te + TCI_V0_TS_CONTROL), V0_TS_BRANCH), 1,
		 "tsBranch 2 (reserved) keeps the old value");
	wr32(te + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_SET(V0_TS_BRANCH, 3));
	check_eq(TCI_GET(rd32(te + TCI_V0_TS_CONTROL), V0_TS_BRANCH), 3, "tsBranch 3 is legal");
	if (emb) {
		/* the own unit, as the driver runs it: tsCount=1, tsPrescale 0 */
		wr32(te + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_V0_TS_COUNT);
		ts_rate_check(te, "encoder's own unit: tsLower/tsUpper advance as the time CSR does");
	}
	wr32(te + TCI_V0_TS_CONTROL, 0);
	check_eq(rd32(te + TCI_V0_TS_CONTROL), ts, "tsActive=0: the unit back in reset");
	/* in reset, other registers ignore writes */
	wr32(te + TCI_V0_CONTROL, 0);
	v0_poll(te + TCI_V0_CONTROL, TCI_V0_ACTIVE, 0);
	wr32(te + TCI_V0_ITC_TRACE_ENABLE, 0xff);
	wr32(te + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE);
	check(!rd32(te + TCI_V0_ITC_TRACE_ENABLE) && !(rd32(te + TCI_V0_TS_CONTROL) & TCI_V0_TS_ACTIVE),
	      "teActive=0: writes to other registers are ignored, ITC storage reset");
}

/* A short trace of encoder 0 with the current sink setup. */
static uint32_t short_trace(uint32_t extra)
{
	uintptr_t te = V0_TE(0);
	uint32_t ctl = TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, 6) | extra |
		       TCI_SET(V0_SINK, emb ? TCI_V0_SINK_SBA : TCI_V0_SINK_FUNNEL);

	v0_reset(te);
	if (emb)
		sink_program(te, BUF(0), 0x1000);
	wr32(te, ctl);
	wr32(te, ctl | TCI_V0_ENABLE | TCI_V0_TE_TRACING);
	result[0] = collatz(27) + sum_to(20);
	/* teConfig fields are latched while teEnable=1 */
	wr32(te, ctl | TCI_V0_ENABLE | TCI_V0_TE_TRACING | TCI_SET(V0_TE_INST_MODE, 7));
	check_eq(TCI_GET(rd32(te), V0_TE_INST_MODE), 6, "teInstruction is latched while teEnable=1");
	wr32(te, ctl | TCI_V0_ENABLE | TCI_V0_TE_TRACING);
	result[0] += collatz(97);
	wr32(te, ctl | TCI_V0_TE_STALL_OR_OVF);
	check(v0_poll(te, TCI_V0_ENABLE | TCI_V0_EMPTY, TCI_V0_EMPTY) >= 0,
	      "teEnable=0: teEmpty reads 1 (all trace emitted)");
	return rd32(te);
}

static void regs_overflow(void)
{
	uintptr_t te = V0_TE(0);
	uint32_t c, keep = TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, 6) |
			   TCI_SET(V0_SINK, TCI_V0_SINK_FUNNEL);

	/* the funnel in reset: every message the encoder sends is refused */
	wr32(V0_TF, 0);
	v0_poll(V0_TF, TCI_V0_ACTIVE, 0);
	c = short_trace(0);
	check_eq(c & (TCI_V0_SINK_ERROR | TCI_V0_TE_STALL_OR_OVF),
		 TCI_V0_SINK_ERROR | TCI_V0_TE_STALL_OR_OVF,
		 "funnel in reset: teSinkError and teStallOrOverflow set");
	wr32(te, keep | TCI_V0_TE_STALL_OR_OVF);
	check_eq(rd32(te) & (TCI_V0_SINK_ERROR | TCI_V0_TE_STALL_OR_OVF),
		 TCI_V0_SINK_ERROR | TCI_V0_TE_STALL_OR_OVF,
		 "writing 1 to teStallOrOverflow keeps it (not W1C), writing 0 to teSinkError keeps it");
	wr32(te, keep);
	check_eq(rd32(te) & (TCI_V0_SINK_ERROR | TCI_V0_TE_STALL_OR_OVF), TCI_V0_SINK_ERROR,
		 "writing 0 to teStallOrOverflow clears it");
	wr32(te, keep | TCI_V0_SINK_ERROR);
	check_eq(rd32(te) & TCI_V0_SINK_ERROR, 0, "writing 1 to teSinkError clears it (RW1C)");
}

static void regs_funnel(void)
{
	uintptr_t f = V0_TF;
	uint32_t rst = TCI_SET(V0_SINK, TCI_V0_SINK_SBA), c, a, b;
	uint32_t ts = TCI_SET(V0_TS_TYPE, TCI_V0_TS_TYPE_BUS) | TCI_SET(V0_TS_WIDTH, 40);
	long t;

	check_eq(rd32(f + TCI_V0_CONTROL), rst | TCI_V0_EMPTY,
		 "tfControl reset value: tfEmpty, tfSink 7 (SBA)");
	check_eq(rd32(f + TCI_V0_IMPL), TCI_V0_HAS_SBA_SINK | TCI_SET(V0_SINK_BYTES, 1),
		 "tfImpl: version 0, hasSBASink, sinkBytes 1 (64-bit)");
	check_eq(rd32(f + TCI_V0_TS_CONTROL), ts, "funnel tsControl: tsType 2, tsWidth 40");
	check(v0_reset(f) == 0, "tfActive reset handshake");
	wr32(f, TCI_V0_ACTIVE | TCI_SET(V0_SINK, 0) | TCI_V0_STOP_ON_WRAP | 0x3ff0);
	check_eq(rd32(f), TCI_V0_ACTIVE | TCI_V0_EMPTY | TCI_V0_STOP_ON_WRAP | rst,
		 "tfSink WARL (only 7), tfStopOnWrap RW, reserved bits 0");
	/* sink registers: the word is 8 bytes; WP bit 0 is the wrapped flag */
	wr32(f + TCI_V0_SINK_BASE, 0x80400007);
	wr32(f + TCI_V0_SINK_LIMIT, 0x804001ff);
	wr32(f + TCI_V0_SINK_WP, 0x80400003);
	wr32(f + TCI_V0_SINK_BASE_HIGH, 0);
	check(rd32(f + TCI_V0_SINK_BASE) == 0x80400000 && rd32(f + TCI_V0_SINK_LIMIT) == 0x804001f8 &&
	      rd32(f + TCI_V0_SINK_WP) == 0x80400001 && rd32(f + TCI_V0_SINK_BASE_HIGH) == 0,
	      "SinkBase/Limit/WP: aligned to the 8-byte word, WP bit 0 (wrapped) RW, bit 1 reserved");
	wr32(f + TCI_V0_SINK_WP, 0x80400000);
	/* the system timestamp unit */
	wr32(f + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE);
	check(!rd32(f + TCI_V0_TS_LOWER) && !rd32(f + TCI_V0_TS_UPPER),
	      "funnel tsActive=1, tsCount=0: the counter reads 0");
	wr32(f + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_V0_TS_COUNT | TCI_SET(V0_TS_PRESCALE, 1));
	check_eq(rd32(f + TCI_V0_TS_CONTROL), ts | TCI_V0_TS_ACTIVE | TCI_V0_TS_COUNT |
		 TCI_SET(V0_TS_PRESCALE, 1), "funnel tsCount, tsPrescale RW");
	for (t = 0; t < 200000; t++)
		__asm__ volatile("nop");
	wr32(f + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_V0_TS_COUNT | TCI_SET(V0_TS_PRESCALE, 1));
	a = rd32(f + TCI_V0_TS_LOWER);
	check(a > 0, "funnel counter counts with tsCount=1");
	wr32(f + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE);
	a = rd32(f + TCI_V0_TS_LOWER);
	for (t = 0; t < 200000; t++)
		__asm__ volatile("nop");
	wr32(f + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE);
	b = rd32(f + TCI_V0_TS_LOWER);
	check(a == b && a > 0, "funnel counter holds its value with tsCount=0");
	wr32(f + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_V0_TS_RESET);
	check(!rd32(f + TCI_V0_TS_LOWER) && !(rd32(f + TCI_V0_TS_CONTROL) & TCI_V0_TS_RESET),
	      "tsReset: the counter reads 0; tsReset is write-only");
	wr32(f + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_V0_TS_COUNT);
	/* the encoder's slave unit reads the system counter */
	v0_reset(V0_TE(0));
	wr32(V0_TE(0) + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE);
	for (t = 0; t < 100000; t++)
		__asm__ volatile("nop");
	wr32(f + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_V0_TS_COUNT);
	a = rd32(f + TCI_V0_TS_LOWER);
	wr32(V0_TE(0) + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE);
	b = rd32(V0_TE(0) + TCI_V0_TS_LOWER);
	check(a > 0 && b >= a && b - a < 100000, "encoder tsLower (slave) follows the funnel's counter");
	/*
	 * What the driver relies on to place the counter on the time CSR: it
	 * runs at the platform timer's rate (tsPrescale 0), the encoder's
	 * tsLower/tsUpper read it at any time, and nothing but tsReset (and
	 * reset) changes its value: tsLower/tsUpper ignore writes.
	 */
	ts_rate_check(V0_TE(0), "encoder tsLower/tsUpper (slave) advance as the time CSR does");
	a = rd32(V0_TE(0) + TCI_V0_TS_LOWER);
	wr32(V0_TE(0) + TCI_V0_TS_LOWER, 0);
	wr32(V0_TE(0) + TCI_V0_TS_UPPER, 0x12);
	wr32(f + TCI_V0_TS_LOWER, 0);
	wr32(f + TCI_V0_TS_UPPER, 0x12);
	wr32(f + TCI_V0_TS_CONTROL, TCI_V0_TS_ACTIVE | TCI_V0_TS_COUNT);
	b = rd32(f + TCI_V0_TS_LOWER);
	check(b > a && rd32(f + TCI_V0_TS_UPPER) != 0x12 &&
	      rd32(V0_TE(0) + TCI_V0_TS_LOWER) >= a && rd32(V0_TE(0) + TCI_V0_TS_UPPER) != 0x12,
	      "tsLower/tsUpper of funnel and encoder ignore writes (the counter goes on)");
	wr32(V0_TE(0), 0);
	/* a trace into the buffer; then a buffer outside RAM: tfSinkError */
	wr32(f, TCI_V0_ACTIVE | rst | TCI_V0_ENABLE);
	wr32(f + TCI_V0_SINK_BASE, 0x80500000);
	check_eq(rd32(f + TCI_V0_SINK_BASE), 0x80400000, "SinkBase write ignored while tfEnable=1");
	c = short_trace(0);
	check_eq(c & (TCI_V0_SINK_ERROR | TCI_V0_TE_STALL_OR_OVF), 0,
		 "funnel enabled: no teSinkError, no teStallOrOverflow");
	wr32(f, TCI_V0_ACTIVE | rst);
	check(v0_poll(f, TCI_V0_ENABLE | TCI_V0_EMPTY, TCI_V0_EMPTY) >= 0 &&
	      rd32(f + TCI_V0_SINK_WP) > 0x80400000 && !(rd32(f + TCI_V0_SINK_WP) & 7),
	      "tfEnable=0: tfEmpty=1, SinkWP moved on by whole 8-byte words");
	wr32(f + TCI_V0_SINK_BASE, 0x40000000);
	wr32(f + TCI_V0_SINK_LIMIT, 0x400001f8);
	wr32(f + TCI_V0_SINK_WP, 0x40000000);
	wr32(f, TCI_V0_ACTIVE | rst | TCI_V0_ENABLE);
	short_trace(0);
	wr32(f, TCI_V0_ACTIVE | rst);
	v0_poll(f, TCI_V0_EMPTY, TCI_V0_EMPTY);
	check_eq(rd32(f) & TCI_V0_SINK_ERROR, TCI_V0_SINK_ERROR,
		 "buffer outside RAM: tfSinkError set");
	wr32(f, TCI_V0_ACTIVE | rst);
	check_eq(rd32(f) & TCI_V0_SINK_ERROR, TCI_V0_SINK_ERROR, "writing 0 keeps tfSinkError");
	wr32(f, TCI_V0_ACTIVE | rst | TCI_V0_SINK_ERROR);
	check_eq(rd32(f) & TCI_V0_SINK_ERROR, 0, "writing 1 clears tfSinkError (RW1C)");
	wr32(f + 0x00c, 0x1234);
	wr32(f + 0x060, 0x1234);
	wr32(f + TCI_V0_IMPL, 0);
	check(!rd32(f + 0x00c) && !rd32(f + 0x060) &&
	      rd32(f + TCI_V0_IMPL) == (TCI_V0_HAS_SBA_SINK | TCI_SET(V0_SINK_BYTES, 1)),
	      "tfImpl read-only, reserved offsets read 0");
	wr32(f, 0);
	check(v0_poll(f, TCI_V0_ACTIVE, 0) >= 0 && rd32(f + TCI_V0_SINK_BASE) == 0 &&
	      rd32(f + TCI_V0_TS_CONTROL) == ts, "tfActive=0 resets the funnel, its sink and its unit");
}

/* sifive-hart: the encoder's own sink */
static void regs_own_sink(void)
{
	uintptr_t te = V0_TE(0);
	uint32_t c;

	v0_reset(te);
	wr32(te + TCI_V0_SINK_BASE, 0x80400003);
	wr32(te + TCI_V0_SINK_LIMIT, 0x804001ff);
	wr32(te + TCI_V0_SINK_WP, 0x80400007);
	check(rd32(te + TCI_V0_SINK_BASE) == 0x80400000 && rd32(te + TCI_V0_SINK_LIMIT) == 0x804001fc &&
	      rd32(te + TCI_V0_SINK_WP) == 0x80400005,
	      "own sink: SinkBase/Limit/WP aligned to the 4-byte word, WP bit 0 RW");
	c = short_trace(0);
	check(!(c & (TCI_V0_SINK_ERROR | TCI_V0_TE_STALL_OR_OVF)) &&
	      rd32(te + TCI_V0_SINK_WP) > 0x80400000 && !(rd32(te + TCI_V0_SINK_WP) & 3),
	      "own sink: trace written, SinkWP moved on by whole words, no error");
	v0_reset(te);
	wr32(te + TCI_V0_SINK_BASE, 0x40000000);
	wr32(te + TCI_V0_SINK_LIMIT, 0x400001fc);
	wr32(te + TCI_V0_SINK_WP, 0x40000000);
	wr32(te, TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, 6));
	wr32(te, TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, 6) | TCI_V0_ENABLE | TCI_V0_TE_TRACING);
	result[0] = collatz(27);
	wr32(te, TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, 6));
	v0_poll(te, TCI_V0_EMPTY, TCI_V0_EMPTY);
	check_eq(rd32(te) & TCI_V0_SINK_ERROR, TCI_V0_SINK_ERROR, "own sink outside RAM: teSinkError");
	wr32(te, TCI_V0_ACTIVE | TCI_SET(V0_TE_INST_MODE, 6) | TCI_V0_SINK_ERROR);
	check_eq(rd32(te) & TCI_V0_SINK_ERROR, 0, "writing 1 clears teSinkError (RW1C)");
}

int main(void)
{
	emb = !!(rd32(V0_TE(0) + TCI_V0_IMPL) & TCI_V0_HAS_SBA_SINK);
	puts_(emb ? "TOPO sifive-hart\n" : "TOPO p550\n");
	if (CFG->regs) {
		regs_encoder();
		if (emb) {
			regs_own_sink();
		} else {
			regs_funnel();
			regs_overflow();
		}
		return bm_failures;
	}
	trace_run();
	return bm_failures;
}
