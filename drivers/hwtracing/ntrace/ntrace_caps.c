// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: sysfs of the PMU device (/sys/bus/event_source/devices/ntrace):
 * format/ (the config bit layout of include/uapi/linux/ntrace.h), caps/
 * (what discovery found, one value per file, common to every traced CPU;
 * sink_mode is a word, not a number; hartid_cpu<N>, src_id_cpu<N> and
 * ts_zero_cpu<N> per CPU)
 * cpumask (the CPUs with an encoder -> sink path) and topology (each
 * CPU's path through funnels to its sink; the sinks and funnels).
 */
#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/ntrace_tci.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "ntrace.h"

#define NTRACE_FORMAT(_name, _fmt)					\
	static ssize_t _name##_show(struct device *dev,			\
				    struct device_attribute *attr,	\
				    char *page)				\
	{								\
		return sysfs_emit(page, _fmt "\n");			\
	}								\
	static struct device_attribute format_attr_##_name =		\
		__ATTR(_name, 0444, _name##_show, NULL)

NTRACE_FORMAT(htm, "config:0");
NTRACE_FORMAT(iret, "config:1");
NTRACE_FORMAT(iret_mode, "config:2-3");
NTRACE_FORMAT(rephist, "config:4");
NTRACE_FORMAT(seqjump, "config:5");
NTRACE_FORMAT(alljumps, "config:6");
NTRACE_FORMAT(ts, "config:7");
NTRACE_FORMAT(ctx, "config:8");
NTRACE_FORMAT(sync, "config:10-11");
NTRACE_FORMAT(sync_period, "config:12-16");
NTRACE_FORMAT(ts_prescale, "config:17-18");
NTRACE_FORMAT(src, "config:19");

static struct attribute *ntrace_format_attrs[] = {
	&format_attr_htm.attr, &format_attr_iret.attr,
	&format_attr_iret_mode.attr, &format_attr_rephist.attr,
	&format_attr_seqjump.attr, &format_attr_alljumps.attr,
	&format_attr_ts.attr, &format_attr_ctx.attr, &format_attr_sync.attr,
	&format_attr_sync_period.attr, &format_attr_ts_prescale.attr,
	&format_attr_src.attr, NULL,
};

/* caps/: each file prints one number (decimal; bit sets in hex), but sink_mode. */
enum ntrace_cap {
	CAP_TE_IMPL, CAP_VERSION, CAP_PROTOCOL, CAP_BTM, CAP_HTM,
	CAP_IRET, CAP_IRET_MODES, CAP_REPHIST, CAP_SEQJUMP, CAP_ALLJUMPS,
	CAP_CTX, CAP_SYNC_MODES, CAP_SYNC_MAX, CAP_SYNC_MODE_DEFAULT,
	CAP_SYNC_MAX_DEFAULT, CAP_SRC_BITS, CAP_NR_FILTERS,
	CAP_NR_COMPARATORS, CAP_PRIV_FILTER, CAP_TS_MODE, CAP_TS_WIDTH,
	CAP_TS_PRESCALE_MAX, CAP_TS_RATE_HZ, CAP_ICNT_BITS, CAP_HIST_BITS, CAP_HREPEAT_BITS,
	CAP_BCNT_BITS, CAP_RETURN_DEPTH, CAP_RETURN_ADDR_BITS, CAP_ITYPE_BITS,
	CAP_VA_BITS, CAP_BUFFER_SIZE, CAP_SRC_REQUIRED, CAP_SINK_MODE, CAP_XLEN,
	CAP_VARIANT,
};

struct ntrace_cap_attr {
	struct device_attribute attr;
	enum ntrace_cap id;
};

static ssize_t cap_show(struct device *dev, struct device_attribute *attr,
			char *page)
{
	const struct ntrace_caps *c = ntrace_path_caps();

	switch (container_of(attr, struct ntrace_cap_attr, attr)->id) {
	case CAP_TE_IMPL:
		return sysfs_emit(page, "%#010x\n", c->te_impl);
	case CAP_VERSION:
		return sysfs_emit(page, "%u.%u\n", c->ver_major, c->ver_minor);
	case CAP_PROTOCOL:
		return sysfs_emit(page, "%u.%u\n", c->proto_major,
				  c->proto_minor);
	case CAP_BTM:
		return sysfs_emit(page, "%d\n",
				  !!(c->modes & BIT(TCI_TE_INST_MODE_BTM)));
	case CAP_HTM:
		return sysfs_emit(page, "%d\n",
				  !!(c->modes & BIT(TCI_TE_INST_MODE_HTM)));
	case CAP_IRET:
		return sysfs_emit(page, "%d\n",
				  !!(c->features & TCI_TE_F_IMPLICIT_RETURN));
	case CAP_IRET_MODES:
		return sysfs_emit(page, "%#x\n", c->iret_modes);
	case CAP_REPHIST:
		return sysfs_emit(page, "%d\n",
				  !!(c->features & TCI_TE_F_REPEATED_HISTORY));
	case CAP_SEQJUMP:
		return sysfs_emit(page, "%d\n",
				  !!(c->features & TCI_TE_F_SEQ_JUMP));
	case CAP_ALLJUMPS:
		return sysfs_emit(page, "%d\n",
				  !!(c->features & TCI_TE_F_ALL_JUMPS));
	case CAP_CTX:
		return sysfs_emit(page, "%d\n", c->ctx);
	case CAP_SYNC_MODES:
		return sysfs_emit(page, "%#x\n", c->sync_modes);
	case CAP_SYNC_MAX:
		return sysfs_emit(page, "%u\n", c->sync_max);
	case CAP_SYNC_MODE_DEFAULT:
		return sysfs_emit(page, "%u\n", c->sync_mode_reset);
	case CAP_SYNC_MAX_DEFAULT:
		return sysfs_emit(page, "%u\n", c->sync_max_reset);
	case CAP_SRC_BITS:
		/* the SRC field's width: the CPU number's, or a fixed ID's */
		return sysfs_emit(page, "%u\n", c->src_bits);
	case CAP_NR_FILTERS:
		return sysfs_emit(page, "%u\n", c->nr_filters);
	case CAP_NR_COMPARATORS:
		return sysfs_emit(page, "%u\n", c->nr_comparators);
	case CAP_PRIV_FILTER:
		return sysfs_emit(page, "%d\n", c->priv_filter);
	case CAP_TS_MODE:
		return sysfs_emit(page, "%u\n", c->ts_mode);
	case CAP_TS_WIDTH:
		return sysfs_emit(page, "%u\n", c->ts_mode ? c->ts_width : 0);
	case CAP_TS_PRESCALE_MAX:
		return sysfs_emit(page, "%u\n", c->ts_prescale_max);
	case CAP_TS_RATE_HZ:
		return sysfs_emit(page, "%llu\n", c->ts_mode ? c->ts_rate_hz : 0);
	case CAP_ICNT_BITS:
		return sysfs_emit(page, "%u\n", c->icnt_bits);
	case CAP_HIST_BITS:
		return sysfs_emit(page, "%u\n", c->hist_bits);
	case CAP_HREPEAT_BITS:
		return sysfs_emit(page, "%u\n", c->hrepeat_bits);
	case CAP_BCNT_BITS:
		return sysfs_emit(page, "%u\n", c->bcnt_bits);
	case CAP_RETURN_DEPTH:
		return sysfs_emit(page, "%u\n", c->return_depth);
	case CAP_RETURN_ADDR_BITS:
		return sysfs_emit(page, "%u\n", c->return_addr_bits);
	case CAP_ITYPE_BITS:
		return sysfs_emit(page, "%u\n", c->itype_bits);
	case CAP_VA_BITS:
		return sysfs_emit(page, "%u\n", c->va_bits);
	case CAP_XLEN:
		/* the harts' XLEN, the kernel's: no TCI register shows it */
		return sysfs_emit(page, "%u\n", BITS_PER_LONG);
	case CAP_BUFFER_SIZE:
		return sysfs_emit(page, "%zu\n", ntrace_path_buf_size());
	case CAP_SRC_REQUIRED:
		return sysfs_emit(page, "%d\n", ntrace_path_src_required());
	case CAP_SINK_MODE:
		return sysfs_emit(page, "%s\n", ntrace_path_sink_mode());
	case CAP_VARIANT:
		return sysfs_emit(page, "%u\n", c->variant);
	}
	return -EINVAL;
}

#define NTRACE_CAP(_name, _id)						\
	static struct ntrace_cap_attr cap_attr_##_name = {		\
		.attr = __ATTR(_name, 0444, cap_show, NULL),		\
		.id = _id,						\
	}

