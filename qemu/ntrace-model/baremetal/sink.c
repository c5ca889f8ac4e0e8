// SPDX-License-Identifier: GPL-2.0-only
/*
 * RAM sink buffer behaviour with real trace: wrap-around (trRamWrap set,
 * nothing written outside [Start, Limit]) and stop-on-wrap (capture stops
 * with trRamEnable=0 and the encoder reports trTeInstStallOrOverflow,
 * which is write-1-to-clear and clears when the encoder is enabled).
 *
 * A driver writing trRamStart/Limit/WP while the sink captures: the spec
 * (Trace Control Interface 1.0, "Accessing and Detecting RAM Sink
 * Registers") says a trace tool should NOT write them while trRamEnable=1
 * or trRamEmpty=0, and defines no outcome; the fields are WARL, so what
 * reads back must depend only on the value written and the state. The
 * model ignores such writes: the pointers read back unchanged, trace goes
 * on into the programmed buffer, trRamWrap is not cleared, nothing lands
 * at the written addresses; once the sink is disabled the same writes take
 * effect. The host checks that the buffer holds exactly the trace of the
 * last session (TRACE line).
 *
 * With several harts (bm_harts()), every hart then runs the same tests on
 * its own encoder and sink, with its own buffers.
 */
#include "ntrace_regs_bm.h"

static uintptr_t TE, RS;	/* this hart's encoder and sink */
static unsigned int cur_hart;
#define BUF	(0x80400000UL + (uintptr_t)cur_hart * 0x10000)
#define SMALL	0x100UL		/* 256-byte buffer: a loop fills it quickly */
#define GUARD	0x5a5a5a5aU
#define CTL	(TCI_ACTIVE | TCI_SET(TE_INST_MODE, TCI_TE_INST_MODE_BTM) | \
		 TCI_SET(TE_FORMAT, TCI_TE_FORMAT_NTRACE))

static volatile int sink_var;

static __attribute__((noinline)) int leaf(int i)
{
	return i * 3 + sink_var;
}

static void work(int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (leaf(i) & 1)
			sink_var++;
}

static void setup(uint32_t ram_ctl)
{
	volatile uint32_t *b = (volatile uint32_t *)BUF;
	unsigned int i;

	for (i = 0; i < SMALL / 4 + 8; i++)
		b[i] = GUARD;
	/* guard words just outside the buffer: before Start and after Limit */
	b = (volatile uint32_t *)(BUF + 0x1000);
	for (i = 0; i < SMALL / 4 + 2; i++)
		b[i] = GUARD;
	wr32(RS + TCI_CONTROL, TCI_ACTIVE | ram_ctl);
	wr32(RS + TCI_RAM_START_LOW, BUF + 0x1000 + 4);
	wr32(RS + TCI_RAM_LIMIT_LOW, BUF + 0x1000 + 4 + SMALL - 4);
	wr32(RS + TCI_RAM_WP_LOW, BUF + 0x1000 + 4);
	wr32(RS + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE | ram_ctl);
	wr32(TE + TCI_TE_INST_FEATURES, 0);
	wr32(TE + TCI_CONTROL, CTL);
	wr32(TE + TCI_CONTROL, CTL | TCI_ENABLE | TCI_TE_INST_TRACING);
}

static void stop(void)
{
	wr32(TE + TCI_CONTROL, CTL);
	poll32(TE + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY);
}

static int guards_ok(void)
{
	volatile uint32_t *b = (volatile uint32_t *)(BUF + 0x1000);

	return b[0] == GUARD && b[SMALL / 4 + 1] == GUARD;
}

#define PA	(BUF + 0x2000)	/* programmed buffer */
#define PA_SIZE	0x800UL
#define PB	(BUF + 0x3000)	/* what the driver writes while capturing */
#define PB_SIZE	0x100UL

static int untouched(uintptr_t a, unsigned long size)
{
	volatile uint32_t *b = (volatile uint32_t *)a;
	unsigned int i;

	for (i = 0; i < size / 4; i++)
		if (b[i] != GUARD)
			return 0;
	return 1;
}

