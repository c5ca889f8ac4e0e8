// SPDX-License-Identifier: GPL-2.0-only
/*
 * Branch stacks for perf from RISC-V Control Transfer Records (Ssctr).
 *
 * The built-in SBI PMU driver owns the "cpu" PMU that serves -e cycles, the
 * counter-overflow interrupt and the counters, and refuses events that ask
 * for a branch stack. Rather than compete for any of that, this module
 * extends that PMU in place: it wraps its event_init, add and del methods
 * and its counter overflow interrupt handler.
 *
 *  - event_init: a branch-stack event has its filter translated to sctrctl
 *    (or is refused with -EOPNOTSUPP), is then initialised by the SBI PMU
 *    driver as a plain sampling event, and gets this module's overflow
 *    handler, which attaches the CTR entries to each sample and then calls
 *    the perf core's own output routine.
 *  - add/del: CTR recording follows the event onto and off the CPU; the
 *    buffer is cleared when an event is scheduled in, so one task never sees
 *    another task's branches (and a sample taken for a task other than the
 *    one CTR recorded for, after a context swap that skipped add, gets none).
 *  - the overflow interrupt: CTR freezes on every counter overflow
 *    interrupt (LCOFIFRZ); the wrapper resumes recording after each.
 *
 * Every branch-stack event holds a module reference, so the module can only
 * be unloaded when none exist; unloading restores the original methods.
 * See Documentation/admin-guide/perf/riscv-ctr.rst for why this design.
 * This file is the perf event side; riscv_ctr_hw.c drives CTR and
 * riscv_ctr_hook.c finds and swaps the SBI PMU driver's methods.
 */

#define pr_fmt(fmt) "riscv_ctr: " fmt

#include <linux/cpuhotplug.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <asm/csr.h>

#include "riscv_ctr_priv.h"

struct riscv_ctr_cpu {
	unsigned int users;	/* branch-stack events added on this CPU */
	u64 ctl;		/* their sctrctl value */
	/* task whose branches CTR holds (task events only); compared only */
	struct task_struct *owner;
	/* sample buffer: the header must directly precede its entries */
	struct perf_branch_stack brs;
	struct perf_branch_entry entries[RISCV_CTR_MAX_DEPTH];
};

/*
 * Allocated, not DEFINE_PER_CPU: at 6 KiB a CPU it does not fit in the small
 * per-CPU area reserved for modules once other modules (or lockdep's
 * larger locks) use part of it.
 */
static struct riscv_ctr_cpu __percpu *riscv_ctr_cpu;

/*
 * perf report --branch-history rejects stacks of more than 127 entries
 * ("corrupted branch chain"), so the default stays at 64.
 */
static unsigned int depth = 64;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "entries per branch stack: 16, 32, 64, 128 or 256 (0: deepest supported; default 64)");
static enum cpuhp_state ctr_hp_state;
DEFINE_STATIC_SRCU(ctr_srcu);

/* The configuration an event carries: its sctrctl value. */
static u64 ctr_event_ctl(struct perf_event *event)
{
	return event->hw.branch_reg.config;
}

/*
 * Overflow handler of branch-stack events, called from the counter overflow
 * interrupt. With LCOFIFRZ the interrupt froze CTR on entry, so the records
 * end at the sampled instruction; without it, freeze now so the handler's
 * own branches do not displace them. ctr_pmu_irq() unfreezes once every
 * overflowed event has its sample, so all of them see the same history.
 */
static void ctr_overflow(struct perf_event *event,
			 struct perf_sample_data *data, struct pt_regs *regs)
{
	struct riscv_ctr_cpu *cc = this_cpu_ptr(riscv_ctr_cpu);

	csr_set(CSR_SCTRSTATUS, CTRSTATUS_FROZEN);
	if ((event->attach_state & PERF_ATTACH_TASK) && cc->owner != current) {
		/*
		 * The perf core switched between two clones of one task
		 * context (threads sharing an inherited event) without
		 * removing and adding the event: the records are another
		 * thread's. Start over for this one.
		 */
		riscv_ctr_sctrclr();
		cc->owner = current;
		cc->brs.nr = 0;
	} else {
		u64 bst = event->attr.branch_sample_type;

		cc->brs.nr = riscv_ctr_read(cc->entries,
					    riscv_ctr_out_flags(bst));
	}
	cc->brs.hw_idx = -1ULL;
	perf_sample_save_brstack(data, event, &cc->brs, NULL);

	if (event->attr.write_backward)
		riscv_ctr_orig.output_backward(event, data, regs);
	else
		riscv_ctr_orig.output_forward(event, data, regs);
}

/*
 * Wraps the SBI PMU driver's counter overflow interrupt handler. Every
 * overflow interrupt freezes CTR (LCOFIFRZ), including those that produce
 * no sample on a branch-stack event (throttled, period not yet due, another
 * event's overflow); recording must resume after each, or later samples
 * would carry a history that ended at an earlier interrupt.
 */
static irqreturn_t ctr_pmu_irq(int irq, void *dev)
{
	irqreturn_t ret = riscv_ctr_orig.irq_handler(irq, dev);

	if (this_cpu_read(riscv_ctr_cpu->users))
		csr_clear(CSR_SCTRSTATUS, CTRSTATUS_FROZEN);
	return ret;
}

static void ctr_event_destroy(struct perf_event *event)
{
	kfree(event->pmu_private);
	module_put(THIS_MODULE);
}

