/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ntrace driver internals: trace components (encoder, funnel, RAM sink),
 * the per-CPU encoder -> [funnels ->] sink paths and the "ntrace" perf PMU.
 */
#ifndef NTRACE_H
#define NTRACE_H

#include <linux/device.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/ntrace_tci.h>
#include <linux/of.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "ntrace_config.h"

struct ntrace_encoder;
struct ntrace_funnel;
struct ntrace_sink;
struct ntrace_drain;

/*
 * A personality: how one generation of trace components is driven, one
 * table of operations per role, chosen at probe from the compatible and
 * the implementation register (ntrace_personality.c). The ratified Trace
 * Control Interface 1.0 is one; SiFive's pre-ratified (version 0) blocks
 * are another. Path, PMU and shared-sink code call only these.
 */
struct ntrace_encoder_ops {
	/* fill te->caps, in N-Trace 1.0 terms (trTe* field values) */
	int (*discover)(struct ntrace_encoder *te);
	void (*program)(struct ntrace_encoder *te,
			const struct ntrace_prog *prog,
			const struct ntrace_range *ranges);
	void (*enable)(struct ntrace_encoder *te,
		       const struct ntrace_prog *prog);
	/* flush into the sink; *overflow: messages were dropped */
	int (*disable)(struct ntrace_encoder *te,
		       const struct ntrace_prog *prog, bool *overflow);
	/*
	 * Optional, for a timestamp unit that counts from its own reset: the
	 * time CSR value at which it read 0 (-ENODATA: not known). Without
	 * it, an External unit's TSTAMP is the time CSR itself (0).
	 */
	int (*ts_zero)(struct ntrace_encoder *te, u64 *zero);
};

struct ntrace_funnel_ops {
	int (*discover)(struct ntrace_funnel *f);
	int (*attach)(struct ntrace_funnel *f, unsigned int input);
	int (*flush)(struct ntrace_funnel *f);
	int (*detach)(struct ntrace_funnel *f, unsigned int input);
};

/*
 * The registers of a RAM sink in system-memory mode (SRAM mode is 1.0's
 * only: sram_ops in ntrace_sink.c). Addresses are full 64-bit ones;
 * set_window may refuse a window the hardware cannot hold (-ERANGE).
 */
struct ntrace_sink_ops {
	int (*discover)(struct ntrace_sink *sink);
	int (*set_window)(struct ntrace_sink *sink, u64 start, u64 limit);
	void (*get_window)(struct ntrace_sink *sink, u64 *start, u64 *limit);
	void (*set_wp)(struct ntrace_sink *sink, u64 wp);
	u64 (*get_wp)(struct ntrace_sink *sink);	/* with the wrap bit */
	/* capture (enable) or stop and flush (then wait for empty) */
	void (*control)(struct ntrace_sink *sink, bool enable);
	int (*wait_empty)(struct ntrace_sink *sink);
};

struct ntrace_encoder {
	struct device *dev;
	void __iomem *base;
	const struct ntrace_encoder_ops *ops;
	/* a sink in the encoder's own register block (SiFive v0), or NULL */
	struct ntrace_sink *sink;
	int cpu;			/* logical CPU of the encoder's hart */
	u64 hartid;			/* that hart's ID (its DT node's reg) */
	u64 timebase_hz;		/* the time CSR's rate, 0: unknown */
	struct ntrace_caps caps;
	bool failed;			/* see ntrace_tci_failed() */
	struct list_head node;
};

/* Funnels on one path, at most (funnel2: two levels). */
#define NTRACE_MAX_FUNNELS	4

struct ntrace_funnel {
	struct device *dev;
	void __iomem *base;
	const struct ntrace_funnel_ops *ops;
	/* a sink in the funnel's own register block (SiFive v0), or NULL */
	struct ntrace_sink *sink;
	u32 impl;			/* trFunnelImpl */
	u32 inputs;			/* bits of trFunnelDisInput that exist */
	/* under the sink's lock: */
	u32 disabled;			/* trFunnelDisInput: inputs not in use */
	u32 failed_inputs;		/* inputs that stayed disabled */
	bool failed;			/* see ntrace_tci_failed() */
	unsigned int users;		/* sources tracing through it */
	unsigned int input_users[TCI_FUNNEL_MAX_INPUTS]; /* each input */
	struct list_head node;
};

