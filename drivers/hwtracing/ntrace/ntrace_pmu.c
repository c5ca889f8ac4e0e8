// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: the "ntrace" perf AUX PMU. Each CPU with an encoder -> RAM sink
 * path traces into the event's AUX area: directly, the sink writing a
 * window of it (direct mode, where the sink is the CPU's own, in system
 * memory, and the AUX area's memory allows: ntrace_window.c), or into the
 * sink's own buffer, copied into the AUX area (copy mode). The trace goes
 * into an AUX record when the event stops (context switch, disable) and
 * from a per-CPU hrtimer while it runs, since the sink cannot interrupt.
 * A drain stops and restarts the encoder (the Trace Control Interface
 * forbids moving a capturing sink's window), so the AUX record starts
 * with an N-Trace synchronisation message and decodes on its own; except
 * that in direct mode a timed drain that leaves room in the window only
 * publishes what the sink wrote, as a record flagged NTRACE_AUX_FLAG_CONT
 * that continues the last one (ntrace_peek()).
 *
 * A per-CPU (perf record -a) event stays scheduled across task switches,
 * so the CPU's trace would mix processes. Such an event owns a kernel
 * counter of the CPU's context switches whose overflow handler (every
 * switch, in the outgoing task's context) drains the sink: each AUX record
 * then holds one task's trace, and its sample_id (pid, tid, time, cpu)
 * names that task. A per-task event is cut at a switch by ->del(), or,
 * when perf swaps the contexts of two tasks instead, in ->pmu_enable().
 */
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

#include "ntrace.h"

static unsigned int drain_us = 4000;
module_param(drain_us, uint, 0644);
MODULE_PARM_DESC(drain_us, "period of draining a running trace into the AUX buffer, us (100..1000000), for a sink of 256 KiB or more; shorter for a smaller sink");

/* The sink size drain_us is meant for: smaller sinks fill sooner. */
#define DRAIN_REF_SIZE		SZ_256K
#define DRAIN_MIN_US		100u
#define DRAIN_MAX_US		1000000u

static bool direct = true;
module_param(direct, bool, 0644);
MODULE_PARM_DESC(direct, "let a CPU's own SMEM sink write the AUX area itself where its memory allows (default on; off: copy through the sink's buffer)");

static bool peek = true;
module_param(peek, bool, 0644);
MODULE_PARM_DESC(peek, "direct mode: a timed drain publishes what the sink wrote and leaves it capturing, stopping it only to give it a new window when this one is nearly full (default on; off: every drain stops the encoder)");

static bool switch_drain = true;
module_param(switch_drain, bool, 0644);
MODULE_PARM_DESC(switch_drain, "per-CPU events: drain at every context switch, so that each AUX record is one task's trace (default on)");

/* Idle bytes (all MSEO 3, no message): fill the AUX area where no trace is. */
/* The AUX area of one event, as perf allocated it. */
struct ntrace_aux {
	void **pages;
	int nr_pages;
	bool snapshot;
	struct ntrace_aux_map *map;	/* its physical memory */
};

/* Per event: what to program. */
struct ntrace_event {
	struct perf_event *switches;	/* per-CPU event: context switch counter */
	struct ntrace_prog prog;
	unsigned int nr_ranges;
	struct ntrace_range ranges[NTRACE_MAX_RANGES];
};

struct ntrace_cpu {
	struct perf_output_handle handle;
	struct hrtimer timer;
	struct perf_event *event;
	/* per-task event: the task its context had when tracing started */
	const struct task_struct *task;
	struct ntrace_prog prog;	/* as programmed */
	bool active;			/* hardware is tracing */
	struct ntrace_sink *shared;	/* tracing into this shared sink */
	size_t emitted;			/* bytes the last shared drain gave */
	bool fits;			/* and they fitted */
	bool direct;			/* the sink writes the AUX area: win */
	struct ntrace_window win;
	size_t published;		/* of win (with its pad), by peeks */
	/* drains and their bytes, per mode (the PMU's "drains" file) */
	u64 drains[2];
	u64 bytes[2];
	u64 peeks;			/* direct drains that left it running */
	u64 fill;			/* idle bytes put before windows */
	u64 ns;				/* in start, stop, drains (local_clock) */
};

static DEFINE_PER_CPU(struct ntrace_cpu, ntrace_cpus);
static struct pmu ntrace_pmu;
static bool pmu_registered;

/* Only this CPU writes them, interrupts off; sysfs reads them racily. */
static void drain_count(struct ntrace_cpu *nc, bool direct, size_t len)
{
	WRITE_ONCE(nc->drains[direct], nc->drains[direct] + 1);
	WRITE_ONCE(nc->bytes[direct], nc->bytes[direct] + len);
}

/* The driver's time on this CPU since t0 (what make bench weighs). */
static void time_count(struct ntrace_cpu *nc, u64 t0)
{
	WRITE_ONCE(nc->ns, nc->ns + local_clock() - t0);
}

ssize_t ntrace_pmu_drains_show(char *page)
{
	ssize_t len = 0;
	int cpu;

	for_each_cpu(cpu, ntrace_path_cpus()) {
		const struct ntrace_cpu *nc = per_cpu_ptr(&ntrace_cpus, cpu);

		len += sysfs_emit_at(page, len,
				     "cpu%d direct=%llu direct_bytes=%llu copy=%llu copy_bytes=%llu peeks=%llu ns=%llu fill=%llu\n",
				     cpu, READ_ONCE(nc->drains[1]),
				     READ_ONCE(nc->bytes[1]),
				     READ_ONCE(nc->drains[0]),
				     READ_ONCE(nc->bytes[0]),
				     READ_ONCE(nc->peeks), READ_ONCE(nc->ns),
				     READ_ONCE(nc->fill));
	}
	return len;
}

/*
 * The drain period of cpu: drain_us (writable: the next period takes a
 * new value) for a sink buffer of DRAIN_REF_SIZE, in proportion for a
 * smaller one (a 64 KiB SRAM sink: a quarter) and for a direct window of
 * any size, so that each gets as far from full at the same trace rate.
 */
static ktime_t drain_period(const struct ntrace_cpu *nc, int cpu)
{
	struct ntrace_sink *sink = ntrace_path_sink(cpu);
	u64 us = clamp(READ_ONCE(drain_us), DRAIN_MIN_US, DRAIN_MAX_US);

	if (nc->direct)
		us = us * nc->win.len / DRAIN_REF_SIZE;
	else if (sink && sink->buf_size < DRAIN_REF_SIZE)
		us = us * sink->buf_size / DRAIN_REF_SIZE;
	us = clamp_t(u64, us, DRAIN_MIN_US, DRAIN_MAX_US);
	return ns_to_ktime(us * NSEC_PER_USEC);
}

/*
 * Why cpu's sink cannot write an AUX area mapped by m directly, or NULL
 * if it can (the window may still not fit a given head: then a copy).
 */
static const char *direct_refused(int cpu, const struct ntrace_aux_map *m,
				  bool snapshot)
{
	const struct ntrace_path *p = ntrace_path(cpu);

	if (!READ_ONCE(direct))
		return "module parameter direct=0";
	if (!p || !p->sink)
		return "no path";
	if (p->nr_funnels)
		return "sink shared through funnels";
	if (p->sink->sram)
		return "SRAM sink";
	if (!p->sink->any_window)
		return "sink takes no arbitrary window or does not stop on wrap";
	if (!m)
		return "no memory map";
	if (snapshot && m->nr_runs != 1)
		return "snapshot area not contiguous";
	return NULL;
}

/* The physical memory of an AUX area, in runs of contiguous pages. */
static struct ntrace_aux_map *aux_map_build(void **pages, int nr_pages,
					    int node)
{
	struct ntrace_aux_map *m;
	unsigned int runs = 1;
	int i;

	for (i = 1; i < nr_pages; i++)
		runs += virt_to_phys(pages[i]) !=
			virt_to_phys(pages[i - 1]) + PAGE_SIZE;
	m = kzalloc_node(struct_size(m, runs, runs), GFP_KERNEL, node);
	if (!m)
		return NULL;
	m->max_runs = runs;
	for (i = 0; i < nr_pages; i++)
		ntrace_aux_map_add(m, (size_t)i << PAGE_SHIFT,
				   virt_to_phys(pages[i]), PAGE_SIZE);
	return m;
}

static void *ntrace_setup_aux(struct perf_event *event, void **pages,
			      int nr_pages, bool snapshot)
{
	int cpu = event->cpu == -1 ? raw_smp_processor_id() : event->cpu;
	int node = cpu_to_node(cpu);
	struct ntrace_aux *aux;
	struct ntrace_sink *sink;
	const char *why, *part = "";

	if (nr_pages < 1 || !is_power_of_2(nr_pages))
		return NULL;
	aux = kzalloc_node(sizeof(*aux), GFP_KERNEL, node);
	if (!aux)
		return NULL;
	aux->pages = kcalloc_node(nr_pages, sizeof(*pages), GFP_KERNEL, node);
	if (!aux->pages) {
		kfree(aux);
		return NULL;
	}
	memcpy(aux->pages, pages, nr_pages * sizeof(*pages));
	aux->nr_pages = nr_pages;
	aux->snapshot = snapshot;
	aux->map = aux_map_build(pages, nr_pages, node);
	why = direct_refused(cpu, aux->map, snapshot);
	sink = ntrace_path_sink(cpu);
	/* ntrace_sink_arm() copies where a run ends before the sink's buffer */
	if (!why && sink && aux->map->nr_runs > 1 &&
	    ntrace_aux_map_longest(aux->map) < sink->buf_size)
		part = ", copy mode where a run ends within the sink's buffer";
	/* a per-task event: as its first CPU's path (they may differ) */
	pr_info_ratelimited("ntrace: %s%sAUX area of %d KiB in %u run(s) of contiguous memory: %s%s%s (CPU %d's path)\n",
			    event->cpu == -1 ? "per-task " : "",
			    snapshot ? "snapshot " : "",
			    nr_pages << (PAGE_SHIFT - 10),
			    aux->map ? aux->map->nr_runs : 0,
			    why ? "copy mode, " : "direct mode", why ?: "", part, cpu);
	return aux;
}

static void ntrace_free_aux(void *data)
{
	struct ntrace_aux *aux = data;

	kfree(aux->map);
	kfree(aux->pages);
	kfree(aux);
}

/*
 * Where byte position head of the AUX ring lies, and how many of the len
 * bytes from there (*n) fit before the end of its page.
 */
static void *aux_at(struct ntrace_aux *aux, unsigned long head, size_t len,
		    size_t *n)
{
	size_t off = head & (((size_t)aux->nr_pages << PAGE_SHIFT) - 1);

	*n = min(len, PAGE_SIZE - offset_in_page(off));
	return aux->pages[off >> PAGE_SHIFT] + offset_in_page(off);
}

/* Copy len bytes of src into the AUX ring at byte position head. */
static void aux_write(struct ntrace_aux *aux, unsigned long head,
		      const u8 *src, size_t len)
{
	size_t n;

	for (; len; head += n, src += n, len -= n)
		memcpy(aux_at(aux, head, len, &n), src, n);
}

/*
 * Fill len bytes of the AUX ring from head with the idle pattern (the
 * bytes before a window or a copy), counted in the drains file.
 */
static void aux_fill_idle(struct ntrace_cpu *nc, struct ntrace_aux *aux,
			  unsigned long head, size_t len)
{
	size_t n;

	WRITE_ONCE(nc->fill, nc->fill + len);
	for (; len; head += n, len -= n)
		memset(aux_at(aux, head, len, &n), 0xff, n);
}

/* Copy len bytes of the sink's buffer from r into the AUX ring at head. */
static void aux_write_sink(struct ntrace_aux *aux, unsigned long head,
			   struct ntrace_sink_reader *r, size_t len)
{
	size_t n;

	for (; len; head += n, len -= n)
		ntrace_sink_read(r, aux_at(aux, head, len, &n), n);
}

/*
 * Called by ntrace_shared_stop() with the sink's lock held: copy this
 * CPU's staged messages into the AUX area (the transaction ends after).
 */
static void ntrace_emit(void *ctx, const u8 *buf, size_t len, bool lost)
{
	struct ntrace_cpu *nc = ctx;
	struct perf_output_handle *h = &nc->handle;
	struct ntrace_aux *aux = perf_get_aux(h);
	size_t size, skip = 0;

	nc->emitted = 0;
	nc->fits = true;
	if (!aux)
		return;
	size = (size_t)aux->nr_pages << PAGE_SHIFT;
	if (aux->snapshot) {
		if (len > size)
			skip = len - size;
	} else if (len > h->size) {
		/* whole messages: the record still frames */
		len = ntrace_msgs_fit(buf, len, h->size);
		nc->fits = false;
		perf_aux_output_flag(h, PERF_AUX_FLAG_TRUNCATED);
	}
	len -= skip;
	aux_write(aux, h->head, buf + skip, len);
	if (lost)
		perf_aux_output_flag(h, PERF_AUX_FLAG_PARTIAL);
	if (aux->snapshot)
		h->head += len;
	nc->emitted = len;
}

/* ntrace_drain() of a CPU whose sink is shared through funnels */
static bool ntrace_drain_shared(struct ntrace_cpu *nc, int cpu)
{
	struct perf_output_handle *h = &nc->handle;

	ntrace_shared_stop(cpu, nc->shared, ntrace_emit, nc);
	nc->active = false;
	nc->shared = NULL;
	if (!perf_get_aux(h))
		return true;
	drain_count(nc, false, nc->emitted);
	perf_aux_output_end(h, nc->emitted);
	return nc->fits;
}

/*
 * Direct mode: the trace is in the AUX area already, from the window's
 * start (idle bytes before it to the head) or from where the last peek
 * ended; end the AUX transaction with its length. lost: the encoder
 * overflowed or did not flush.
 */
static bool ntrace_publish_direct(struct ntrace_cpu *nc,
				  struct ntrace_aux *aux,
				  const struct ntrace_drain *d, bool lost)
{
	struct perf_output_handle *h = &nc->handle;
	const struct ntrace_window *w = &nc->win;
	size_t size = aux->map->size, len, wp;
	bool fits = true;

	if (aux->snapshot) {
		/*
		 * The window is the ring: written from w->off to wp, once
		 * round at least if it wrapped past w->off (the newest
		 * size bytes before the head are the snapshot).
		 */
		wp = d->wrapped ? d->head : d->len;
		len = w->pad + (wp + size - w->off) % size;
		if (d->wrapped && wp >= w->off)
			len += size;
		h->head += len;
		len = min(len, size);
	} else {
		/* a sink that failed reads empty: nothing more then */
		len = w->pad + d->len;
		len = len > nc->published ? len - nc->published : 0;
		if (nc->published)
			perf_aux_output_flag(h, NTRACE_AUX_FLAG_CONT);
		if (d->wrapped && w->to_room) {
			/* the free space is full: as a copy that did not fit */
			perf_aux_output_flag(h, PERF_AUX_FLAG_TRUNCATED);
			fits = false;
		} else if (d->wrapped) {
			/* stopped at the end of a run: lost until now */
			lost = true;
		}
	}
	if (lost)
		perf_aux_output_flag(h, PERF_AUX_FLAG_PARTIAL);
	drain_count(nc, true, len);
	perf_aux_output_end(h, len);
	return fits;
}

/*
 * Stop the hardware, copy what the sink holds into the AUX area (unless
 * the sink wrote it there) and end the AUX transaction. Returns false
 * when data did not fit (the event is then disabled by perf:
 * PERF_AUX_FLAG_TRUNCATED).
 */
static bool ntrace_drain(struct ntrace_cpu *nc, int cpu)
{
	struct perf_output_handle *h = &nc->handle;
	struct ntrace_sink *sink = ntrace_path_sink(cpu);
	struct ntrace_aux *aux = perf_get_aux(h);
	struct ntrace_drain d = { };
	size_t size, len, skip = 0, pad = 0;
	bool overflow = false, fits = true;
	int err;

	if (nc->shared)
		return ntrace_drain_shared(nc, cpu);
	err = ntrace_encoder_disable(ntrace_path_encoder(cpu), &nc->prog,
				     &overflow);
	err |= ntrace_sink_disable(sink, &d);
	nc->active = false;
	/* the encoder could not deliver, and the sink wrote nothing */
	if (overflow && !d.len && !d.wrapped)
		ntrace_tci_failed(sink->dev, &sink->failed,
				  "trRamWP does not move while its encoder overflows");
	if (!aux)
		return true;
	if (nc->direct)
		return ntrace_publish_direct(nc, aux, &d, overflow || err);

	size = (size_t)aux->nr_pages << PAGE_SHIFT;
	len = d.len;
	if (aux->snapshot) {
		/* Overwrite mode: keep the newest bytes. */
		if (len > size)
			skip = len - size;
	} else if (len > h->size) {
		skip = 0;
		len = h->size;
		fits = false;
		perf_aux_output_flag(h, PERF_AUX_FLAG_TRUNCATED);
	}
	len -= skip;
	/*
	 * memcpy() copies words only between addresses alike modulo a word
	 * (RISC-V's copies byte by byte otherwise, about five times the
	 * instructions): idle bytes put the AUX head in line with the
	 * sink's buffer. A record starts at a message, after idle or not.
	 */
	if (len && !sink->sram && !aux->snapshot) {
		pad = (d.head + skip - h->head) & (sizeof(long) - 1);
		if (len + pad <= h->size)
			aux_fill_idle(nc, aux, h->head, pad);
		else
			pad = 0;
	}
	/*
	 * The sink's ring starts at d.head. Only what goes into the AUX area
	 * is read: with interrupts off, an SRAM sink costs a register read
	 * per word (at most the SRAM's size, less when the AUX area is).
	 */
	if (len) {
		struct ntrace_sink_reader r;

		ntrace_sink_read_start(&r, sink,
				       (d.head + skip) % sink->buf_size);
		aux_write_sink(aux, h->head + pad, &r, len);
	}
	len += pad;
	if (overflow || d.wrapped || err)
		perf_aux_output_flag(h, PERF_AUX_FLAG_PARTIAL);
	if (aux->snapshot)
		h->head += len;
	drain_count(nc, false, len);
	perf_aux_output_end(h, len);
	return fits;
}

/*
 * Start cpu's own sink: on a window of the AUX area (direct mode) where
 * it can, else on its buffer. The window starts at a word: idle bytes
 * fill the AUX area from the head up to it. A window that the end of a
 * run of memory makes shorter than the sink's buffer would fill sooner
 * than the buffer and lose trace the copy would keep: the stretch to that
 * end is filled with idle bytes too (a memset, cheaper than copying it)
 * and the window starts in the next run; where that one is short as well,
 * the trace goes through the buffer.
 */
static int ntrace_sink_arm(struct ntrace_cpu *nc, int cpu)
{
	struct ntrace_sink *sink = ntrace_path_sink(cpu);
	struct perf_output_handle *h = &nc->handle;
	struct ntrace_aux *aux = perf_get_aux(h);

	nc->direct = false;
	if (aux && !direct_refused(cpu, aux->map, aux->snapshot) &&
	    !ntrace_aux_window_min(aux->map, h->head, h->size, aux->snapshot,
				   sink->min_addr, sink->max_addr,
				   sink->buf_size, &nc->win) &&
	    !ntrace_sink_enable_at(sink, &nc->win, !aux->snapshot)) {
		aux_fill_idle(nc, aux, h->head, nc->win.pad);
		nc->direct = true;
		nc->published = 0;
		return 0;
	}
	return ntrace_sink_enable(sink);
}

static void ntrace_hw_start(struct ntrace_cpu *nc, int cpu,
			    struct perf_event *event)
{
	const struct ntrace_event *ev = event->pmu_private;
	const struct ntrace_path *p = ntrace_path(cpu);
	struct ntrace_encoder *te = p->te;

	nc->task = READ_ONCE(event->ctx->task);
	nc->direct = false;
	nc->prog = ev->prog;
	nc->prog.nr_ranges = ev->nr_ranges;
	/* encoders sharing a sink: SRC in every message, trTeSrcID = cpu */
	if (p->nr_funnels)
		nc->prog.src = true;
	ntrace_encoder_program(te, &nc->prog, ev->ranges);
	if (p->nr_funnels) {
		if (ntrace_shared_start(cpu, p, &nc->prog)) {
			pr_warn_ratelimited("ntrace: CPU %d: shared sink busy, not tracing\n",
					    cpu);
			return;
		}
		nc->shared = p->sink;
		nc->active = true;
		return;
	}
	if (ntrace_sink_arm(nc, cpu)) {
		pr_warn_ratelimited("ntrace: CPU %d: sink busy, not tracing\n",
				    cpu);
		return;
	}
	ntrace_encoder_enable(te, &nc->prog);
	nc->active = true;
}

/*
 * After a TRUNCATED record perf disables the event from irq_work; a
 * context switch before that starts it again with the few bytes the
 * record left. Less than a page is no room for a record: end it at once,
 * empty and TRUNCATED, as that one ended (not a second cut-off record).
 */
static bool ntrace_aux_full(struct perf_output_handle *h)
{
	struct ntrace_aux *aux = perf_get_aux(h);

	if (aux->snapshot || h->size >= PAGE_SIZE)
		return false;
	perf_aux_output_flag(h, PERF_AUX_FLAG_TRUNCATED);
	perf_aux_output_end(h, 0);
	return true;
}

/*
 * A component of this CPU's path failed in the drain just done (the
 * record it ended is flagged PARTIAL): end the event as when its path
 * goes away, with an empty record flagged TRUNCATED as well.
 */
static bool ntrace_path_broke(struct ntrace_cpu *nc)
{
	if (!ntrace_path_failed(smp_processor_id()))
		return false;
	perf_aux_output_flag(&nc->handle, PERF_AUX_FLAG_TRUNCATED |
			     PERF_AUX_FLAG_PARTIAL);
	perf_aux_output_end(&nc->handle, 0);
	return true;
}

/*
 * Move what the sink holds into the AUX area (one AUX record, written in
 * the context of the task that is current) and go on tracing into a new
 * AUX transaction. Interrupts off. False when the event had to stop.
 */
static bool ntrace_cut(struct ntrace_cpu *nc, struct perf_event *event)
{
	int cpu = smp_processor_id();

	if (!ntrace_drain(nc, cpu) ||
	    !perf_aux_output_begin(&nc->handle, event) ||
	    ntrace_aux_full(&nc->handle) || ntrace_path_broke(nc)) {
		/* stopped for good: nothing here may use the event any more */
		event->hw.state |= PERF_HES_STOPPED;
		nc->event = NULL;
		return false;
	}
	ntrace_hw_start(nc, cpu, event);
	return true;
}

/*
 * Direct mode, at a timed drain: publish what the sink wrote since the
 * last record as a record that continues it (NTRACE_AUX_FLAG_CONT), and
 * leave encoder and sink running: the encoder inserts no sync, the sink
 * flushes nothing. The window cannot move while the sink captures (see
 * ntrace_sink_written()), so when what is left of it would not hold twice
 * what came since the last drain, false: the caller stops and re-arms.
 * Interrupts off.
 */
static bool ntrace_peek(struct ntrace_cpu *nc, struct perf_event *event)
{
	struct perf_output_handle *h = &nc->handle;
	const struct ntrace_window *w = &nc->win;
	struct ntrace_aux *aux = perf_get_aux(h);
	int cpu = smp_processor_id();
	size_t len, n;

	if (!READ_ONCE(peek) || !nc->direct || !aux || aux->snapshot ||
	    ntrace_sink_written(ntrace_path_sink(cpu), &len))
		return false;
	n = w->pad + len - nc->published;
	/* what came since the last drain: not the idle bytes before it */
	if (w->len - len < 2 * (nc->published ? n : len) + PAGE_SIZE)
		return false;
	if (!n)
		return true;
	if (nc->published)
		perf_aux_output_flag(h, NTRACE_AUX_FLAG_CONT);
	drain_count(nc, true, n);
	WRITE_ONCE(nc->peeks, nc->peeks + 1);
	perf_aux_output_end(h, n);
	nc->published += n;
	/* the window lies in the free space that remains: room for it */
	if (!perf_aux_output_begin(h, event)) {
		/* the event is going away: stop, with no AUX area to fill */
		ntrace_drain(nc, cpu);
		event->hw.state |= PERF_HES_STOPPED;
		nc->event = NULL;
		return false;
	}
	return true;
}

/*
 * A sink writing a snapshot ring directly needs no drain until the
 * snapshot: it overwrites its oldest trace, as the ring should.
 */
static bool ntrace_drains(struct ntrace_cpu *nc)
{
	struct ntrace_aux *aux = perf_get_aux(&nc->handle);

	return !(nc->direct && aux && aux->snapshot);
}

static enum hrtimer_restart ntrace_timer(struct hrtimer *t)
{
	struct ntrace_cpu *nc = container_of(t, struct ntrace_cpu, timer);
	struct perf_event *event = nc->event;
	u64 t0 = local_clock();
	bool again;

	if (!nc->active || !event || !ntrace_drains(nc))
		return HRTIMER_NORESTART;
	again = ntrace_peek(nc, event) || (nc->event && ntrace_cut(nc, event));
	if (again)
		hrtimer_forward_now(t, drain_period(nc, smp_processor_id()));
	time_count(nc, t0);
	return again ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/*
 * Overflow handler of a per-CPU event's context-switch counter: called by
 * the scheduler (perf_event_task_sched_out(), interrupts off) on the
 * event's CPU with the outgoing task current, before the switch. The
 * hrtimer cannot run meanwhile: it is pinned to this CPU.
 */
static void ntrace_switch_out(struct perf_event *sw,
			      struct perf_sample_data *data,
			      struct pt_regs *regs)
{
	struct ntrace_cpu *nc = this_cpu_ptr(&ntrace_cpus);
	struct perf_event *event = nc->event;
	u64 t0 = local_clock();

	/*
	 * Implicit return by call counting (a SiFive v0 encoder's only kind)
	 * cannot see that the next task returns elsewhere: its encoder
	 * starts afresh, with an empty counter, at every switch.
	 */
	bool counting = nc->prog.iret_mode == TCI_TE_IRET_MODE_COUNT;

	if ((!READ_ONCE(switch_drain) && !counting) || !nc->active || !event ||
	    (event->attach_state & PERF_ATTACH_TASK))
		return;
	ntrace_cut(nc, event);
	time_count(nc, t0);
}

/*
 * A per-CPU event counts its CPU's context switches with a sampling
 * software counter (period 1): perf core offers a module no other hook
 * into the switch (the pmu::sched_task callback needs perf_sched_cb_inc(),
 * which is not exported). The first overflow of a switch is never
 * throttled.
 */
static int ntrace_switch_counter(struct perf_event *event,
				 struct ntrace_event *ev)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CONTEXT_SWITCHES,
		.sample_period = 1,
		.pinned = 1,
	};
	struct perf_event *sw;

	if (event->cpu < 0 || (event->attach_state & PERF_ATTACH_TASK))
		return 0;
	sw = perf_event_create_kernel_counter(&attr, event->cpu, NULL,
					      ntrace_switch_out, NULL);
	if (IS_ERR(sw))
		return PTR_ERR(sw);
	ev->switches = sw;
	return 0;
}

/*
 * The event's path is gone (a component unbound): end the event the way
 * CoreSight ends one whose path fails, with an empty AUX record flagged
 * PERF_AUX_FLAG_TRUNCATED, on which perf disables the event and wakes its
 * reader (perf record reports the lost AUX data).
 */
static void ntrace_path_lost(struct ntrace_cpu *nc, struct perf_event *event)
{
	if (!perf_aux_output_begin(&nc->handle, event))
		return;
	perf_aux_output_flag(&nc->handle, PERF_AUX_FLAG_TRUNCATED);
	perf_aux_output_end(&nc->handle, 0);
}

static void ntrace_pmu_start(struct perf_event *event, int flags)
{
	struct ntrace_cpu *nc = this_cpu_ptr(&ntrace_cpus);
	int cpu = smp_processor_id();

	/* the path went away (unbind) after ->add(), or is broken */
	if (!ntrace_path_encoder(cpu) || ntrace_path_failed(cpu)) {
		ntrace_path_lost(nc, event);
		event->hw.state |= PERF_HES_STOPPED;
		return;
	}
	if (!perf_aux_output_begin(&nc->handle, event) ||
	    ntrace_aux_full(&nc->handle)) {
		event->hw.state |= PERF_HES_STOPPED;
		return;
	}
	event->hw.state = 0;
	nc->event = event;
	/*
	 * New or remapped address filters -> ntrace_addr_filters_sync().
	 * perf bumps the generation, then restarts the event (an IPI to this
	 * CPU): an unchanged one needs no lock at every switch-in.
	 */
	if (READ_ONCE(event->addr_filters_gen) != event->hw.addr_filters_gen)
		perf_event_addr_filters_sync(event);
	ntrace_hw_start(nc, cpu, event);
	if (ntrace_drains(nc))
		hrtimer_start(&nc->timer, drain_period(nc, cpu),
			      HRTIMER_MODE_REL_PINNED_HARD);
}

static void ntrace_pmu_stop(struct perf_event *event, int flags)
{
	struct ntrace_cpu *nc = this_cpu_ptr(&ntrace_cpus);

	if (event->hw.state & PERF_HES_STOPPED) {
		/* never leave a pointer to an event that perf may free */
		if (nc->event == event)
			nc->event = NULL;
		return;
	}
	/* Same CPU, interrupts off: the callback cannot be running. */
	hrtimer_try_to_cancel(&nc->timer);
	if (perf_get_aux(&nc->handle) || nc->shared)
		ntrace_drain(nc, smp_processor_id());
	nc->event = NULL;
	event->hw.state |= PERF_HES_STOPPED;
}

/*
 * This CPU's path is going away (unbind): the trace so far goes into the
 * AUX area, then the event ends (ntrace_path_lost()). IRQs off.
 */
void ntrace_pmu_stop_local(void)
{
	struct ntrace_cpu *nc = this_cpu_ptr(&ntrace_cpus);
	struct perf_event *event = nc->event;

	if (!event)
		return;
	ntrace_pmu_stop(event, 0);
	ntrace_path_lost(nc, event);
}

static int ntrace_pmu_add(struct perf_event *event, int flags)
{
	u64 t0 = local_clock();
	int err = 0;

	if (!ntrace_path_encoder(smp_processor_id()))
		return -ENOENT;
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START) {
		ntrace_pmu_start(event, PERF_EF_RELOAD);
		if (event->hw.state & PERF_HES_STOPPED)
			err = -EINVAL;
	}
	time_count(this_cpu_ptr(&ntrace_cpus), t0);
	return err;
}

