// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * ntrace_encoder_put_run() must give exactly the messages that
 * ntrace_encoder_put() gives for the same records: random programs and
 * random configurations (small I-CNT widths and short sync periods, so that
 * counters fill and syncs fall due inside runs), with every run of plain
 * records cut at random points and fed through put_run.
 */
#include "enc_harness.h"
#include "enc_random.h"

static bool plain(const struct ntrace_insn *r)
{
	return r->itype == NTRACE_ITYPE_NONE && !r->flags;
}

/* Records [i, j) can go as one run: plain, one privilege and context. */
static size_t run_end(const struct ntrace_insn *p, size_t i, size_t n)
{
	size_t j = i;

	while (j < n && plain(&p[j]) && p[j].priv == p[i].priv && p[j].context == p[i].context)
		j++;
	return j;
}

static int feed_runs(struct ntrace_encoder *e, const struct ntrace_insn *p, size_t n)
{
	size_t i = 0, j, k, cut;
	unsigned int hw;

	while (i < n) {
		j = run_end(p, i, n);
		if (j == i) {
			if (ntrace_encoder_put(e, &p[i++], 1))
				return -1;
			continue;
		}
		for (; i < j; i = cut) {
			struct ntrace_run_attr a = {
				.priv = p[i].priv,
				.context = p[i].context,
				.tstamp = p[i].tstamp,
				.tstamp_step = 3,	/* make_program: tstamp = 3 * index */
			};

			cut = i + 1 + rnd() % (j - i);
			for (hw = 0, k = i; k < cut; k++)
				hw += p[k].size / 2;
			if (ntrace_encoder_put_run(e, &p[i], cut - i, hw, &a))
				return -1;
		}
	}
	return ntrace_encoder_finish(e);
}

int main(void)
{
	static struct ntrace_insn prog[4000];
	static struct enc_run want, got;
	unsigned int iter, differ = 0, failed = 0, runs_total = 0;

	for (iter = 0; iter < 400; iter++) {
		struct ntrace_enc_cfg c;
		struct ntrace_encoder e;
		uint64_t hw, branches;
		size_t n = 500 + rnd() % 3500, i;

		random_cfg(&c);
		if (iter % 2)
			c.icnt_bits = 3 + rnd() % 4;	/* fills inside runs */
		make_program(prog, n, &c, 64, &hw, &branches);
		for (i = 0; i < n; i++)
			runs_total += plain(&prog[i]);
		if (enc_run(&c, prog, n, &want)) {
			failed++;
			continue;
		}
		memset(&got, 0, sizeof(got));
		if (ntrace_encoder_init(&e, &c, harness_collect, &got, NULL) || feed_runs(&e, prog, n)) {
			failed++;
			continue;
		}
		if ((got.len != want.len || memcmp(got.text, want.text, want.len)) && differ++ < 3) {
			size_t at = harness_first_diff(&got, &want);

			tap_diag("iter %u (mode %u, icnt_bits %u, sync_mode %u): first difference "
				 "at listing byte %zu of %zu", iter, c.mode, c.icnt_bits,
				 c.sync_mode, at, want.len);
		}
	}
	tap_diag("%u plain records fed through put_run", runs_total);
	tap_ok(!failed, "400 random programs/configs: both paths encode without error");
	tap_ok(!differ, "400 random programs/configs: put_run gives the same messages as put");
	return tap_done();
}