static int ctr_event_init_branch(struct perf_event *event)
{
	u64 bst = event->attr.branch_sample_type;
	u64 ctl;
	int ret;

	ret = riscv_ctr_filter_to_ctl(bst, riscv_ctr_caps.implemented, &ctl);
	if (ret)
		return ret;
	/*
	 * The overflow handler runs in S-mode: only when S-mode is recorded
	 * can it displace the history, so only then freeze on overflow.
	 */
	if (ctl & CTRCTL_S)
		ctl |= riscv_ctr_caps.implemented & CTRCTL_LCOFIFRZ;

	/*
	 * Our handler replaces the perf core's default output; events created
	 * in the kernel with their own handler are not ours to redirect.
	 */
	if (event->overflow_handler != ctr_overflow &&
	    event->overflow_handler != riscv_ctr_orig.output_forward &&
	    event->overflow_handler != riscv_ctr_orig.output_backward)
		return -EOPNOTSUPP;

	if (!try_module_get(THIS_MODULE))
		return -ENODEV;

	/* The SBI PMU driver refuses branch stacks: hide the request from it. */
	event->attr.sample_type &= ~PERF_SAMPLE_BRANCH_STACK;
	ret = riscv_ctr_orig.event_init(event);
	event->attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	if (!ret && event->destroy) {
		/* A destroy we would have to chain; the SBI PMU sets none. */
		event->destroy(event);
		ret = -EOPNOTSUPP;
	}
	if (ret) {
		module_put(THIS_MODULE);
		return ret;
	}

	/* a task's call stack must survive the task being switched out */
	if ((ctl & CTRCTL_RASEMU) && (event->attach_state & PERF_ATTACH_TASK)) {
		event->pmu_private = kzalloc(struct_size_t(struct riscv_ctr_saved,
							   rec,
							   riscv_ctr_caps.depth),
					     GFP_KERNEL);
		if (!event->pmu_private) {
			module_put(THIS_MODULE);
			return -ENOMEM;
		}
	}

	event->hw.branch_reg.config = ctl;
	event->overflow_handler = ctr_overflow;
	event->destroy = ctr_event_destroy;
	return 0;
}

static int ctr_event_init(struct perf_event *event)
{
	int idx, ret;

	idx = srcu_read_lock(&ctr_srcu);
	if (has_branch_stack(event))
		ret = ctr_event_init_branch(event);
	else
		ret = riscv_ctr_orig.event_init(event);
	srcu_read_unlock(&ctr_srcu, idx);
	return ret;
}

static int ctr_add(struct perf_event *event, int flags)
{
	struct riscv_ctr_cpu *cc = this_cpu_ptr(riscv_ctr_cpu);
	int ret;

	if (!has_branch_stack(event))
		return riscv_ctr_orig.add(event, flags);

	/* One CTR per hart: events with different filters cannot share it. */
	if (cc->users && cc->ctl != ctr_event_ctl(event))
		return -EBUSY;

	ret = riscv_ctr_orig.add(event, flags);
	if (ret)
		return ret;
	if (!cc->users++) {
		cc->ctl = ctr_event_ctl(event);
		riscv_ctr_enable(cc->ctl, event->pmu_private);
	} else if (event->attach_state & PERF_ATTACH_TASK) {
		/*
		 * CTR already records for a CPU-wide event; what it holds was
		 * recorded before this task ran and is not the task's to see.
		 */
		riscv_ctr_sctrclr();
	}
	/* scheduled in for this task: what CTR records from now on is its */
	if (event->attach_state & PERF_ATTACH_TASK)
		cc->owner = current;
	return 0;
}

static void ctr_del(struct perf_event *event, int flags)
{
	struct riscv_ctr_cpu *cc = this_cpu_ptr(riscv_ctr_cpu);

	riscv_ctr_orig.del(event, flags);
	if (!has_branch_stack(event))
		return;
	if (event->pmu_private) {
		struct riscv_ctr_saved *sv = event->pmu_private;

		/* after a context swap that skipped add, CTR is not ours */
		if (cc->owner == current)
			riscv_ctr_save(sv);
		else
			sv->nr = 0;
	}
	if (!--cc->users)
		csr_write(CSR_SCTRCTL, 0);
}

static int __init riscv_ctr_init(void)
{
	int ret;

	ret = riscv_ctr_probe(depth);
	if (ret)
		return ret;
	ret = riscv_ctr_find_cpu_pmu();
	if (ret)
		return ret;
	ret = riscv_ctr_find_pmu_irq();
	if (ret)
		return ret;
	riscv_ctr_cpu = alloc_percpu(struct riscv_ctr_cpu);
	if (!riscv_ctr_cpu)
		return -ENOMEM;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/riscv/ctr:online",
				riscv_ctr_cpu_online, riscv_ctr_cpu_offline);
	if (ret < 0) {
		free_percpu(riscv_ctr_cpu);
		return ret;
	}
	ctr_hp_state = ret;

	riscv_ctr_hook(ctr_event_init, ctr_add, ctr_del, ctr_pmu_irq);
	pr_info("branch stacks on PMU \"%s\": depth %u, sctrctl implemented %#llx, MISP %s\n",
		riscv_ctr_orig.pmu->name, riscv_ctr_caps.depth,
		riscv_ctr_caps.implemented,
		riscv_ctr_caps.out_misp ? "implemented" : "absent");
	return 0;
}
module_init(riscv_ctr_init);

static void __exit riscv_ctr_exit(void)
{
	riscv_ctr_unhook(&ctr_srcu);
	cpuhp_remove_state(ctr_hp_state);
	free_percpu(riscv_ctr_cpu);
}
module_exit(riscv_ctr_exit);

MODULE_DESCRIPTION("RISC-V CTR branch stacks for perf on the SBI PMU");
MODULE_LICENSE("GPL");
