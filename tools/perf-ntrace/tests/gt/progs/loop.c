// SPDX-License-Identifier: GPL-2.0-only
/* Tight loops: long runs of one taken backward branch. */
int main(void)
{
	volatile unsigned int v = 0;
	unsigned int i, j, s = 0;

	for (i = 0; i < 20000; i++)
		s += i ^ (s >> 3);
	for (j = 0; j < 2000; j++)
		v += j;
	return s == 1 && v == 1 ? 1 : 0;
}
