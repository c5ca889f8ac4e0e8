// SPDX-License-Identifier: GPL-2.0-only
/* A dense switch (jump table: indirect jumps without linkage). */
#define NOINLINE __attribute__((noinline))

NOINLINE static unsigned int step(unsigned int op, unsigned int acc)
{
	switch (op) {
	case 0: return acc + 1;
	case 1: return acc * 3;
	case 2: return acc ^ 0x55;
	case 3: return acc - 7;
	case 4: return acc << 1;
	case 5: return acc >> 1;
	case 6: return acc | 0x100;
	case 7: return acc & 0xfff;
	case 8: return acc + 13;
	case 9: return ~acc;
	case 10: return acc * 5 + 1;
	case 11: return acc / 3;
	default: return acc;
	}
}

int main(void)
{
	unsigned int i, acc = 1, x = 12345;

	for (i = 0; i < 600; i++) {
		x = x * 1103515245 + 12345;	/* LCG picks the case */
		acc = step((x >> 16) % 13, acc);
	}
	return acc == 0 ? 2 : 0;
}
