// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: the registry of probed components and the per-CPU trace paths
 * (encoder -> RAM sink) found by following the encoder's out-ports graph
 * endpoint to the sink whose in-ports hold the remote endpoint.
 */
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/of_graph.h>
#include <linux/percpu.h>

#include "ntrace.h"

static DEFINE_MUTEX(registry_lock);
static LIST_HEAD(encoders);
static LIST_HEAD(sinks);

struct ntrace_path {
	struct ntrace_encoder *te;
	struct ntrace_sink *sink;
};

static DEFINE_PER_CPU(struct ntrace_path, paths);
static struct cpumask path_cpus;
static struct ntrace_caps path_caps;
static size_t path_buf_size;

void ntrace_register_encoder(struct ntrace_encoder *te)
{
	mutex_lock(&registry_lock);
	list_add_tail(&te->node, &encoders);
	mutex_unlock(&registry_lock);
}

void ntrace_unregister_encoder(struct ntrace_encoder *te)
{
	mutex_lock(&registry_lock);
	list_del(&te->node);
	mutex_unlock(&registry_lock);
}

void ntrace_register_sink(struct ntrace_sink *sink)
{
	mutex_lock(&registry_lock);
	list_add_tail(&sink->node, &sinks);
	mutex_unlock(&registry_lock);
}

void ntrace_unregister_sink(struct ntrace_sink *sink)
{
	mutex_lock(&registry_lock);
	list_del(&sink->node);
	mutex_unlock(&registry_lock);
}

/* The sink whose device node holds (up to two levels up) node np. */
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
 * Pair every encoder with its sink. A sink serves one encoder: funnels
 * are not supported yet, so two encoders reaching one sink is refused.
 * Returns the number of CPUs with a path.
 */
int ntrace_paths_build(void)
{
	struct ntrace_encoder *te;
	struct ntrace_sink *sink;
	struct ntrace_path *p;
	int cpu, n = 0;

	mutex_lock(&registry_lock);
	cpumask_clear(&path_cpus);
	list_for_each_entry(te, &encoders, node) {
		sink = ntrace_sink_of_encoder(te);
		if (!sink) {
			dev_warn(te->dev, "no RAM sink on its output port: CPU %d not traced\n",
				 te->cpu);
			continue;
		}
		for_each_cpu(cpu, &path_cpus)
			if (per_cpu_ptr(&paths, cpu)->sink == sink)
				break;
		if (cpu < nr_cpu_ids || cpumask_test_cpu(te->cpu, &path_cpus)) {
			dev_warn(te->dev, "sink %s or CPU %d already in a path (no funnel support)\n",
				 dev_name(sink->dev), te->cpu);
			continue;
		}
		p = per_cpu_ptr(&paths, te->cpu);
		p->te = te;
		p->sink = sink;
		if (!n++) {
			path_caps = te->caps;
			path_buf_size = sink->buf_size;
		} else {
			ntrace_caps_intersect(&path_caps, &te->caps);
			path_buf_size = min(path_buf_size, sink->buf_size);
		}
		cpumask_set_cpu(te->cpu, &path_cpus);
	}
	mutex_unlock(&registry_lock);
	return n;
}

void ntrace_paths_clear(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ntrace_path *p = per_cpu_ptr(&paths, cpu);

		p->te = NULL;
		p->sink = NULL;
	}
	cpumask_clear(&path_cpus);
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
