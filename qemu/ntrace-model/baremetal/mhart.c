// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two harts, each with its own encoder and RAM sink: every hart programs
 * and traces itself with a distinct trace source ID (trTeSrcBits=1,
 * trTeSrcID=hartid), runs a different workload, and stops. Hart 0 waits
 * for hart 1 and prints where both traces are.
 */
#include "ntrace_regs_bm.h"

#define BUF(h)	(0x80400000UL + (uintptr_t)(h) * 0x100000)
#define CTL	(TCI_ACTIVE | TCI_SET(TE_INST_MODE, TCI_TE_INST_MODE_HTM) | \
		 TCI_SET(TE_FORMAT, TCI_TE_FORMAT_NTRACE))

static volatile int done1;
static volatile uint32_t wp_of[2];
static volatile unsigned int result[2];

static int trace_self(unsigned int h)
{
	uintptr_t te = TE_BASE(h), rs = RAM_BASE(h);
	unsigned int i, acc = 0;

	if (tci_reset(rs) || tci_reset(te))
		return -1;
	wr32(rs + TCI_RAM_START_LOW, BUF(h));
	wr32(rs + TCI_RAM_LIMIT_LOW, BUF(h) + 0x100000 - 4);
	wr32(rs + TCI_RAM_WP_LOW, BUF(h));
	wr32(rs + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE);
	wr32(te + TCI_TE_INST_FEATURES, TCI_SET(TE_F_SRC_ID, h) | TCI_SET(TE_F_SRC_BITS, 1u));
	wr32(te + TCI_CONTROL, CTL);
	wr32(te + TCI_CONTROL, CTL | TCI_ENABLE | TCI_TE_INST_TRACING);
	for (i = 1; i < 60; i++)
		acc += h ? sum_to(i) : collatz(i);
	wr32(te + TCI_CONTROL, CTL);
	if (poll32(te + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) < 0)
		return -1;
	wr32(rs + TCI_CONTROL, TCI_ACTIVE);
	if (poll32(rs + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) < 0)
		return -1;
	wp_of[h] = rd32(rs + TCI_RAM_WP_LOW);
	result[h] = acc;
	return 0;
}

void hart_main(unsigned long hartid)
{
	if (hartid == 1) {
		done1 = trace_self(1) == 0 ? 1 : -1;
		__asm__ volatile("fence rw, rw");
	}
}

int main(void)
{
	int i;

	check(trace_self(0) == 0, "hart 0 traced itself");
	for (i = 0; i < 100000000 && !done1; i++)
		;
	check_eq(done1, 1, "hart 1 traced itself");
	for (i = 0; i < 2; i++) {
		check(wp_of[i] > BUF(i) && !(wp_of[i] & TCI_RAM_WRAP), "trace written, no wrap");
		puts_("TRACE hart=");
		putdec(i);
		puts_(" start=");
		puthex(BUF(i));
		puts_(" wp=");
		puthex(wp_of[i]);
		putch('\n');
	}
	return bm_failures;
}
