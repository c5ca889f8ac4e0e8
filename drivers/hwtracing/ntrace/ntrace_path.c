// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: the registry of probed components and the per-CPU trace paths
 * (encoder -> funnels -> RAM sink) found by following each component's
 * out-ports graph endpoint to the component whose in-ports hold the remote
 * endpoint: a funnel (its port@N is input N) or a RAM sink (the end).
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/of_graph.h>
#include <linux/percpu.h>
#include <linux/ntrace_tci.h>
#include <linux/smp.h>
#include <linux/sysfs.h>

#include "ntrace.h"

static DEFINE_MUTEX(registry_lock);
static LIST_HEAD(encoders);
static LIST_HEAD(sinks);
static LIST_HEAD(funnels);

/*
 * paths: what the PMU uses, read only on the path's own CPU with
 * interrupts off (perf's add/start/stop and the drain timer) and changed
 * only there too (path_set_local()). next_*: the rebuild's scratch space.
 * All under registry_lock.
 */
static DEFINE_PER_CPU(struct ntrace_path, paths);
static DEFINE_PER_CPU(struct ntrace_path, next_paths);
static struct cpumask path_cpus, next_cpus;
static struct ntrace_caps path_caps, next_caps;
static size_t path_buf_size;
/* the modes of the sinks in use: "smem", "sram" or "mixed" */
static const char *path_sink_mode = "smem";
/* some CPU's path goes through a funnel: its messages carry SRC */
static bool path_src_required;
/* the PMU is registered: events may use the paths */
static bool paths_live;

static int paths_rebuild(void);

void ntrace_register_encoder(struct ntrace_encoder *te)
{
	cpus_read_lock();
	mutex_lock(&registry_lock);
	list_add_tail(&te->node, &encoders);
	paths_rebuild();
	mutex_unlock(&registry_lock);
	cpus_read_unlock();
}

/* On return no CPU traces with te any more. */
void ntrace_unregister_encoder(struct ntrace_encoder *te)
{
	cpus_read_lock();
	mutex_lock(&registry_lock);
	list_del(&te->node);
	paths_rebuild();
	mutex_unlock(&registry_lock);
	cpus_read_unlock();
}

void ntrace_register_funnel(struct ntrace_funnel *f)
{
	cpus_read_lock();
	mutex_lock(&registry_lock);
	list_add_tail(&f->node, &funnels);
	paths_rebuild();
	mutex_unlock(&registry_lock);
	cpus_read_unlock();
}

/* On return no path goes through f. */
void ntrace_unregister_funnel(struct ntrace_funnel *f)
{
	cpus_read_lock();
	mutex_lock(&registry_lock);
	list_del(&f->node);
	paths_rebuild();
	mutex_unlock(&registry_lock);
	cpus_read_unlock();
}

void ntrace_register_sink(struct ntrace_sink *sink)
{
	cpus_read_lock();
	mutex_lock(&registry_lock);
	list_add_tail(&sink->node, &sinks);
	paths_rebuild();
	mutex_unlock(&registry_lock);
	cpus_read_unlock();
}

/* On return no encoder writes into sink and its buffer is unused. */
void ntrace_unregister_sink(struct ntrace_sink *sink)
{
	cpus_read_lock();
	mutex_lock(&registry_lock);
	list_del(&sink->node);
	paths_rebuild();
	mutex_unlock(&registry_lock);
	cpus_read_unlock();
}

/*
 * The sink or funnel whose device node is np or one of its three closest
 * ancestors: a remote endpoint lies three levels below its component
 * (in-ports/port/endpoint), so four nodes are looked at.
 */
static void component_of_node(struct device_node *np,
			      struct ntrace_sink **sinkp,
			      struct ntrace_funnel **funnelp)
{
	struct device_node *n = of_node_get(np);
	struct ntrace_funnel *f;
	struct ntrace_sink *sink;
	int depth;

	*sinkp = NULL;
	*funnelp = NULL;
	for (depth = 0; n && depth < 4; depth++) {
		/* first: a SiFive v0 funnel's node is its sink's too */
		list_for_each_entry(f, &funnels, node)
			if (f->dev->of_node == n) {
				*funnelp = f;
				goto out;
			}
		/*
		 * An embedded sink is reached through its encoder or funnel
		 * only: while a SiFive v0 funnel is bound or unbound, its
		 * sink is registered without it, and would give the first
		 * encoder found a path that bypasses the funnel (nr_funnels
		 * 0), taken by that CPU's running event.
		 */
		list_for_each_entry(sink, &sinks, node)
			if (sink->dev->of_node == n && !sink->embedded) {
				*sinkp = sink;
				goto out;
			}
		n = of_get_next_parent(n);
	}
out:
	of_node_put(n);
}

