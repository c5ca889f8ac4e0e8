// SPDX-License-Identifier: GPL-2.0-only
/* Console, exit and TAP helpers for the bare-metal model tests. */
#include "bm.h"

int bm_failures;
static char prefix[16];
static void (*volatile per_hart)(unsigned int hart);
static volatile unsigned int turn, done;

void putch(char c)
{
	volatile uint8_t *u = (volatile uint8_t *)UART0;

	while (!(u[5] & 0x20))
		;
	u[0] = (uint8_t)c;
}

void puts_(const char *s)
{
	while (*s)
		putch(*s++);
}

void puthex(uint64_t v)
{
	int i;

	puts_("0x");
	for (i = 60; i >= 0; i -= 4) {
		if ((v >> i) == 0 && i)
			continue;
		putch("0123456789abcdef"[(v >> i) & 0xf]);
	}
}

void putdec(uint64_t v)
{
	char b[21];
	int n = 0;

	do {
		b[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		putch(b[--n]);
}

void check(int ok, const char *name)
{
	if (!ok) {
		bm_failures++;
		puts_("not ");
	}
	puts_("ok - ");
	puts_(prefix);
	puts_(name);
	putch('\n');
}

void check_eq(uint64_t got, uint64_t want, const char *name)
{
	check(got == want, name);
	if (got != want) {
		puts_("#   got ");
		puthex(got);
		puts_(" want ");
		puthex(want);
		putch('\n');
	}
}

void exit(int code)
{
	volatile uint32_t *t = (volatile uint32_t *)TEST_DEV;

	/* sifive_test: 0x5555 = pass, (code << 16) | 0x3333 = fail */
	*t = code ? ((uint32_t)code << 16) | 0x3333 : 0x5555;
	for (;;)
		__asm__ volatile("wfi");
}

unsigned int bm_harts(void)
{
	uint32_t n = *(volatile uint32_t *)BM_HARTS_ADDR;

	return n >= 1 && n <= BM_MAX_HARTS ? n : 1;
}

void bm_each_hart(void (*fn)(unsigned int hart))
{
	unsigned int h, n = bm_harts();
	long i;

	per_hart = fn;
	fn(0);
	for (h = 1; h < n; h++) {
		__asm__ volatile("fence rw, rw");
		turn = h;
		for (i = 0; i < 1000000000L && done != h; i++)
			;
		__asm__ volatile("fence rw, rw");
		prefix[0] = 0;
		if (done != h) {
			puts_("# hart ");
			putdec(h);
			putch('\n');
			check(0, "hart ran its tests (timed out)");
		}
	}
}

void bm_hart_turn(unsigned int hart)
{
	if (hart >= bm_harts())
		return;
	while (turn != hart)
		;
	__asm__ volatile("fence rw, rw");
	prefix[0] = 'h';
	prefix[1] = 'a';
	prefix[2] = 'r';
	prefix[3] = 't';
	prefix[4] = ' ';
	prefix[5] = (char)('0' + hart);
	prefix[6] = ':';
	prefix[7] = ' ';
	prefix[8] = 0;
	per_hart(hart);
	__asm__ volatile("fence rw, rw");
	done = hart;
}

static void (*volatile together)(unsigned int hart);
static volatile unsigned int finished[BM_MAX_HARTS];

unsigned int bm_all_harts(void (*fn)(unsigned int hart))
{
	unsigned int h, n = bm_harts(), mask = 1;
	long t;

	__asm__ volatile("fence rw, rw");
	together = fn;
	fn(0);
	for (h = 1; h < n; h++) {
		for (t = 0; t < 200000000L && !finished[h]; t++)
			;
		mask |= finished[h] ? 1u << h : 0;
	}
	__asm__ volatile("fence rw, rw");
	return mask;
}

void bm_hart_join(unsigned long hartid)
{
	void (*fn)(unsigned int hart);

	if (hartid >= bm_harts())
		return;
	while (!(fn = together))
		;
	__asm__ volatile("fence rw, rw");
	fn((unsigned int)hartid);
	__asm__ volatile("fence rw, rw");
	finished[hartid] = 1;
}