static void pointers_while_enabled(void)
{
	volatile uint32_t *b = (volatile uint32_t *)PB;
	uint32_t wp_mid, wp;
	unsigned int i;

	for (i = 0; i < PB_SIZE / 4; i++)
		b[i] = GUARD;
	wr32(RS + TCI_CONTROL, TCI_ACTIVE);
	wr32(RS + TCI_RAM_START_LOW, PA);
	wr32(RS + TCI_RAM_LIMIT_LOW, PA + PA_SIZE - 4);
	wr32(RS + TCI_RAM_WP_LOW, PA);
	wr32(RS + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE);
	wr32(TE + TCI_CONTROL, CTL);
	wr32(TE + TCI_CONTROL, CTL | TCI_ENABLE | TCI_TE_INST_TRACING);
	work(40);
	/* the driver moves the buffer while trace flows */
	wr32(RS + TCI_RAM_START_LOW, PB);
	wr32(RS + TCI_RAM_LIMIT_LOW, PB + PB_SIZE - 4);
	wr32(RS + TCI_RAM_WP_LOW, PB);
	wp_mid = rd32(RS + TCI_RAM_WP_LOW);
	check(rd32(RS + TCI_RAM_START_LOW) == PA &&
	      rd32(RS + TCI_RAM_LIMIT_LOW) == PA + PA_SIZE - 4,
	      "capturing: Start/Limit writes ignored (read back the programmed buffer)");
	check(wp_mid > PA && wp_mid < PA + PA_SIZE,
	      "capturing: trRamWP write ignored (WP still inside the programmed buffer)");
	work(40);
	stop();
	wr32(RS + TCI_CONTROL, TCI_ACTIVE);
	poll32(RS + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY);
	wp = rd32(RS + TCI_RAM_WP_LOW);
	check(wp > wp_mid && wp < PA + PA_SIZE && !(wp & TCI_RAM_WRAP),
	      "capturing: trace went on into the programmed buffer, no wrap");
	check(untouched(PB, PB_SIZE), "capturing: nothing written at the addresses written to Start/WP");
	check_eq(rd32(TE + TCI_CONTROL) & TCI_TE_INST_STALL_OR_OVF, 0, "capturing: no overflow");
	puts_("TRACE hart=");
	putdec(cur_hart);
	puts_(" start=");
	puthex(PA);
	puts_(" wp=");
	puthex(wp);
	putch('\n');
	/* disabled: the same writes take effect */
	wr32(RS + TCI_RAM_START_LOW, PB);
	wr32(RS + TCI_RAM_LIMIT_LOW, PB + PB_SIZE - 4);
	wr32(RS + TCI_RAM_WP_LOW, PB);
	check(rd32(RS + TCI_RAM_START_LOW) == PB &&
	      rd32(RS + TCI_RAM_LIMIT_LOW) == PB + PB_SIZE - 4 && rd32(RS + TCI_RAM_WP_LOW) == PB,
	      "sink disabled: Start/Limit/WP writes take effect again");
}

/*
 * Direct mode's window (the driver's ntrace_window.c): any word-aligned
 * Start and Limit, here 67 words (no power of two) from an odd word,
 * stop-on-wrap at that Limit; trRamWP read while capturing moves inside
 * it; nothing is written outside it.
 */
#define ODD_START	(BUF + 0x4000 + 12)
#define ODD_LEN		(67 * 4UL)

