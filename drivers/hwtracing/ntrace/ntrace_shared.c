// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: RAM sinks shared by several encoders through funnels.
 *
 * A shared sink belongs to no CPU. Every CPU whose encoder feeds it joins
 * (ntrace_shared_start()) and leaves (ntrace_shared_stop()) under the
 * sink's raw spinlock; sink->active holds the CPUs that trace into it and
 * each funnel counts the sources that go through it (funnel->users). The
 * first source enables the sink, every source enables the funnels of its
 * path that are off (the one nearest the sink first), then its encoder;
 * the last source through a funnel disables it, the last one of the sink
 * leaves it disabled.
 *
 * Draining (any source leaving, also to cut an AUX record) stops every
 * source's encoder (trTeEnable 0, then trTeEmpty), waits for the funnels'
 * trFunnelEmpty, disables the sink, splits what it holds into whole
 * messages and appends each to the staging buffer of the CPU its SRC field
 * names (trTeSrcID is the logical CPU), then restarts the sink and the
 * other sources. The leaving CPU's staging buffer then goes into its own
 * AUX area, so every CPU's AUX records hold its own messages only, in
 * order, none twice. Loss (an encoder's trTeInstStallOrOverflow, a wrapped
 * sink, a full staging buffer) is flagged on the CPUs that lost data.
 * Loss only ever cuts a CPU's staged trace short: once its staging buffer
 * is full, nothing more is staged until the CPU's own drain empties it, so
 * the kept messages are a gap-free prefix (a smaller later message must not
 * slip in behind a dropped one: the decoder could not see the hole).
 */
#include <linux/bitfield.h>
#include <linux/cpumask.h>
#include <linux/ntrace_tci.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "ntrace.h"

/* A source of a shared sink: everything another CPU's drain needs. */
struct ntrace_src {
	struct ntrace_path path;	/* as when it joined */
	struct ntrace_prog prog;	/* as programmed */
	u8 *stage;			/* whole messages, in order */
	size_t size;
	size_t len;
	bool lost;
	bool full;			/* stage nothing until emitted */
};

static DEFINE_PER_CPU(struct ntrace_src, srcs);

/*
 * A staging buffer for cpu of twice the sink's buffer (process context,
 * before the CPU's path goes through funnels). Kept until module unload.
 */
int ntrace_shared_prepare(int cpu, size_t sink_size)
{
	struct ntrace_src *s = per_cpu_ptr(&srcs, cpu);

	if (s->stage)
		return 0;
	s->stage = kvzalloc(2 * sink_size, GFP_KERNEL);
	if (!s->stage)
		return -ENOMEM;
	s->size = 2 * sink_size;
	return 0;
}

void ntrace_shared_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ntrace_src *s = per_cpu_ptr(&srcs, cpu);

		kvfree(s->stage);
		s->stage = NULL;
	}
}

struct split_ctx {
	const struct cpumask *cpus;
};

static void stage_msg(void *ctx, unsigned int src, const u8 *msg, size_t n)
{
	struct split_ctx *c = ctx;
	struct ntrace_src *s;

	if (src >= nr_cpu_ids || !cpumask_test_cpu(src, c->cpus))
		return;		/* not a source of this sink's session */
	s = per_cpu_ptr(&srcs, src);
	if (s->full)
		return;
	if (s->len + n > s->size) {
		s->full = true;
		s->lost = true;
		return;
	}
	memcpy(s->stage + s->len, msg, n);
	s->len += n;
}

/*
 * Stop every source of sink, flush the funnels, disable the sink and move
 * its trace into the sources' staging buffers. Sink lock held.
 */
