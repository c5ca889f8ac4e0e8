// SPDX-License-Identifier: GPL-2.0-only
/* Indirect calls through a table of function pointers. */
#define NOINLINE __attribute__((noinline))

NOINLINE static long add(long a, long b) { return a + b; }
NOINLINE static long sub(long a, long b) { return a - b; }
NOINLINE static long mul(long a, long b) { return a * b; }
NOINLINE static long mix(long a, long b) { return (a ^ b) + (a >> 3); }

static long (*volatile ops[4])(long, long) = { add, sub, mul, mix };

int main(void)
{
	long acc = 1;
	int i;

	for (i = 0; i < 400; i++)
		acc = ops[(i * 7 + (acc & 1)) & 3](acc, i) & 0xffffff;
	return acc == -1 ? 1 : 0;
}
