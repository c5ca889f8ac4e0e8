// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every hart traces itself at the same time into whatever the model's
 * topology wires its encoder to (a sink per hart, or funnels into one
 * sink), as a driver would set it up:
 *  - discovery: the program finds the funnels and sinks by their trXXImpl
 *    component type, block by block, and checks each funnel's power-up,
 *    reset handshake and register values (Trace Control Interface 1.0,
 *    "Trace Funnel", "Reset and Discovery");
 *  - sinks first (SMEM buffer or SRAM, per the host's configuration),
 *    then funnels (trFunnelDisInput as configured), then every hart
 *    programs its own encoder: trTeSrcBits=4, trTeSrcID=9+hart;
 *  - all harts run a different workload at once, then stop their encoder;
 *    hart 0 disables funnels and sinks (flush order of the spec) and
 *    reports where each sink's trace is ("TRACE hart=SINK start= wp=").
 *    An SRAM sink is read out through trRamRP/trRamData into RAM first
 *    (oldest word first when it wrapped), with checks of the read path.
 * The host configures a run by words at 0x80300000 (struct fcfg) and the
 * number of harts at BM_HARTS_ADDR; tests/funnel.sh checks the trace.
 */
#include "ntrace_regs_bm.h"

struct fcfg {
	uint32_t sram;		/* 1: sinks in SRAM mode (trRamMode 0) */
	uint32_t dis_funnel;	/* funnel (discovery order) whose inputs to disable */
	uint32_t dis_mask;	/* its trFunnelDisInput */
	uint32_t trim;		/* SRAM: buffer bytes (trRamLimit + 4), 0: all */
	uint32_t stop_on_wrap;
};
#define CFG	((volatile struct fcfg *)0x80300000UL)
#define SRC_BITS	4u
#define SRC_ID(h)	(9u + (h))
#define BUF(s)	(0x80400000UL + (uintptr_t)(s) * 0x100000)
#define CTL	(TCI_ACTIVE | TCI_SET(TE_INST_MODE, TCI_TE_INST_MODE_HTM) | \
		 TCI_SET(TE_FORMAT, TCI_TE_FORMAT_NTRACE))

static uintptr_t funnels[16], sinks[16];
static unsigned int nfunnels, nsinks;
static volatile uint32_t te_ctl[BM_MAX_HARTS], te_feat[BM_MAX_HARTS];
static volatile unsigned int result[BM_MAX_HARTS];

static void workload(unsigned int h)
{
	unsigned int i, r, acc = 0;

	for (r = 0; r < 6; r++)
		for (i = 1; i < 40 + 8 * h; i++)
			acc += (h & 1) ? sum_to(i + h + r) : collatz(i + 3 * h + r);
	result[h] = acc;
}

/* Each hart, at once: its own encoder, SRC ID 9+hart, a workload. */
static void hart_trace(unsigned int h)
{
	uintptr_t te = TE_BASE(h);

	if (tci_reset(te))
		return;
	wr32(te + TCI_TE_INST_FEATURES,
	     TCI_SET(TE_F_SRC_ID, SRC_ID(h)) | TCI_SET(TE_F_SRC_BITS, SRC_BITS));
	te_feat[h] = rd32(te + TCI_TE_INST_FEATURES);
	wr32(te + TCI_CONTROL, CTL);
	wr32(te + TCI_CONTROL, CTL | TCI_ENABLE | TCI_TE_INST_TRACING);
	workload(h);
	wr32(te + TCI_CONTROL, CTL);
	poll32(te + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY);
	te_ctl[h] = rd32(te + TCI_CONTROL);
}

static void discover(void)
{
	unsigned int b;

	for (b = 0; b < 16; b++) {
		uintptr_t base = NTRACE_REG_BASE + (uintptr_t)b * TCI_BLOCK_SIZE;
		uint32_t type = TCI_GET(rd32(base + TCI_IMPL), IMPL_COMP_TYPE);

		if (type == TCI_COMP_FUNNEL)
			funnels[nfunnels++] = base;
		else if (type == TCI_COMP_RAM_SINK)
			sinks[nsinks++] = base;
	}
	puts_("TOPO funnels=");
	putdec(nfunnels);
	puts_(" sinks=");
	putdec(nsinks);
	putch('\n');
}

