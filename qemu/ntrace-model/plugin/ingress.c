// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ingress port: turns QEMU's execution into one ntrace_insn record per
 * retired instruction, in program order, with itype, privilege, context,
 * timestamp and trap cause.
 *
 * How each signal is obtained (see Documentation/trace/ntrace-qemu-model.rst):
 *  - address, size, instruction kind: from the translated block's bytes,
 *    classified by the shared ISA decoder (ntrace/isa.h);
 *  - taken/not-taken and jump targets: from the next block's address;
 *    indirect jumps and xRET read their target (rs1 + imm, xEPC) in a
 *    callback just before they execute;
 *  - traps: the next block does not start at the successor of the last
 *    instruction, or the block did not run to its last instruction (a
 *    per-block inline marker); the handler's privilege, xCAUSE, xEPC and
 *    xTVAL are then read, so exception vs interrupt and which instruction
 *    trapped are exact;
 *  - privilege: the gdbstub "priv" pseudo-register, read at trace start
 *    and after every trap and xRET;
 *  - context: satp.ASID, re-read after any CSR instruction naming satp;
 *  - timestamp: the gdbstub "time" CSR (the platform timer; on RV32 with
 *    "timeh"), read once per block boundary while records need it: every
 *    record of a block gets the time at which its last instruction had
 *    retired;
 *  - RV32 (qemu-system-riscv32): registers read 4 bytes; addresses the
 *    model forms (jump targets, return addresses) wrap at 32 bits; xCAUSE
 *    is kept in its RV64 form (interrupt bit 63) on both XLENs;
 *  - addresses: QEMU translates RISC-V code position-independently
 *    (CF_PCREL), so a block translated at one virtual address runs at every
 *    address that maps the same code page (shared libraries, the vDSO, a
 *    program run twice). Addresses of a run are the translation's plus the
 *    run's delta (hart.delta): 0 when the block starts where the previous
 *    one led, else the "pc" register read at block entry.
 * Records are held one behind, so a trap can still mark the last retired
 * instruction with itype EXCEPTION/INTERRUPT, as on a hardware ingress
 * port; when that instruction already has an itype (a taken branch, a
 * jump), a size-0 trap record at the trap address follows it instead.
 */
#include <stdlib.h>
#include <string.h>

#include "ingress.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

static struct {
	struct qemu_plugin_register *gpr[32];
	struct qemu_plugin_register *priv, *mepc, *sepc, *mcause, *scause;
	struct qemu_plugin_register *mtval, *stval, *satp, *pc, *time, *timeh, *mtvec;
} R;

static const char *const gpr_names[32] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1", "a0",
	"a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
	"s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

void ingress_vcpu_init(unsigned int vcpu)
{
	GArray *regs;
	qemu_plugin_reg_descriptor *d;
	unsigned int i, g;

	if (vcpu != 0)
		return;
	regs = qemu_plugin_get_registers();
	d = (qemu_plugin_reg_descriptor *)regs->data;
	for (i = 0; i < regs->len; i++) {
		const char *n = d[i].name;

		for (g = 0; g < 32; g++)
			if (!R.gpr[g] && !strcmp(n, gpr_names[g]))
				R.gpr[g] = d[i].handle;
		if (!strcmp(n, "priv")) R.priv = d[i].handle;
		if (!strcmp(n, "mepc")) R.mepc = d[i].handle;
		if (!strcmp(n, "sepc")) R.sepc = d[i].handle;
		if (!strcmp(n, "mcause")) R.mcause = d[i].handle;
		if (!strcmp(n, "scause")) R.scause = d[i].handle;
		if (!strcmp(n, "mtval")) R.mtval = d[i].handle;
		if (!strcmp(n, "stval")) R.stval = d[i].handle;
		if (!strcmp(n, "satp")) R.satp = d[i].handle;
		if (!strcmp(n, "mtvec")) R.mtvec = d[i].handle;
		if (!strcmp(n, "pc")) R.pc = d[i].handle;
		if (!strcmp(n, "time")) R.time = d[i].handle;
		if (!strcmp(n, "timeh")) R.timeh = d[i].handle;
	}
	g_array_free(regs, 1);
	if (!R.priv || !R.mepc || !R.mcause || !R.gpr[1] || !R.pc)
		fprintf(stderr, "ntrace-model: warning: QEMU exposes no priv/mepc/mcause "
			"registers; privilege and trap causes will be wrong\n");
	if (!R.time || (M.xlen == 32 && !R.timeh))
		fprintf(stderr, "ntrace-model: warning: QEMU exposes no time CSR; "
			"timestamps will read 0\n");
}

