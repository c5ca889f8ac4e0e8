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

static inline unsigned long csr_mhartid(void)
{
	unsigned long v;

	__asm__ volatile("csrr %0, mhartid" : "=r"(v));
	return v;
}

/* mcause: the interrupt bit is the top bit of an XLEN-wide register */
#define MCAUSE_INTERRUPT	(1UL << (__riscv_xlen - 1))
/* satp.ASID: bits 59:44 (RV64), 30:22 (RV32) */
#define SATP_ASID_SHIFT		(__riscv_xlen == 64 ? 44 : 22)

/* The platform timer (ACLINT mtime) as the time CSR shows it. */
static inline uint64_t rdtime(void)
{
#if __riscv_xlen == 64
	uint64_t v;

	__asm__ volatile("rdtime %0" : "=r"(v) : : "memory");
	return v;
#else
	uint32_t hi, lo, hi2;

	/* the two halves of one value: reread when the high half moved */
	do {
		__asm__ volatile("rdtimeh %0\n\trdtime %1\n\trdtimeh %2"
				 : "=r"(hi), "=r"(lo), "=r"(hi2) : : "memory");
	} while (hi != hi2);
	return (uint64_t)hi << 32 | lo;
#endif
}

/*
 * ACLINT MTIMER of the virt machine: mtime and per-hart mtimecmp, 64-bit
 * registers that RV32 accesses as two 32-bit halves.
 */
#define CLINT_MTIMECMP(h)	(0x02004000UL + 8 * (uintptr_t)(h))
#define CLINT_MTIME		0x0200bff8UL

static inline uint64_t mtime_read(void)
{
#if __riscv_xlen == 64
	return *(volatile uint64_t *)CLINT_MTIME;
#else
	volatile uint32_t *t = (volatile uint32_t *)CLINT_MTIME;
	uint32_t hi, lo;

	do {
		hi = t[1];
		lo = t[0];
	} while (t[1] != hi);
	return (uint64_t)hi << 32 | lo;
#endif
}

static inline void mtimecmp_write(unsigned long hart, uint64_t v)
{
#if __riscv_xlen == 64
	*(volatile uint64_t *)CLINT_MTIMECMP(hart) = v;
#else
	volatile uint32_t *c = (volatile uint32_t *)CLINT_MTIMECMP(hart);

	/* the privileged spec's sequence: no value in between is below both */
	c[0] = ~0u;
	c[1] = (uint32_t)(v >> 32);
	c[0] = (uint32_t)v;
#endif
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

/*
 * Run fn on every hart at the same time: hart 0 calls bm_all_harts(fn)
 * from main(), the program's hart_main() calls bm_hart_join(). Returns
 * the mask of harts that finished fn (each waited for a while).
 */
unsigned int bm_all_harts(void (*fn)(unsigned int hart));
void bm_hart_join(unsigned long hartid);

/* Workloads with data-dependent branches (work.c), never inlined. */
unsigned int collatz(unsigned int n);
unsigned int sum_to(unsigned int n);

/* Harts other than 0 call this (start.S; a weak one returns at once). */
void hart_main(unsigned long hartid);

#endif
