// SPDX-License-Identifier: GPL-2.0-only
/*
 * Translation side of the ingress port: a descriptor per translated block
 * (each instruction classified once, with its record template and the
 * facts the outcome needs), the callbacks and inline counters that block
 * carries, and the descriptors' lifetime across QEMU's cache flushes.
 */
#include <stdlib.h>
#include <string.h>

#include "ingress.h"

static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tb_desc *alloc_list;

/*
 * Classify ti; prev is the instruction before it in the block (op
 * NTRACE_IOP_OTHER for the first), x gets ti's operands.
 */
static void classify(struct tb_insn *ti, const uint8_t *raw, size_t len,
		     const struct tb_insn *prev, const struct ntrace_iext *px,
		     struct ntrace_iext *xo)
{
	/* RV64GC or RV32GC as the target is: C.JAL exists on RV32 only */
	const struct ntrace_isa_cfg isa_cfg = { .xlen = (uint8_t)M.xlen, .ext = NTRACE_ISA_C };
	struct ntrace_iext x;

	ntrace_isa_decode_ext_bytes(raw, len, &isa_cfg, &x);
	*xo = x;
	ti->d = x.d;
	ti->imm = x.op == NTRACE_IOP_JALR ? (int32_t)x.imm : 0;
	/* JALR with rd == rs1 overwrites its base: read the target before it runs */
	ti->read_early = x.op == NTRACE_IOP_JALR && x.rd && x.rd == x.rs1;
	/* the model reads neither the stack (CM.POPRET*) nor mnepc (MNRET) */
	ti->target_known = x.op != NTRACE_IOP_POPRET &&
			   !(x.op == NTRACE_IOP_XRET && x.csr == NTRACE_CSR_MNEPC);
	ti->xret_m = x.op == NTRACE_IOP_XRET && x.csr == NTRACE_CSR_MEPC;
	ti->seq_rd = ntrace_isa_seq_setup_reg(&x);
	ti->seq_jump = ntrace_isa_seq_jump_reg(&x) != 0;
	/*
	 * AUIPC rs1 then JALR in one block (a call or tail call out of range
	 * of JAL): the JALR runs right after the AUIPC, so its target is
	 * known at translation and needs no register read.
	 */
	if (x.op == NTRACE_IOP_JALR && x.rs1 && px->op == NTRACE_IOP_AUIPC && px->rd == x.rs1) {
		ti->target_static = true;
		ti->target = xaddr((prev->pc + (uint64_t)px->imm + (uint64_t)x.imm) & ~1ull);
		ti->read_early = false;
	}
	/* CSR instructions naming satp change the context */
	if (x.op == NTRACE_IOP_CSR && x.csr == NTRACE_CSR_SATP)
		ti->csr_watch = CSRW_SATP;
	/* and those naming mtvec where M-mode traps enter */
	if (x.op == NTRACE_IOP_CSR && x.csr == NTRACE_CSR_MTVEC)
		ti->csr_watch = CSRW_MTVEC;
}

/* A block descriptor: header, instructions, then the record template. */
static size_t desc_size(unsigned int n)
{
	return sizeof(struct tb_desc) + n * sizeof(struct tb_insn) +
	       n * sizeof(struct ntrace_insn);
}