static uint64_t rd(struct qemu_plugin_register *r)
{
	/* initial-exec: no __tls_get_addr call per register read */
	static __thread GByteArray *buf __attribute__((tls_model("initial-exec")));
	uint64_t v = 0;
	int n;

	if (!r)
		return 0;
	if (!buf)
		buf = g_byte_array_new();
	g_byte_array_set_size(buf, 0);
	n = qemu_plugin_read_register(r, buf);
	if (n > 0)
		memcpy(&v, buf->data, n < 8 ? (size_t)n : 8);
	return v;
}

/* QEMU's priv register: bits 1:0 level, bit 2 V; same as enum ntrace_priv. */
uint8_t ingress_read_priv(void)
{
	return (uint8_t)(rd(R.priv) & 7);
}

/*
 * The platform timer as the time CSR reads it (the ACLINT mtime, shared by
 * every hart of the virt machine), through the gdbstub: the CSR read calls
 * the timer's rdtime hook, which does not depend on guest registers that
 * TCG may hold, so any callback can read it.
 */
uint64_t ingress_read_time(void)
{
	uint64_t hi, lo;

	if (M.xlen == 64)
		return rd(R.time);
	/* RV32: timeh:time, read again when the high half moved in between */
	hi = rd(R.timeh);
	lo = rd(R.time);
	if (rd(R.timeh) != hi) {
		hi = rd(R.timeh);
		lo = rd(R.time);
	}
	return hi << 32 | lo;
}

static uint64_t read_context(void)
{
	if (M.xlen == 32)
		return (rd(R.satp) >> 22) & 0x1ff;	/* satp.ASID (RV32) */
	return (rd(R.satp) >> 44) & 0xffff;	/* satp.ASID (RV64) */
}

/* xCAUSE in its RV64 form on every XLEN: the interrupt bit is bit 63. */
static uint64_t read_cause(struct qemu_plugin_register *r)
{
	uint64_t c = rd(r);

	if (M.xlen == 32 && (c >> 31))
		c = (c & 0x7fffffff) | 1ull << 63;
	return c;
}

/* ---- outcome of a finished block -------------------------------------- */

/* Index of the instruction at run-time pc in tb, searching from index from, or -1. */
static int find_insn(const struct hart *h, const struct tb_desc *tb, unsigned int from,
		     uint64_t pc)
{
	unsigned int i;

	for (i = from; i < tb->n; i++)
		if (rt_pc(h, &tb->insn[i]) == pc)
			return (int)i;
	return -1;
}

/*
 * Target of an indirect jump or xRET that has just run. Read at the next
 * block's start, before any other guest instruction: rs1 and xEPC still
 * hold what the jump used (a trap in between writes xEPC with the same
 * target). Only JALR with rd == rs1 overwrote its base; its target was read
 * in a callback just before it ran.
 */
static bool indirect_target(struct hart *h, const struct tb_insn *ti, uint64_t *t)
{
	bool ok = true;

	/* read once per block boundary (next_block_pc, successor_ok) */
	if (h->tgt_cached) {
		*t = h->tgt;
		return h->tgt_ok;
	}
	if (!ti->target_known)
		ok = false;
	else if (ti->target_static)
		*t = ti->target + h->delta;
	else if (ti->d.kind == NTRACE_IK_TRAP_RETURN)
		*t = rd(ti->xret_m ? R.mepc : R.sepc);
	else if (ti->read_early)
		ok = h->next_target_valid, *t = h->next_target;
	else
		*t = xaddr(((ti->d.reg ? rd(R.gpr[ti->d.reg & 31]) : 0) +
			    (uint64_t)(int64_t)ti->imm) & ~1ull);
	h->tgt_cached = true;
	h->tgt_ok = ok;
	h->tgt = ok ? *t : 0;
	return ok;
}