/* The remote endpoint of the first endpoint of np's out-ports, or NULL. */
static struct device_node *out_remote(struct device_node *np)
{
	struct device_node *ports, *ep, *remote;

	ports = of_get_child_by_name(np, "out-ports");
	if (!ports)
		return NULL;
	ep = of_graph_get_next_endpoint(ports, NULL);
	of_node_put(ports);
	if (!ep)
		return NULL;
	remote = of_graph_get_remote_endpoint(ep);
	of_node_put(ep);
	return remote;
}

/*
 * Follow te's output through funnels to a sink (one in the encoder's or a
 * funnel's own register block ends it there). False (p undefined) when
 * the chain is incomplete: a component not bound, an input the funnel
 * does not have, or more than NTRACE_MAX_FUNNELS funnels (a loop).
 * Caller holds registry_lock.
 */
static bool path_of_encoder(struct ntrace_encoder *te, struct ntrace_path *p)
{
	struct device_node *np = te->dev->of_node, *remote;
	struct of_endpoint ep;
	struct ntrace_funnel *f;
	struct ntrace_sink *sink;

	memset(p, 0, sizeof(*p));
	p->te = te;
	p->sink = te->sink;
	if (p->sink)
		return true;
	for (;;) {
		remote = out_remote(np);
		if (!remote)
			return false;
		component_of_node(remote, &sink, &f);
		if (f && of_graph_parse_endpoint(remote, &ep))
			f = NULL;
		of_node_put(remote);
		if (sink) {
			p->sink = sink;
			return true;
		}
		if (!f || p->nr_funnels == NTRACE_MAX_FUNNELS)
			return false;
		if (ep.port >= TCI_FUNNEL_MAX_INPUTS ||
		    !(f->inputs & BIT(ep.port))) {
			dev_warn(f->dev, "input %u (port@%u) does not exist (trFunnelDisInput %#x)\n",
				 ep.port, ep.port, f->inputs);
			return false;
		}
		p->funnel[p->nr_funnels] = f;
		p->input[p->nr_funnels++] = ep.port;
		p->sink = f->sink;
		if (p->sink)
			return true;
		np = f->dev->of_node;
	}
}

/*
 * On the CPU whose path changes, interrupts off: end the trace that runs
 * on the old path (its data goes into the AUX area, the event stays
 * stopped), then switch. perf cannot add or start an event here meanwhile.
 */
static void path_set_local(void *info)
{
	const struct ntrace_path *next = info;
	struct ntrace_path *p = this_cpu_ptr(&paths);

	if (p->te)
		ntrace_pmu_stop_local();
	*p = *next;
}

/*
 * The messages of te, whose source ID is fixed, could not be told from
 * those of a CPU already sharing sink (same SRC). Under registry_lock.
 */
static bool src_id_taken(const struct ntrace_encoder *te,
			 const struct ntrace_sink *sink)
{
	const struct ntrace_path *p;
	int cpu;

	for_each_cpu(cpu, &next_cpus) {
		p = per_cpu_ptr(&next_paths, cpu);
		if (p->sink == sink &&
		    (p->te->caps.src_id_writable ? cpu : p->te->caps.src_id) ==
		    te->caps.src_id)
			return true;
	}
	return false;
}

/*
 * Find every encoder's path in next_paths. A sink reached straight from
 * an encoder serves that encoder only; encoders share a sink through
 * funnels, each with its own source ID. Returns the number of CPUs with a
 * path.
 */
static int paths_pair(void)
{
	struct ntrace_encoder *te;
	struct ntrace_path path, *p;
	int cpu, n = 0;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&next_paths, cpu), 0, sizeof(*p));
	cpumask_clear(&next_cpus);
	memset(&next_caps, 0, sizeof(next_caps));
	list_for_each_entry(te, &encoders, node) {
		if (!path_of_encoder(te, &path)) {
			dev_dbg(te->dev, "no path to a RAM sink: CPU %d not traced\n",
				te->cpu);
			continue;
		}
		for_each_cpu(cpu, &next_cpus) {
			p = per_cpu_ptr(&next_paths, cpu);
			if (p->sink == path.sink &&
			    (!p->nr_funnels || !path.nr_funnels))
				break;
		}
		if (cpu < nr_cpu_ids || cpumask_test_cpu(te->cpu, &next_cpus)) {
			dev_warn(te->dev, "sink %s (not behind a funnel) or CPU %d already in a path\n",
				 dev_name(path.sink->dev), te->cpu);
			continue;
		}
		if (path.nr_funnels && !te->caps.src_bits) {
			dev_warn(te->dev, "behind a funnel but without a source ID: CPU %d not traced\n",
				 te->cpu);
			continue;
		}
		if (path.nr_funnels && !te->caps.src_id_writable &&
		    src_id_taken(te, path.sink)) {
			dev_warn(te->dev, "source ID %u already used on sink %s: CPU %d not traced\n",
				 te->caps.src_id, dev_name(path.sink->dev),
				 te->cpu);
			continue;
		}
		if (n && te->caps.variant != next_caps.variant) {
			dev_warn(te->dev, "speaks another N-Trace variant than the other encoders: CPU %d not traced\n",
				 te->cpu);
			continue;
		}
		if (path.nr_funnels &&
		    ntrace_shared_prepare(te->cpu, path.sink))
			continue;
		p = per_cpu_ptr(&next_paths, te->cpu);
		*p = path;
		if (!n++)
			next_caps = te->caps;
		else
			ntrace_caps_intersect(&next_caps, &te->caps);
		cpumask_set_cpu(te->cpu, &next_cpus);
	}
	return n;
}

