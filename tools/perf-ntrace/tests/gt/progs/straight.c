// SPDX-License-Identifier: GPL-2.0-only
/* Long straight-line code: thousands of instructions without a branch. */
static volatile unsigned long v[8];

#define S1(i) v[(i) & 7] += v[((i) + 3) & 7] ^ (i);
#define S8(i) S1(i) S1(i + 1) S1(i + 2) S1(i + 3) S1(i + 4) S1(i + 5) S1(i + 6) S1(i + 7)
#define S64(i) S8(i) S8(i + 8) S8(i + 16) S8(i + 24) S8(i + 32) S8(i + 40) S8(i + 48) S8(i + 56)
#define S512(i) S64(i) S64(i + 64) S64(i + 128) S64(i + 192) S64(i + 256) S64(i + 320) S64(i + 384) S64(i + 448)

__attribute__((noinline)) static void block(void)
{
	S512(0) S512(512)
}

int main(void)
{
	block();
	block();
	return v[0] == 12345 ? 1 : 0;
}
