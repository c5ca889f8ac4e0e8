/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared between the parts of riscv_ctr.ko: the CTR hardware layer
 * (riscv_ctr_hw.c), the hooks into the SBI PMU driver (riscv_ctr_hook.c)
 * and the perf event side (riscv_ctr_main.c).
 */
#ifndef _RISCV_CTR_PRIV_H
#define _RISCV_CTR_PRIV_H

#include <linux/interrupt.h>
#include <linux/perf_event.h>
#include <linux/srcu.h>
#include <linux/stringify.h>

#include "riscv_ctr.h"

/* What the probe learned; the same on every hart (checked when online). */
struct riscv_ctr_caps {
	u64 implemented;	/* sctrctl bits that read back as written */
	unsigned int out_misp;	/* RISCV_CTR_OUT_MISP if implemented */
	unsigned int depth_enc;	/* sctrdepth.DEPTH in use */
	unsigned int depth;	/* entries */
};

extern struct riscv_ctr_caps riscv_ctr_caps;

/*
 * A task's call stack (RAS emulation) while the task is off the hart:
 * logical entries 0..nr-1, newest first. Lives in event->pmu_private.
 */
struct riscv_ctr_saved {
	unsigned int nr;
	struct riscv_ctr_record rec[];
};

static inline void riscv_ctr_sctrclr(void)
{
	asm volatile(".4byte " __stringify(RISCV_CTR_SCTRCLR_INSN) ::: "memory");
}

int riscv_ctr_probe(unsigned int want_depth);
unsigned int riscv_ctr_read(struct perf_branch_entry *entries,
			    unsigned int out);
void riscv_ctr_save(struct riscv_ctr_saved *sv);
void riscv_ctr_enable(u64 ctl, const struct riscv_ctr_saved *sv);
int riscv_ctr_cpu_online(unsigned int cpu);
int riscv_ctr_cpu_offline(unsigned int cpu);

/* The wrapped "cpu" PMU, its interrupt and the perf core's outputs. */
struct riscv_ctr_orig {
	struct pmu *pmu;
	int (*event_init)(struct perf_event *event);
	int (*add)(struct perf_event *event, int flags);
	void (*del)(struct perf_event *event, int flags);
	struct irqaction *irq_action;
	irq_handler_t irq_handler;
	perf_overflow_handler_t output_forward;
	perf_overflow_handler_t output_backward;
};

extern struct riscv_ctr_orig riscv_ctr_orig;

int riscv_ctr_find_cpu_pmu(void);
int riscv_ctr_find_pmu_irq(void);
void riscv_ctr_hook(int (*event_init)(struct perf_event *event),
		    int (*add)(struct perf_event *event, int flags),
		    void (*del)(struct perf_event *event, int flags),
		    irq_handler_t irq);
void riscv_ctr_unhook(struct srcu_struct *init_srcu);

#endif /* _RISCV_CTR_PRIV_H */
