// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: RAM sinks shared by several encoders through funnels.
 *
 * A shared sink belongs to no CPU. Every CPU whose encoder feeds it joins
 * (ntrace_shared_start()) and leaves (ntrace_shared_stop()) under the
 * sink's raw spinlock; sink->active holds the CPUs that trace into it and
 * each funnel counts the sources that go through it and through each of
 * its inputs. The first source enables the sink, every source enables
 * its input of each funnel of its path and the funnels that are off (the
 * one nearest the sink first), then its encoder; an input no source uses
 * is disabled (trFunnelDisInput), so encoders outside the session (a
 * debugger's, say) cannot write into the sink; the last source through a
 * funnel disables it, the last one of the sink leaves it disabled.
 *
 * Draining (a source leaving, also to cut an AUX record) is done by the
 * leaving CPU and stops only its own encoder: it flushes that encoder and
 * its funnels (trTeEmpty, trFunnelEmpty), disables the sink (the Trace
 * Control Interface allows no window change while it captures) and
 * enables it again for the other sources, whose encoders never stop, so
 * their streams have no gap. (Stopping every encoder of the sink at every
 * drain left the other harts untraced meanwhile, and on the QEMU model a
 * remote encoder stops only at its hart's next block: the waits timed
 * out.) A sink with a second buffer is a double buffer: enabled again at
 * once on the other buffer, it is off only for its flush, and the drain
 * reads the one it filled in place; another sink stays off while the
 * drain copies it into the CPU's snapshot buffer. The trace taken is then
 * split into whole messages, each appended to the
 * staging buffer of the CPU its SRC field names (trTeSrcID is the
 * logical CPU), and the leaving CPU's staging buffer goes into its own
 * AUX area, so every CPU's AUX records hold its own messages only, in
 * order, none twice.
 *
 * Loss is flagged on the CPUs that lost data. An encoder that dropped
 * messages (the sink off for a copy, or full) reports it in its own
 * stream, as N-Trace requires: an Error message, then a synchronisation
 * message; its CPU's drain finds trTeInstStallOrOverflow and flags the
 * record. Loss the encoder cannot see only ever cuts a CPU's staged trace
 * short: once its staging buffer is full, or the sink could not be
 * restarted, nothing more is staged for it until its own drain restarts
 * its encoder (with a synchronisation message) and empties the buffer (a
 * smaller later message slipping in behind a dropped one would leave a
 * hole no decoder can see). A wrapped (not stop-on-wrap) sink lost the
 * oldest bytes of any source: all of them are flagged. A stop-on-wrap sink
 * that filled up leaves what came after in the funnels, the draining
 * CPU's last messages among them: the drain lets that in and copies the
 * sink again, so they stay in its record. If that filled the sink again,
 * what the funnels still hold of the draining CPU comes later: it is not
 * staged (its trace starts again at its next sync message) and the
 * record that lacks it is flagged (it may be the event's last). The
 * first source of an idle sink discards what the funnels still hold of
 * an earlier session, when one may have left something there
 * (sink->upstream_stale): a drain that filled the sink or did not flush,
 * a funnel that did not, a component that came or went.
 * Otherwise the funnels are empty and the purge would only slow down
 * every cut of a single-source session.
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
	u8 *snap;			/* the sink's bytes, as this CPU drains */
	size_t snap_size;
	unsigned int src_id;		/* the SRC of its messages */
	bool lost;
	bool full;			/* stage nothing until emitted */
	bool resync;			/* stage nothing before a sync message */
};

static DEFINE_PER_CPU(struct ntrace_src, srcs);

/*
 * The sink gets its second buffer if it can (ntrace_sink_add_buf2());
 * then cpu a staging buffer of twice the sink's buffer, and for a sink
 * without a second buffer a snapshot buffer of its size (process
 * context, before the CPU's path goes through funnels). Kept until
 * module unload: a drain of another CPU may be using them. (A sink
 * without a second buffer that comes later finds no snapshot: its
 * drains flag every record.)
 */
int ntrace_shared_prepare(int cpu, struct ntrace_sink *sink)
{
	struct ntrace_src *s = per_cpu_ptr(&srcs, cpu);

	ntrace_sink_add_buf2(sink);
	if (s->stage)
		return 0;
	if (!sink->buf2)
		s->snap = kvzalloc(sink->buf_size, GFP_KERNEL);
	s->stage = kvzalloc(2 * sink->buf_size, GFP_KERNEL);
	if (!s->stage || (!sink->buf2 && !s->snap)) {
		kvfree(s->snap);
		kvfree(s->stage);
		s->snap = NULL;
		s->stage = NULL;
		return -ENOMEM;
	}
	s->size = 2 * sink->buf_size;
	s->snap_size = s->snap ? sink->buf_size : 0;
	return 0;
}

void ntrace_shared_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ntrace_src *s = per_cpu_ptr(&srcs, cpu);

		kvfree(s->stage);
		kvfree(s->snap);
		s->stage = NULL;
		s->snap = NULL;
	}
}

