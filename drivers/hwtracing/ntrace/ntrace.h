/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ntrace driver internals: trace components (encoder, RAM sink), the
 * per-CPU encoder -> sink paths and the "ntrace" perf PMU.
 */
#ifndef NTRACE_H
#define NTRACE_H

#include <linux/device.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/of.h>
#include <linux/types.h>

#include "ntrace_config.h"

struct ntrace_encoder {
	struct device *dev;
	void __iomem *base;
	int cpu;			/* logical CPU of the encoder's hart */
	struct ntrace_caps caps;
	struct list_head node;
};

struct ntrace_sink {
	struct device *dev;
	void __iomem *base;
	u32 impl;			/* trRamImpl */
	bool stop_on_wrap;		/* trRamStopOnWrap works */
	u64 min_addr, max_addr;		/* legal trRamStart/Limit range */
	void *buf;			/* bounce buffer the sink writes */
	phys_addr_t buf_phys;
	size_t buf_size;
	struct list_head node;
};

/* Result of draining a sink: bytes in sink->buf and what was lost. */
struct ntrace_drain {
	size_t len;
	size_t head;			/* offset of the oldest byte */
	bool wrapped;			/* sink stopped or wrapped: data lost */
};

/* ntrace_tci.c: what every TCI component shares */
int ntrace_tci_activate(struct device *dev, void __iomem *base);
void ntrace_tci_deactivate(void __iomem *base);
int ntrace_tci_check_impl(struct device *dev, u32 impl, u32 type,
			  const char *what);
int ntrace_tci_wait(void __iomem *reg, u32 mask, u32 want);

/* ntrace_encoder.c */
extern struct platform_driver ntrace_encoder_driver;
void ntrace_encoder_program(struct ntrace_encoder *te,
			    const struct ntrace_prog *prog,
			    const struct ntrace_range *ranges);
void ntrace_encoder_enable(struct ntrace_encoder *te,
			   const struct ntrace_prog *prog);
int ntrace_encoder_disable(struct ntrace_encoder *te,
			   const struct ntrace_prog *prog, bool *overflow);

/* ntrace_sink.c */
extern struct platform_driver ntrace_sink_driver;
int ntrace_sink_enable(struct ntrace_sink *sink);
int ntrace_sink_disable(struct ntrace_sink *sink, struct ntrace_drain *d);

/* ntrace_path.c: component registry and per-CPU paths */
void ntrace_register_encoder(struct ntrace_encoder *te);
void ntrace_unregister_encoder(struct ntrace_encoder *te);
void ntrace_register_sink(struct ntrace_sink *sink);
void ntrace_unregister_sink(struct ntrace_sink *sink);
struct ntrace_sink *ntrace_sink_of_encoder(struct ntrace_encoder *te);
int ntrace_paths_build(void);
void ntrace_paths_set_live(bool live);
struct ntrace_encoder *ntrace_path_encoder(int cpu);
struct ntrace_sink *ntrace_path_sink(int cpu);
const struct cpumask *ntrace_path_cpus(void);
const struct ntrace_caps *ntrace_path_caps(void);
size_t ntrace_path_buf_size(void);

/* ntrace_pmu.c */
int ntrace_pmu_register(void);
void ntrace_pmu_unregister(void);
void ntrace_pmu_stop_local(void);

/* ntrace_caps.c: sysfs */
extern const struct attribute_group ntrace_caps_group;
extern const struct attribute_group ntrace_format_group;
extern const struct attribute_group ntrace_pmu_group;

#endif /* NTRACE_H */
