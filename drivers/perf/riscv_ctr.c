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
 */

#define pr_fmt(fmt) "riscv_ctr: " fmt

#include <linux/cpuhotplug.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/irqdomain.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/perf_event.h>
#include <linux/srcu.h>
#include <linux/stringify.h>
#include <asm/asm-extable.h>
#include <asm/csr.h>
#include <asm/irq.h>

#include "riscv_ctr.h"

struct riscv_ctr_cpu {
	unsigned int users;	/* branch-stack events added on this CPU */
	u64 ctl;		/* their sctrctl value */
	/* task whose branches CTR holds (task events only); compared only */
	struct task_struct *owner;
	/* sample buffer: the header must directly precede its entries */
	struct perf_branch_stack brs;
	struct perf_branch_entry entries[RISCV_CTR_MAX_DEPTH];
};

static DEFINE_PER_CPU(struct riscv_ctr_cpu, riscv_ctr_cpu);

/*
 * A task's call stack (RAS emulation) while the task is off the hart:
 * logical entries 0..nr-1, newest first. Lives in event->pmu_private.
 */
struct ctr_saved {
	unsigned int nr;
	struct riscv_ctr_record rec[];
};

/* The wrapped PMU and its original methods. */
static struct {
	struct pmu *pmu;
	int (*event_init)(struct perf_event *event);
	int (*add)(struct perf_event *event, int flags);
	void (*del)(struct perf_event *event, int flags);
	struct irqaction *irq_action;
	irq_handler_t irq_handler;
	perf_overflow_handler_t output_forward;
	perf_overflow_handler_t output_backward;
} orig;

static u64 ctr_implemented;	/* sctrctl bits that read back as written */
static unsigned int ctr_out_misp;	/* RISCV_CTR_OUT_MISP if implemented */
static unsigned int ctr_depth_enc;
static unsigned int ctr_depth;

/*
 * perf report --branch-history rejects stacks of more than 127 entries
 * ("corrupted branch chain"), so the default stays at 64.
 */
static unsigned int depth = 64;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "entries per branch stack: 16, 32, 64, 128 or 256 (0: deepest supported; default 64)");
static enum cpuhp_state ctr_hp_state;
DEFINE_STATIC_SRCU(ctr_srcu);

static inline void ctr_sctrclr(void)
{
	asm volatile(".4byte " __stringify(RISCV_CTR_SCTRCLR_INSN) ::: "memory");
}

/* Read sctrctl, or fail instead of oopsing if access traps (Smstateen). */
static int ctr_try_read_ctl(unsigned long *val)
{
	/* fixed registers: the fixup entry names them, zeroes v, sets err */
	register long err asm("t0") = 0;
	register unsigned long v asm("t1") = 0;

	asm volatile("1: csrr t1, " __stringify(CSR_SCTRCTL) "\n"
		     "2:\n"
		     _ASM_EXTABLE_UACCESS_ERR_ZERO(1b, 2b, t0, t1)
		     : "+r" (err), "+r" (v));
	*val = v;
	return err;
}

/* The configuration an event carries: its sctrctl value. */
static u64 ctr_event_ctl(struct perf_event *event)
{
	return event->hw.branch_reg.config;
}

static unsigned int ctr_read_records(struct riscv_ctr_cpu *cc,
				     struct perf_event *event)
{
	unsigned int out = riscv_ctr_out_flags(event->attr.branch_sample_type) |
			   ctr_out_misp;
	struct riscv_ctr_record rec;
	unsigned long sel;
	unsigned int i, n = 0;

	sel = csr_read(CSR_SISELECT);
	for (i = 0; i < ctr_depth; i++) {
		csr_write(CSR_SISELECT, RISCV_CTR_SISELECT_BASE + i);
		rec.source = csr_read(CSR_SIREG);
		if (!(rec.source & CTRSOURCE_V))
			break;
		rec.target = csr_read(CSR_SIREG2);
		rec.data = csr_read(CSR_SIREG3);
		if (riscv_ctr_decode(&rec, out, &cc->entries[n]))
			n++;
	}
	csr_write(CSR_SISELECT, sel);
	return n;
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
	struct riscv_ctr_cpu *cc = this_cpu_ptr(&riscv_ctr_cpu);

