/* SPDX-License-Identifier: GPL-2.0-only */
/* Minimal runtime for the bare-metal model tests: console, exit, MMIO, TAP. */
#ifndef NTRACE_BM_H
#define NTRACE_BM_H

#include <stdint.h>

#define UART0		0x10000000UL	/* virt machine ns16550 */
#define TEST_DEV	0x00100000UL	/* virt machine sifive_test: exit */

static inline void wr32(uintptr_t a, uint32_t v)
{
	__asm__ volatile("fence iorw, ow\n\tsw %0, 0(%1)" : : "r"(v), "r"(a) : "memory");
}

static inline uint32_t rd32(uintptr_t a)
{
	uint32_t v;

	__asm__ volatile("lw %0, 0(%1)\n\tfence ir, iorw" : "=r"(v) : "r"(a) : "memory");
	return v;
}

static inline uint64_t csr_mhartid(void)
{
	uint64_t v;

	__asm__ volatile("csrr %0, mhartid" : "=r"(v));
	return v;
}

/* The platform timer (ACLINT mtime) as the time CSR shows it. */
static inline uint64_t rdtime(void)
{
	uint64_t v;

	__asm__ volatile("rdtime %0" : "=r"(v) : : "memory");
	return v;
}

void putch(char c);
void puts_(const char *s);
void puthex(uint64_t v);
void putdec(uint64_t v);
void exit(int code) __attribute__((noreturn));

/* TAP-style result lines the host harness forwards verbatim. */
extern int bm_failures;
void check(int ok, const char *name);
void check_eq(uint64_t got, uint64_t want, const char *name);

/*
 * Run the same tests on every hart, one hart after the other: hart 0 calls
 * bm_each_hart(fn) from main(), the program's hart_main() calls
 * bm_hart_turn(). The number of harts to use is the word the host writes
 * at BM_HARTS_ADDR (-device loader,addr=0x80300100,data=N,data-len=4;
 * none: 1). Result lines of hart N > 0 are prefixed "hart N: ".
 */
#define BM_HARTS_ADDR	0x80300100UL
#define BM_MAX_HARTS	8
unsigned int bm_harts(void);
void bm_each_hart(void (*fn)(unsigned int hart));
void bm_hart_turn(unsigned int hart);

#endif
