// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cross-hart control: hart 0 programs, starts and stops the encoder and
 * sink of hart 1 while hart 1 runs a loop, as a driver on one CPU would for
 * another. The stop completes at hart 1's next block boundary; hart 0
 * waits for trTeEnable=0 and trTeEmpty=1 as the spec's disable sequence
 * says, then for the sink.
 */
#include "ntrace_regs_bm.h"

#define BUF	0x80600000UL
#define CTL	(TCI_ACTIVE | TCI_SET(TE_INST_MODE, TCI_TE_INST_MODE_BTM) | \
		 TCI_SET(TE_FORMAT, TCI_TE_FORMAT_NTRACE))

static volatile int ready, stop, done1;
static volatile unsigned long iters;
static volatile unsigned int sink_v;

static __attribute__((noinline)) unsigned int step(unsigned int x)
{
	return x & 1 ? 3 * x + 1 : x / 2;
}

void hart_main(unsigned long hartid)
{
	unsigned int x = 27;

	if (hartid != 1)
		return;
	ready = 1;
	while (!stop) {
		iters++;
		x = step(x);
		if (x == 1)
			x = 27;
		sink_v = x;
	}
	done1 = 1;
}

int main(void)
{
	uintptr_t te = TE_BASE(1), rs = RAM_BASE(1);
	unsigned long start;
	uint32_t wp;
	int i;

	check(tci_reset(rs) == 0 && tci_reset(te) == 0,
	      "hart 0 released hart 1's sink and encoder from reset");
	wr32(rs + TCI_RAM_START_LOW, BUF);
	wr32(rs + TCI_RAM_LIMIT_LOW, BUF + 0x800000 - 4);
	wr32(rs + TCI_RAM_WP_LOW, BUF);
	wr32(rs + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE);
	wr32(te + TCI_TE_INST_FEATURES, TCI_SET(TE_F_SRC_ID, 1u) | TCI_SET(TE_F_SRC_BITS, 1u));
	wr32(te + TCI_CONTROL, CTL);
	while (!ready)		/* hart 1 is in its loop */
		;
	wr32(te + TCI_CONTROL, CTL | TCI_ENABLE | TCI_TE_INST_TRACING);
	start = iters;
	while (iters - start < 2000)	/* let it run traced for a while */
		;
	wr32(te + TCI_CONTROL, CTL);
	/* completes when hart 1 next runs: allow for a busy host */
	for (i = 0; i < 200000000; i++)
		if ((rd32(te + TCI_CONTROL) & (TCI_ENABLE | TCI_EMPTY)) == TCI_EMPTY)
			break;
	check(i < 200000000, "remote stop: hart 1's encoder disabled and empty");
	stop = 1;
	for (i = 0; i < 10000000 && !done1; i++)
		;
	check_eq(done1, 1, "hart 1 finished its loop");
	wr32(rs + TCI_CONTROL, TCI_ACTIVE);
	check(poll32(rs + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) >= 0,
	      "hart 1's sink disabled and flushed");
	wp = rd32(rs + TCI_RAM_WP_LOW);
	/* hart 1 may run long on a busy host: the buffer may have wrapped */
	check((wp & ~3u) > BUF || (wp & TCI_RAM_WRAP), "hart 1's trace written");
	puts_("TRACE hart=1 start=");
	puthex(BUF);
	puts_(" wp=");
	puthex(wp);
	puts_(" limit=");
	puthex(BUF + 0x800000 - 4);
	putch('\n');
	return bm_failures;
}
