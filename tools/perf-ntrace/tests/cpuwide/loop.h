/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The trace load of the CPU-wide workers (ntcpuwide, ntsoak): k turns of
 * a four-instruction loop whose one branch is taken every turn, so that
 * an HTM encoder sends a message per turn. Returns acc mixed with k.
 */
#ifndef NTRACE_CPUWIDE_LOOP_H
#define NTRACE_CPUWIDE_LOOP_H

static inline unsigned long branch_loop(unsigned long k, unsigned long acc)
{
	asm volatile("1:\n"
		     "add %1, %1, %0\n"
		     "xor %1, %1, %0\n"
		     "addi %0, %0, -1\n"
		     "bnez %0, 1b\n"
		     : "+r"(k), "+r"(acc));
	return acc;
}

#endif
