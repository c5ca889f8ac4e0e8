// SPDX-License-Identifier: GPL-2.0-only
/*
 * RISC-V CTR on the current hart: discovery, reading the records, saving
 * and restoring a call stack, and the per-hart setup for CPU hotplug.
 */

#define pr_fmt(fmt) "riscv_ctr: " fmt

#include <linux/irqflags.h>
#include <linux/of.h>
#include <linux/stringify.h>
#include <asm/asm-extable.h>
#include <asm/csr.h>

#include "riscv_ctr_priv.h"

struct riscv_ctr_caps riscv_ctr_caps;

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

/*
 * Decode the valid records, newest first, into @entries; @out selects the
 * optional fields (RISCV_CTR_OUT_*). Interrupts off. Returns the count.
 */
unsigned int riscv_ctr_read(struct perf_branch_entry *entries, unsigned int out)
{
	struct riscv_ctr_record rec;
	unsigned long sel;
	unsigned int i, n = 0;

	sel = csr_read(CSR_SISELECT);
	for (i = 0; i < riscv_ctr_caps.depth; i++) {
		csr_write(CSR_SISELECT, RISCV_CTR_SISELECT_BASE + i);
		rec.source = csr_read(CSR_SIREG);
		if (!(rec.source & CTRSOURCE_V))
			break;
		rec.target = csr_read(CSR_SIREG2);
		rec.data = csr_read(CSR_SIREG3);
		if (riscv_ctr_decode(&rec, out | riscv_ctr_caps.out_misp,
				     &entries[n]))
			n++;
	}
	csr_write(CSR_SISELECT, sel);
	return n;
}

/* Save the task's call stack as it leaves the hart (interrupts off). */
void riscv_ctr_save(struct riscv_ctr_saved *sv)
{
	unsigned long sel = csr_read(CSR_SISELECT);
	struct riscv_ctr_record *r;
	unsigned int i;

	csr_set(CSR_SCTRSTATUS, CTRSTATUS_FROZEN);
	for (i = 0, sv->nr = 0; i < riscv_ctr_caps.depth; i++) {
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
void riscv_ctr_enable(u64 ctl, const struct riscv_ctr_saved *sv)
{
	unsigned long sel;
	unsigned int i;

	csr_write(CSR_SCTRCTL, 0);
	csr_write(CSR_SCTRSTATUS, 0);
	riscv_ctr_sctrclr();
	if (sv && sv->nr) {
		csr_write(CSR_SCTRSTATUS, sv->nr % riscv_ctr_caps.depth);
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

int riscv_ctr_cpu_online(unsigned int cpu)
{
	unsigned int enc;

	csr_write(CSR_SCTRCTL, 0);
	csr_write(CSR_SCTRDEPTH, riscv_ctr_caps.depth_enc);
	enc = csr_read(CSR_SCTRDEPTH) & CTRDEPTH_DEPTH;
	if (enc != riscv_ctr_caps.depth_enc)
		pr_warn("cpu%u: CTR depth %u, not %u: records beyond are lost\n",
			cpu, 16U << enc, riscv_ctr_caps.depth);
	csr_write(CSR_SCTRSTATUS, 0);
	riscv_ctr_sctrclr();
	return 0;
}

int riscv_ctr_cpu_offline(unsigned int cpu)
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

/*
 * Learn the implemented sctrctl bits, MISP and the deepest buffer up to
 * @want entries (0: deepest). -ENODEV without a usable CTR.
 */
int riscv_ctr_probe(unsigned int want)
{
	unsigned long val;
	unsigned long flags;
	unsigned int enc;
	int ret;

	if (!ctr_in_devicetree())
		return -ENODEV;
	/* interrupts off: siselect is shared with interrupt controllers */
	local_irq_save(flags);
	ret = ctr_try_read_ctl(&val);
	if (!ret) {
		csr_write(CSR_SCTRCTL, 0);
		/* Recording stays off while probing: U and S read back only. */
		csr_write(CSR_SCTRSTATUS, CTRSTATUS_FROZEN);
		csr_write(CSR_SCTRCTL, CTRCTL_PROBE_MASK);
		riscv_ctr_caps.implemented = csr_read(CSR_SCTRCTL);
		csr_write(CSR_SCTRCTL, 0);
		csr_write(CSR_SCTRSTATUS, 0);
		/* WARL: take the deepest encoding up to the wanted one that sticks */
		for (enc = riscv_ctr_depth_enc(want); enc > 0; enc--) {
			csr_write(CSR_SCTRDEPTH, enc);
			if ((csr_read(CSR_SCTRDEPTH) & CTRDEPTH_DEPTH) == enc)
				break;
		}
		csr_write(CSR_SCTRDEPTH, enc);
		riscv_ctr_caps.depth_enc = enc;
		/* entry registers are WARL: an unimplemented MISP reads 0 */
		csr_write(CSR_SISELECT, RISCV_CTR_SISELECT_BASE);
		csr_write(CSR_SIREG2, CTRTARGET_MISP);
		if (csr_read(CSR_SIREG2) & CTRTARGET_MISP)
			riscv_ctr_caps.out_misp = RISCV_CTR_OUT_MISP;
		riscv_ctr_sctrclr();
	}
	local_irq_restore(flags);
	if (ret) {
		pr_info("CTR listed in the devicetree but its CSRs trap (mstateen0.CTR clear?)\n");
		return -ENODEV;
	}
	if ((riscv_ctr_caps.implemented & (CTRCTL_U | CTRCTL_S)) != (CTRCTL_U | CTRCTL_S)) {
		pr_info("sctrctl.U/S not writable: no usable CTR\n");
		return -ENODEV;
	}
	riscv_ctr_caps.depth = 16U << riscv_ctr_caps.depth_enc;
	return 0;
}