/* Power-up, reset handshake, discovery and WARL values of a funnel. */
static void funnel_regs(unsigned int i)
{
	uintptr_t f = funnels[i];
	uint32_t mask;

	check_eq(rd32(f + TCI_CONTROL), TCI_EMPTY,
		 "funnel power-up: trFunnelActive=0 trFunnelEnable=0 trFunnelEmpty=1");
	check_eq(rd32(f + TCI_IMPL), 0x00000801,
		 "trFunnelImpl: version 1.0, component type funnel (0x8)");
	wr32(f + TCI_CONTROL, TCI_ACTIVE);
	wr32(f + TCI_FUNNEL_DIS_INPUT, 1);
	check_eq(rd32(f + TCI_CONTROL) & TCI_ACTIVE, 0,
		 "funnel release from reset is not instantaneous");
	check(poll32(f + TCI_CONTROL, TCI_ACTIVE, TCI_ACTIVE) >= 0,
	      "trFunnelActive reads 1 after polling");
	check_eq(rd32(f + TCI_FUNNEL_DIS_INPUT), 0,
		 "trFunnelDisInput write issued in reset was ignored");
	wr32(f + TCI_CONTROL, 0);
	check(poll32(f + TCI_CONTROL, TCI_ACTIVE, 0) >= 0, "trFunnelActive=0 after writing 0");
	check(tci_reset(f) == 0, "funnel reset and discovery handshake");
	check_eq(rd32(f + TCI_CONTROL), TCI_ACTIVE | TCI_EMPTY,
		 "trFunnelControl defaults: Active Empty, not enabled");
	wr32(f + TCI_FUNNEL_DIS_INPUT, 0xffffffff);
	mask = rd32(f + TCI_FUNNEL_DIS_INPUT);
	puts_("FUNNEL ");
	putdec(i);
	puts_(" inputs=");
	puthex(mask);
	putch('\n');
	check(mask && mask < 0x10000 && !(mask & (mask + 1)),
	      "trFunnelDisInput WARL probe (0xFFFF written): one bit per input");
	wr32(f + TCI_FUNNEL_DIS_INPUT, 0);
	check_eq(rd32(f + TCI_FUNNEL_DIS_INPUT), 0, "trFunnelDisInput=0: every input enabled");
	wr32(f + TCI_IMPL, 0);
	wr32(f + 0x00c, 0x1234);
	wr32(f + TCI_TS_CONTROL, 0xffffffff);
	wr32(f + 0xe00, 0x1234);
	check(rd32(f + TCI_IMPL) == 0x801 && !rd32(f + 0x00c) && !rd32(f + TCI_TS_CONTROL) &&
	      !rd32(f + TCI_TS_COUNTER_LOW) && !rd32(f + 0xe00),
	      "trFunnelImpl read-only; reserved offsets and trTsControl (no timestamp unit) read 0");
	wr32(f + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE | 0xfff0);
	check_eq(rd32(f + TCI_CONTROL), TCI_ACTIVE | TCI_ENABLE | TCI_EMPTY,
		 "trFunnelEnable=1 reads back; reserved control bits read 0");
	wr32(f + TCI_CONTROL, TCI_ACTIVE);
	check(poll32(f + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) >= 0,
	      "funnel disabled reads trFunnelEmpty=1");
}

