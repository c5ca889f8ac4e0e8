// SPDX-License-Identifier: GPL-2.0-only
/*
 * Trace a small workload through the model, following the spec's
 * "Enabling and Disabling" sequence: sink first, encoder last; stop the
 * encoder, wait for trTeEmpty, then the sink. The workload has direct and
 * indirect calls, returns, a jump table, loops, an ECALL and a machine
 * timer interrupt. The trace stays in RAM; the last line tells the host
 * harness where (it extracts the bytes from the shared RAM file).
 *
 * Build-time knobs: TRACE_MODE (3 = BTM, 6 = HTM), TRACE_FEATURES
 * (trTeInstFeatures), TRACE_TS (1 = timestamps in messages), TRACE_FILTER
 * (1 = trace only fib(), an address range set with filter 0 and
 * comparator 0: iaddr >= start && iaddr < end).
 */
#include "ntrace_regs_bm.h"

#ifndef TRACE_MODE
#define TRACE_MODE 3
#endif
#ifndef TRACE_FEATURES
#define TRACE_FEATURES 0
#endif
#ifndef TRACE_TS
#define TRACE_TS 0
#endif
#ifndef TRACE_FILTER
#define TRACE_FILTER 0
#endif
#ifndef TRACE_CONTEXT
#define TRACE_CONTEXT 0		/* 1: Ownership messages (trTeContext) */
#endif
#ifndef TRACE_SYNC_MAX
#define TRACE_SYNC_MAX 10	/* every 2^14 units */
#endif
#ifndef TRACE_SYNC_MODE
#define TRACE_SYNC_MODE 3	/* periodic sync by half-words */
#endif

/* fib() lives alone in section "ntfilt"; the linker defines its bounds */
extern char __start_ntfilt[], __stop_ntfilt[];

#define TE	TE_BASE(0)
#define RS	RAM_BASE(0)
#define BUF	0x80400000UL
#define BUF_SIZE 0x40000UL
#define CLINT_MTIMECMP	0x02004000UL
#define CLINT_MTIME	0x0200bff8UL

static volatile int ticks, ecalls, uecalls;

void run_user(int (*fn)(void));
void user_resume(void);

static __attribute__((interrupt("machine"), aligned(4))) void trap_handler(void)
{
	uint64_t cause, epc;

	__asm__ volatile("csrr %0, mcause" : "=r"(cause));
	if (cause == (1ULL << 63 | 7)) {
		*(volatile uint64_t *)CLINT_MTIMECMP = ~0ULL;
		ticks++;
		return;
	}
	if (cause == 8) {
		/* ECALL from U-mode: back to run_user()'s caller, in M-mode */
		__asm__ volatile("csrw mepc, %0" : : "r"(user_resume));
		__asm__ volatile("csrs mstatus, %0" : : "r"(3UL << 11));
		uecalls++;
		return;
	}
	if (cause == 11) {
		__asm__ volatile("csrr %0, mepc" : "=r"(epc));
		__asm__ volatile("csrw mepc, %0" : : "r"(epc + 4));
		ecalls++;
		return;
	}
	puts_("# unexpected trap ");
	puthex(cause);
	putch('\n');
	exit(3);
}

typedef int (*op_fn)(int, int);
static __attribute__((noinline)) int op_add(int a, int b) { return a + b; }
static __attribute__((noinline)) int op_sub(int a, int b) { return a - b; }
static __attribute__((noinline)) int op_xor(int a, int b) { return a ^ b; }
static __attribute__((noinline)) int op_mul(int a, int b) { return a * b + 1; }
static op_fn const ops[4] = { op_add, op_sub, op_xor, op_mul };

static __attribute__((noinline, section("ntfilt"))) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static __attribute__((noinline)) int classify(int v)
{
	switch (v % 6) {
	case 0: return v * 7;
	case 1: return v + 13;
	case 2: return v ^ 0x55;
	case 3: return v - 9;
	case 4: return v << 2;
	default: return v >> 1;
	}
}

static volatile int user_acc;

static __attribute__((noinline)) int user_work(void)
{
	int i;

	for (i = 0; i < 20; i++)
		user_acc += classify(i);
	return 0;
}

static __attribute__((noinline)) int workload(void)
{
	volatile int acc = 1;
	int i;

	for (i = 0; i < 200; i++) {
		acc = ops[i & 3](acc, i);
		acc += classify(i);
		if (i % 50 == 0)
			__asm__ volatile("ecall");
	}
	acc += fib(12);
	run_user(user_work);	/* U-mode part: privilege changes, ECALL from U */
	/* timer interrupt: due shortly, wait for it in a loop */
	*(volatile uint64_t *)CLINT_MTIMECMP = *(volatile uint64_t *)CLINT_MTIME + 100;
	__asm__ volatile("csrs mie, %0" : : "r"(1UL << 7));
	__asm__ volatile("csrs mstatus, %0" : : "r"(1UL << 3));
	while (!ticks)
		acc++;
	__asm__ volatile("csrc mstatus, %0" : : "r"(1UL << 3));
	return acc;
}

