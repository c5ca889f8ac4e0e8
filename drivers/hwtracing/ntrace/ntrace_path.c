// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: the registry of probed components and the per-CPU trace paths
 * (encoder -> RAM sink) found by following the encoder's out-ports graph
 * endpoint to the sink whose in-ports hold the remote endpoint.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/of_graph.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#include "ntrace.h"

static DEFINE_MUTEX(registry_lock);
static LIST_HEAD(encoders);
static LIST_HEAD(sinks);

struct ntrace_path {
	struct ntrace_encoder *te;
	struct ntrace_sink *sink;
};

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
 * The sink whose device node is np or one of its three closest ancestors:
 * a remote endpoint lies three levels below its component
 * (in-ports/port/endpoint), so four nodes are looked at.
 */
static struct ntrace_sink *sink_of_node(struct device_node *np)
{
	struct ntrace_sink *sink;
	struct device_node *n = of_node_get(np);
	int depth;

	for (depth = 0; n && depth < 4; depth++) {
		list_for_each_entry(sink, &sinks, node)
			if (sink->dev->of_node == n) {
				of_node_put(n);
				return sink;
			}
		n = of_get_next_parent(n);
	}
	of_node_put(n);
	return NULL;
}

/* Follow the first endpoint of out-ports; caller holds registry_lock. */
struct ntrace_sink *ntrace_sink_of_encoder(struct ntrace_encoder *te)
{
	struct device_node *ports, *ep, *remote;
	struct ntrace_sink *sink = NULL;

	ports = of_get_child_by_name(te->dev->of_node, "out-ports");
	if (!ports)
		return NULL;
	ep = of_graph_get_next_endpoint(ports, NULL);
	of_node_put(ports);
	if (!ep)
		return NULL;
	remote = of_graph_get_remote_endpoint(ep);
	of_node_put(ep);
	if (remote)
		sink = sink_of_node(remote);
	of_node_put(remote);
	return sink;
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
	p->te = next->te;
	p->sink = next->sink;
}

/*
 * Pair every encoder with its sink in next_paths. A sink serves one
 * encoder: funnels are not supported yet, so two encoders reaching one
 * sink is refused. Returns the number of CPUs with a path.
 */
static int paths_pair(void)
{
	struct ntrace_encoder *te;
	struct ntrace_sink *sink;
	struct ntrace_path *p;
	int cpu, n = 0;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&next_paths, cpu), 0, sizeof(*p));
	cpumask_clear(&next_cpus);
	memset(&next_caps, 0, sizeof(next_caps));
	list_for_each_entry(te, &encoders, node) {
		sink = ntrace_sink_of_encoder(te);
		if (!sink) {
			dev_dbg(te->dev, "no RAM sink on its output port: CPU %d not traced\n",
				te->cpu);
			continue;
		}
		for_each_cpu(cpu, &next_cpus)
			if (per_cpu_ptr(&next_paths, cpu)->sink == sink)
				break;
		if (cpu < nr_cpu_ids || cpumask_test_cpu(te->cpu, &next_cpus)) {
			dev_warn(te->dev, "sink %s or CPU %d already in a path (no funnel support)\n",
				 dev_name(sink->dev), te->cpu);
			continue;
		}
		p = per_cpu_ptr(&next_paths, te->cpu);
		p->te = te;
		p->sink = sink;
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
	size_t buf_size = 0;
	int cpu, n;

	lockdep_assert_held(&registry_lock);
	n = paths_pair();
	for_each_possible_cpu(cpu) {
		old = per_cpu_ptr(&paths, cpu);
		next = per_cpu_ptr(&next_paths, cpu);
		if (next->sink)
			buf_size = buf_size ? min(buf_size, next->sink->buf_size) :
				   next->sink->buf_size;
		if (old->te == next->te && old->sink == next->sink)
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
	cpumask_copy(&path_cpus, &next_cpus);
	path_caps = next_caps;
	path_buf_size = buf_size;
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

struct ntrace_encoder *ntrace_path_encoder(int cpu)
{
	return per_cpu_ptr(&paths, cpu)->te;
}

struct ntrace_sink *ntrace_path_sink(int cpu)
{
	return per_cpu_ptr(&paths, cpu)->sink;
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