NTRACE_CAP(te_impl, CAP_TE_IMPL);
NTRACE_CAP(version, CAP_VERSION);
NTRACE_CAP(protocol, CAP_PROTOCOL);
NTRACE_CAP(btm, CAP_BTM);
NTRACE_CAP(htm, CAP_HTM);
NTRACE_CAP(iret, CAP_IRET);
NTRACE_CAP(iret_modes, CAP_IRET_MODES);
NTRACE_CAP(rephist, CAP_REPHIST);
NTRACE_CAP(seqjump, CAP_SEQJUMP);
NTRACE_CAP(alljumps, CAP_ALLJUMPS);
NTRACE_CAP(ctx, CAP_CTX);
NTRACE_CAP(sync_modes, CAP_SYNC_MODES);
NTRACE_CAP(sync_max, CAP_SYNC_MAX);
NTRACE_CAP(sync_mode_default, CAP_SYNC_MODE_DEFAULT);
NTRACE_CAP(sync_max_default, CAP_SYNC_MAX_DEFAULT);
NTRACE_CAP(src_bits, CAP_SRC_BITS);
NTRACE_CAP(nr_filters, CAP_NR_FILTERS);
NTRACE_CAP(nr_comparators, CAP_NR_COMPARATORS);
NTRACE_CAP(priv_filter, CAP_PRIV_FILTER);
NTRACE_CAP(ts_mode, CAP_TS_MODE);
NTRACE_CAP(ts_width, CAP_TS_WIDTH);
NTRACE_CAP(ts_prescale_max, CAP_TS_PRESCALE_MAX);
NTRACE_CAP(ts_rate_hz, CAP_TS_RATE_HZ);
NTRACE_CAP(icnt_bits, CAP_ICNT_BITS);
NTRACE_CAP(hist_bits, CAP_HIST_BITS);
NTRACE_CAP(hrepeat_bits, CAP_HREPEAT_BITS);
NTRACE_CAP(bcnt_bits, CAP_BCNT_BITS);
NTRACE_CAP(return_depth, CAP_RETURN_DEPTH);
NTRACE_CAP(return_addr_bits, CAP_RETURN_ADDR_BITS);
NTRACE_CAP(itype_bits, CAP_ITYPE_BITS);
NTRACE_CAP(va_bits, CAP_VA_BITS);
NTRACE_CAP(xlen, CAP_XLEN);
NTRACE_CAP(buffer_size, CAP_BUFFER_SIZE);
NTRACE_CAP(src_required, CAP_SRC_REQUIRED);
NTRACE_CAP(sink_mode, CAP_SINK_MODE);
NTRACE_CAP(variant, CAP_VARIANT);