int main(void)
{
	uint32_t c, wp;
	int r;

	__asm__ volatile("csrw mtvec, %0" : : "r"(trap_handler));
	check(tci_reset(RS) == 0 && tci_reset(TE) == 0, "sink and encoder released from reset");
	/* sink: SMEM buffer, WP at the start, then enable and confirm */
	wr32(RS + TCI_CONTROL, TCI_ACTIVE);
	wr32(RS + RAM_START_HIGH, 0);
	wr32(RS + RAM_START_LOW, BUF);
	wr32(RS + RAM_LIMIT_HIGH, 0);
	wr32(RS + RAM_LIMIT_LOW, BUF + BUF_SIZE - 4);
	wr32(RS + RAM_WP_HIGH, 0);
	wr32(RS + RAM_WP_LOW, BUF);
	wr32(RS + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE);
	check(poll32(RS + TCI_CONTROL, TCI_ENABLE, TCI_ENABLE) >= 0, "sink enabled");
	/* encoder: spec reset table, then the mode, verified */
	wr32(TE + TE_INST_FEATURES, TRACE_FEATURES);
	wr32(TE + TE_INST_FILTERS, 0);
	if (TRACE_FILTER) {
		uintptr_t k = TE + TE_COMP_BASE, f = TE + TE_FILTER_BASE;

		wr32(k + CMP_PMATCH_LOW, (uint32_t)(uintptr_t)__start_ntfilt);
		wr32(k + CMP_PMATCH_HIGH, 0);
		wr32(k + CMP_SMATCH_LOW, (uint32_t)(uintptr_t)__stop_ntfilt);
		wr32(k + CMP_SMATCH_HIGH, 0);
		/* P: iaddr >= start (5), S: iaddr < end (2), match: P && S (1) */
		wr32(k + CMP_CONTROL, 5u << CMP_P_FUNC_SHIFT | 2u << CMP_S_FUNC_SHIFT |
		     1u << CMP_MATCH_MODE_SHIFT);
		wr32(f + FLT_CONTROL, FLT_ENABLE | FLT_MATCH_COMP1 | 0u << FLT_COMP1_SHIFT);
		wr32(TE + TE_INST_FILTERS, 1);
		check_eq(rd32(TE + TE_INST_FILTERS), 1, "address-range filter 0 enabled");
	}
	wr32(TE + TE_DATA_CONTROL, 0);
	wr32(TE + TE_TRIG_DBG_CONTROL, 0);
	wr32(TE + TE_TRIG_EXTIN_CONTROL, 0);
	wr32(TE + TE_TRIG_EXTOUT_CONTROL, 0);
	if (TRACE_TS) {
		/* the releasing write sets defaults; configure with a second one */
		wr32(TE + TS_CONTROL, TS_ACTIVE);
		wr32(TE + TS_CONTROL, TS_ACTIVE | TS_COUNT | TS_RESET | TS_ENABLE |
		     TS_MODE_INTERNAL_CORE << TS_MODE_SHIFT);
		check_eq(rd32(TE + TS_CONTROL) & (TS_COUNT | TS_ENABLE), TS_COUNT | TS_ENABLE,
			 "timestamp unit counting, timestamps in messages");
	} else
		wr32(TE + TS_CONTROL, 0);
	c = TCI_ACTIVE | (TRACE_CONTEXT ? TE_CONTEXT : 0) |
	    (uint32_t)TRACE_MODE << TE_INST_MODE_SHIFT |
	    1u << TE_FORMAT_SHIFT | (uint32_t)TRACE_SYNC_MODE << TE_SYNC_MODE_SHIFT |
	    (uint32_t)TRACE_SYNC_MAX << TE_SYNC_MAX_SHIFT;
	wr32(TE + TCI_CONTROL, c);
	check_eq(rd32(TE + TCI_CONTROL) & ~TCI_EMPTY, c, "encoder mode set and verified");
	check_eq(rd32(TE + TE_INST_FEATURES), TRACE_FEATURES, "features set and verified");
	wr32(TE + TCI_CONTROL, c | TCI_ENABLE);
	check(poll32(TE + TCI_CONTROL, TCI_ENABLE, TCI_ENABLE) >= 0, "encoder enabled");
	wr32(TE + TCI_CONTROL, c | TCI_ENABLE | TE_INST_TRACING);

	r = workload();

	/* disable: encoder first, wait for Enable=0 and Empty=1, then the sink */
	wr32(TE + TCI_CONTROL, c);
	check(poll32(TE + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) >= 0,
	      "encoder disabled and empty");
	wr32(RS + TCI_CONTROL, TCI_ACTIVE);
	check(poll32(RS + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) >= 0,
	      "sink disabled and flushed");
	check_eq(ticks, 1, "timer interrupt taken once");
	check_eq(ecalls, 4, "four ECALL traps taken");
	check_eq(uecalls, 1, "U-mode ran and came back with an ECALL");
	check_eq(rd32(TE + TCI_CONTROL) & TE_INST_STALL_OR_OVF, 0, "no overflow");
	wp = rd32(RS + RAM_WP_LOW);
	check((wp & RAM_WRAP) == 0 && wp > BUF && (wp & 3) == 0,
	      "trRamWP advanced by whole words, no wrap");
	check_eq(*(volatile uint8_t *)BUF >> 2, 9,
		 "first message is ProgTraceSync (TCODE 9, trace enable)");
	if (TRACE_FILTER) {
		puts_("FILTER start=");
		puthex((uintptr_t)__start_ntfilt);
		puts_(" end=");
		puthex((uintptr_t)__stop_ntfilt);
		putch('\n');
	}
	puts_("# result ");
	putdec((uint32_t)r);
	putch('\n');
	puts_("TRACE hart=0 start=");
	puthex(BUF);
	puts_(" wp=");
	puthex(wp);
	putch('\n');
	return bm_failures;
}