struct ntrace_sink {
	struct device *dev;
	void __iomem *base;
	const struct ntrace_sink_ops *ops;
	u32 impl;			/* trRamImpl */
	unsigned int word;		/* bytes the sink writes at a time */
	bool embedded;			/* in an encoder's or funnel's block */
	bool in_encoder;		/* embedded in an encoder's block */
	/*
	 * Off, it drops its sources' messages with no Error message in
	 * their streams (a SiFive v0 funnel): ntrace_shared.c resyncs them.
	 */
	bool drops_when_off;
	/*
	 * A sink behind funnels is shared by several encoders: lock orders
	 * every access to its hardware, the hardware of the encoders and
	 * funnels that feed it while they trace, and the staging buffers
	 * of their CPUs (ntrace_shared.c). active: the CPUs tracing into it.
	 */
	raw_spinlock_t lock;
	struct cpumask active;
	/*
	 * Under lock: the funnels (or an encoder) may still hold bytes that
	 * no drain took, which the sink would write first when it starts
	 * again: its next first source purges them (ntrace_shared.c).
	 */
	bool upstream_stale;
	bool failed;			/* see ntrace_tci_failed() */
	bool sram;			/* SRAM mode: read through trRamData */
	bool stop_on_wrap;		/* trRamStopOnWrap works */
	bool any_window;		/* SMEM: any word-aligned Start/Limit */
	/*
	 * SMEM, behind funnels: a second buffer of buf_size, so that the
	 * sink fills one while a drain reads the other (ntrace_shared.c);
	 * alt: it captures into buf2 (sink lock).
	 */
	void *buf2;
	phys_addr_t buf2_phys;
	bool alt;
	u64 min_addr, max_addr;		/* legal trRamStart/Limit range */
	/*
	 * SMEM: the bounce buffer the sink writes, at buf_phys. SRAM: the
	 * SRAM is at 0 (buf_phys) and buf a copy for ntrace_sink_fetch().
	 */
	void *buf;
	phys_addr_t buf_phys;
	size_t buf_size;
	/* what it captures into now: buf, or a window of an AUX area */
	u64 win_start;
	size_t win_size;
	bool win_stop;			/* stopping on wrap */
	struct list_head node;
};

/* One CPU's path: encoder -> funnels[0] -> ... -> sink */
struct ntrace_path {
	struct ntrace_encoder *te;
	struct ntrace_sink *sink;
	unsigned int nr_funnels;
	struct ntrace_funnel *funnel[NTRACE_MAX_FUNNELS];
	u8 input[NTRACE_MAX_FUNNELS];	/* the input of funnel[i] it uses */
};

/* Result of draining a sink: bytes in sink->buf and what was lost. */
struct ntrace_drain {
	size_t len;
	size_t head;			/* offset of the oldest byte */
	bool wrapped;			/* sink stopped or wrapped: data lost */
};

/* Reading the trace of a disabled sink in buffer order, from any offset. */
struct ntrace_sink_reader {
	struct ntrace_sink *sink;
	size_t pos;			/* offset of the next byte */
	u32 word;			/* SRAM: unused bytes of the last word */
	unsigned int have;
};

/* ntrace_component.c: which driver a node is for, in which personality */
enum ntrace_personality {
	NTRACE_TCI_1_0,		/* ratified Trace Control Interface 1.0 */
	NTRACE_SIFIVE_V0,	/* SiFive pre-ratified, version 0 (P550) */
};

struct platform_device;
extern const struct of_device_id ntrace_component_ids[];
/* the node's personality if it has role, else -ENODEV */
int ntrace_component_claim(struct platform_device *pdev, enum ntrace_role role);
void ntrace_component_forget(void);

/* ntrace_tci.c: what every TCI component shares */
int ntrace_tci_activate(struct device *dev, void __iomem *base);
void ntrace_tci_deactivate(void __iomem *base);
int ntrace_tci_check_impl(struct device *dev, u32 impl, u32 type,
			  const char *what);
int ntrace_tci_wait(void __iomem *reg, u32 mask, u32 want);
void ntrace_tci_failed(struct device *dev, bool *failed, const char *what);

/* ntrace_encoder.c */
extern struct platform_driver ntrace_encoder_driver;
void ntrace_encoder_program(struct ntrace_encoder *te,
			    const struct ntrace_prog *prog,
			    const struct ntrace_range *ranges);
void ntrace_encoder_enable(struct ntrace_encoder *te,
			   const struct ntrace_prog *prog);
int ntrace_encoder_disable(struct ntrace_encoder *te,
			   const struct ntrace_prog *prog, bool *overflow);