/*
 * Is next_pc where ti leads when it retires without a trap? 1 yes, 0 no,
 * -1 unknown (a target the model does not read: CM.JT/JALT, CM.POPRET*).
 */
static int leads_to(struct hart *h, const struct tb_insn *ti, uint64_t next_pc)
{
	uint64_t target;
	int r = ntrace_isa_may_follow(&ti->d, rt_pc(h, ti), next_pc);

	if (r != NTRACE_FOLLOW_RUNTIME || ti->d.kind == NTRACE_IK_TABLE_JUMP)
		return r;	/* a table jump's target is in the JVT, not read */
	/* a return to the address its call left: no need to read rs1 */
	if (ti->d.itype == NTRACE_ITYPE_RETURN && h->ras_n &&
	    h->ras[(h->ras_n - 1) % MODEL_RAS] == next_pc)
		return 1;
	return indirect_target(h, ti, &target) ? next_pc == target : -1;
}

/*
 * Can next_pc be where an M-mode trap enters: mtvec's base, or in
 * vectored mode an interrupt's entry above it? (Without a readable
 * mtvec, every address can.)
 */
static bool mtvec_entry(struct hart *h, uint64_t next_pc)
{
	uint64_t base;

	if (!R.mtvec)
		return true;
	if (h->mtvec_stale) {
		h->mtvec = rd(R.mtvec);
		h->mtvec_stale = false;
	}
	base = h->mtvec & ~3ull;
	if ((h->mtvec & 3) == 1)
		return next_pc - base < 4 * 64;
	return next_pc == base;
}

/*
 * leads_to() for the next block d. M-mode fetches are not translated, so
 * a block that runs in M-mode (QEMU keys blocks by privilege level) runs
 * at its translation's address. After an M-mode indirect jump, control
 * reaches the next block either at the jump's target or through a trap,
 * which enters M-mode at mtvec: a next M-mode block anywhere else is the
 * target, with no register read.
 */
static int leads_to_block(struct hart *h, const struct tb_insn *ti, const struct tb_desc *d)
{
	if (ti->d.kind == NTRACE_IK_INDIRECT && ti->target_known && !ti->read_early &&
	    h->prev_priv == NTRACE_PRIV_M && d->tmpl_priv == NTRACE_PRIV_M &&
	    !mtvec_entry(h, d->pc))
		return 1;
	return leads_to(h, ti, d->pc);
}

/* Can control leave instruction ti for next_pc without a trap? */
static bool successor_ok(struct hart *h, const struct tb_insn *ti, uint64_t next_pc)
{
	return leads_to(h, ti, next_pc) != 0;
}

/* Shadow return stack: calls push, returns pop (only a prediction). */
static void ras_update(struct hart *h, const struct tb_insn *ti)
{
	switch (ti->d.itype) {
	case NTRACE_ITYPE_RETURN:
		if (h->ras_n)
			h->ras_n--;
		break;
	case NTRACE_ITYPE_COSWAP:
		if (h->ras_n)
			h->ras_n--;
		/* fall through */
	case NTRACE_ITYPE_IND_CALL:
	case NTRACE_ITYPE_DIR_CALL:
		h->ras[h->ras_n++ % MODEL_RAS] = xaddr(rt_pc(h, ti) + ti->d.size);
		break;
	}
}

/*
 * Two traps with nothing retired between them: an exception in this block
 * taken into S-mode, then an M-mode trap (an interrupt through the SBI
 * firmware) at the first instruction of the S-mode handler. The M-mode
 * registers show only the second; sepc/scause still hold the first, which
 * must be an exception at an instruction of this block (at its last one
 * if the block ran to its end, an ECALL say). Returns that instruction's
 * index, or -1.
 */
