/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pure functions of the ntrace PMU (no hardware access, tested by KUnit):
 * turning perf_event_attr.config into encoder register values against the
 * discovered capabilities, and packing the per-CPU AUXTRACE_INFO record.
 */
#ifndef NTRACE_CONFIG_H
#define NTRACE_CONFIG_H

#include <linux/types.h>
#include <linux/ntrace.h>

#define NTRACE_MAX_RANGES	8

/* What an encoder can do, found by WARL probing (ntrace_encoder.c). */
struct ntrace_caps {
	u32 te_impl;		/* trTeImpl */
	u8 variant;		/* NTRACE_PROTO_VARIANT_*: the messages it sends */
	u8 ver_major;		/* trTeVerMajor/Minor (v0: the version field) */
	u8 ver_minor;
	u8 proto_major;		/* trTeProtocolMajor/Minor (v0: 0.0) */
	u8 proto_minor;
	u8 modes;		/* BIT(3) BTM, BIT(6) HTM: trTeInstMode values */
	u8 iret_modes;		/* BIT(m): trTeInstImplicitReturnMode m (1..3) */
	u8 sync_modes;		/* BIT(m): trTeInstSyncMode m (1..3) */
	u8 sync_max;		/* largest trTeInstSyncMax */
	u8 sync_mode_reset;	/* reset values of trTeInstSyncMode/Max */
	u8 sync_max_reset;
	u8 src_bits;		/* trTeSrcBits used: ntrace_src_bits() */
	bool src_id_writable;	/* trTeSrcID takes any 12-bit value */
	u16 src_id;		/* else the fixed source ID its messages carry */
	bool ctx;		/* trTeContext */
	bool priv_filter;	/* filters can match privilege */
	u32 features;		/* trTeInstFeatures option bits that stick */
	/*
	 * Of those, the ones only on or off together (SiFive v0:
	 * teInstruction 7 is implicit return and repeated history at once).
	 */
	u32 tied_features;
	u8 nr_filters;
	u8 nr_comparators;
	u8 ts_mode;		/* NTRACE_TS_MODE_*, 0: no timestamp unit */
	u8 ts_width;		/* trTsWidth */
	u8 ts_prescale_max;	/* largest trTsPrescale */
	u64 ts_rate_hz;		/* timestamp input clock in Hz, 0: unknown */
	/* Decoder parameters no register shows (N-Trace implementation choices) */
	u8 icnt_bits;
	u8 hist_bits;
	u8 hrepeat_bits;
	u8 bcnt_bits;
	u8 return_depth;
	u8 return_addr_bits;
	u8 itype_bits;
	u8 va_bits;		/* virtual address bits of the kernel's MMU mode */
};

/* One address range: [start, end] inclusive, instruction addresses. */
struct ntrace_range {
	u64 start;
	u64 end;
};

/* Register values for one event (programmed on every start). */
struct ntrace_prog {
	u32 te_control;		/* trTeControl without Active/Enable/InstTracing */
	u32 features;		/* trTeInstFeatures without trTeSrcID */
	u32 ts_control;		/* trTsControl, 0: timestamps off */
	u8 priv_mask;		/* privilege choice bits, 0: no privilege filter */
	u8 nr_ranges;		/* address ranges in use */
	bool src;		/* SRC field with trTeSrcID = logical CPU */
	u8 iret_mode;
};

/* Privilege values on the trace ingress port (E-Trace "priv") */
#define NTRACE_PRIV_U		0
#define NTRACE_PRIV_S		1
#define NTRACE_PRIV_M		3

/*
 * Check config/config1/config2 and the privilege exclusions against caps
 * and fill prog. nr_ranges address ranges are wanted. Returns 0, -EINVAL
 * (malformed request) or -EOPNOTSUPP (valid but the encoder cannot do it);
 * *why names the reason.
 */
