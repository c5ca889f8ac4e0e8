// SPDX-License-Identifier: GPL-2.0-only
/*
 * Traps into two modes: M-mode drops to S-mode (PMP opened, breakpoints
 * delegated); S-mode makes three ECALLs (taken in M-mode, cause 9) and two
 * EBREAKs (delegated: taken in S-mode through stvec, cause 3), then exits
 * through the virt test device. Built with start.S (M-mode vector).
 */
void exit_qemu(int code) __attribute__((noreturn));
void s_trap_entry(void);

static volatile unsigned long m_ecalls, s_breaks;

/* S-mode vector: count, step over the EBREAK/C.EBREAK, return. */
__asm__(".text\n"
	".balign 4\n"
	".globl s_trap_entry\n"
	"s_trap_entry:\n"
	"	addi	sp, sp, -32\n"
	"	sd	t0, 0(sp)\n"
	"	sd	t1, 8(sp)\n"
	"	sd	t2, 16(sp)\n"
	"	csrr	t0, sepc\n"
	"	lhu	t1, 0(t0)\n"
	"	andi	t1, t1, 3\n"
	"	li	t2, 3\n"
	"	addi	t0, t0, 2\n"
	"	bne	t1, t2, 1f\n"
	"	addi	t0, t0, 2\n"
	"1:	csrw	sepc, t0\n"
	"	la	t1, s_breaks\n"
	"	ld	t2, 0(t1)\n"
	"	addi	t2, t2, 1\n"
	"	sd	t2, 0(t1)\n"
	"	ld	t0, 0(sp)\n"
	"	ld	t1, 8(sp)\n"
	"	ld	t2, 16(sp)\n"
	"	addi	sp, sp, 32\n"
	"	sret\n");

/* M-mode handler, called from start.S */
unsigned long trap_handler(unsigned long cause, unsigned long epc)
{
	if (cause == 9) {	/* ECALL from S-mode */
		m_ecalls++;
		return epc + 4;
	}
	exit_qemu(20 + (int)(cause & 0xff));
}

__attribute__((noinline, noreturn)) static void s_main(void)
{
	int i;

	for (i = 0; i < 3; i++)
		__asm__ volatile("ecall");
	__asm__ volatile("ebreak");
	__asm__ volatile("ebreak");
	exit_qemu(m_ecalls == 3 && s_breaks == 2 ? 0 : 2);
}

int main(void)
{
	/* PMP: all memory RWX for S/U (NAPOT, whole address space) */
	__asm__ volatile("csrw pmpaddr0, %0" : : "r"(~0UL));
	__asm__ volatile("csrw pmpcfg0, %0" : : "r"(0x1fUL));
	__asm__ volatile("csrw stvec, %0" : : "r"(s_trap_entry));
	__asm__ volatile("csrw medeleg, %0" : : "r"(1UL << 3));
	/* mret into S-mode at s_main */
	__asm__ volatile("csrc mstatus, %0" : : "r"(3UL << 11));
	__asm__ volatile("csrs mstatus, %0" : : "r"(1UL << 11));
	__asm__ volatile("csrw mepc, %0" : : "r"(s_main));
	__asm__ volatile("mret");
	return 1;
}