static void odd_window(void)
{
	volatile uint32_t *b = (volatile uint32_t *)(ODD_START - 4);
	uint32_t wp_mid, wp;
	unsigned int i;

	for (i = 0; i < ODD_LEN / 4 + 2; i++)
		b[i] = GUARD;
	wr32(RS + TCI_CONTROL, TCI_ACTIVE | TCI_RAM_STOP_ON_WRAP);
	wr32(RS + TCI_RAM_START_LOW, ODD_START);
	wr32(RS + TCI_RAM_LIMIT_LOW, ODD_START + ODD_LEN - 4);
	wr32(RS + TCI_RAM_WP_LOW, ODD_START);
	check(rd32(RS + TCI_RAM_START_LOW) == ODD_START &&
	      rd32(RS + TCI_RAM_LIMIT_LOW) == ODD_START + ODD_LEN - 4,
	      "odd window: Start and Limit of 67 words read back as written");
	wr32(RS + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE | TCI_RAM_STOP_ON_WRAP);
	wr32(TE + TCI_CONTROL, CTL);
	wr32(TE + TCI_CONTROL, CTL | TCI_ENABLE | TCI_TE_INST_TRACING);
	work(3);
	wp_mid = rd32(RS + TCI_RAM_WP_LOW);
	check(wp_mid > ODD_START && wp_mid < ODD_START + ODD_LEN,
	      "odd window: trRamWP read while capturing lies inside the window");
	work(2000);
	check_eq(rd32(RS + TCI_CONTROL) & TCI_ENABLE, 0,
		 "odd window: the sink stopped at its Limit");
	wp = rd32(RS + TCI_RAM_WP_LOW);
	check_eq(wp, ODD_START | TCI_RAM_WRAP,
		 "odd window: trRamWP back at Start with trRamWrap");
	check(b[0] == GUARD && b[ODD_LEN / 4 + 1] == GUARD,
	      "odd window: nothing written before Start or after Limit");
	stop();
	wr32(TE + TCI_CONTROL, CTL | TCI_TE_INST_STALL_OR_OVF);
}

static void sink_hart(unsigned int h)
{
	uint32_t wp, c;

	cur_hart = h;
	TE = TE_BASE(h);
	RS = RAM_BASE(h);

	check(tci_reset(RS) == 0 && tci_reset(TE) == 0, "components released from reset");

	setup(0);
	work(2000);
	wr32(RS + TCI_RAM_WP_LOW, BUF + 0x1004);
	check(rd32(RS + TCI_RAM_WP_LOW) & TCI_RAM_WRAP,
	      "wrap mode: writing trRamWPLow while the sink is enabled does not clear trRamWrap");
	stop();
	wr32(RS + TCI_CONTROL, TCI_ACTIVE);
	poll32(RS + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY);
	wp = rd32(RS + TCI_RAM_WP_LOW);
	check(wp & TCI_RAM_WRAP, "wrap mode: trRamWrap set after the buffer filled");
	check((wp & ~3u) >= BUF + 0x1004 && (wp & ~3u) <= BUF + 0x1000 + SMALL,
	      "wrap mode: trRamWP stays inside [Start, Limit]");
	check(guards_ok(), "wrap mode: nothing written outside the buffer");
	check_eq(rd32(TE + TCI_CONTROL) & TCI_TE_INST_STALL_OR_OVF, 0, "wrap mode: no overflow");
	wr32(RS + TCI_RAM_WP_LOW, BUF + 0x1004);
	check_eq(rd32(RS + TCI_RAM_WP_LOW), BUF + 0x1004, "writing trRamWPLow clears trRamWrap");

	setup(TCI_RAM_STOP_ON_WRAP);
	work(2000);
	c = rd32(RS + TCI_CONTROL);
	check_eq(c & TCI_ENABLE, 0, "stop-on-wrap: the sink disabled itself when full");
	wp = rd32(RS + TCI_RAM_WP_LOW);
	check_eq(wp, (BUF + 0x1004) | TCI_RAM_WRAP,
		 "stop-on-wrap: trRamWP back at Start with trRamWrap");
	check(guards_ok(), "stop-on-wrap: nothing written outside the buffer");
	stop();
	c = rd32(TE + TCI_CONTROL);
	check(c & TCI_TE_INST_STALL_OR_OVF,
	      "stop-on-wrap: encoder reports trTeInstStallOrOverflow");
	wr32(TE + TCI_CONTROL, CTL | TCI_TE_INST_STALL_OR_OVF);
	check_eq(rd32(TE + TCI_CONTROL) & TCI_TE_INST_STALL_OR_OVF, 0,
		 "trTeInstStallOrOverflow is write-1-to-clear");
	odd_window();
	pointers_while_enabled();
}

void hart_main(unsigned long hartid)
{
	bm_hart_turn((unsigned int)hartid);
}

int main(void)
{
	bm_each_hart(sink_hart);
	return bm_failures;
}