int ntrace_config_resolve(const struct ntrace_caps *caps, u64 config,
			  u64 config1, u64 config2, bool exclude_user,
			  bool exclude_kernel, unsigned int nr_ranges,
			  struct ntrace_prog *prog, const char **why);

/*
 * trTeControl / trTeInstFeatures values for prog; the source ID is the
 * logical CPU where the encoder takes one, else its fixed one.
 */
u32 ntrace_prog_te_control(const struct ntrace_prog *prog);
u32 ntrace_prog_features(const struct ntrace_prog *prog,
			 const struct ntrace_caps *caps, unsigned int cpu);

/*
 * teControl of a SiFive v0 encoder for prog (whose values are TCI 1.0's,
 * as ntrace_config_resolve() makes them from caps that describe the v0
 * encoder in 1.0 terms): teInstruction 7 (implicit return by a call
 * counter, repeated history) with implicit return, else 6 (HTM); message
 * count sync as teSyncMaxBTM; teInhibitSrc without SRC; teSink its own
 * system memory sink (own_sink) or the funnel.
 */
u32 ntrace_sifive_te_control(const struct ntrace_prog *prog, bool own_sink);

/*
 * The SRC width to program when trTeSrcID is the logical CPU number: the
 * fewest bits that hold every CPU number below nr_cpus, at least 1, at
 * most what the encoder has (hw_bits; 0: no SRC field).
 */
unsigned int ntrace_src_bits(unsigned int hw_bits, unsigned int nr_cpus);

/* Largest number of address ranges the encoder can filter on. */
unsigned int ntrace_caps_nr_ranges(const struct ntrace_caps *caps);

/*
 * Input clock of a timestamp unit in trTsMode ts_mode (before trTsPrescale):
 * node_hz, the encoder node's riscv,timestamp-frequency, when the device
 * tree has it (not 0); else, for an External unit, the platform timer's
 * rate timebase_hz (timebase-frequency of /cpus: the binding's default
 * source of external timestamps); else 0, unknown. 0 without a unit.
 */
u64 ntrace_ts_rate(u8 ts_mode, u64 node_hz, u64 timebase_hz);

/* Narrow *all to what both all and one can do (per-CPU differences). */
void ntrace_caps_intersect(struct ntrace_caps *all,
			   const struct ntrace_caps *one);

/*
 * The AUXTRACE_INFO record of one CPU, from the values read back after
 * programming (te_control, features, ts_control).
 */
void ntrace_cpu_info_pack(struct ntrace_cpu_info *out,
			  const struct ntrace_caps *caps, unsigned int cpu,
			  u32 hartid, u32 te_control, u32 features,
			  u32 ts_control);

/*
 * Split the N-Trace bytes buf[0..len) of a sink shared through funnels
 * into whole messages and call emit(ctx, src, msg, size) for each, src
 * being its SRC field of src_bits bits (messages of one source stay in
 * order). Idle bytes between messages are skipped. wait: buf starts at an
 * arbitrary byte (a wrapped sink): skip to after the first end of message.
 * Returns the number of bytes dropped: the skipped start, a malformed
 * message or one cut at the end of buf.
 */
typedef void (*ntrace_msg_fn)(void *ctx, unsigned int src, const u8 *msg,
			      size_t size);
size_t ntrace_split_msgs(const u8 *buf, size_t len, unsigned int src_bits,
			 bool wait, ntrace_msg_fn emit, void *ctx);

/*
 * Of the whole messages buf[0..len) (as ntrace_split_msgs() gives them),
 * the length of the longest prefix of at most max bytes that ends with a
 * whole message: what a full AUX area can take without cutting one.
 */
size_t ntrace_msgs_fit(const u8 *buf, size_t len, size_t max);

/* msg (a whole message) is a synchronisation message: a decoder can start there. */
bool ntrace_msg_is_sync(const u8 *msg);