static struct attribute *ntrace_caps_attrs[] = {
	&cap_attr_te_impl.attr.attr, &cap_attr_version.attr.attr,
	&cap_attr_protocol.attr.attr, &cap_attr_btm.attr.attr,
	&cap_attr_htm.attr.attr, &cap_attr_iret.attr.attr,
	&cap_attr_iret_modes.attr.attr, &cap_attr_rephist.attr.attr,
	&cap_attr_seqjump.attr.attr, &cap_attr_alljumps.attr.attr,
	&cap_attr_ctx.attr.attr, &cap_attr_sync_modes.attr.attr,
	&cap_attr_sync_max.attr.attr, &cap_attr_sync_mode_default.attr.attr,
	&cap_attr_sync_max_default.attr.attr, &cap_attr_src_bits.attr.attr,
	&cap_attr_nr_filters.attr.attr, &cap_attr_nr_comparators.attr.attr,
	&cap_attr_priv_filter.attr.attr, &cap_attr_ts_mode.attr.attr,
	&cap_attr_ts_width.attr.attr, &cap_attr_ts_prescale_max.attr.attr,
	&cap_attr_ts_rate_hz.attr.attr,
	&cap_attr_icnt_bits.attr.attr, &cap_attr_hist_bits.attr.attr,
	&cap_attr_hrepeat_bits.attr.attr, &cap_attr_bcnt_bits.attr.attr,
	&cap_attr_return_depth.attr.attr,
	&cap_attr_return_addr_bits.attr.attr, &cap_attr_itype_bits.attr.attr,
	&cap_attr_va_bits.attr.attr, &cap_attr_buffer_size.attr.attr,
	&cap_attr_src_required.attr.attr, &cap_attr_sink_mode.attr.attr,
	&cap_attr_xlen.attr.attr, &cap_attr_variant.attr.attr, NULL,
};