static void ntrace_pmu_del(struct perf_event *event, int flags)
{
	u64 t0 = local_clock();

	ntrace_pmu_stop(event, PERF_EF_UPDATE);
	time_count(this_cpu_ptr(&ntrace_cpus), t0);
}

static void ntrace_pmu_read(struct perf_event *event)
{
}

/*
 * A running per-task event whose context now belongs to another task:
 * perf_event_context_sched_out() swapped the contexts of two equivalent
 * tasks (a parent and a child with inherited events) instead of calling
 * ->del() and ->add(). It sets ctx->task to the incoming task between
 * perf_ctx_disable() and perf_ctx_enable(), the outgoing one current.
 */
static bool ntrace_ctx_swapped(const struct ntrace_cpu *nc)
{
	const struct perf_event *event = nc->event;

	return nc->active && event && (event->attach_state & PERF_ATTACH_TASK) &&
	       READ_ONCE(event->ctx->task) != nc->task;
}

/* Nothing to hold: ntrace_pmu_enable() only looks for a swap. */
static void ntrace_pmu_disable(struct pmu *pmu)
{
}

/*
 * Called often (every context switch of a traced task): a few loads,
 * unless perf swapped contexts. Then the trace so far is the outgoing
 * task's: cut it into an AUX record in its name, as ->del() would.
 */