/* The longest message ntrace_error_msg() writes: TCODE, 12 + 4 + 3 bits */
#define NTRACE_ERROR_MSG_MAX	5

/*
 * Write into buf an Error message of source src (a SRC field of src_bits
 * bits, 12 at most): ETYPE 0, ECODE "program trace messages lost", no
 * TSTAMP. Put before a synchronisation message, it tells a decoder that
 * messages before it are missing (N-Trace 1.0, Error message). Returns its
 * length.
 */
size_t ntrace_error_msg(u8 *buf, unsigned int src, unsigned int src_bits);

/*
 * An AUX area as the physical memory behind it (ntrace_window.c): runs of
 * contiguous bytes in ring order, ring offset off at physical address phys.
 */
struct ntrace_aux_run {
	size_t off;
	size_t len;
	u64 phys;
};

struct ntrace_aux_map {
	size_t size;			/* bytes of the ring */
	unsigned int nr_runs;
	unsigned int max_runs;
	struct ntrace_aux_run runs[];	/* max_runs of them */
};

/*
 * Add len bytes at ring offset off (after the last added), at phys: they
 * extend the last run if contiguous with it. False when a new run would
 * exceed max_runs.
 */
bool ntrace_aux_map_add(struct ntrace_aux_map *m, size_t off, u64 phys,
			size_t len);
/* The longest run's bytes: a sink buffer longer than it is copied from. */
size_t ntrace_aux_map_longest(const struct ntrace_aux_map *m);

/* Where a sink writes an AUX area directly. */
struct ntrace_window {
	u64 start;		/* trRamStart; trRamLimit is start + len - 4 */
	size_t len;		/* a multiple of 4 */
	u64 wp;			/* trRamWP to start at */
	size_t off;		/* ring offset of wp */
	size_t pad;		/* idle bytes from the AUX head to wp's word */
	bool to_room;		/* ends where the free space ends (not a run) */
};

/*
 * The window for an AUX head (a free-running byte position) with room
 * bytes free: from head, rounded up to a word, to the end of the free
 * space or of the run of contiguous memory it starts in, whichever comes
 * first; the sink stops on wrap at its end. snapshot: the whole ring,
 * which the sink wraps in, writing from head on (needs one run). lo, hi:
 * the lowest and highest address the sink can write. Returns 0, -ENOSPC
 * (no room for a word), -EOPNOTSUPP (a snapshot ring in several runs),
 * -ERANGE (outside lo..hi) or -EINVAL (an empty or unaligned ring).
 */
int ntrace_aux_window(const struct ntrace_aux_map *m, unsigned long head,
		      size_t room, bool snapshot, u64 lo, u64 hi,
		      struct ntrace_window *w);
/*
 * The same, but a window that the end of a run of memory cuts shorter
 * than min_len (and not the free space) moves to the next run, after the
 * stretch to that end, which w->pad then counts: the caller fills it with
 * idle bytes. -ENOSPC when that window is short too, or the stretch is
 * more than an eighth of room.
 */
int ntrace_aux_window_min(const struct ntrace_aux_map *m, unsigned long head,
			  size_t room, bool snapshot, u64 lo, u64 hi,
			  size_t min_len, struct ntrace_window *w);

/* What a trace component node is driven as (ntrace_component.c). */
enum ntrace_role {
	NTRACE_ROLE_NONE,	/* no driver here: reported, left alone */
	NTRACE_ROLE_ENCODER,
	NTRACE_ROLE_SINK,	/* RAM sink */
	NTRACE_ROLE_FUNNEL,
};

/*
 * The role of a component known only by its implementation register
 * (tr??Impl): tr??CompType says which, and major version 1 is the only
 * one the drivers know (the policy of ntrace_tci_check_impl()). *what:
 * the component type's name, or NULL for a type the TCI does not define.
 */
enum ntrace_role ntrace_role_of_impl(u32 impl, const char **what);

#endif /* NTRACE_CONFIG_H */
