// SPDX-License-Identifier: GPL-2.0-only
/* Mutual tail calls: at -O2 these are jumps, not calls. */
#define NOINLINE __attribute__((noinline))

NOINLINE static int is_odd(unsigned int n);

NOINLINE static int is_even(unsigned int n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

NOINLINE static int is_odd(unsigned int n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

NOINLINE static long sum_to(long n, long acc)
{
	if (n == 0)
		return acc;
	return sum_to(n - 1, acc + n);
}

int main(void)
{
	return is_even(300) && is_odd(301) && sum_to(200, 0) == 20100 ? 0 : 1;
}