/*
 * Make the paths match the registry: a component that arrives (probe,
 * sysfs bind) may complete a path, one that leaves (remove, sysfs unbind)
 * ends its path, stopping a trace that runs on it first. The caller holds
 * cpus_read_lock() and registry_lock.
 */
static int paths_rebuild(void)
{
	struct ntrace_path *old, *next;
	struct ntrace_sink *sink;
	const char *sink_mode = NULL;
	size_t buf_size = 0;
	bool src_required = false;
	int cpu, n;

	lockdep_assert_held(&registry_lock);
	n = paths_pair();
	for_each_possible_cpu(cpu) {
		old = per_cpu_ptr(&paths, cpu);
		next = per_cpu_ptr(&next_paths, cpu);
		if (next->nr_funnels)
			src_required = true;
		if (next->sink) {
			const char *m = ntrace_sink_mode_name(next->sink);

			buf_size = buf_size ? min(buf_size, next->sink->buf_size) :
				   next->sink->buf_size;
			sink_mode = !sink_mode || !strcmp(sink_mode, m) ? m : "mixed";
		}
		if (!memcmp(old, next, sizeof(*old)))
			continue;
		/*
		 * No event can use the path before the PMU is registered
		 * (module load) or after (unload), nor on an offline CPU:
		 * change it from here. Otherwise on its CPU.
		 */
		if (!paths_live || !cpu_online(cpu) ||
		    smp_call_function_single(cpu, path_set_local, next, 1))
			*old = *next;
	}
	/* upstream of a sink, a component came or went */
	list_for_each_entry(sink, &sinks, node)
		ntrace_shared_mark_stale(sink);
	cpumask_copy(&path_cpus, &next_cpus);
	path_caps = next_caps;
	path_buf_size = buf_size;
	path_sink_mode = sink_mode ?: "smem";
	path_src_required = src_required;
	return n;
}

/*
 * The PMU is (live) or is not registered. Without it, paths change with no
 * cross-CPU call: module load and unload stay cheap on many CPUs.
 */
void ntrace_paths_set_live(bool live)
{
	mutex_lock(&registry_lock);
	paths_live = live;
	mutex_unlock(&registry_lock);
}

int ntrace_paths_build(void)
{
	int n;

	cpus_read_lock();
	mutex_lock(&registry_lock);
	n = paths_rebuild();
	mutex_unlock(&registry_lock);
	cpus_read_unlock();
	return n;
}

/* The CPU's path: on that CPU with interrupts off, or registry_lock held. */
const struct ntrace_path *ntrace_path(int cpu)
{
	return per_cpu_ptr(&paths, cpu);
}

/* See ntrace_path_src_id(). Under registry_lock. */
static int path_src_id(int cpu)
{
	const struct ntrace_path *p = per_cpu_ptr(&paths, cpu);

	if (!p->te || !p->nr_funnels)
		return -1;
	return p->te->caps.src_id_writable ? cpu : p->te->caps.src_id;
}

/*
 * sysfs "topology": a line per traced CPU with its path, then a line per
 * sink and per funnel in use (Documentation/admin-guide/perf/ntrace.rst).
 */
