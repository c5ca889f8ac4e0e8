// SPDX-License-Identifier: GPL-2.0-only
/* The assembly workloads described in ctr_workload.h. */
#include "ctr_workload.h"

#define WORKLOAD(p)							\
	".text\n"							\
	".balign 4\n"							\
	".globl " p "_main\n"						\
	p "_main:\n"							\
	"	addi sp, sp, -16\n"					\
	"	sd ra, 8(sp)\n"						\
	"	sd s0, 0(sp)\n"						\
	"	mv s0, a0\n"						\
	"	li a1, 0\n"						\
	"1:	mv a0, s0\n"						\
	"	jal ra, " p "_mid\n"					\
	"	add a1, a1, a0\n"					\
	"	addi s0, s0, -1\n"					\
	"	bnez s0, 1b\n"						\
	"	mv a0, a1\n"						\
	"	ld ra, 8(sp)\n"						\
	"	ld s0, 0(sp)\n"						\
	"	addi sp, sp, 16\n"					\
	"	ret\n"							\
	".globl " p "_leaf\n"						\
	p "_leaf:\n"							\
	"	addi a0, a0, 3\n"					\
	"	andi t1, a0, 1\n"					\
	"	beqz t1, 2f\n"						\
	"	addi a0, a0, 1\n"					\
	"2:	ret\n"							\
	".globl " p "_mid\n"						\
	p "_mid:\n"							\
	"	addi sp, sp, -16\n"					\
	"	sd ra, 8(sp)\n"						\
	"	jal ra, " p "_leaf\n"					\
	"	jal ra, " p "_leaf\n"					\
	"	ld ra, 8(sp)\n"						\
	"	addi sp, sp, 16\n"					\
	"	ret\n"							\
	".globl " p "_end\n"						\
	p "_end:\n"

asm(WORKLOAD("ctr") WORKLOAD("ctr_other"));

uint64_t ctr_main(uint64_t n);
uint64_t ctr_other_main(uint64_t n);
extern char ctr_leaf[], ctr_mid[], ctr_end[];
extern char ctr_other_leaf[], ctr_other_mid[], ctr_other_end[];

const struct ctr_workload ctr_work = {
	.name = "ctr",
	.run = ctr_main,
	.start = (uintptr_t)ctr_main, .end = (uintptr_t)ctr_end,
	.leaf = (uintptr_t)ctr_leaf, .leaf_end = (uintptr_t)ctr_mid,
	.mid = (uintptr_t)ctr_mid, .mid_end = (uintptr_t)ctr_end,
};

const struct ctr_workload ctr_other_work = {
	.name = "ctr_other",
	.run = ctr_other_main,
	.start = (uintptr_t)ctr_other_main, .end = (uintptr_t)ctr_other_end,
	.leaf = (uintptr_t)ctr_other_leaf, .leaf_end = (uintptr_t)ctr_other_mid,
	.mid = (uintptr_t)ctr_other_mid, .mid_end = (uintptr_t)ctr_other_end,
};
