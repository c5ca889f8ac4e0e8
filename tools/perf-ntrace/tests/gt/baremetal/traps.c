// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bare-metal trap test content: ECALL, EBREAK (and C.EBREAK when built
 * with C), two back-to-back illegal-instruction traps (a zero word is two
 * illegal halfwords, so the second trap has no instruction retired since
 * the first), and three CLINT timer interrupts (in a loop, then in WFI).
 * Built with -DNO_TIMER it has no interrupts, so its run is deterministic.
 */
#define CLINT_MTIMECMP (*(volatile unsigned long *)0x2004000UL)
#define CLINT_MTIME (*(volatile unsigned long *)0x200bff8UL)
#define MIE_MTIE (1UL << 7)
#define MSTATUS_MIE (1UL << 3)

void exit_qemu(int code) __attribute__((noreturn));

static volatile unsigned long ecalls, ebreaks, illegals, ticks, sink;

static unsigned long insn_len(unsigned long pc)
{
	return (*(volatile unsigned short *)pc & 3) == 3 ? 4 : 2;
}

unsigned long trap_handler(unsigned long cause, unsigned long epc)
{
	if (cause >> 63) {
		if ((cause & 0xff) != 7)
			exit_qemu(10);
		if (++ticks >= 3)
			__asm__ volatile("csrc mie, %0" : : "r"(MIE_MTIE));
		else
			CLINT_MTIMECMP = CLINT_MTIME + 500;
		return epc;
	}
	switch (cause) {
	case 11:	/* ECALL from M-mode */
		ecalls++;
		return epc + 4;
	case 3:		/* breakpoint */
		ebreaks++;
		return epc + insn_len(epc);
	case 2:		/* illegal instruction */
		illegals++;
		return epc + insn_len(epc);
	}
	exit_qemu(11);
}

__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
	unsigned long x = 1;

	while (n--)
		x = x * 3 + (x >> 5);
	return x;
}

#ifdef BENCH_ITERS
/* Plugin overhead benchmark: a long loop, no traps (gt/measure-plugin.sh). */
int main(void)
{
	sink += spin(BENCH_ITERS);
	return 0;
}
#else
int main(void)
{
	unsigned long i, want_ebreaks = 1;

	for (i = 0; i < 3; i++)
		__asm__ volatile("ecall");
	__asm__ volatile("ebreak");
#ifdef __riscv_compressed
	__asm__ volatile(".option push\n.option rvc\nc.ebreak\n.option pop");
	want_ebreaks = 2;
#endif
	__asm__ volatile(".4byte 0");

#ifndef NO_TIMER
	/*
	 * The first tick lands in a busy loop, the next two in WFI. Waits are
	 * bounded by mtime (10 s), not by iterations: the timer is wall-clock.
	 */
	unsigned long start = CLINT_MTIME;

	CLINT_MTIMECMP = start + 500;
	__asm__ volatile("csrs mie, %0" : : "r"(MIE_MTIE));
	__asm__ volatile("csrs mstatus, %0" : : "r"(MSTATUS_MIE));
	while (ticks < 1 && CLINT_MTIME - start < 100000000)
		sink += spin(20);
	/*
	 * WFI with interrupts masked (it still wakes on a pending one), then
	 * unmask to take it: no tick can slip in between test and WFI.
	 */
	__asm__ volatile("csrc mstatus, %0" : : "r"(MSTATUS_MIE));
	while (ticks < 3 && CLINT_MTIME - start < 100000000) {
		__asm__ volatile("wfi");
		__asm__ volatile("csrs mstatus, %0" : : "r"(MSTATUS_MIE));
		__asm__ volatile("csrc mstatus, %0" : : "r"(MSTATUS_MIE));
	}
#else
	ticks = 3;	/* deterministic variant: traps only */
	sink += spin(200);
#endif
	__asm__ volatile("csrc mstatus, %0" : : "r"(MSTATUS_MIE));

	if (ecalls != 3 || ebreaks != want_ebreaks || illegals != 2)
		return 2;
	return ticks == 3 ? 0 : 3 + (int)ticks;
}
#endif