/*
 * caps/hartid_cpu<N>, caps/src_id_cpu<N> and caps/ts_zero_cpu<N>: the hart
 * ID of CPU N, the SRC of its messages behind a funnel (its CPU number, or
 * a fixed ID), and the time CSR value at which its timestamp unit read 0
 * (read from the unit at each read of the file). Made for every possible
 * CPU at load; a CPU with no path has none of them.
 */
enum ntrace_cpu_cap {
	CPU_CAP_HARTID, CPU_CAP_SRC_ID, CPU_CAP_TS_ZERO, NR_CPU_CAPS,
};

static const char *const cpu_cap_names[NR_CPU_CAPS] = {
	[CPU_CAP_HARTID] = "hartid",
	[CPU_CAP_SRC_ID] = "src_id",
	[CPU_CAP_TS_ZERO] = "ts_zero",
};

struct ntrace_cpu_cap_attr {
	struct device_attribute attr;
	int cpu;
	enum ntrace_cpu_cap id;
	char name[24];
};

static struct ntrace_cpu_cap_attr *cpu_cap_attrs;
static struct attribute **cpu_caps_attrs;

static ssize_t cpu_cap_show(struct device *dev, struct device_attribute *attr,
			    char *page)
{
	struct ntrace_cpu_cap_attr *a =
		container_of(attr, struct ntrace_cpu_cap_attr, attr);
	u64 zero;
	s64 id;
	int err;

	switch (a->id) {
	case CPU_CAP_TS_ZERO:
		err = ntrace_path_ts_zero(a->cpu, &zero);
		return err ? err : sysfs_emit(page, "%llu\n", zero);
	case CPU_CAP_SRC_ID:
		id = ntrace_path_src_id(a->cpu);
		break;
	default:
		id = ntrace_path_hartid(a->cpu);
		break;
	}
	return id < 0 ? -ENODATA : sysfs_emit(page, "%lld\n", id);
}

struct attribute_group ntrace_cpu_caps_group = {
	.name = "caps",
};

int ntrace_cpu_caps_init(void)
{
	unsigned int n = NR_CPU_CAPS * num_possible_cpus(), i = 0;
	int cpu;

	cpu_cap_attrs = kcalloc(n, sizeof(*cpu_cap_attrs), GFP_KERNEL);
	cpu_caps_attrs = kcalloc(n + 1, sizeof(*cpu_caps_attrs), GFP_KERNEL);
	if (!cpu_cap_attrs || !cpu_caps_attrs) {
		ntrace_cpu_caps_free();
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		enum ntrace_cpu_cap k;

		for (k = 0; k < NR_CPU_CAPS; k++, i++) {
			struct ntrace_cpu_cap_attr *a = &cpu_cap_attrs[i];

			a->cpu = cpu;
			a->id = k;
			snprintf(a->name, sizeof(a->name), "%s_cpu%d",
				 cpu_cap_names[k], cpu);
			sysfs_attr_init(&a->attr.attr);
			a->attr.attr.name = a->name;
			a->attr.attr.mode = 0444;
			a->attr.show = cpu_cap_show;
			cpu_caps_attrs[i] = &a->attr.attr;
		}
	}
	ntrace_cpu_caps_group.attrs = cpu_caps_attrs;
	return 0;
}

void ntrace_cpu_caps_free(void)
{
	kfree(cpu_caps_attrs);
	kfree(cpu_cap_attrs);
	cpu_caps_attrs = NULL;
	cpu_cap_attrs = NULL;
	ntrace_cpu_caps_group.attrs = NULL;
}

static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *page)
{
	return cpumap_print_to_pagebuf(true, page, ntrace_path_cpus());
}
static DEVICE_ATTR_RO(cpumask);

static ssize_t topology_show(struct device *dev, struct device_attribute *attr,
			     char *page)
{
	return ntrace_paths_show(page);
}
static DEVICE_ATTR_RO(topology);

static ssize_t drains_show(struct device *dev, struct device_attribute *attr,
			   char *page)
{
	return ntrace_pmu_drains_show(page);
}
static DEVICE_ATTR_RO(drains);

static struct attribute *ntrace_pmu_attrs[] = {
	&dev_attr_cpumask.attr, &dev_attr_topology.attr, &dev_attr_drains.attr,
	NULL,
};

const struct attribute_group ntrace_format_group = {
	.name = "format",
	.attrs = ntrace_format_attrs,
};

const struct attribute_group ntrace_caps_group = {
	.name = "caps",
	.attrs = ntrace_caps_attrs,
};

const struct attribute_group ntrace_pmu_group = {
	.attrs = ntrace_pmu_attrs,
};
