// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AutoFDO benchmark: a small program with a known hot/cold structure, so
 * a sampled profile can be checked against the truth.
 *
 * main() calls dispatch() once per iteration. dispatch() has the biased
 * branch: one iteration in 128 takes the cold path (cold_fixup()), of the
 * rest one in four (every i % 4 == 0) goes to warm_scale() and the others to
 * hot_mix(). For a multiple of 128 iterations the calls are exactly
 * hot_mix : warm_scale : cold_fixup = 95 : 32 : 1. Each callee has a loop
 * of its own, so the time spent follows the calls times the loop length.
 * The program counts the calls itself and prints them with the result:
 *   fdo_bench: iterations=N hot_mix=H warm_scale=W cold_fixup=C result=R
 * Usage: fdo_bench [ITERATIONS]   (default 2097152)
 */
#include <stdio.h>
#include <stdlib.h>

/* Keep the functions apart, so the profile has one entry per function. */
#if defined(__clang__)
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noinline, noclone))
#endif

static unsigned long calls_hot, calls_warm, calls_cold;

KEEP unsigned long hot_mix(unsigned long x)
{
	calls_hot++;
	for (int k = 0; k < 12; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

KEEP unsigned long warm_scale(unsigned long x)
{
	calls_warm++;
	for (int k = 0; k < 6; k++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

KEEP unsigned long cold_fixup(unsigned long x)
{
	calls_cold++;
	for (int k = 0; k < 40; k++)
		x = (x >> 3) + (x << 5) + (unsigned long)k;
	return x;
}

KEEP unsigned long dispatch(unsigned long i, unsigned long acc)
{
	if ((i & 127) == 127)		/* taken 1 time in 128 */
		return cold_fixup(acc + i);
	if ((i & 3) == 0)
		return warm_scale(acc ^ i);
	return hot_mix(acc + i);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 2097152;
	unsigned long acc = 0x9e3779b97f4a7c15UL;

	if (argc > 2 || !n) {
		fprintf(stderr, "usage: %s [ITERATIONS > 0]\n", argv[0]);
		return 2;
	}
	for (unsigned long i = 0; i < n; i++)
		acc = dispatch(i, acc);
	printf("fdo_bench: iterations=%lu hot_mix=%lu warm_scale=%lu cold_fixup=%lu result=%lx\n",
	       n, calls_hot, calls_warm, calls_cold, acc);
	return 0;
}
