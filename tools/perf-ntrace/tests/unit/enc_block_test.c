// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * ntrace_encoder_put_block() must give exactly the messages that
 * ntrace_encoder_put() gives for the records the block stands for: random
 * programs and random configurations (small I-CNT and HIST widths, short
 * sync periods, so that counters fill and syncs fall due inside blocks and
 * at their last record), cut into blocks the way a block-based simulator
 * sees them: plain records of one privilege and context, ended by any
 * record (a branch, a jump, a trap, a start or stop flag) or cut early at
 * a random point. The templates sit at another address than the records
 * (ntrace_run_attr.addr_offset), as position-independent translations do.
 */
#include "enc_harness.h"
#include "enc_random.h"

#define OFFSET 0x123456ull	/* templates are this much below the records */

static bool plain(const struct ntrace_insn *r)
{
	return r->itype == NTRACE_ITYPE_NONE && !r->flags;
}

static bool same_attr(const struct ntrace_insn *a, const struct ntrace_insn *b)
{
	return a->priv == b->priv && a->context == b->context;
}

/* End (exclusive) of the block starting at i: plain records, then any one. */
static size_t block_end(const struct ntrace_insn *p, size_t i, size_t n)
{
	size_t j = i;

	while (j + 1 < n && plain(&p[j]) && same_attr(&p[j + 1], &p[i]))
		j++;
	j++;
	if (rnd() % 4 == 0)	/* cut early: the block ends in a plain record */
		j = i + 1 + rnd() % (j - i);
	return j;
}

/* Feed p as blocks; counts blocks and those ending in a branch. */
static int feed_blocks(struct ntrace_encoder *e, const struct ntrace_insn *p, size_t n,
		       struct ntrace_insn *tmpl, unsigned int *blocks, unsigned int *branch_end)
{
	size_t i = 0, j, k;

	for (k = 0; k < n; k++) {
		tmpl[k] = p[k];
		tmpl[k].addr -= OFFSET;
		/* fields put_block must not read */
		tmpl[k].itype = 7;
		tmpl[k].flags = 0xf0;
		tmpl[k].priv = 2;
		tmpl[k].context = 0xdead;
		tmpl[k].tstamp = 0xbeef;
	}
	while (i < n) {
		struct ntrace_enc_block b = { .insn = &tmpl[i] };
		struct ntrace_run_attr a = {
			.priv = p[i].priv,
			.context = p[i].context,
			.tstamp = p[i].tstamp,
			.tstamp_step = 3,	/* make_program: tstamp = 3 * index */
			.addr_offset = OFFSET,
		};

		j = block_end(p, i, n);
		b.n = (uint32_t)(j - i);
		for (k = i; k < j; k++)
			b.hw += p[k].size / 2;
		b.itype = p[j - 1].itype;
		b.flags = p[j - 1].flags;
		(*blocks)++;
		*branch_end += b.itype == NTRACE_ITYPE_TAKEN || b.itype == NTRACE_ITYPE_NOT_TAKEN;
		if (ntrace_encoder_put_block(e, &b, &a))
			return -1;
		i = j;
	}
	return ntrace_encoder_finish(e);
}

int main(void)
{
	static struct ntrace_insn prog[4000], tmpl[4000];
	static struct enc_run want, got;
	unsigned int iter, differ = 0, failed = 0, blocks = 0, branch_end = 0;

	for (iter = 0; iter < 600; iter++) {
		struct ntrace_enc_cfg c;
		struct ntrace_encoder e;
		uint64_t hw, branches;
		size_t n = 500 + rnd() % 3500;

		random_cfg(&c);
		if (iter % 3 == 1)
			c.icnt_bits = 3 + rnd() % 4;	/* fills inside blocks */
		if (iter % 3 == 2)
			c.hist_bits = 2 + rnd() % 5;	/* fills at the branches */
		/* mostly plain records: blocks of several instructions */
		make_program(prog, n, &c, iter % 2 ? 64 : 8, &hw, &branches);
		if (enc_run(&c, prog, n, &want)) {
			failed++;
			continue;
		}
		memset(&got, 0, sizeof(got));
		if (ntrace_encoder_init(&e, &c, harness_collect, &got, NULL) ||
		    feed_blocks(&e, prog, n, tmpl, &blocks, &branch_end)) {
			failed++;
			continue;
		}
		if ((got.len != want.len || memcmp(got.text, want.text, want.len)) && differ++ < 3) {
			size_t at = harness_first_diff(&got, &want);

			tap_diag("iter %u (mode %u, icnt_bits %u, hist_bits %u, sync_mode %u): first "
				 "difference at listing byte %zu of %zu", iter, c.mode, c.icnt_bits,
				 c.hist_bits, c.sync_mode, at, want.len);
		}
	}
	tap_diag("%u blocks fed through put_block, %u of them ending in a branch", blocks,
		 branch_end);
	tap_ok(!failed, "600 random programs/configs: both paths encode without error");
	tap_ok(!differ, "600 random programs/configs: put_block gives the same messages as put");
	tap_ok(branch_end > blocks / 8, "the blocks exercise the branch fast path");
	return tap_done();
}