	csr_set(CSR_SCTRSTATUS, CTRSTATUS_FROZEN);
	if ((event->attach_state & PERF_ATTACH_TASK) && cc->owner != current) {
		/*
		 * The perf core switched between two clones of one task
		 * context (threads sharing an inherited event) without
		 * removing and adding the event: the records are another
		 * thread's. Start over for this one.
		 */
		ctr_sctrclr();
		cc->owner = current;
		cc->brs.nr = 0;
	} else {
		cc->brs.nr = ctr_read_records(cc, event);
	}
	cc->brs.hw_idx = -1ULL;
	perf_sample_save_brstack(data, event, &cc->brs, NULL);

	if (event->attr.write_backward)
		orig.output_backward(event, data, regs);
	else
		orig.output_forward(event, data, regs);
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
	irqreturn_t ret = orig.irq_handler(irq, dev);

	if (this_cpu_read(riscv_ctr_cpu.users))
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

	ret = riscv_ctr_filter_to_ctl(bst, ctr_implemented, &ctl);
	if (ret)
		return ret;
	/*
	 * The overflow handler runs in S-mode: only when S-mode is recorded
	 * can it displace the history, so only then freeze on overflow.
	 */
	if (ctl & CTRCTL_S)
		ctl |= ctr_implemented & CTRCTL_LCOFIFRZ;

	/*
	 * Our handler replaces the perf core's default output; events created
	 * in the kernel with their own handler are not ours to redirect.
	 */
	if (event->overflow_handler != ctr_overflow &&
	    event->overflow_handler != orig.output_forward &&
	    event->overflow_handler != orig.output_backward)
		return -EOPNOTSUPP;

	if (!try_module_get(THIS_MODULE))
		return -ENODEV;