static void ntrace_pmu_enable(struct pmu *pmu)
{
	struct ntrace_cpu *nc = this_cpu_ptr(&ntrace_cpus);
	unsigned long flags;

	if (likely(!ntrace_ctx_swapped(nc)))
		return;
	/* ntrace_cut() wants them off: a caller may not have */
	local_irq_save(flags);
	if (ntrace_ctx_swapped(nc))
		ntrace_cut(nc, nc->event);
	local_irq_restore(flags);
}

static void ntrace_event_destroy(struct perf_event *event)
{
	struct ntrace_event *ev = event->pmu_private;

	if (ev && ev->switches)
		perf_event_release_kernel(ev->switches);
	kfree(ev);
	event->pmu_private = NULL;
}

static int ntrace_pmu_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	struct ntrace_event *ev;
	struct ntrace_prog prog;
	const char *why;
	int err;

	if (attr->type != event->pmu->type)
		return -ENOENT;
	if (cpumask_empty(ntrace_path_cpus()))
		return -ENODEV;		/* every component unbound */
	if (event->cpu >= 0 && !cpumask_test_cpu(event->cpu, ntrace_path_cpus()))
		return -ENOENT;
	err = ntrace_config_resolve(ntrace_path_caps(), attr->config,
				    attr->config1, attr->config2,
				    attr->exclude_user, attr->exclude_kernel,
				    0, &prog, &why);
	if (err) {
		pr_debug("ntrace: config %#llx refused: %s\n", attr->config, why);
		return err;
	}
	if (!attr->exclude_kernel) {
		err = perf_allow_kernel(attr);
		if (err)
			return err;
	}
	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	ev->prog = prog;
	err = ntrace_switch_counter(event, ev);
	if (err) {
		kfree(ev);
		return err;
	}
	event->pmu_private = ev;
	event->destroy = ntrace_event_destroy;
	return 0;
}

