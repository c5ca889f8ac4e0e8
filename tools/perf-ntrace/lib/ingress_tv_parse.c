// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Tandem-verification trace (seed 002) -> ingress records. The trace is a
 * stream of state updates in groups; the pc is state, so an instruction's
 * address is the pc before its group and its successor the pc after.
 * Fields other than pc, instruction, privilege and the trap CSRs are
 * skipped (their lengths are still checked).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "err_internal.h"
#include "ingress_tv.h"
#include "ntrace/ingress_build.h"

struct tv_group {
	int has_insn, incr, has_pc, has_cause, has_epc, has_tval, has_priv;
	uint32_t bits;
	unsigned int size;
	uint64_t pc, cause, epc, tval;
	uint8_t priv;
};

struct tv_parser {
	const uint8_t *p;
	size_t len, off;
	uint64_t pc;
	int pc_valid;
	uint8_t priv;
	struct ntrace_isa_cfg cfg;
	struct ntrace_builder *b;
	struct ntrace_errbuf e;
};

/* A problem at byte offset at: code (NTRACE_EBADINPUT for the trace's own). */
static int fail(struct tv_parser *t, int code, size_t at, const char *what)
{
	return ntrace_err_set(&t->e, code, "tandem trace offset %zu: %s", at, what);
}

static int take(struct tv_parser *t, size_t n, uint64_t *v)
{
	size_t i;

	if (t->len - t->off < n)
		return fail(t, NTRACE_EBADINPUT, t->off, "truncated field");
	*v = 0;
	for (i = 0; i < n && i < 8; i++)
		*v |= (uint64_t)t->p[t->off + i] << (8 * i);
	t->off += n;
	return 0;
}

static uint8_t map_priv(uint64_t v)
{
	return v == 3 ? NTRACE_PRIV_M : v == 1 ? NTRACE_PRIV_S : NTRACE_PRIV_U;
}

/* Apply a finished group to the state and the builder. */
static int apply(struct tv_parser *t, const struct tv_group *g, size_t at)
{
	struct ntrace_idec d;
	int rc = 0;

	if (g->has_cause || g->has_epc) {
		uint64_t cause = g->has_cause ? g->cause :
			(g->has_insn ? 0 : NTRACE_CAUSE_INTERRUPT);

		if (!t->pc_valid && !g->has_epc)
			return fail(t, NTRACE_EBADINPUT, at, "trap before any pc is known");
		rc = ntrace_builder_trap(t->b, g->has_epc ? g->epc : t->pc, cause,
					 g->tval, g->has_cause, t->priv);
		t->pc_valid = g->has_pc;
		t->pc = g->pc;
	} else if (g->has_insn) {
		if (!t->pc_valid)
			return fail(t, NTRACE_EBADINPUT, at, "instruction before any pc is known");
		ntrace_isa_decode(g->bits, &t->cfg, &d);
		if (d.size != g->size)
			return fail(t, NTRACE_EBADINPUT, at,
				    "instruction length does not match its opcode (16/17)");
		rc = ntrace_builder_insn(t->b, t->pc, &d, t->priv);
		if (g->has_pc)
			t->pc = g->pc;
		else if (g->incr)
			t->pc += g->size;
	} else if (g->has_pc) {
		t->pc = g->pc;
		t->pc_valid = 1;
	}
	if (g->has_priv)
		t->priv = g->priv;
	if (rc)
		return fail(t, rc, at, ntrace_builder_errmsg(t->b));
	return 0;
}

static int parse_addl(struct tv_parser *t, struct tv_group *g)
{
	uint64_t id, v;

	if (take(t, 1, &id))
		return t->e.code;
	switch (id) {
	case TV_ADDL_PRIV:
	case TV_ADDL_DATA8:
		if (take(t, 1, &v))
			return t->e.code;
		if (id == TV_ADDL_PRIV) {
			g->has_priv = 1;
			g->priv = map_priv(v);
		}
		return 0;
	case TV_ADDL_DATA16:
		return take(t, 2, &v);
	case TV_ADDL_DATA32:
		return take(t, 4, &v);
	case TV_ADDL_PC:
	case TV_ADDL_PC_ALT:
		if (take(t, 8, &v))
			return t->e.code;
		g->has_pc = 1;
		g->pc = v;
		return 0;
	case TV_ADDL_PADDR:
	case TV_ADDL_EADDR:
	case TV_ADDL_DATA64:
	case TV_ADDL_MTIME:
	case TV_ADDL_PC_PADDR:
		return take(t, 8, &v);
	default:
		return fail(t, NTRACE_EBADINPUT, t->off - 1,
			    "unknown additional-state identifier");
	}
}