	/* The SBI PMU driver refuses branch stacks: hide the request from it. */
	event->attr.sample_type &= ~PERF_SAMPLE_BRANCH_STACK;
	ret = orig.event_init(event);
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
		event->pmu_private = kzalloc(struct_size_t(struct ctr_saved, rec,
							   ctr_depth),
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
		ret = orig.event_init(event);
	srcu_read_unlock(&ctr_srcu, idx);
	return ret;
}

/* Save the task's call stack as it leaves the hart (interrupts off). */
static void ctr_save(struct ctr_saved *sv)
{
	unsigned long sel = csr_read(CSR_SISELECT);
	struct riscv_ctr_record *r;
	unsigned int i;

	csr_set(CSR_SCTRSTATUS, CTRSTATUS_FROZEN);
	for (i = 0, sv->nr = 0; i < ctr_depth; i++) {
		r = &sv->rec[sv->nr];
		csr_write(CSR_SISELECT, RISCV_CTR_SISELECT_BASE + i);
		r->source = csr_read(CSR_SIREG);
		if (!(r->source & CTRSOURCE_V))
			break;
		r->target = csr_read(CSR_SIREG2);
		r->data = csr_read(CSR_SIREG3);
		sv->nr++;
	}
	csr_write(CSR_SISELECT, sel);
}

/*
 * Start recording with this configuration, from an empty buffer or from a
 * saved call stack. CTR must be inactive while entries are written, and
 * sctrstatus written first: WRPTR decides which physical entry a logical
 * one is. With WRPTR = nr, logical entries 0..nr-1 are physical nr-1..0.
 */
static void ctr_enable(u64 ctl, const struct ctr_saved *sv)
{
	unsigned long sel;
	unsigned int i;

	csr_write(CSR_SCTRCTL, 0);
	csr_write(CSR_SCTRSTATUS, 0);
	ctr_sctrclr();
	if (sv && sv->nr) {
		csr_write(CSR_SCTRSTATUS, sv->nr % ctr_depth);
		sel = csr_read(CSR_SISELECT);
		for (i = 0; i < sv->nr; i++) {
			csr_write(CSR_SISELECT, RISCV_CTR_SISELECT_BASE + i);
			csr_write(CSR_SIREG, sv->rec[i].source);
			csr_write(CSR_SIREG2, sv->rec[i].target);
			csr_write(CSR_SIREG3, sv->rec[i].data);
		}
		csr_write(CSR_SISELECT, sel);
	}
	csr_write(CSR_SCTRCTL, ctl);
}

static int ctr_add(struct perf_event *event, int flags)
{
	struct riscv_ctr_cpu *cc = this_cpu_ptr(&riscv_ctr_cpu);
	int ret;

	if (!has_branch_stack(event))
		return orig.add(event, flags);

	/* One CTR per hart: events with different filters cannot share it. */
	if (cc->users && cc->ctl != ctr_event_ctl(event))
		return -EBUSY;

	ret = orig.add(event, flags);
	if (ret)
		return ret;
	if (!cc->users++) {
		cc->ctl = ctr_event_ctl(event);
		ctr_enable(cc->ctl, event->pmu_private);
	} else if (event->attach_state & PERF_ATTACH_TASK) {
		/*
		 * CTR already records for a CPU-wide event; what it holds was
		 * recorded before this task ran and is not the task's to see.
		 */
		ctr_sctrclr();
	}
	/* scheduled in for this task: what CTR records from now on is its */
	if (event->attach_state & PERF_ATTACH_TASK)
		cc->owner = current;
	return 0;
}

static void ctr_del(struct perf_event *event, int flags)
{
	struct riscv_ctr_cpu *cc = this_cpu_ptr(&riscv_ctr_cpu);

	orig.del(event, flags);
	if (!has_branch_stack(event))
		return;
	if (event->pmu_private) {
		struct ctr_saved *sv = event->pmu_private;

		/* after a context swap that skipped add, CTR is not ours */
		if (cc->owner == current)
			ctr_save(sv);
		else
			sv->nr = 0;
	}
	if (!--cc->users)
		csr_write(CSR_SCTRCTL, 0);
}

static int ctr_cpu_online(unsigned int cpu)
{
	unsigned int enc;

	csr_write(CSR_SCTRCTL, 0);
	csr_write(CSR_SCTRDEPTH, ctr_depth_enc);
	enc = csr_read(CSR_SCTRDEPTH) & CTRDEPTH_DEPTH;
	if (enc != ctr_depth_enc)
		pr_warn("cpu%u: CTR depth %u, not %u: records beyond are lost\n",
			cpu, 16U << enc, ctr_depth);
	csr_write(CSR_SCTRSTATUS, 0);
	ctr_sctrclr();
	return 0;
}

static int ctr_cpu_offline(unsigned int cpu)
{
	csr_write(CSR_SCTRCTL, 0);
	return 0;
}

/* Ssctr on every possible hart, from the devicetree ISA extension list. */
static bool ctr_in_devicetree(void)
{
	struct device_node *np;
	unsigned int cpu;
	bool ok;

	for_each_possible_cpu(cpu) {
		np = of_get_cpu_node(cpu, NULL);
		if (!np)
			return false;
		ok = of_property_match_string(np, "riscv,isa-extensions",
					      "ssctr") >= 0;
		of_node_put(np);
		if (!ok)
			return false;
	}
	return true;
}

/* Learn the implemented sctrctl bits and the deepest buffer. */
static int ctr_probe_hw(void)
{
	unsigned long val;
	unsigned long flags;
	unsigned int enc;
	int ret;

	/* interrupts off: siselect is shared with interrupt controllers */
	local_irq_save(flags);
	ret = ctr_try_read_ctl(&val);
	if (!ret) {
		csr_write(CSR_SCTRCTL, 0);
		/* Recording stays off while probing: U and S read back only. */
		csr_write(CSR_SCTRSTATUS, CTRSTATUS_FROZEN);
		csr_write(CSR_SCTRCTL, CTRCTL_PROBE_MASK);
		ctr_implemented = csr_read(CSR_SCTRCTL);
		csr_write(CSR_SCTRCTL, 0);
		csr_write(CSR_SCTRSTATUS, 0);
		/* WARL: take the deepest encoding up to the wanted one that sticks */
		for (enc = riscv_ctr_depth_enc(depth); enc > 0; enc--) {
			csr_write(CSR_SCTRDEPTH, enc);
			if ((csr_read(CSR_SCTRDEPTH) & CTRDEPTH_DEPTH) == enc)
				break;
		}
		csr_write(CSR_SCTRDEPTH, enc);
		ctr_depth_enc = enc;
		/* entry registers are WARL: an unimplemented MISP reads 0 */
		csr_write(CSR_SISELECT, RISCV_CTR_SISELECT_BASE);
		csr_write(CSR_SIREG2, CTRTARGET_MISP);
		if (csr_read(CSR_SIREG2) & CTRTARGET_MISP)
			ctr_out_misp = RISCV_CTR_OUT_MISP;
		ctr_sctrclr();
	}
	local_irq_restore(flags);
	if (ret) {
		pr_info("CTR listed in the devicetree but its CSRs trap (mstateen0.CTR clear?)\n");
		return -ENODEV;
	}
	if ((ctr_implemented & (CTRCTL_U | CTRCTL_S)) != (CTRCTL_U | CTRCTL_S)) {
		pr_info("sctrctl.U/S not writable: no usable CTR\n");
		return -ENODEV;
	}
	ctr_depth = 16U << ctr_depth_enc;
	return 0;
}

/*
 * Find the PMU that serves PERF_TYPE_HARDWARE, and the perf core's default
 * output handlers, through a kernel counter: none of them is exported.
 */
static int ctr_find_cpu_pmu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
	};
	struct perf_event *ev;
	int cpu = raw_smp_processor_id();

	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	orig.pmu = ev->pmu;
	orig.output_forward = ev->overflow_handler;
	perf_event_release_kernel(ev);

	attr.write_backward = 1;
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	orig.output_backward = ev->overflow_handler;
	if (ev->pmu != orig.pmu)
		orig.pmu = NULL;
	perf_event_release_kernel(ev);

	if (!orig.pmu || !orig.pmu->name || strcmp(orig.pmu->name, "cpu") ||
	    !orig.pmu->event_init || !orig.pmu->add || !orig.pmu->del) {
		pr_info("hardware events are not served by the SBI PMU \"cpu\" PMU\n");
		return -ENODEV;
	}
	return 0;
}

