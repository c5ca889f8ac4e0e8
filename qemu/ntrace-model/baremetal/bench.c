// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loop-heavy workload for bench.sh: nested loops, calls, a jump table and
 * a store for every few instructions, so both the per-block tracing path
 * and the store watch that detects register writes are exercised.
 * BENCH_ITERS scales the run; ntrace tracing is set up by the host only
 * through the plugin (trace=... argument), never by this program.
 */
#include "bm.h"

#ifndef BENCH_ITERS
#define BENCH_ITERS 2000000
#endif

static volatile uint32_t sink[64];

static __attribute__((noinline)) uint32_t mix(uint32_t x, int k)
{
	switch (k & 7) {
	case 0: return x * 3 + 1;
	case 1: return x ^ (x >> 3);
	case 2: return x + 0x9e37;
	case 3: return x << 1 | x >> 31;
	case 4: return x - k;
	case 5: return ~x;
	case 6: return x * 5;
	default: return x >> 1;
	}
}

static __attribute__((noinline)) uint32_t inner(uint32_t seed)
{
	uint32_t acc = seed;
	int j;

	for (j = 0; j < 16; j++) {
		acc = mix(acc, j + (int)seed);
		if (acc & 1)
			sink[j] = acc;
		else
			acc += sink[(j + 3) & 63];
	}
	return acc;
}

int main(void)
{
	uint32_t acc = 1;
	long i;

	for (i = 0; i < BENCH_ITERS; i++)
		acc = inner(acc + (uint32_t)i);
	puts_("bench done ");
	puthex(acc);
	putch('\n');
	return 0;
}