struct split_ctx {
	const struct cpumask *cpus;
	unsigned int src_bits;
	bool fixed_ids;			/* some source's SRC is not its CPU */
};

/* The CPU whose messages carry src, or -1: not a source of the session. */
static int src_cpu(const struct split_ctx *c, unsigned int src)
{
	int cpu;

	if (!c->fixed_ids)
		return src < nr_cpu_ids && cpumask_test_cpu(src, c->cpus) ?
		       src : -1;
	for_each_cpu(cpu, c->cpus)
		if (per_cpu_ptr(&srcs, cpu)->src_id == src)
			return cpu;
	return -1;
}

/* Append msg to s's staging buffer; false when it is full. */
static bool stage_bytes(struct ntrace_src *s, const u8 *msg, size_t n)
{
	if (s->len + n > s->size) {
		s->full = true;
		s->lost = true;
		return false;
	}
	memcpy(s->stage + s->len, msg, n);
	s->len += n;
	return true;
}

static void stage_msg(void *ctx, unsigned int src, const u8 *msg, size_t n)
{
	struct split_ctx *c = ctx;
	u8 err[NTRACE_ERROR_MSG_MAX];
	struct ntrace_src *s;
	int cpu = src_cpu(c, src);

	if (cpu < 0)
		return;
	s = per_cpu_ptr(&srcs, cpu);
	if (s->full)
		return;
	if (s->resync) {
		/* the tail of an emitted record, late: lost there */
		if (!ntrace_msg_is_sync(msg)) {
			s->lost = true;
			return;
		}
		s->resync = false;
		/*
		 * Messages before this sync are missing. Inside a record
		 * (some staged before them), say so in the stream, as an
		 * encoder that lost messages does, or a decoder would go on
		 * from the last message it saw and invent the flow between;
		 * a record starts afresh anyway.
		 */
		if (s->len &&
		    !stage_bytes(s, err, ntrace_error_msg(err, src, c->src_bits)))
			return;
	}
	stage_bytes(s, msg, n);
}

/* Stage nothing more of src's trace until its own drain. */
static void shared_block(struct ntrace_src *src)
{
	src->lost = true;
	src->full = true;
}

/*
 * Take what the disabled sink holds (d), oldest byte first, out of its
 * way; returns its length, and in *buf where it stays until the next
 * take. A sink with a second buffer leaves it in place: its next enable
 * captures into the other buffer (shared_enable()), so the sink is off only while
 * it flushes, not for a copy. Else it is copied into s's snapshot buffer
 * (more than that holds: every source loses it).
 */
static size_t shared_take(struct ntrace_sink *sink, struct ntrace_src *s,
			  const struct ntrace_drain *d, const u8 **buf)
{
	size_t len = d->len;
	int c;

	if (sink->buf2) {	/* stop-on-wrap: in order from the start */
		*buf = ntrace_sink_data(sink);
		sink->alt = !sink->alt;
		return len;
	}
	*buf = s->snap;
	if (len > s->snap_size) {	/* another sink than the one it was sized for */
		for_each_cpu(c, &sink->active)
			shared_block(per_cpu_ptr(&srcs, c));
		return 0;
	}
	if (len) {
		ntrace_sink_fetch(sink, d);	/* SRAM: into sink->buf */
		memcpy(s->snap, sink->buf + d->head, len - d->head);
		memcpy(s->snap + len - d->head, sink->buf, d->head);
	}
	return len;
}