static int first_of_two_traps(struct hart *h, const struct tb_desc *tb, unsigned int from,
			      bool reached, uint64_t *epc, uint64_t *cause, uint64_t *tval)
{
	int j;

	*cause = read_cause(R.scause);
	if (*cause >> 63)
		return -1;
	*epc = rd(R.sepc);
	j = find_insn(h, tb, from, *epc);
	if (j < 0 || (reached && (unsigned int)j != tb->n - 1))
		return -1;
	*tval = rd(R.stval);
	return j;
}

/*
 * Emit the records of block tb (from h->prev_from on), now that the next
 * block starts at next_pc. upto < n stops early (trace stop mid-block).
 * follows: known already that tb ran to its end and its last instruction
 * leads to next_pc. Returns how many of tb's instructions did not execute
 * although the block's inline counter counted them: it stopped at a trap,
 * or at an MMIO access that QEMU runs again alone, in a block of its own
 * that counts it.
 */
static unsigned int finish_block(struct hart *h, const struct tb_desc *tb, uint64_t next_pc,
				 bool reached, unsigned int upto, bool follows)
{
	unsigned int from = h->prev_from, n = tb->n, nret, i;
	const struct tb_insn *last = &tb->insn[n - 1];
	uint64_t epc = 0, cause = 0, tval = 0, succ = next_pc;
	uint64_t epc1 = 0, cause1 = 0, tval1 = 0;
	struct ntrace_insn *l;
	bool trap = false, nested = false, seq0;
	int j;

	if (upto < n) {
		for (i = from; i <= upto; i++)
			rec_insn(h, &tb->insn[i], NTRACE_ITYPE_NONE, h->prev_icount + i + 1);
		return 0;
	}
	nret = n - from;
	if (follows || (reached && successor_ok(h, last, next_pc))) {
		/* ran to its end, left it the way its last instruction says */
	} else if (!reached && (j = find_insn(h, tb, from + 1, next_pc)) >= 0) {
		/*
		 * Stopped early without a trap: QEMU re-ran the instruction before
		 * j alone (an MMIO access not at the end of the block is redone
		 * in a block with memory callbacks only), then went on at j.
		 */
		nret = j - from;
		succ = next_pc;
	} else {
		trap = true;
		h->priv = ingress_read_priv();
		if ((h->priv & 3) == 3) {
			cause = read_cause(R.mcause);
			epc = rd(R.mepc);
			tval = rd(R.mtval);
		} else {
			cause = read_cause(R.scause);
			epc = rd(R.sepc);
			tval = rd(R.stval);
		}
		succ = epc;
		/*
		 * The instruction at xEPC did not retire (exception), or is the
		 * next to run (interrupt). A block that ran to its end took an
		 * interrupt after its last instruction, wherever xEPC points.
		 */
		if (!reached) {
			j = find_insn(h, tb, from, epc);
			if (j >= 0)
				nret = j - from;
		} else if (!(cause >> 63) && epc == rt_pc(h, last) && n - 1 >= from) {
			nret = n - 1 - from;
		}
		if ((h->priv & 3) == 3 && find_insn(h, tb, from, epc) < 0 &&
		    (!reached || !successor_ok(h, last, epc)) &&
		    (j = first_of_two_traps(h, tb, from, reached, &epc1, &cause1, &tval1)) >= 0) {
			nested = true;
			nret = j - from;
		}
	}
	/*
	 * A block that is just an indirect jump: whether LUI/AUIPC set up its
	 * target is known from the instruction handed on before it.
	 */
	seq0 = from == 0 && nret && tb->insn[0].seq_jump && (l = rec_last(h)) &&
	       l->itype == NTRACE_ITYPE_NONE && l->size &&
	       l->addr + l->size == rt_pc(h, &tb->insn[0]) && h->last_seq_rd == tb->insn[0].d.reg;
	if (nret)
		h->last_seq_rd = tb->insn[from + nret - 1].seq_rd;
	if (!h->te.inst_filters && nret) {
		rec_block(h, tb, from, nret, succ, seq0);
	} else {
		for (i = from; i < from + nret; i++) {
			const struct tb_insn *ti = &tb->insn[i];
			uint64_t next = i + 1 < n ? rt_pc(h, &tb->insn[i + 1]) : succ;

			rec_insn(h, ti, itype_at(h, ti, next), h->prev_icount + i + 1);
		}
	}
	if (seq0 && (l = rec_last(h)) && l->addr == rt_pc(h, &tb->insn[0]))
		l->flags |= NTRACE_INSN_SEQ_INFERABLE;
	if (from + nret == n && last->d.kind != NTRACE_IK_NONE)
		ras_update(h, last);
	if (nested) {
		/* the exception, then the M-mode trap at its S-mode handler */
		rec_trap(h, epc1, cause1, tval1, h->prev_icount + from + nret);
		h->prev_priv = NTRACE_PRIV_S;
	}
	if (trap)
		rec_trap(h, epc, cause, tval, h->prev_icount + from + nret);
	if (reached)
		return 0;
	/* a faulting instruction took its cycle: only the ones after it did not run */
	return n - from - nret - (trap && !(cause >> 63) && from + nret < n);
}