static void sink_setup(unsigned int s)
{
	uintptr_t rs = sinks[s];
	uint32_t mode = CFG->sram ? 0 : TCI_RAM_MODE_SMEM, lim;
	uint32_t ctl = TCI_ACTIVE | mode | (CFG->stop_on_wrap ? TCI_RAM_STOP_ON_WRAP : 0);

	check(tci_reset(rs) == 0, "sink reset and discovery handshake");
	wr32(rs + TCI_CONTROL, ctl);
	check_eq(rd32(rs + TCI_CONTROL), ctl | TCI_EMPTY, "sink mode and StopOnWrap set");
	if (CFG->sram) {
		check(rd32(rs + TCI_IMPL) & TCI_RAM_HAS_SRAM, "trRamHasSRAM=1");
		wr32(rs + TCI_RAM_START_LOW, 0xffffffff);
		wr32(rs + TCI_RAM_LIMIT_LOW, 0xffffffff);
		wr32(rs + TCI_RAM_LIMIT_HIGH, 0xffffffff);
		lim = rd32(rs + TCI_RAM_LIMIT_LOW);
		puts_("SRAM sink=");
		putdec(s);
		puts_(" size=");
		puthex(lim + 4);
		putch('\n');
		check(rd32(rs + TCI_RAM_START_LOW) == 0 && rd32(rs + TCI_RAM_LIMIT_HIGH) == 0 &&
		      lim >= 0x3fc && !(lim & 3),
		      "SRAM: trRamStart fixed 0, trRamLimit all-ones reads the SRAM's last word");
		if (CFG->trim) {
			wr32(rs + TCI_RAM_LIMIT_LOW, CFG->trim - 4);
			check_eq(rd32(rs + TCI_RAM_LIMIT_LOW), CFG->trim - 4,
				 "SRAM: trRamLimit trimmed");
		}
		wr32(rs + TCI_RAM_WP_LOW, 0);
		wr32(rs + TCI_RAM_RP_LOW, 0);
	} else {
		wr32(rs + TCI_RAM_START_LOW, BUF(s));
		wr32(rs + TCI_RAM_LIMIT_LOW, BUF(s) + 0x100000 - 4);
		wr32(rs + TCI_RAM_WP_LOW, BUF(s));
	}
	wr32(rs + TCI_CONTROL, ctl | TCI_ENABLE);
	check(poll32(rs + TCI_CONTROL, TCI_ENABLE, TCI_ENABLE) >= 0, "sink enabled");
}

static void funnel_setup(unsigned int i)
{
	uintptr_t f = funnels[i];
	uint32_t dis = CFG->dis_funnel == i ? CFG->dis_mask : 0;

	check(tci_reset(f) == 0, "funnel released from reset");
	wr32(f + TCI_FUNNEL_DIS_INPUT, dis);
	check_eq(rd32(f + TCI_FUNNEL_DIS_INPUT), dis, "trFunnelDisInput as configured");
	wr32(f + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE);
	check(poll32(f + TCI_CONTROL, TCI_ENABLE, TCI_ENABLE) >= 0, "funnel enabled");
}

/* While capturing: trRamRP writes ignored, trRamData reads do not advance. */
static void sram_while_enabled(uintptr_t rs)
{
	uint32_t ctl = rd32(rs + TCI_CONTROL), rp = rd32(rs + TCI_RAM_RP_LOW);

	if (!(ctl & TCI_ENABLE))
		return;
	wr32(rs + TCI_CONTROL, (ctl & ~TCI_EMPTY) | TCI_RAM_MODE_SMEM);
	check_eq(rd32(rs + TCI_CONTROL) & (TCI_RAM_MODE_SMEM | TCI_ENABLE), TCI_ENABLE,
		 "SRAM: trRamMode does not change while the sink is enabled");
	wr32(rs + TCI_RAM_RP_LOW, rp + 8);
	(void)rd32(rs + TCI_RAM_DATA);
	(void)rd32(rs + TCI_RAM_DATA);
	check_eq(rd32(rs + TCI_RAM_RP_LOW), rp,
		 "SRAM while capturing: trRamRP write ignored, trRamData reads do not advance it");
}

/* Read an SRAM sink out through trRamRP/trRamData; returns the bytes. */
static uint32_t sram_read_out(unsigned int s, volatile uint32_t *out)
{
	uintptr_t rs = sinks[s];
	uint32_t wp = rd32(rs + TCI_RAM_WP_LOW), lim = rd32(rs + TCI_RAM_LIMIT_LOW);
	uint32_t first = wp & TCI_RAM_WRAP ? wp & ~3u : 0;
	uint32_t n = wp & TCI_RAM_WRAP ? (lim + 4) / 4 : (wp & ~3u) / 4, i, a, ok;

	wr32(rs + TCI_RAM_RP_LOW, first);
	for (i = 0; i < n; i++)
		out[i] = rd32(rs + TCI_RAM_DATA);
	check_eq(rd32(rs + TCI_RAM_RP_LOW), (first + 4 * n) % (lim + 4),
		 "SRAM: every trRamData read advanced trRamRP by 4 (wrapping at trRamLimit)");
	/* random access: the word at RP, then RP + 4 */
	ok = 1;
	for (a = 0; a < 4 * n && a < 64; a += 12) {
		uint32_t addr = (first + a) % (lim + 4);

		wr32(rs + TCI_RAM_RP_LOW, addr);
		ok &= rd32(rs + TCI_RAM_DATA) == out[a / 4];
		ok &= rd32(rs + TCI_RAM_RP_LOW) == (addr == lim ? 0 : addr + 4);
	}
	check(ok, "SRAM: trRamData reads the word at trRamRP (set anywhere)");
	wr32(rs + TCI_RAM_RP_LOW, 0xffffffff);
	check_eq(rd32(rs + TCI_RAM_RP_LOW), lim, "SRAM: trRamRP WARL, clamped to trRamLimit");
	(void)rd32(rs + TCI_RAM_DATA);
	check_eq(rd32(rs + TCI_RAM_RP_LOW), 0, "SRAM: a read at trRamLimit wraps trRamRP to 0");
	return 4 * n;
}