/* Capture: into the buffer the last take left free, or the only one. */
static int shared_enable(struct ntrace_sink *sink)
{
	return sink->buf2 ? ntrace_sink_enable_alt(sink) :
	       ntrace_sink_enable(sink);
}

/*
 * Let the funnels of path flush into the sink, then disable it; d tells
 * what the sink holds.
 */
static int shared_flush_sink(struct ntrace_sink *sink,
			     const struct ntrace_path *path,
			     struct ntrace_drain *d)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < path->nr_funnels; i++) {
		if (!ntrace_funnel_flush(path->funnel[i]))
			continue;
		ntrace_tci_failed(path->funnel[i]->dev, &path->funnel[i]->failed,
				  "trFunnelEmpty stays 0: trace does not flush");
		err = -ETIMEDOUT;
	}
	return err | ntrace_sink_disable(sink, d);
}

/*
 * cpu leaves sink: stop its encoder, flush its funnels, copy what the sink
 * holds into cpu's snapshot buffer (oldest byte first) with the sink off,
 * then enable the sink again for the other sources and split the copy
 * into the staging buffers. Sink lock held, on cpu.
 */
static void shared_drain(struct ntrace_sink *sink, int cpu)
{
	struct split_ctx ctx = { .cpus = &sink->active };
	struct ntrace_src *s = per_cpu_ptr(&srcs, cpu);
	struct ntrace_drain d = { };
	unsigned int src_bits;
	bool ovf, others;
	const u8 *buf;
	size_t len;
	int c, err;

	for_each_cpu(c, &sink->active)
		if (per_cpu_ptr(&srcs, c)->src_id != c)
			ctx.fixed_ids = true;
	err = ntrace_encoder_disable(s->path.te, &s->prog, &ovf);
	if (ovf)
		s->lost = true;
	err |= shared_flush_sink(sink, &s->path, &d);
	src_bits = FIELD_GET(TCI_TE_F_SRC_BITS_MASK,
			     ntrace_prog_features(&s->prog, &s->path.te->caps,
						  cpu));
	ctx.src_bits = src_bits;
	len = shared_take(sink, s, &d, &buf);
	/*
	 * A stop-on-wrap sink that filled up refused what came after: the
	 * funnels hold it, this CPU's last messages among them. Take that
	 * too (sink on, funnels flushed, sink off), so that it goes into
	 * this record after what came before, not into the next one. (If it
	 * filled the sink again, what is left in the funnels comes later:
	 * the other sources' in order, this CPU's not staged, see below;
	 * what the funnels drop, the encoders report.)
	 */
	if (d.wrapped && sink->stop_on_wrap && !shared_enable(sink)) {
		/*
		 * A sink that drops while off (SiFive v0 funnel: the stop on
		 * wrap clears tfEnable) held nothing back: this CPU's last
		 * messages since the stop, its ProgTraceCorrelation among
		 * them, are gone, and its encoder cannot tell.
		 */
		if (sink->drops_when_off)
			s->lost = true;
		if (len && src_bits)
			ntrace_split_msgs(buf, len, src_bits, false,
					  stage_msg, &ctx);
		err |= shared_flush_sink(sink, &s->path, &d);
		len = shared_take(sink, s, &d, &buf);
	}
	if (err)	/* as from a sink of its own: what did not flush is lost */
		s->lost = true;	/* (the component said so, ntrace_tci_failed()) */
	others = cpumask_any_but(&sink->active, cpu) < nr_cpu_ids;
	if (others && shared_enable(sink)) {
		sink->upstream_stale = true;	/* the others' trace piles up */
		pr_warn_ratelimited("ntrace: %s: sink busy, its sources' trace is lost\n",
				    dev_name(sink->dev));
		for_each_cpu(c, &sink->active)
			if (c != cpu)
				shared_block(per_cpu_ptr(&srcs, c));
	}
	if (d.wrapped && !sink->stop_on_wrap)
		for_each_cpu(c, &sink->active)
			shared_block(per_cpu_ptr(&srcs, c));
	if (len && src_bits)
		ntrace_split_msgs(buf, len, src_bits, d.head != 0,
				  stage_msg, &ctx);
	/* the others' messages sent while the sink was off are gone */
	if (sink->drops_when_off)
		for_each_cpu(c, &sink->active) {
			if (c == cpu)
				continue;
			per_cpu_ptr(&srcs, c)->lost = true;
			per_cpu_ptr(&srcs, c)->resync = true;
		}
	/*
	 * A sink that filled up again (or did not flush) may have left this
	 * CPU's last messages upstream, to come after this copy: its next
	 * record must not start with them. Its trace starts again at its
	 * next sync message, and the sink's next session starts without
	 * them. This record lost its tail: flag it here. Its encoder is off
	 * and reports what the funnels drop now only in its next session,
	 * and a next record may never come: an event that stops, or whose
	 * path is unbound, ends with this one, which else ended unflagged
	 * without its last messages (ProgTraceCorrelation included).
	 */
	if (d.wrapped || err) {
		s->lost = true;
		s->resync = true;
		sink->upstream_stale = true;
	}
}