/*
 * The SBI PMU driver's per-CPU counter overflow interrupt: the local
 * interrupt RV_IRQ_PMU of the hart's interrupt controller domain.
 */
static int ctr_find_pmu_irq(void)
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
	orig.irq_action = act;
	orig.irq_handler = act->handler;
	return 0;
}

static void ctr_hook(void)
{
	struct pmu *pmu = orig.pmu;

	orig.event_init = pmu->event_init;
	orig.add = pmu->add;
	orig.del = pmu->del;
	/* these first: no branch-stack event exists until event_init is ours */
	WRITE_ONCE(orig.irq_action->handler, ctr_pmu_irq);
	WRITE_ONCE(pmu->add, ctr_add);
	WRITE_ONCE(pmu->del, ctr_del);
	WRITE_ONCE(pmu->event_init, ctr_event_init);
}

static void ctr_unhook(void)
{
	struct pmu *pmu = orig.pmu;

	WRITE_ONCE(pmu->event_init, orig.event_init);
	WRITE_ONCE(pmu->add, orig.add);
	WRITE_ONCE(pmu->del, orig.del);
	WRITE_ONCE(orig.irq_action->handler, orig.irq_handler);
	/* add/del and the interrupt handler run with interrupts off; event_init inside ctr_srcu */
	synchronize_rcu();
	synchronize_srcu(&ctr_srcu);
}

static int __init riscv_ctr_init(void)
{
	int ret;

	if (!ctr_in_devicetree())
		return -ENODEV;
	ret = ctr_probe_hw();
	if (ret)
		return ret;
	ret = ctr_find_cpu_pmu();
	if (ret)
		return ret;
	ret = ctr_find_pmu_irq();
	if (ret)
		return ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/riscv/ctr:online",
				ctr_cpu_online, ctr_cpu_offline);
	if (ret < 0)
		return ret;
	ctr_hp_state = ret;

	ctr_hook();
	pr_info("branch stacks on PMU \"%s\": depth %u, sctrctl implemented %#llx, MISP %s\n",
		orig.pmu->name, ctr_depth, ctr_implemented,
		ctr_out_misp ? "implemented" : "absent");
	return 0;
}
module_init(riscv_ctr_init);

static void __exit riscv_ctr_exit(void)
{
	ctr_unhook();
	cpuhp_remove_state(ctr_hp_state);
}
module_exit(riscv_ctr_exit);

MODULE_DESCRIPTION("RISC-V CTR branch stacks for perf on the SBI PMU");
MODULE_LICENSE("GPL");