/*
 * Run-time address of block d, about to run: its translation's address when
 * that is where the previous block leads (no register read in the common
 * case; *follows is then set), else the "pc" register (a trap, a block
 * translated at another address mapping the same code, the first block
 * after trace start).
 */
static uint64_t next_block_pc(struct hart *h, const struct tb_desc *d, bool reached,
			      bool *follows)
{
	const struct tb_desc *p = h->prev;

	if (!p || !reached)
		*follows = false;
	else if (p->succ_static)	/* leads_to() without decoding again */
		*follows = d->pc == p->succ[0] + h->delta || d->pc == p->succ[1] + h->delta;
	else
		*follows = leads_to_block(h, &p->insn[p->n - 1], d) == 1;
	return *follows ? d->pc : rd(R.pc);
}

/* ---- callbacks --------------------------------------------------------- */

static void begin_block(struct hart *h, const struct tb_desc *d, uint64_t icount_before,
			uint64_t pc)
{
	if (h->priv_stale) {
		h->priv = ingress_read_priv();
		h->priv_stale = false;
	}
	if (h->context_stale) {
		h->context = read_context();
		h->context_stale = false;
	}
	h->prev = d;
	h->delta = pc - d->pc;
	h->prev_from = 0;
	h->prev_icount = icount_before;
	h->prev_priv = h->priv;
}

static void stop_now(struct hart *h)
{
	if (h->nrec)
		h->rec[h->nrec - 1].flags |= NTRACE_INSN_TRACE_STOP;
	rec_flush(h, true);
	trace_out_stop(h);
	gt_flush(h);
	h->tracing = false;
	h->prev = NULL;
	h->te.empty = true;
	vcpu_set_active(h->idx, ACTIVE_TRACE, false);
	te_publish(h);
	route_publish(h, true);
}

/*
 * The common block boundary, what next_block_pc(), finish_block() and
 * begin_block() do for it without their general checks: the previous
 * block ran to its end and its last instruction, a branch or jump, leads
 * where d starts (for a branch or direct jump its descriptor has both
 * places and the itype for each). Then no trap came and its records are
 * final, so the whole block goes to the encoder in one call. Returns false
 * in any other case, having changed nothing but what the general path
 * recomputes (an indirect target read): a record held back, a trace start
 * or remote stop waiting, a filter (it needs records).
 */