static void report(unsigned int s)
{
	uintptr_t rs = sinks[s];
	uint32_t wp = rd32(rs + TCI_RAM_WP_LOW), start = rd32(rs + TCI_RAM_START_LOW);
	uint32_t end;

	if (CFG->sram) {
		start = BUF(s);
		end = start + sram_read_out(s, (volatile uint32_t *)BUF(s));
	} else {
		check(!(wp & TCI_RAM_WRAP), "SMEM: no wrap");
		end = wp & ~3u;
	}
	puts_("SINK ");
	putdec(s);
	puts_(" wp=");
	puthex(wp);
	puts_(" control=");
	puthex(rd32(rs + TCI_CONTROL));
	putch('\n');
	puts_("TRACE hart=");
	putdec(s);
	puts_(" start=");
	puthex(start);
	puts_(" wp=");
	puthex(end);
	putch('\n');
}

void hart_main(unsigned long hartid)
{
	bm_hart_join(hartid);
}

int main(void)
{
	unsigned int i, h, n = bm_harts(), ovf = 0, done;

	discover();
	for (i = 0; i < nfunnels; i++)
		funnel_regs(i);
	/* enable sinks, then funnels, then encoders ("Enabling and Disabling") */
	for (i = 0; i < nsinks; i++)
		sink_setup(i);
	for (i = 0; i < nfunnels; i++)
		funnel_setup(i);
	done = bm_all_harts(hart_trace);
	for (h = 0; h < n; h++) {
		puts_("HART ");
		putdec(h);
		puts_(" src=");
		putdec(SRC_ID(h));
		puts_(" control=");
		puthex(te_ctl[h]);
		putch('\n');
		check(done >> h & 1, "hart traced its workload");
		check_eq(te_feat[h], TCI_SET(TE_F_SRC_ID, SRC_ID(h)) | TCI_SET(TE_F_SRC_BITS, SRC_BITS),
			 "trTeSrcID=9+hart, trTeSrcBits=4 read back");
		ovf += !!(te_ctl[h] & TCI_TE_INST_STALL_OR_OVF);
	}
	/* stop-on-wrap: the host checks the flags (HART lines) against
	 * whether the sink's last message was cut */
	if (!CFG->stop_on_wrap)
		check_eq(ovf, 0, "no encoder overflowed");
	for (i = 0; i < nsinks; i++)
		if (CFG->sram)
			sram_while_enabled(sinks[i]);
	/* disable: funnels, then sinks, each until empty */
	for (i = 0; i < nfunnels; i++) {
		wr32(funnels[i] + TCI_CONTROL, TCI_ACTIVE);
		check(poll32(funnels[i] + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) >= 0,
		      "funnel disabled and empty");
	}
	for (i = 0; i < nsinks; i++) {
		uint32_t c = rd32(sinks[i] + TCI_CONTROL);

		if (CFG->stop_on_wrap)
			check_eq(c & TCI_ENABLE, 0,
				 "stop-on-wrap: the sink cleared trRamEnable itself when full");
		wr32(sinks[i] + TCI_CONTROL, c & ~(TCI_ENABLE | TCI_EMPTY));
		check(poll32(sinks[i] + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) >= 0,
		      "sink disabled and empty");
	}
	for (i = 0; i < nsinks; i++)
		report(i);
	return bm_failures;
}