/*
 * The first source of an idle sink starts it. What the funnels may still
 * hold of an earlier session (sent while the sink was full: a late drain)
 * would be written first and staged as this session's trace: let it in,
 * throw it away, and start the sink afresh. Sink lock held.
 */
static int shared_sink_start(struct ntrace_sink *sink,
			     const struct ntrace_path *path)
{
	struct ntrace_drain d;
	int err;

	err = shared_enable(sink);
	if (err || !sink->upstream_stale)
		return err;
	/* what did not flush may come later: purge again next time */
	sink->upstream_stale = shared_flush_sink(sink, path, &d);
	return shared_enable(sink);
}

/*
 * A component came or went (probe, unbind): its sink's first source purges
 * the funnels, whatever a debugger, firmware or an earlier driver left.
 */
void ntrace_shared_mark_stale(struct ntrace_sink *sink)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&sink->lock, flags);
	sink->upstream_stale = true;
	raw_spin_unlock_irqrestore(&sink->lock, flags);
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
	s->src_id = path->te->caps.src_id_writable ? cpu :
		    path->te->caps.src_id;
	if (cpumask_empty(&sink->active)) {
		err = shared_sink_start(sink, path);
		if (err)
			goto out;
	}
	for (i = path->nr_funnels - 1; i >= 0; i--) {
		struct ntrace_funnel *f = path->funnel[i];

		if (ntrace_funnel_attach(f, path->input[i]))
			ntrace_tci_failed(f->dev, &f->failed,
					  "trFunnelEnable does not read 1");
	}
	ntrace_encoder_enable(path->te, prog);
	cpumask_set_cpu(cpu, &sink->active);
out:
	raw_spin_unlock_irqrestore(&sink->lock, flags);
	return err;
}

/*
 * cpu stops tracing into sink (its last path's sink): drain the sink
 * and hand cpu's staged trace to
 * emit(ctx, buf, len, lost) with the lock held. Interrupts off, on cpu.
 * The other sources go on tracing.
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
		shared_drain(sink, cpu);
		cpumask_clear_cpu(cpu, &sink->active);
		for (i = 0; i < s->path.nr_funnels; i++) {
			struct ntrace_funnel *f = s->path.funnel[i];

			if (ntrace_funnel_detach(f, s->path.input[i])) {
				sink->upstream_stale = true;
				ntrace_tci_failed(f->dev, &f->failed,
						  "trFunnelEmpty stays 0 after disabling: trace does not flush");
			}
		}
	}
	emit(ctx, s->stage, s->len, s->lost);
	s->len = 0;
	s->lost = false;
	s->full = false;
	raw_spin_unlock_irqrestore(&sink->lock, flags);
}
