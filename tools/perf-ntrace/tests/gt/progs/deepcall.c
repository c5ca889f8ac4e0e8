// SPDX-License-Identifier: GPL-2.0-only
/*
 * A call chain 100 deep (beyond a 32-entry return stack), unwound and
 * entered again, and a chain of distinct functions so every return goes
 * to a different site.
 */
#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE static int down(int depth)
{
	int r;

	if (!depth)
		return sink;
	r = down(depth - 1);
	sink += r;	/* keeps the call from becoming a tail call */
	return r + 1;
}

#define LEVEL(n, next) NOINLINE static int f##n(int x) { int r = next(x + 1); sink += r; return r + 1; }
NOINLINE static int f40(int x) { return x; }
LEVEL(39, f40) LEVEL(38, f39) LEVEL(37, f38) LEVEL(36, f37) LEVEL(35, f36)
LEVEL(34, f35) LEVEL(33, f34) LEVEL(32, f33) LEVEL(31, f32) LEVEL(30, f31)
LEVEL(29, f30) LEVEL(28, f29) LEVEL(27, f28) LEVEL(26, f27) LEVEL(25, f26)
LEVEL(24, f25) LEVEL(23, f24) LEVEL(22, f23) LEVEL(21, f22) LEVEL(20, f21)
LEVEL(19, f20) LEVEL(18, f19) LEVEL(17, f18) LEVEL(16, f17) LEVEL(15, f16)
LEVEL(14, f15) LEVEL(13, f14) LEVEL(12, f13) LEVEL(11, f12) LEVEL(10, f11)
LEVEL(9, f10) LEVEL(8, f9) LEVEL(7, f8) LEVEL(6, f7) LEVEL(5, f6)
LEVEL(4, f5) LEVEL(3, f4) LEVEL(2, f3) LEVEL(1, f2) LEVEL(0, f1)

int main(void)
{
	int i, ok = 1;

	for (i = 0; i < 3; i++) {
		sink = 0;
		ok &= down(100) == 100;
		ok &= f0(0) == 80;
	}
	return ok ? 0 : 1;
}
