// SPDX-License-Identifier: GPL-2.0-only
/* Recursion: call/return pairs nested to moderate depth, many times. */
#define NOINLINE __attribute__((noinline))

NOINLINE static unsigned int fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

NOINLINE static unsigned long ack(unsigned long m, unsigned long n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ack(m - 1, 1);
	return ack(m - 1, ack(m, n - 1));
}

int main(void)
{
	/* fib(16) = 987, ack(2, 3) = 9 */
	return fib(16) == 987 && ack(2, 3) == 9 ? 0 : 1;
}
