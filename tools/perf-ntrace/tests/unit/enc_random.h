/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Random encoder configurations and random record streams with every kind
 * of record, shared by the encoder tests that check properties over many
 * of them. Deterministic: a fixed xorshift seed.
 */
#ifndef NTRACE_ENC_RANDOM_H
#define NTRACE_ENC_RANDOM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <ntrace/encoder.h>

static uint64_t rng = 0x243F6A8885A308D3ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * A random walk through a made-up program with every kind of record; about
 * (15 + extra_plain) / (32 + extra_plain) of them are plain instructions.
 */
static size_t make_program(struct ntrace_insn *r, size_t n, const struct ntrace_enc_cfg *c,
			   unsigned int extra_plain, uint64_t *hw, uint64_t *branches)
{
	uint64_t pc = 0x80001000, stack[64];
	unsigned int depth = 0;
	bool tracing = true;
	size_t i;

	*hw = 0;
	*branches = 0;
	for (i = 0; i < n; i++) {
		uint64_t x = rnd();
		unsigned int kind = x % (32 + extra_plain);
		struct ntrace_insn *p = &r[i];

		memset(p, 0, sizeof(*p));
		p->addr = pc;
		p->size = x & 0x100 ? 2 : 4;
		p->priv = (x >> 20) % 64 ? NTRACE_PRIV_U : NTRACE_PRIV_S;
		p->context = (x >> 30) % 128 ? 5 : 6;
		p->tstamp = i * 3;
		pc += p->size;
		if (kind < 8) {
			p->itype = kind < 5 ? NTRACE_ITYPE_TAKEN : NTRACE_ITYPE_NOT_TAKEN;
			if (p->itype == NTRACE_ITYPE_TAKEN)
				pc = p->addr - ((x >> 40) & 0x3E);
		} else if (kind == 8 && depth < 64) {
			p->itype = NTRACE_ITYPE_DIR_CALL;
			stack[depth++] = pc;
			pc = 0x80100000 + ((x >> 12) & 0xFFE);
		} else if (kind == 9 && depth < 64) {
			p->itype = NTRACE_ITYPE_IND_CALL;
			stack[depth++] = pc;
			pc = 0x80200000 + ((x >> 12) & 0xFFE);
		} else if (kind == 10 && depth) {
			p->itype = NTRACE_ITYPE_RETURN;
			pc = stack[--depth];
			if ((x >> 50) % 8 == 0)	/* a return that does not go back */
				pc += 0x40;
		} else if (kind == 11) {
			p->itype = NTRACE_ITYPE_IND_JUMP;
			if ((x >> 44) & 1)
				p->flags |= NTRACE_INSN_SEQ_INFERABLE;
			pc = 0xFFFFFFFF80000000ull + ((x >> 12) & 0xFFFE);
		} else if (kind == 12) {
			p->itype = NTRACE_ITYPE_DIR_JUMP;
			pc += (x >> 12) & 0x7E;
		} else if (kind == 13 && (x >> 33) % 4 == 0) {
			p->itype = (x >> 36) & 1 ? NTRACE_ITYPE_EXCEPTION : NTRACE_ITYPE_INTERRUPT;
			if ((x >> 37) & 1)
				p->size = 0;	/* trap before anything retired */
			pc = 0x80000100;
		} else if (kind == 14 && (x >> 33) % 4 == 0) {
			p->itype = NTRACE_ITYPE_TRAP_RETURN;
			pc = 0x80002000;
		} else if (kind == 15 && (x >> 33) % 8 == 0) {
			p->flags |= NTRACE_INSN_TRACE_STOP;
		} else if (kind == 16 && (x >> 33) % 2 == 0) {
			p->flags |= NTRACE_INSN_TRACE_START;
		}
		if (c->itype_bits == 3 && p->itype >= 8)
			p->itype = p->itype == NTRACE_ITYPE_DIR_CALL ||
						   p->itype == NTRACE_ITYPE_DIR_JUMP
					   ? NTRACE_ITYPE_NONE
					   : NTRACE_ITYPE_INDIRECT;
		if (!tracing && (p->flags & NTRACE_INSN_TRACE_START))
			tracing = true;
		if (tracing) {
			*hw += p->size / 2;
			if (p->itype == NTRACE_ITYPE_TAKEN || p->itype == NTRACE_ITYPE_NOT_TAKEN ||
			    (c->all_jumps && (p->itype == NTRACE_ITYPE_DIR_CALL ||
					      p->itype == NTRACE_ITYPE_DIR_JUMP)))
				(*branches)++;
		}
		if (p->flags & NTRACE_INSN_TRACE_STOP)
			tracing = false;
	}
	return n;
}

static void random_cfg(struct ntrace_enc_cfg *c)
{
	uint64_t x = rnd();

	ntrace_enc_cfg_default(c);
	c->mode = x & 1 ? NTRACE_MODE_HTM : NTRACE_MODE_BTM;
	c->itype_bits = x & 2 ? 3 : 4;
	c->icnt_bits = 3 + (x >> 2) % 14;
	c->hist_bits = 2 + (x >> 6) % 31;
	c->hrepeat_bits = 1 + (x >> 11) % 18;
	c->bcnt_bits = 1 + (x >> 16) % 18;
	if (c->itype_bits == 4) {
		c->implicit_return = (x >> 21) % 4;
		c->return_depth = 1 + (x >> 23) % 32;
		c->return_addr_bits = 4 + (x >> 28) % 40;
	}
	c->seq_jump = (x >> 34) & 1;
	c->all_jumps = (x >> 35) & 1;
	c->repeated_history = (x >> 36) & 1;
	c->repeat_branch = (x >> 37) & 1;
	c->context = (x >> 38) & 1;
	c->trap_btype1 = (x >> 39) & 1;
	c->icnt_full_sync = c->mode == NTRACE_MODE_BTM && ((x >> 40) & 1);
	c->htm_ib_no_hist = c->mode == NTRACE_MODE_HTM && ((x >> 41) & 1);
	c->sync_mode = (x >> 42) % 4;
	c->sync_max = (x >> 44) % 6;
	c->codec.tstamp = (x >> 47) & 1;
	c->codec.ext_addr_msb = (x >> 48) & 1;
	c->codec.src_bits = (x >> 49) % 13;
	c->src_id = (uint16_t)((x >> 53) & ((1u << c->codec.src_bits) - 1));
}

#endif /* NTRACE_ENC_RANDOM_H */