static void shared_drain(struct ntrace_sink *sink)
{
	struct split_ctx ctx = { .cpus = &sink->active };
	struct ntrace_drain d = { };
	struct ntrace_src *s;
	unsigned int i, src_bits = 0;
	bool ovf;
	int cpu, err = 0;

	for_each_cpu(cpu, &sink->active) {
		s = per_cpu_ptr(&srcs, cpu);
		err |= ntrace_encoder_disable(s->path.te, &s->prog, &ovf);
		if (ovf)
			s->lost = true;
		src_bits = FIELD_GET(TCI_TE_F_SRC_BITS_MASK,
				     ntrace_prog_features(&s->prog,
							  &s->path.te->caps,
							  cpu));
	}
	for_each_cpu(cpu, &sink->active) {
		s = per_cpu_ptr(&srcs, cpu);
		for (i = 0; i < s->path.nr_funnels; i++)
			err |= ntrace_funnel_flush(s->path.funnel[i]);
	}
	err |= ntrace_sink_disable(sink, &d);
	if (err)
		pr_warn_ratelimited("ntrace: %s: trace did not flush\n",
				    dev_name(sink->dev));
	if (d.wrapped && !sink->stop_on_wrap)
		for_each_cpu(cpu, &sink->active)
			per_cpu_ptr(&srcs, cpu)->lost = true;
	if (!d.len || !src_bits)
		return;
	/* the oldest byte is at d.head: a message may straddle the end */
	ntrace_split_msgs(sink->buf + d.head, d.len - d.head, src_bits,
			  d.head != 0, stage_msg, &ctx);
	if (d.head)
		ntrace_split_msgs(sink->buf, d.head, src_bits, true,
				  stage_msg, &ctx);
}

/* After shared_drain(): the sink and the sources in sink->active again. */
static void shared_restart(struct ntrace_sink *sink)
{
	int cpu;

	if (cpumask_empty(&sink->active))
		return;
	if (ntrace_sink_enable(sink)) {
		pr_warn_ratelimited("ntrace: %s: sink busy, sources stopped\n",
				    dev_name(sink->dev));
		for_each_cpu(cpu, &sink->active)
			per_cpu_ptr(&srcs, cpu)->lost = true;
		return;
	}
	for_each_cpu(cpu, &sink->active) {
		struct ntrace_src *s = per_cpu_ptr(&srcs, cpu);

		ntrace_encoder_enable(s->path.te, &s->prog);
	}
}

/*
 * cpu's encoder (programmed with prog, SRC on) starts tracing through
 * path into its shared sink. Interrupts off, on cpu.
 */
int ntrace_shared_start(int cpu, const struct ntrace_path *path,
			const struct ntrace_prog *prog)
{
	struct ntrace_src *s = per_cpu_ptr(&srcs, cpu);
	struct ntrace_sink *sink = path->sink;
	unsigned long flags;
	int i, err = 0;

	if (!s->stage)
		return -ENOMEM;
	raw_spin_lock_irqsave(&sink->lock, flags);
	if (cpumask_test_cpu(cpu, &sink->active)) {
		err = -EBUSY;
		goto out;
	}
	s->path = *path;
	s->prog = *prog;
	if (cpumask_empty(&sink->active)) {
		err = ntrace_sink_enable(sink);
		if (err)
			goto out;
	}
	for (i = path->nr_funnels - 1; i >= 0; i--) {
		struct ntrace_funnel *f = path->funnel[i];

		if (!f->users++ && ntrace_funnel_enable(f, 0))
			dev_warn_ratelimited(f->dev, "does not enable\n");
	}
	ntrace_encoder_enable(path->te, prog);
	cpumask_set_cpu(cpu, &sink->active);
out:
	raw_spin_unlock_irqrestore(&sink->lock, flags);
	return err;
}

/*
 * cpu stops tracing into sink (its last path's sink): drain the sink,
 * restart the other sources, and hand cpu's staged trace to
 * emit(ctx, buf, len, lost) with the lock held. Interrupts off, on cpu.
 */
void ntrace_shared_stop(int cpu, struct ntrace_sink *sink,
			void (*emit)(void *ctx, const u8 *buf, size_t len,
				     bool lost),
			void *ctx)
{
	struct ntrace_src *s = per_cpu_ptr(&srcs, cpu);
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&sink->lock, flags);
	if (cpumask_test_cpu(cpu, &sink->active)) {
		shared_drain(sink);
		cpumask_clear_cpu(cpu, &sink->active);
		for (i = 0; i < s->path.nr_funnels; i++) {
			struct ntrace_funnel *f = s->path.funnel[i];

			if (!WARN_ON_ONCE(!f->users) && !--f->users &&
			    ntrace_funnel_disable(f))
				dev_warn_ratelimited(f->dev, "does not flush\n");
		}
		shared_restart(sink);
	}
	emit(ctx, s->stage, s->len, s->lost);
	s->len = 0;
	s->lost = false;
	s->full = false;
	raw_spin_unlock_irqrestore(&sink->lock, flags);
}
