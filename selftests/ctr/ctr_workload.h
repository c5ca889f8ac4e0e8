/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workloads of known shape for the CTR tests, written in assembly so the
 * instructions, and thus the recorded transfer types, do not depend on the
 * compiler: <p>_main(n) calls <p>_mid n times (jal ra: direct call, bnez:
 * taken branch), <p>_mid calls <p>_leaf twice, every function ends in ret
 * (a return). Two copies with distinct code ("ctr" and "ctr_other") let a
 * test tell whose branches it sees.
 */
#ifndef CTR_WORKLOAD_H
#define CTR_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

struct ctr_workload {
	const char *name;
	uint64_t (*run)(uint64_t n);
	uintptr_t start, end;		/* all of its code */
	uintptr_t leaf, leaf_end;	/* the leaf function */
	uintptr_t mid, mid_end;		/* its caller */
};

extern const struct ctr_workload ctr_work, ctr_other_work;

static inline bool ctr_in(uint64_t pc, uintptr_t start, uintptr_t end)
{
	return pc >= start && pc < end;
}

#endif