static int ntrace_addr_filters_validate(struct list_head *filters)
{
	struct perf_addr_filter *f;
	unsigned int n = 0;

	list_for_each_entry(f, filters, entry) {
		if (f->action != PERF_ADDR_FILTER_ACTION_FILTER)
			return -EOPNOTSUPP;	/* no start/stop triggers */
		if (!f->size)
			return -EINVAL;
		if (++n > ntrace_pmu.nr_addr_filters)
			return -EOPNOTSUPP;
	}
	return 0;
}

/* Called from ->start() through perf_event_addr_filters_sync(), locked. */
static void ntrace_addr_filters_sync(struct perf_event *event)
{
	struct perf_addr_filters_head *head = perf_event_addr_filters(event);
	struct perf_addr_filter_range *fr = event->addr_filter_ranges;
	struct ntrace_event *ev = event->pmu_private;
	struct perf_addr_filter *f;
	unsigned int i = 0;

	list_for_each_entry(f, &head->list, entry) {
		if (i >= NTRACE_MAX_RANGES)
			break;
		if (f->path.dentry && !fr[i].start) {
			/* object not mapped: a range that never matches */
			ev->ranges[i].start = 1;
			ev->ranges[i].end = 0;
		} else {
			ev->ranges[i].start = fr[i].start;
			ev->ranges[i].end = fr[i].start + fr[i].size - 1;
		}
		i++;
	}
	ev->nr_ranges = i;
}