void ntrace_encoder_probe_timestamp(struct ntrace_encoder *te);

/* ntrace_sink.c */
extern struct platform_driver ntrace_sink_driver;
struct ntrace_sink *ntrace_sink_embed(struct device *dev, void __iomem *base,
				      bool in_encoder);
void ntrace_sink_unembed(struct ntrace_sink *sink);
int ntrace_sink_enable(struct ntrace_sink *sink);
int ntrace_sink_add_buf2(struct ntrace_sink *sink);
int ntrace_sink_enable_alt(struct ntrace_sink *sink);
const u8 *ntrace_sink_data(const struct ntrace_sink *sink);
int ntrace_sink_enable_at(struct ntrace_sink *sink,
			  const struct ntrace_window *w, bool stop);
int ntrace_sink_disable(struct ntrace_sink *sink, struct ntrace_drain *d);
int ntrace_sink_written(struct ntrace_sink *sink, size_t *len);
void ntrace_sink_read_start(struct ntrace_sink_reader *r,
			    struct ntrace_sink *sink, size_t from);
void ntrace_sink_read(struct ntrace_sink_reader *r, u8 *dst, size_t len);
void ntrace_sink_fetch(struct ntrace_sink *sink, const struct ntrace_drain *d);
const char *ntrace_sink_mode_name(const struct ntrace_sink *sink);

/* ntrace_sifive.c: the SiFive v0 personality */
extern const struct ntrace_encoder_ops ntrace_sifive_te_ops;
extern const struct ntrace_funnel_ops ntrace_sifive_funnel_ops;
extern const struct ntrace_sink_ops ntrace_sifive_sink_ops;

/* ntrace_funnel.c */
extern struct platform_driver ntrace_funnel_driver;
int ntrace_funnel_attach(struct ntrace_funnel *f, unsigned int input);
int ntrace_funnel_flush(struct ntrace_funnel *f);
int ntrace_funnel_detach(struct ntrace_funnel *f, unsigned int input);

/* ntrace_path.c: component registry and per-CPU paths */
void ntrace_register_funnel(struct ntrace_funnel *f);
void ntrace_unregister_funnel(struct ntrace_funnel *f);
ssize_t ntrace_paths_show(char *page);
const struct ntrace_path *ntrace_path(int cpu);
void ntrace_register_encoder(struct ntrace_encoder *te);
void ntrace_unregister_encoder(struct ntrace_encoder *te);
void ntrace_register_sink(struct ntrace_sink *sink);
void ntrace_unregister_sink(struct ntrace_sink *sink);
int ntrace_paths_build(void);
void ntrace_paths_set_live(bool live);
struct ntrace_encoder *ntrace_path_encoder(int cpu);
struct ntrace_sink *ntrace_path_sink(int cpu);
bool ntrace_path_failed(int cpu);
const struct cpumask *ntrace_path_cpus(void);
const struct ntrace_caps *ntrace_path_caps(void);
size_t ntrace_path_buf_size(void);
const char *ntrace_path_sink_mode(void);
bool ntrace_path_src_required(void);
int ntrace_path_src_id(int cpu);
s64 ntrace_path_hartid(int cpu);
int ntrace_path_ts_zero(int cpu, u64 *zero);

/* ntrace_shared.c: sinks shared through funnels */
int ntrace_shared_prepare(int cpu, struct ntrace_sink *sink);
void ntrace_shared_mark_stale(struct ntrace_sink *sink);
void ntrace_shared_free(void);
int ntrace_shared_start(int cpu, const struct ntrace_path *path,
			const struct ntrace_prog *prog);
void ntrace_shared_stop(int cpu, struct ntrace_sink *sink,
			void (*emit)(void *ctx, const u8 *buf, size_t len,
				     bool lost),
			void *ctx);

/* ntrace_pmu.c */
int ntrace_pmu_register(void);
void ntrace_pmu_unregister(void);
void ntrace_pmu_stop_local(void);
ssize_t ntrace_pmu_drains_show(char *page);

/* ntrace_caps.c: sysfs */
extern const struct attribute_group ntrace_caps_group;
extern const struct attribute_group ntrace_format_group;
extern const struct attribute_group ntrace_pmu_group;
extern struct attribute_group ntrace_cpu_caps_group;
int ntrace_cpu_caps_init(void);
void ntrace_cpu_caps_free(void);

#endif /* NTRACE_H */
