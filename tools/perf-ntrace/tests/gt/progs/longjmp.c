// SPDX-License-Identifier: GPL-2.0-only
/* setjmp/longjmp: returns that do not go to their call site. */
#include <setjmp.h>

#define NOINLINE __attribute__((noinline))

static jmp_buf env;
static volatile int depth_reached;

NOINLINE static void dive(int n)
{
	depth_reached = n;
	if (n == 0)
		longjmp(env, 42);
	dive(n - 1);
	depth_reached++;	/* never runs */
}

int main(void)
{
	volatile int rounds = 0;
	int v;

	v = setjmp(env);
	if (v == 0 || rounds < 20) {
		rounds++;
		dive(rounds % 9 + 1);
	}
	return v == 42 && rounds == 20 ? 0 : 1;
}