static const struct attribute_group *ntrace_attr_groups[] = {
	&ntrace_pmu_group,
	&ntrace_format_group,
	&ntrace_caps_group,
	NULL,
};

/* per-CPU caps/ files, added to caps/ */
static const struct attribute_group *ntrace_attr_update[] = {
	&ntrace_cpu_caps_group,
	NULL,
};

static void ntrace_cpus_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ntrace_cpu *nc = per_cpu_ptr(&ntrace_cpus, cpu);

		hrtimer_init(&nc->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		nc->timer.function = ntrace_timer;
	}
}

int ntrace_pmu_register(void)
{
	int err;

	ntrace_cpus_init();
	err = ntrace_cpu_caps_init();
	if (err)
		return err;
	ntrace_pmu = (struct pmu) {
		.module = THIS_MODULE,
		.capabilities = PERF_PMU_CAP_EXCLUSIVE | PERF_PMU_CAP_ITRACE,
		.attr_groups = ntrace_attr_groups,
		.attr_update = ntrace_attr_update,
		.task_ctx_nr = perf_sw_context,
		.nr_addr_filters = ntrace_caps_nr_ranges(ntrace_path_caps()),
		.event_init = ntrace_pmu_event_init,
		.add = ntrace_pmu_add,
		.del = ntrace_pmu_del,
		.start = ntrace_pmu_start,
		.stop = ntrace_pmu_stop,
		.read = ntrace_pmu_read,
		.pmu_enable = ntrace_pmu_enable,
		.pmu_disable = ntrace_pmu_disable,
		.setup_aux = ntrace_setup_aux,
		.free_aux = ntrace_free_aux,
		.addr_filters_validate = ntrace_addr_filters_validate,
		.addr_filters_sync = ntrace_addr_filters_sync,
	};
	err = perf_pmu_register(&ntrace_pmu, NTRACE_PMU_NAME, -1);
	pmu_registered = !err;
	if (err)
		ntrace_cpu_caps_free();
	return err;
}

void ntrace_pmu_unregister(void)
{
	int cpu;

	if (!pmu_registered)
		return;
	perf_pmu_unregister(&ntrace_pmu);
	pmu_registered = false;
	ntrace_cpu_caps_free();
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&ntrace_cpus, cpu)->timer);
}
