/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RISC-V code assembled by hand for the decoder's unit tests: little-endian
 * stores into a test's memory image, and the B- and J-type encodings.
 */
#ifndef NTRACE_TESTS_RV_ASM_H
#define NTRACE_TESTS_RV_ASM_H

#include <stdint.h>

static inline void rv_put16(uint8_t *mem, uint64_t a, uint16_t v)
{
	mem[a] = (uint8_t)v;
	mem[a + 1] = (uint8_t)(v >> 8);
}

static inline void rv_put32(uint8_t *mem, uint64_t a, uint32_t v)
{
	rv_put16(mem, a, (uint16_t)v);
	rv_put16(mem, a + 2, (uint16_t)(v >> 16));
}

/* B-type: beq/bne/... rs1, rs2, off (funct3 f3) */
static inline uint32_t rv_btype(unsigned int f3, unsigned int rs1, unsigned int rs2, int32_t off)
{
	uint32_t o = (uint32_t)off;

	return ((o >> 12) & 1) << 31 | ((o >> 5) & 0x3f) << 25 | rs2 << 20 | rs1 << 15 |
	       f3 << 12 | ((o >> 1) & 0xf) << 8 | ((o >> 11) & 1) << 7 | 0x63;
}

/* J-type: jal rd, off */
static inline uint32_t rv_jal(unsigned int rd, int32_t off)
{
	uint32_t o = (uint32_t)off;

	return ((o >> 20) & 1) << 31 | ((o >> 1) & 0x3ff) << 21 | ((o >> 11) & 1) << 20 |
	       ((o >> 12) & 0xff) << 12 | rd << 7 | 0x6f;
}

#endif