static bool boundary_fast(struct hart *h, struct vcpu_sb *s, const struct tb_desc *d)
{
	const struct tb_desc *p = h->prev;
	const struct tb_insn *last;
	struct ntrace_enc_block b;
	struct ntrace_run_attr a;
	unsigned int k, from;

	if (!p || !s->reached || h->nrec || h->start_pending || (h->pending & PEND_TE_STOP) ||
	    h->te.inst_filters || h->prev_from >= p->n)
		return false;
	last = &p->insn[p->n - 1];
	from = h->prev_from;
	if (p->succ_static) {
		if (d->pc == p->succ[0] + h->delta)
			k = 0;
		else if (d->pc == p->succ[1] + h->delta)
			k = 1;
		else
			return false;
		b.itype = p->succ_itype[k];
	} else {
		/* an indirect jump: where it went is read (or predicted) */
		h->tgt_cached = false;
		if (leads_to_block(h, last, d) != 1)
			return false;
		b.itype = itype_at(h, last, d->pc);
	}
	if (b.itype == NTRACE_ITYPE_NONE)
		return false;
	s->reached = 0;
	h->tgt_cached = false;
	b.insn = &p->tmpl[from];
	b.n = p->n - from;
	b.hw = p->whole.hw - p->insn[from].hw_before;
	b.flags = p->whole.flags;
	run_attr(h, from, &a);
	rec_whole(h, &b, &a);
	h->last_seq_rd = last->seq_rd;
	if (last->d.kind != NTRACE_IK_BRANCH)	/* a branch is no call or return */
		ras_update(h, last);
	begin_block(h, d, s->icount - d->n, d->pc);
	return true;
}

/*
 * The vCPU's scoreboard entry. QEMU moves scoreboards only when it creates
 * a vCPU, before that vCPU's init callback: once every vCPU's has run, a
 * hart keeps the address and skips the lookup.
 */
static struct vcpu_sb *vcpu_sb(struct hart *h, unsigned int vcpu)
{
	struct vcpu_sb *s;

	if (h && h->sb)
		return h->sb;
	s = qemu_plugin_scoreboard_find(M.sb, vcpu);
	if (h && __atomic_load_n(&M.vcpus_up, __ATOMIC_ACQUIRE) >= M.nvcpus)
		h->sb = s;
	return s;
}

void ingress_tb_exec(unsigned int vcpu, void *udata)
{
	const struct tb_desc *d = udata;
	struct hart *h = vcpu < M.nharts ? &M.harts[vcpu] : NULL;
	struct vcpu_sb *s = vcpu_sb(h, vcpu);
	uint64_t pc;
	bool reached, follows;

	clock_block_cb(true);
	if (s->active & ACTIVE_SERVICE)
		regs_service(vcpu);
	if (!h) {
		clock_block_cb(false);
		return;
	}
	hart_lock(h);
	if (h->tracing && h->ts_needed) {
		/* the time the previous block's instructions had retired by */
		h->ts_now = ts_value(h);
		ts_publish_value(h, h->ts_now);
	} else if (h->te.ts_running && ++h->ts_idle >= MODEL_TS_REFRESH) {
		ts_publish(h);
	}
	if (h->tracing && !boundary_fast(h, s, d)) {
		reached = s->reached;
		s->reached = 0;
		h->tgt_cached = false;
		pc = next_block_pc(h, d, reached, &follows);
		/* what the previous block did not retire is not counted */
		if (h->prev)
			s->icount -= finish_block(h, h->prev, pc, reached, h->prev->n, follows);
		if (h->pending & PEND_TE_STOP) {
			h->pending &= ~PEND_TE_STOP;
			stop_now(h);
		} else {
			begin_block(h, d, s->icount - d->n, pc);
			if (h->nrec > 1)
				rec_flush(h, false);
		}
	}
	if (h->ram_dirty) {
		h->ram_dirty = false;
		route_publish(h, false);
	}
	hart_unlock(h);
	clock_block_cb(false);
}

void ingress_indirect_exec(unsigned int vcpu, void *udata)
{
	const struct tb_insn *ti = udata;
	struct hart *h;
	uint64_t base;

	if (vcpu >= M.nharts || !M.harts[vcpu].tracing)
		return;
	h = &M.harts[vcpu];
	base = ti->d.reg ? rd(R.gpr[ti->d.reg & 31]) : 0;
	h->next_target = xaddr((base + (uint64_t)(int64_t)ti->imm) & ~1ull);
	h->next_target_valid = ti->target_known;
}

void ingress_xret_exec(unsigned int vcpu, void *udata)
{
	(void)udata;
	if (vcpu < M.nharts && M.harts[vcpu].tracing)
		M.harts[vcpu].priv_stale = true;
}

