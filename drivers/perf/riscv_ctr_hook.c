// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding the SBI PMU driver's "cpu" PMU and its counter overflow
 * interrupt, and swapping their methods for this module's wrappers and
 * back. Nothing here is exported by the kernel, hence the indirect ways.
 */

#define pr_fmt(fmt) "riscv_ctr: " fmt

#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/irqdomain.h>
#include <linux/srcu.h>
#include <asm/irq.h>

#include "riscv_ctr_priv.h"

struct riscv_ctr_orig riscv_ctr_orig;

/*
 * Find the PMU that serves PERF_TYPE_HARDWARE, and the perf core's default
 * output handlers, through a kernel counter: none of them is exported.
 */
int riscv_ctr_find_cpu_pmu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
	};
	struct perf_event *ev;
	struct pmu *pmu;
	int cpu = raw_smp_processor_id();

	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	riscv_ctr_orig.pmu = ev->pmu;
	riscv_ctr_orig.output_forward = ev->overflow_handler;
	perf_event_release_kernel(ev);

	attr.write_backward = 1;
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	riscv_ctr_orig.output_backward = ev->overflow_handler;
	if (ev->pmu != riscv_ctr_orig.pmu)
		riscv_ctr_orig.pmu = NULL;
	perf_event_release_kernel(ev);

	pmu = riscv_ctr_orig.pmu;
	if (!pmu || !pmu->name || strcmp(pmu->name, "cpu") ||
	    !pmu->event_init || !pmu->add || !pmu->del) {
		pr_info("hardware events are not served by the SBI PMU \"cpu\" PMU\n");
		return -ENODEV;
	}
	return 0;
}

/*
 * The SBI PMU driver's per-CPU counter overflow interrupt: the local
 * interrupt RV_IRQ_PMU of the hart's interrupt controller domain.
 */
int riscv_ctr_find_pmu_irq(void)
{
	struct irq_domain *domain;
	struct irq_data *d;
	struct irqaction *act;
	unsigned int irq;

	domain = irq_find_matching_fwnode(riscv_get_intc_hwnode(),
					  DOMAIN_BUS_ANY);
	irq = domain ? irq_find_mapping(domain, RV_IRQ_PMU) : 0;
	d = irq ? irq_get_irq_data(irq) : NULL;
	act = d ? irq_data_to_desc(d)->action : NULL;
	if (!act || act->next || !act->handler || !act->name ||
	    strcmp(act->name, "riscv-pmu")) {
		pr_info("no \"riscv-pmu\" counter overflow interrupt\n");
		return -ENODEV;
	}
	riscv_ctr_orig.irq_action = act;
	riscv_ctr_orig.irq_handler = act->handler;
	return 0;
}

/* Install the wrappers: the PMU's event_init, add, del and the interrupt. */
void riscv_ctr_hook(int (*event_init)(struct perf_event *event),
		    int (*add)(struct perf_event *event, int flags),
		    void (*del)(struct perf_event *event, int flags),
		    irq_handler_t irq)
{
	struct pmu *pmu = riscv_ctr_orig.pmu;

	riscv_ctr_orig.event_init = pmu->event_init;
	riscv_ctr_orig.add = pmu->add;
	riscv_ctr_orig.del = pmu->del;
	/* these first: no branch-stack event exists until event_init is ours */
	WRITE_ONCE(riscv_ctr_orig.irq_action->handler, irq);
	WRITE_ONCE(pmu->add, add);
	WRITE_ONCE(pmu->del, del);
	WRITE_ONCE(pmu->event_init, event_init);
}

/* Put the originals back and wait for callers still in the wrappers. */
void riscv_ctr_unhook(struct srcu_struct *init_srcu)
{
	struct pmu *pmu = riscv_ctr_orig.pmu;

	WRITE_ONCE(pmu->event_init, riscv_ctr_orig.event_init);
	WRITE_ONCE(pmu->add, riscv_ctr_orig.add);
	WRITE_ONCE(pmu->del, riscv_ctr_orig.del);
	WRITE_ONCE(riscv_ctr_orig.irq_action->handler, riscv_ctr_orig.irq_handler);
	/* add/del and the handler run with interrupts off, event_init in SRCU */
	synchronize_rcu();
	synchronize_srcu(init_srcu);
}