static int parse_full_reg(struct tv_parser *t, struct tv_group *g)
{
	uint64_t reg, v;

	if (take(t, 2, &reg) || take(t, 8, &v))
		return t->e.code;
	switch (reg) {
	case TV_REG_MCAUSE:
	case TV_REG_SCAUSE:
	case TV_REG_VSCAUSE:
		g->has_cause = 1;
		g->cause = v;
		break;
	case TV_REG_MEPC:
	case TV_REG_SEPC:
	case TV_REG_VSEPC:
		g->has_epc = 1;
		g->epc = v;
		break;
	case TV_REG_MTVAL:
	case TV_REG_STVAL:
		g->has_tval = 1;
		g->tval = v;
		break;
	}
	return 0;
}

/* Memory request/response: skip, with the data lengths of the seed. */
static int parse_mem(struct tv_parser *t, unsigned int op, unsigned int *last_op)
{
	uint64_t v, ctl;
	unsigned int size;

	if (op == TV_MEM_REQ) {
		if (take(t, 8, &v) || take(t, 1, &ctl))
			return t->e.code;
		*last_op = ctl & 15;
		size = 1u << ((ctl >> 4) & 3);
		/* data only for stores, SC and AMOs (op 1, 3, 4..12) */
		if (*last_op == 1 || *last_op == 3 || (*last_op >= 4 && *last_op <= 12))
			return take(t, size, &v);
		return 0;
	}
	if (take(t, 1, &ctl))
		return t->e.code;
	size = 1u << (ctl & 3);
	/* no data back for a store or SC */
	if (*last_op == 1 || *last_op == 3)
		return 0;
	return take(t, size, &v);
}

int ntrace_tv_parse(const uint8_t *buf, size_t len,
		    const struct ntrace_isa_cfg *cfg,
		    const struct ntrace_ingress_opts *o,
		    struct ntrace_insn_vec *out, char *err, size_t errlen)
{
	struct tv_parser t = { .p = buf, .len = len };
	struct tv_group g = { 0 };
	unsigned int last_op = 0;
	int in_group = 0, rc = 0;
	size_t group_at = 0;

	t.cfg = cfg ? *cfg : NTRACE_ISA_CFG_RV64GC;
	t.priv = o ? o->priv : NTRACE_PRIV_M;
	t.b = ntrace_builder_new(o, ntrace_insn_vec_push, out);
	if (!t.b) {
		fail(&t, NTRACE_ENOMEM, 0, "out of memory");
		return ntrace_err_copy(&t.e, err, errlen);
	}
	while (!rc && t.off < len) {
		size_t at = t.off;
		unsigned int op = buf[t.off++];
		uint64_t v;

		if (!in_group && op != TV_BEGIN)
			group_at = at;	/* a lone update is its own group */
		switch (op) {
		case TV_BEGIN:
			if (in_group)
				rc = apply(&t, &g, group_at);	/* implied end */
			memset(&g, 0, sizeof(g));
			in_group = 1;
			group_at = at;
			continue;
		case TV_END:
			if (!in_group) {
				rc = fail(&t, NTRACE_EBADINPUT, at, "end group without begin group");
				continue;
			}
			rc = apply(&t, &g, group_at);
			memset(&g, 0, sizeof(g));
			in_group = 0;
			continue;
		case TV_INCR_PC:
			g.incr = 1;
			break;
		case TV_FULL_REG:
			rc = parse_full_reg(&t, &g);
			break;
		case TV_INCR_REG:
		case TV_INCR_REG_OR:
			rc = take(&t, 3, &v);
			break;
		case TV_ADDL:
			rc = parse_addl(&t, &g);
			break;
		case TV_MEM_REQ:
		case TV_MEM_RSP:
			rc = parse_mem(&t, op, &last_op);
			break;
		case TV_RESET:
			t.pc_valid = 0;
			break;
		case TV_STATE_INIT:
			break;
		case TV_INSN16:
		case TV_INSN32:
			g.size = op == TV_INSN16 ? 2 : 4;
			rc = take(&t, g.size, &v);
			g.bits = (uint32_t)v;
			g.has_insn = 1;
			break;
		default:
			rc = fail(&t, NTRACE_EBADINPUT, at, "unknown opcode");
			continue;
		}
		if (!rc && !in_group) {
			rc = apply(&t, &g, group_at);
			memset(&g, 0, sizeof(g));
		}
	}
	if (!rc && in_group)
		rc = apply(&t, &g, group_at);	/* unterminated last group */
	if (!rc) {
		rc = ntrace_builder_finish(t.b);
		if (rc)
			fail(&t, rc, len, ntrace_builder_errmsg(t.b));
	}
	ntrace_builder_free(t.b);
	return rc ? ntrace_err_copy(&t.e, err, errlen) : 0;
}
