// SPDX-License-Identifier: GPL-2.0-only
/* Small workloads for the multi-hart programs: branches that depend on data. */
#include "bm.h"

__attribute__((noinline)) unsigned int collatz(unsigned int n)
{
	unsigned int steps = 0;

	while (n != 1) {
		n = n & 1 ? 3 * n + 1 : n / 2;
		steps++;
	}
	return steps;
}

__attribute__((noinline)) unsigned int sum_to(unsigned int n)
{
	return n ? n + sum_to(n - 1) : 0;
}