void ingress_csr_exec(unsigned int vcpu, void *udata)
{
	const struct tb_insn *ti = udata;

	if (vcpu >= M.nharts)
		return;
	if (ti->csr_watch & CSRW_SATP)
		M.harts[vcpu].context_stale = true;
	if (ti->csr_watch & CSRW_MTVEC)
		M.harts[vcpu].mtvec_stale = true;
}

/* The value a guest store wrote (at most 8 bytes: RV64 scalar stores). */
static uint64_t store_value(qemu_plugin_meminfo_t info)
{
	qemu_plugin_mem_value v = qemu_plugin_mem_get_value(info);

	switch (v.type) {
	case QEMU_PLUGIN_MEM_VALUE_U8:
		return v.data.u8;
	case QEMU_PLUGIN_MEM_VALUE_U16:
		return v.data.u16;
	case QEMU_PLUGIN_MEM_VALUE_U32:
		return v.data.u32;
	case QEMU_PLUGIN_MEM_VALUE_U64:
		return v.data.u64;
	default:
		return v.data.u128.low;
	}
}

/*
 * Guest stores (and, when the model has SRAM, loads: trRamData reads
 * advance trRamRP) that land in the register region.
 */
void ingress_store_exec(unsigned int vcpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	unsigned int size = 1u << qemu_plugin_mem_size_shift(info);
	uint64_t pa;

	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (pa + size <= M.reg_base || pa >= M.reg_base + M.region_size)
		return;
	if (qemu_plugin_mem_is_store(info))
		regs_store(vcpu, pa, size, store_value(info), udata);
	else
		regs_load(vcpu, pa, size);
	/* under -icount: read the timer again at this vCPU's next block */
	if (clock_take_stale())
		vcpu_set_active(vcpu, ACTIVE_SERVICE, true);
}

/* ---- trace on/off from the register model --------------------------------- */

void ingress_start(struct hart *h, unsigned int vcpu, const struct tb_insn *at)
{
	const char *err = trace_out_start(h);
	struct vcpu_sb *s;

	if (err)
		fprintf(stderr, "ntrace-model: hart %u: trace encoder: %s\n", h->idx, err);
	h->tracing = true;
	h->clock_tstamp = te_sync_by_time(&h->te);
	if (h->ts_needed)
		h->ts_now = ts_value(h);
	h->te.empty = false;
	h->start_pending = true;
	h->in_filter = false;
	h->nrec = 0;
	h->next_target_valid = false;
	h->ras_n = 0;
	h->prev = NULL;
	h->priv_stale = true;
	h->context_stale = true;
	h->mtvec_stale = true;
	if (at && vcpu == h->idx) {
		/* this hart started its own trace: go on right after the store */
		s = qemu_plugin_scoreboard_find(M.sb, vcpu);
		h->priv = ingress_read_priv();
		h->context = read_context();
		h->priv_stale = h->context_stale = false;
		h->prev = at->tb;
		/*
		 * The store's block runs at its translation's address: a trace
		 * started from code mapped at two addresses at once (not a
		 * kernel driver) would be mislabelled.
		 */
		h->delta = 0;
		h->prev_from = at->idx + 1;
		h->prev_priv = h->priv;
		h->prev_icount = s->icount - at->tb->n;
		s->reached = at->idx + 1u == at->tb->n;
	}
	vcpu_set_active(h->idx, ACTIVE_TRACE, true);
}

void ingress_stop(struct hart *h, unsigned int vcpu, const struct tb_insn *at)
{
	if (!h->tracing)
		return;
	if (at && vcpu == h->idx) {
		/* the store that stops trace is the last traced instruction */
		int j = h->prev ? find_insn(h, h->prev, h->prev_from, rt_pc(h, at)) : -1;

		if (h->ts_needed)
			h->ts_now = ts_value(h);

		if (j >= 0)
			finish_block(h, h->prev, 0, true, j, false);
		stop_now(h);
		return;
	}
	/* another hart asked: stop at this hart's next block boundary */
	h->te.empty = false;
	h->pending |= PEND_TE_STOP;
}