ssize_t ntrace_paths_show(char *page)
{
	struct ntrace_funnel *f;
	struct ntrace_sink *sink;
	static struct cpumask cpus;	/* under registry_lock */
	struct ntrace_path *p;
	ssize_t len = 0;
	unsigned int i;
	int cpu;

	mutex_lock(&registry_lock);
	for_each_cpu(cpu, &path_cpus) {
		p = per_cpu_ptr(&paths, cpu);
		len += sysfs_emit_at(page, len, "cpu%d encoder=%s", cpu,
				     dev_name(p->te->dev));
		for (i = 0; i < p->nr_funnels; i++)
			len += sysfs_emit_at(page, len, " funnel=%s:%u",
					     dev_name(p->funnel[i]->dev),
					     p->input[i]);
		len += sysfs_emit_at(page, len, " sink=%s src_id=%d\n",
				     dev_name(p->sink->dev),
				     path_src_id(cpu));
	}
	list_for_each_entry(sink, &sinks, node) {
		bool shared = false;

		cpumask_clear(&cpus);
		for_each_cpu(cpu, &path_cpus) {
			p = per_cpu_ptr(&paths, cpu);
			if (p->sink != sink)
				continue;
			cpumask_set_cpu(cpu, &cpus);
			shared |= p->nr_funnels;
		}
		if (cpumask_empty(&cpus))
			continue;
		/*
		 * direct: it can write AUX areas itself (ntrace_pmu.c);
		 * double: shared, it fills one buffer while a drain reads the
		 * other (ntrace_shared.c)
		 */
		len += sysfs_emit_at(page, len,
				     "sink %s mode=%s size=%zu direct=%d double=%d cpus=%*pbl\n",
				     dev_name(sink->dev),
				     ntrace_sink_mode_name(sink), sink->buf_size,
				     !sink->sram && sink->any_window && !shared,
				     sink->buf2 && shared,
				     cpumask_pr_args(&cpus));
	}
	list_for_each_entry(f, &funnels, node) {
		cpumask_clear(&cpus);
		for_each_cpu(cpu, &path_cpus) {
			p = per_cpu_ptr(&paths, cpu);
			for (i = 0; i < p->nr_funnels; i++)
				if (p->funnel[i] == f)
					cpumask_set_cpu(cpu, &cpus);
		}
		len += sysfs_emit_at(page, len, "funnel %s inputs=%#x cpus=%*pbl\n",
				     dev_name(f->dev), f->inputs,
				     cpumask_pr_args(&cpus));
	}
	mutex_unlock(&registry_lock);
	return len;
}

struct ntrace_encoder *ntrace_path_encoder(int cpu)
{
	return per_cpu_ptr(&paths, cpu)->te;
}

struct ntrace_sink *ntrace_path_sink(int cpu)
{
	return per_cpu_ptr(&paths, cpu)->sink;
}

/* A component of cpu's path is broken (ntrace_tci_failed()). */
bool ntrace_path_failed(int cpu)
{
	const struct ntrace_path *p = per_cpu_ptr(&paths, cpu);
	unsigned int i;

	if ((p->te && READ_ONCE(p->te->failed)) ||
	    (p->sink && READ_ONCE(p->sink->failed)))
		return true;
	for (i = 0; i < p->nr_funnels; i++)
		if (READ_ONCE(p->funnel[i]->failed) ||
		    (READ_ONCE(p->funnel[i]->failed_inputs) & BIT(p->input[i])))
			return true;
	return false;
}

const struct cpumask *ntrace_path_cpus(void)
{
	return &path_cpus;
}

const struct ntrace_caps *ntrace_path_caps(void)
{
	return &path_caps;
}

size_t ntrace_path_buf_size(void)
{
	return path_buf_size;
}

const char *ntrace_path_sink_mode(void)
{
	return path_sink_mode;
}

/*
 * The SRC field value of cpu's messages where its path goes through
 * funnels (the CPU number, or a fixed ID), else -1.
 */
int ntrace_path_src_id(int cpu)
{
	int id;

	mutex_lock(&registry_lock);
	id = path_src_id(cpu);
	mutex_unlock(&registry_lock);
	return id;
}

/* The hart ID of cpu's encoder, -1 without a path. */
s64 ntrace_path_hartid(int cpu)
{
	const struct ntrace_path *p;
	s64 id = -1;

	mutex_lock(&registry_lock);
	p = per_cpu_ptr(&paths, cpu);
	if (p->te)
		id = p->te->hartid;
	mutex_unlock(&registry_lock);
	return id;
}

/*
 * The time CSR value at which cpu's timestamp unit read 0 (caps/
 * ts_zero_cpu<N>): the personality's reading of its unit against the time
 * CSR, or 0 for an External unit (TSTAMP is the time CSR). -ENODATA
 * without a path or where it is not known.
 */
int ntrace_path_ts_zero(int cpu, u64 *zero)
{
	const struct ntrace_path *p;
	int err = -ENODATA;

	mutex_lock(&registry_lock);
	p = per_cpu_ptr(&paths, cpu);
	if (p->te && p->te->caps.ts_mode) {
		if (p->te->ops->ts_zero) {
			err = p->te->ops->ts_zero(p->te, zero);
		} else if (p->te->caps.ts_mode == TCI_TS_MODE_EXTERNAL) {
			*zero = 0;
			err = 0;
		}
	}
	mutex_unlock(&registry_lock);
	return err;
}

bool ntrace_path_src_required(void)
{
	return path_src_required;
}