void ingress_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct ntrace_iext x, px = { .op = NTRACE_IOP_OTHER };
	struct tb_desc *d;

	(void)id;
	if (!n)
		return;
	d = calloc(1, desc_size(n));
	if (!d) {
		fprintf(stderr, "ntrace-model: out of memory\n");
		abort();
	}
	d->pc = qemu_plugin_tb_vaddr(tb);
	d->n = n;
	d->tmpl = (struct ntrace_insn *)&d->insn[n];
	/* QEMU keys blocks by privilege level: it is fixed for this block */
	d->tmpl_priv = ingress_read_priv();
	pthread_mutex_lock(&alloc_lock);
	d->next_alloc = alloc_list;
	alloc_list = d;
	pthread_mutex_unlock(&alloc_lock);

	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							  M.sb_icount, n);
	/*
	 * The block and store callbacks read registers (pc, priv, trap CSRs
	 * at a block boundary; priv and satp when a store starts trace):
	 * R_REGS, which QEMU 10.1 requires for a read. At 10.0.2 it changes
	 * no instruction count measurably (callgrind of a whole traced run).
	 */
	qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, ingress_tb_exec, QEMU_PLUGIN_CB_R_REGS,
						  QEMU_PLUGIN_COND_NE, M.sb_active, 0, d);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct tb_insn *ti = &d->insn[i];
		uint8_t raw[8] = { 0 };
		size_t len = qemu_plugin_insn_data(insn, raw, sizeof(raw));

		ti->pc = qemu_plugin_insn_vaddr(insn);
		ti->tb = d;
		ti->idx = i;
		classify(ti, raw, len, i ? ti - 1 : NULL, &px, &x);
		px = x;
		ti->d.size = qemu_plugin_insn_size(insn);

		/* loads only matter for trRamData, which only SRAM mode has */
		qemu_plugin_register_vcpu_mem_cb(insn, ingress_store_exec, QEMU_PLUGIN_CB_R_REGS,
						 M.sram_size ? QEMU_PLUGIN_MEM_RW : QEMU_PLUGIN_MEM_W,
						 ti);
		if (ti->read_early)
			qemu_plugin_register_vcpu_insn_exec_cond_cb(
				insn, ingress_indirect_exec, QEMU_PLUGIN_CB_R_REGS,
				QEMU_PLUGIN_COND_NE, M.sb_active, 0, ti);
		else if (ti->d.kind == NTRACE_IK_TRAP_RETURN)
			qemu_plugin_register_vcpu_insn_exec_cond_cb(
				insn, ingress_xret_exec, QEMU_PLUGIN_CB_NO_REGS,
				QEMU_PLUGIN_COND_NE, M.sb_active, 0, ti);
		if (ti->csr_watch)
			qemu_plugin_register_vcpu_insn_exec_cond_cb(
				insn, ingress_csr_exec, QEMU_PLUGIN_CB_NO_REGS,
				QEMU_PLUGIN_COND_NE, M.sb_active, 0, ti);
		if (i == n - 1)
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
				insn, QEMU_PLUGIN_INLINE_STORE_U64, M.sb_reached, 1);
	}
	{
		const struct tb_insn *l = &d->insn[n - 1];
		uint64_t fall = l->pc + l->d.size, target = l->pc + (uint64_t)(int64_t)l->d.off;

		/* as ntrace_isa_may_follow() decides for these kinds, and a JALR whose target is known */
		d->succ_static = true;
		if (l->d.kind == NTRACE_IK_NONE)
			d->succ[0] = d->succ[1] = fall;
		else if (l->d.kind == NTRACE_IK_BRANCH)
			d->succ[0] = target, d->succ[1] = fall;
		else if (l->d.kind == NTRACE_IK_JUMP)
			d->succ[0] = d->succ[1] = target;
		else if (l->target_static)
			d->succ[0] = d->succ[1] = l->target;
		else
			d->succ_static = false;
		if (d->succ_static) {
			d->succ_itype[0] = itype_for(l, d->succ[0]);
			d->succ_itype[1] = itype_for(l, d->succ[1]);
		}
	}
	for (i = 0; i < n; i++) {
		struct ntrace_insn *r = &d->tmpl[i];

		r->addr = d->insn[i].pc;
		r->size = d->insn[i].d.size;
		r->priv = d->tmpl_priv;
		d->insn[i].hw_before = i ? d->insn[i - 1].hw_before + d->insn[i - 1].d.size / 2 : 0;
		/* the last instruction's itype depends on where it went */
		if (i + 1 < n)
			r->itype = itype_for(&d->insn[i], d->insn[i + 1].pc);
		if (i + 1 < n && d->plain_n == i && r->itype == NTRACE_ITYPE_NONE)
			d->plain_n = i + 1;
		if (i && d->insn[i].seq_jump && d->insn[i - 1].seq_rd == d->insn[i].d.reg)
			r->flags |= NTRACE_INSN_SEQ_INFERABLE;
	}
	d->whole.insn = d->tmpl;
	d->whole.n = n;
	d->whole.hw = d->insn[n - 1].hw_before + d->insn[n - 1].d.size / 2;
	d->whole.flags = d->tmpl[n - 1].flags;
}

/*
 * QEMU flushed its translation cache: every block descriptor can go,
 * except the ones harts still wait on, which are copied first.
 */
void ingress_flush(qemu_plugin_id_t id)
{
	struct tb_desc *d, *next, *keep = NULL;
	unsigned int i;

	(void)id;
	pthread_mutex_lock(&alloc_lock);
	for (i = 0; i < M.nharts; i++) {
		struct hart *h = &M.harts[i];
		size_t sz;
		struct tb_desc *c;

		if (!h->prev)
			continue;
		sz = desc_size(h->prev->n);
		c = malloc(sz);
		if (!c)
			abort();
		memcpy(c, h->prev, sz);
		for (unsigned int k = 0; k < c->n; k++)
			c->insn[k].tb = c;
		c->tmpl = (struct ntrace_insn *)&c->insn[c->n];
		c->whole.insn = c->tmpl;
		c->next_alloc = keep;
		keep = c;
		h->prev = c;
	}
	for (d = alloc_list; d; d = next) {
		next = d->next_alloc;
		free(d);
	}
	alloc_list = keep;
	pthread_mutex_unlock(&alloc_lock);
}
