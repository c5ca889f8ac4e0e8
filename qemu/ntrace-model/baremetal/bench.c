// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workloads for bench.sh, selected by BENCH_KIND:
 *  0 "mixed": nested loops, calls, a jump table and a store for every few
 *    instructions, so both the per-block tracing path and the store watch
 *    that detects register writes are exercised; an indirect jump or
 *    return about every 10 instructions makes it costly to trace;
 *  1 "loops": plain loop nests (a 16x16 integer matrix product and a
 *    bitwise CRC-32), conditional branches only, one call per iteration.
 * BENCH_ITERS scales the run. BENCH_TRACE selects tracing: 0 = none,
 * 3 = BTM, 6 = HTM, into a 16 MiB wrapping SMEM buffer; BENCH_TS=1 adds
 * timestamps (trTsEnable, in whatever trTsMode the unit supports).
 */
#include "ntrace_regs_bm.h"

#ifndef BENCH_TRACE
#define BENCH_TRACE 0
#endif

#ifndef BENCH_KIND
#define BENCH_KIND 0
#endif

#ifndef BENCH_TS
#define BENCH_TS 0
#endif

#ifndef BENCH_ITERS
#define BENCH_ITERS (BENCH_KIND ? 200000 : 2000000)
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

static uint32_t ma[16][16], mb[16][16], mc[16][16];
static uint8_t crc_buf[64];

static __attribute__((noinline)) uint32_t loops(uint32_t seed)
{
	uint32_t crc = ~0u;
	int i, j, k;

	for (i = 0; i < 16; i++)
		for (j = 0; j < 16; j++) {
			uint32_t s = 0;

			for (k = 0; k < 16; k++)
				s += ma[i][k] * mb[k][j];
			mc[i][j] = s + seed;
		}
	for (i = 0; i < 64; i++) {
		crc ^= crc_buf[i] ^ mc[i & 15][(i >> 4) & 15];
		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
	}
	ma[seed & 15][(seed >> 4) & 15] = crc;
	return crc;
}

static void trace_on(void)
{
	uintptr_t te = TE_BASE(0), rs = RAM_BASE(0);
	uint32_t c = TCI_ACTIVE | TCI_SET(TE_INST_MODE, BENCH_TRACE) |
		     TCI_SET(TE_FORMAT, TCI_TE_FORMAT_NTRACE);

	if (tci_reset(rs) || tci_reset(te)) {
		puts_("bench: trace components do not come out of reset\n");
		exit(2);
	}
	wr32(rs + TCI_RAM_START_LOW, 0x80400000);
	wr32(rs + TCI_RAM_LIMIT_LOW, 0x80400000 + 0x1000000 - 4);
	wr32(rs + TCI_RAM_WP_LOW, 0x80400000);
	wr32(rs + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE);
	wr32(te + TCI_TE_INST_FEATURES, 0);
	if (BENCH_TS) {
		uint32_t mode;

		/* release the unit, then let WARL pick its timestamp mode */
		wr32(te + TCI_TS_CONTROL, TCI_TS_ACTIVE);
		poll32(te + TCI_TS_CONTROL, TCI_TS_ACTIVE, TCI_TS_ACTIVE);
		wr32(te + TCI_TS_CONTROL, TCI_TS_ACTIVE | TCI_SET(TS_MODE, 7u));
		mode = rd32(te + TCI_TS_CONTROL) & TCI_TS_MODE_MASK;
		wr32(te + TCI_TS_CONTROL, TCI_TS_ACTIVE | TCI_TS_COUNT | TCI_TS_ENABLE | mode);
	}
	wr32(te + TCI_CONTROL, c);
	wr32(te + TCI_CONTROL, c | TCI_ENABLE | TCI_TE_INST_TRACING);
}

static void trace_off(void)
{
	uintptr_t te = TE_BASE(0), rs = RAM_BASE(0);

	wr32(te + TCI_CONTROL, TCI_ACTIVE);
	poll32(te + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY);
	wr32(rs + TCI_CONTROL, TCI_ACTIVE);
	poll32(rs + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY);
	puts_("bench trace wp ");
	puthex(rd32(rs + TCI_RAM_WP_LOW));
	putch('\n');
}

int main(void)
{
	uint32_t acc = 1;
	long i;

	if (BENCH_TRACE)
		trace_on();
	for (i = 0; i < BENCH_ITERS; i++)
		acc = BENCH_KIND ? loops(acc + (uint32_t)i) : inner(acc + (uint32_t)i);
	if (BENCH_TRACE)
		trace_off();
	puts_("bench done ");
	puthex(acc);
	putch('\n');
	return 0;
}
