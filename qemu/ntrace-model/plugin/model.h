/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * State of the ntrace hardware model: per hart one N-Trace encoder (with
 * its timestamp unit, filters and comparators); RAM sinks (SMEM, and SRAM
 * mode when the model has SRAM) and trace funnels wired as the chosen
 * topology says (topology.c). Their registers live in a reserved region of
 * guest RAM that the plugin shares with QEMU through the memory-backend
 * file.
 */
#ifndef NTRACE_MODEL_H
#define NTRACE_MODEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <ntrace/encoder.h>
#include <ntrace/ingress.h>
#include <ntrace/isa.h>

#include "qemu_plugin_api.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

#define MODEL_MAX_HARTS		8
#define MODEL_NFILTERS		2
#define MODEL_NCOMPS		2
#define MODEL_TS_WIDTH		48
/*
 * The register region: blocks of 4 KiB that topology.c places; its size is
 * the topology's (M.region_size: 64 KiB for the 1.0 topologies, 1 MiB +
 * 64 KiB for the P550's, whose encoders start at 1 MiB).
 */
#define MODEL_REGION_SIZE_1_0	0x10000
#define MODEL_REGION_SIZE_P550	0x110000
#define MODEL_MAX_BLOCKS	(MODEL_REGION_SIZE_P550 / 0x1000)
#define MODEL_V0_TS_WIDTH	40	/* SiFive v0 tsWidth */
#define MODEL_MAX_FUNNELS	3
#define MODEL_MAX_SRAM		(16u << 20)
#define MODEL_BATCH		1024	/* records per encoder call (> a block) */
#define MODEL_RAS		64	/* shadow return stack entries */
#define MODEL_TS_REFRESH	64	/* blocks between trTsCounter refreshes (not tracing) */

/* One instruction of a translated block, decoded once at translation. */
struct tb_insn {
	uint64_t pc;
	struct tb_desc *tb;
	struct ntrace_idec d;
	int32_t imm;		/* JALR offset */
	uint32_t hw_before;	/* half-words of the block before this one */
	uint16_t idx;
	uint8_t csr_watch;	/* writes a CSR the ingress mirrors (CSRW_*) */
	uint8_t seq_rd;		/* LUI, C.LUI, AUIPC: the register written, else 0 */
	bool seq_jump;		/* indirect jump the sequential-jump rule applies to */
	bool target_known;	/* indirect/xRET target can be read before it runs */
	bool xret_m;		/* MRET (else SRET) */
	bool read_early;	/* JALR with rd == rs1: read the target before it runs */
	bool target_static;	/* JALR right after an AUIPC of its rs1: target known */
	uint64_t target;	/* its target (translation address) */
};

#define CSRW_SATP	0x01
#define CSRW_MTVEC	0x02

struct tb_desc {
	uint64_t pc;
	/*
	 * Where the last instruction can lead without a trap, when the
	 * instruction alone tells (no indirect jump): the direct target and
	 * the fall-through, or one of them twice (translation addresses),
	 * and the last record's itype when it goes there.
	 */
	uint64_t succ[2];
	uint8_t succ_itype[2];
	bool succ_static;
	/* the whole block as the encoder takes it (itype set per run) */
	struct ntrace_enc_block whole;
	uint32_t n;
	uint32_t plain_n;		/* leading records of tmpl that are plain */
	uint8_t tmpl_priv;		/* privilege the block runs at */
	struct ntrace_insn *tmpl;	/* per-instruction record template */
	struct tb_desc *next_alloc;	/* allocation list, freed on TB flush */
	struct tb_insn insn[];
};

struct comparator {
	uint32_t control;
	uint64_t pmatch, smatch;
	bool latch;		/* match mode 3 state */
};

struct filter {
	uint32_t control;
	uint32_t match_inst;
};

/*
 * A SiFive v0 timestamp counter that the guest can stop, reset and
 * prescale (tsType internal): the platform timer, counted from base,
 * divided by 4^tsPrescale; while stopped it holds held.
 */
struct v0_tsunit {
	bool active;		/* tsActive */
	uint32_t control;	/* WARL fields of its tsControl */
	uint64_t base;		/* timer value at which a running counter read 0 */
	uint64_t held;		/* the value while tsCount=0 */
};

/* Trace encoder registers and the state behind them. */
struct encoder {
	bool active;		/* trTeActive as the hardware sees it */
	bool enable;
	bool inst_tracing;
	bool overflow;		/* trTeInstStallOrOverflow */
	bool empty;
	uint32_t control;	/* WARL mode/option fields of trTeControl */
	uint32_t features;	/* trTeInstFeatures */
	uint32_t inst_filters;
	struct filter flt[MODEL_NFILTERS];
	struct comparator cmp[MODEL_NCOMPS];

	/*
	 * Timestamp unit, trTsMode External: the platform timer (what the
	 * time CSR reads, the ACLINT mtime) divided by 4^trTsPrescale.
	 */
	bool ts_active;
	uint32_t ts_control;	/* WARL fields of trTsControl */
	bool ts_running;	/* Active and mode External: it has a value */

	/* SiFive v0 only (regs_encoder_v0.c) */
	bool sink_error;	/* teSinkError */
	struct v0_tsunit *ts0;	/* the unit its timestamps come from */
	struct v0_tsunit ts_own;	/* sifive-hart: its own (internal) unit */
};

/* Where a trace output goes: a sink, or input port of a funnel. */
/* COMP_FOREIGN: a component of a type the model does not implement (foreign=) */
enum comp_kind { COMP_NONE, COMP_ENCODER, COMP_SINK, COMP_FUNNEL, COMP_FOREIGN };

struct comp_ref {
	uint8_t kind;		/* COMP_SINK or COMP_FUNNEL */
	uint8_t idx;
	uint8_t port;		/* funnel input number (bit of trFunnelDisInput) */
};

/* Bytes of whole messages a funnel holds while its sink does not capture. */
#define MODEL_HELD_BYTES	65536

/*
 * RAM sink. Its lock also guards every funnel whose output leads to it;
 * lock order: M.lock, hart lock, sink lock.
 */
struct ramsink {
	unsigned int idx;
	int lock;
	bool active;
	bool enable;
	bool pending_active;	/* release from reset at the writer's next block */
	uint32_t control;	/* WARL fields of trRamControl (trRamMode included) */
	uint64_t start, limit, wp, rp;
	bool wrap;
	uint8_t staged;		/* bytes written into the word at wp, not yet counted */
	uint8_t wbytes;		/* bytes of a trace word: 4, or 8 (v0 sinkBytes 1) */
	bool v0;		/* a SiFive v0 sink embedded in a TE or TF block */
	bool unmapped;		/* v0: the buffer is not all RAM below the region */
	bool sink_error;	/* v0: a word could not be written (teSinkError) */
	uint8_t *sram;		/* model-internal SRAM (M.sram_size bytes) or NULL */
	volatile uint32_t *regs;	/* register page in guest RAM */
	uint64_t phys;
	uint64_t bytes;
	bool fault_armed;	/* enabled since reset: an injected fault applies */
	/*
	 * Messages that came through a funnel while the sink was active but
	 * not capturing: they wait here (the funnel's output stage) and are
	 * written when capturing resumes (sink_store.c, ram_hold()).
	 */
	uint8_t held[MODEL_HELD_BYTES];
	uint8_t held_from[MODEL_HELD_BYTES];	/* the hart of each held byte */
	size_t held_len;
};

/* Trace funnel: merges whole messages of its inputs into its output. */
struct funnel {
	unsigned int idx;
	bool active;
	bool enable;
	bool pending_active;
	uint32_t dis_input;	/* trFunnelDisInput */
	unsigned int ninputs;
	struct comp_ref out;
	struct ramsink *root;	/* the sink its output leads to (its lock) */
	volatile uint32_t *regs;
	uint64_t phys;
	struct v0_tsunit ts;	/* SiFive v0: the system timestamp unit */
};

/* Pending reset transitions: complete at the writer's next block. */
#define PEND_TE_ACTIVE	0x1
#define PEND_TE_STOP	0x4

struct hart {
	unsigned int idx;
	int lock;		/* hart_lock()/hart_unlock(): short, rarely contended */
	struct encoder te;
	struct comp_ref out;	/* where the encoder's messages go */
	struct ramsink *root;	/* the sink they end in */
	uint32_t pending;	/* PEND_* */
	volatile uint32_t *te_regs;	/* register page in guest RAM */
	uint64_t te_phys;
	bool fault_armed;	/* enabled since reset: an injected fault applies */

	struct vcpu_sb *sb;	/* its vCPU's scoreboard entry, once it cannot move */

	/* ingress derivation */
	bool tracing;		/* records are being produced */
	const struct tb_desc *prev;	/* block whose outcome is still open */
	uint64_t delta;		/* prev's run-time address - its translation's */
	unsigned int prev_from;	/* first instruction of prev inside the trace */
	uint64_t prev_icount;	/* instructions retired before prev started */
	uint8_t prev_priv;
	uint8_t last_seq_rd;	/* seq_rd of the last instruction handed on */
	uint64_t tgt;		/* indirect_target() read at this block boundary */
	bool tgt_cached, tgt_ok;
	uint64_t next_target;	/* target of an indirect jump / trap return */
	bool next_target_valid;
	uint64_t ras[MODEL_RAS];	/* shadow return stack (prediction only) */
	unsigned int ras_n;
	uint8_t priv;
	bool priv_stale;
	uint64_t context;
	bool context_stale;
	uint64_t mtvec;		/* where M-mode traps enter (mtvec_entry()) */
	bool mtvec_stale;
	bool start_pending;	/* next record carries TRACE_START */
	bool clock_tstamp;	/* records carry the core clock (sync mode 2) */
	/*
	 * Records carry the timestamp unit's value (it runs and trTsEnable
	 * or sync mode 2 uses it): ts_now, read once per block boundary.
	 */
	bool ts_needed;
	uint64_t ts_now;
	unsigned int ts_idle;	/* blocks since trTsCounter was refreshed */
	bool in_filter;
	unsigned int nrec;		/* records in rec[] */
	bool ram_dirty;		/* sink pointers moved: publish root's trRamWP */
	/*
	 * Held messages of this hart could not be written (sink_store.c):
	 * its next message is dropped too, so that its encoder reports the
	 * loss. Under its root sink's lock.
	 */
	bool release_lost;

	/* output */
	FILE *gt;
	struct trace_out *enc;	/* encoder instance (trace_out.c) */
	uint64_t records, bytes;

	/*
	 * Records of the current block, handed to the encoder in one call;
	 * the last one is held back so a trap can still mark it. Last: the
	 * fields every block boundary reads stay a few cache lines.
	 */
	struct ntrace_insn rec[MODEL_BATCH];
};

/* A 4 KiB block of the register region. */
struct block {
	uint8_t kind;		/* enum comp_kind */
	uint8_t idx;
};

enum topology { TOPO_HART, TOPO_FUNNEL, TOPO_FUNNEL2, TOPO_P550, TOPO_SIFIVE_HART };

/* fault.c: the injected hardware fault of this boot (fault=NAME) */
enum model_fault {
	FAULT_NONE,
	FAULT_TE_NO_ACTIVE,
	FAULT_TE_BAD_IMPL,
	FAULT_TE_NEVER_EMPTY,
	FAULT_RAM_NEVER_EMPTY,
	FAULT_RAM_WP_STUCK,
	FAULT_RAM_WP_WILD,
	FAULT_FUNNEL_INPUT_STUCK,
};

struct model {
	unsigned int xlen;	/* 32 or 64: the target's (qemu-system-riscv32/64) */
	uint64_t xmask;		/* XLEN-wide address mask: RV32 addresses wrap */
	unsigned int nharts;
	enum topology topo;
	bool v0;		/* SiFive pre-ratified components (p550, sifive-hart) */
	uint64_t region_size;	/* bytes of the register region (topology) */
	unsigned int nblocks;	/* its 4 KiB blocks */
	unsigned int nsinks, nfunnels;
	uint64_t sram_size;	/* bytes of SRAM per sink (0: SMEM-only sinks) */
	const char *layout_path;
	uint32_t foreign_impl;	/* tr??Impl of the foreign component (0: none) */
	enum model_fault fault;
	int nvcpus;		/* vCPUs that can run (-smp cpus or maxcpus) */
	int vcpus_up;		/* vCPUs whose init callback ran (atomic) */
	uint64_t ram_base, ram_size;
	uint8_t *ram;		/* host mapping of guest RAM */
	uint64_t reg_base;	/* guest-physical base of the register region */
	const char *ram_path;
	const char *gt_prefix;
	bool gt_text;
	bool stats;
	pthread_mutex_t lock;	/* register writes and pending transitions */
	struct hart harts[MODEL_MAX_HARTS];
	struct ramsink sinks[MODEL_MAX_HARTS];
	struct funnel funnels[MODEL_MAX_FUNNELS];
	struct block blocks[MODEL_MAX_BLOCKS];
	struct qemu_plugin_scoreboard *sb;
	qemu_plugin_u64 sb_active;	/* per vCPU: block callback needed */
	qemu_plugin_u64 sb_reached;	/* per vCPU: last insn of block started */
	qemu_plugin_u64 sb_icount;	/* per vCPU: instructions executed */
};

/* Per-vCPU scoreboard layout. */
struct vcpu_sb {
	uint64_t active;
	uint64_t reached;
	uint64_t icount;
};

#define ACTIVE_TRACE	0x1
#define ACTIVE_TS	0x2
#define ACTIVE_SERVICE	0x4

extern struct model M;

/* An address formed by arithmetic, wrapped to XLEN as the hart does. */
static inline uint64_t xaddr(uint64_t a)
{
	return a & M.xmask;
}

/*
 * With one vCPU every callback runs on its thread (a translation-cache
 * flush too: QEMU runs it there, exclusively), so there is nothing to lock
 * against. The locked exchange, which also drains the store buffer full of
 * the guest's stores, drew a quarter of a traced run's profile samples.
 */
static inline bool locks_needed(void)
{
	return M.nvcpus > 1;
}

static inline void spin_lock(int *l)
{
	if (!locks_needed())
		return;
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

static inline void spin_unlock(int *l)
{
	if (locks_needed())
		__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static inline void hart_lock(struct hart *h)
{
	spin_lock(&h->lock);
}

static inline void hart_unlock(struct hart *h)
{
	spin_unlock(&h->lock);
}


/* clock.c: the platform timer, also under -icount */
extern bool clock_icount_on;	/* QEMU runs with -icount (set by clock_init) */
void clock_init(void);
void clock_block_mark(bool entering);

static inline bool clock_icount(void)
{
	return clock_icount_on;
}

/* A block callback starts (entering) or ends: only -icount cares. */
static inline void clock_block_cb(bool entering)
{
	if (clock_icount_on)
		clock_block_mark(entering);
}
uint64_t clock_read(void);
bool clock_take_stale(void);

/* guest_ram.c */
int guest_ram_map(void);

/* Host pointer for [phys, phys + len) or NULL when it is not all RAM. */
static inline void *guest_ram_ptr(uint64_t phys, uint64_t len)
{
	if (phys < M.ram_base || len > M.ram_size ||
	    phys - M.ram_base > M.ram_size - len)
		return NULL;
	return M.ram + (phys - M.ram_base);
}

/* regs_encoder.c */
void te_reset(struct hart *h);
void te_write(struct hart *h, unsigned int off, uint32_t val, uint32_t bytemask,
	      unsigned int vcpu, const struct tb_insn *at);
void te_publish(struct hart *h);
uint64_t ts_value(struct hart *h);
void ts_publish(struct hart *h);
void ts_publish_value(struct hart *h, uint64_t v);
void ts_update_needed(struct hart *h);

/* regs_sink.c (sink lock held) */
void ram_reset(struct ramsink *r);
void ram_write(struct ramsink *r, unsigned int off, uint32_t val, uint32_t bytemask,
	       unsigned int vcpu);
void ram_read(struct ramsink *r, unsigned int off);
void ram_publish(struct ramsink *r);
void ram_publish_wp(struct ramsink *r);
bool ram_empty(const struct ramsink *r);
bool ram_sram_mode(const struct ramsink *r);

/* sink_store.c: the sink's data path (sink lock held) */
int ram_push(struct ramsink *r, const uint8_t *buf, size_t n);

/*
 * Copy n bytes: a message of at most 16 (most are a few) with two
 * overlapping stores, no library call.
 */
static inline void copy_msg(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n >= 8 && n <= 16) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else if (n && n < 4) {
		d[0] = s[0];
		d[n - 1] = s[n - 1];
		d[n / 2] = s[n / 2];
	} else {
		memcpy(d, s, n);
	}
}

/*
 * ram_push()'s common case, inline, with one bounds check: capturing into
 * guest RAM (a sink without SRAM), and the bytes end before the word at
 * trRamLimit is complete, so nothing wraps. Returns false, having done
 * nothing, in any other case.
 */
static inline bool ram_push_fast(struct ramsink *r, const uint8_t *buf, size_t n)
{
	uint64_t at = r->wp + r->staged;
	uint8_t *p;

	if (!r->active || !r->enable || r->sram || r->wp > r->limit ||
	    n >= r->limit + r->wbytes - at || r->unmapped || M.fault == FAULT_RAM_WP_STUCK)
		return false;
	p = guest_ram_ptr(at, n);
	if (!p)
		return false;
	copy_msg(p, buf, n);
	r->bytes += n;
	r->wp += (r->staged + n) & -(uint64_t)r->wbytes;
	r->staged = (r->staged + n) & (r->wbytes - 1);
	return true;
}
int ram_hold(struct ramsink *r, unsigned int hart, const uint8_t *buf, size_t n);
void ram_release(struct ramsink *r);
void ram_flush(struct ramsink *r);
uint32_t ram_sram_word(const struct ramsink *r, uint64_t addr);

/* regs_encoder_v0.c: the SiFive v0 TE (te_* call these when M.v0) */
void te_v0_reset(struct hart *h);
void te_v0_write(struct hart *h, unsigned int off, uint32_t val, uint32_t bytemask,
		 unsigned int vcpu, const struct tb_insn *at);
void te_v0_publish(struct hart *h);
uint32_t te_v0_control(const struct hart *h);
uint64_t te_v0_ts_value(struct hart *h);
void te_v0_ts_update(struct hart *h);
uint64_t v0_ts_read(const struct v0_tsunit *u);
void v0_ts_reset(struct v0_tsunit *u, uint32_t type);
void v0_ts_write(struct v0_tsunit *u, uint32_t val, uint32_t writable);
uint32_t v0_ts_control(const struct v0_tsunit *u);

/* regs_funnel_v0.c: the SiFive v0 TF and the sinks embedded in v0 blocks */
void funnel_v0_reset(struct funnel *f);
void funnel_v0_write(struct funnel *f, unsigned int off, uint32_t val, unsigned int vcpu);
void funnel_v0_publish(struct funnel *f);
void sink_v0_reset(struct ramsink *r);
bool sink_v0_write(struct ramsink *r, unsigned int off, uint32_t val);
void sink_v0_publish(struct ramsink *r);

/* regs_funnel.c (lock of the funnel's root sink held) */
void funnel_reset(struct funnel *f);
void funnel_write(struct funnel *f, unsigned int off, uint32_t val, unsigned int vcpu);
void funnel_publish(struct funnel *f);

/* topology.c */
bool topology_parse(const char *name);

/* fault.c */
bool fault_parse(const char *name);
const char *fault_names(void);
/* fault f is injected and hits this component */
bool fault_on_hart(enum model_fault f, const struct hart *h);
bool fault_on_sink(enum model_fault f, const struct ramsink *r);
const char *topology_name(void);
void topology_init(void);
int topology_write_layout(void);
int route_push_slow(struct hart *h, const uint8_t *buf, size_t n);

/*
 * Whole messages of hart h to its encoder's output. Returns 0, or -1 when
 * (some of) the bytes were dropped. A hart wired straight to its sink
 * stores them inline when it can (one vCPU: no lock).
 */
static inline int route_push(struct hart *h, const uint8_t *buf, size_t n)
{
	if (h->out.kind == COMP_SINK && !locks_needed() && !h->release_lost &&
	    ram_push_fast(h->root, buf, n)) {
		h->bytes += n;
		return 0;
	}
	return route_push_slow(h, buf, n);
}

/* Show the sink hart h's trace ends in: trRamWP/Control, or every register. */
static inline void route_publish(struct hart *h, bool all)
{
	struct ramsink *r = h->root;

	spin_lock(&r->lock);
	if (all)
		ram_publish(r);
	else
		ram_publish_wp(r);
	spin_unlock(&r->lock);
}

/* regs.c: dispatch of guest stores to the register region */
void regs_init(void);
void regs_store(unsigned int vcpu, uint64_t phys, unsigned int size,
		uint64_t value, const struct tb_insn *at);
void regs_load(unsigned int vcpu, uint64_t phys, unsigned int size);
void regs_service(unsigned int vcpu);
void vcpu_set_active(unsigned int vcpu, uint64_t bits, bool on);
uint64_t vcpu_icount(unsigned int vcpu);

/* filter.c */
bool filter_match(struct hart *h, uint64_t addr, uint8_t priv);

/* ingress.c */
void ingress_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void ingress_flush(qemu_plugin_id_t id);
void ingress_start(struct hart *h, unsigned int vcpu, const struct tb_insn *at);
void ingress_stop(struct hart *h, unsigned int vcpu, const struct tb_insn *at);
void ingress_vcpu_init(unsigned int vcpu);
uint64_t ingress_read_time(void);

/* trace_out.c: the one place that talks to the encoder library */
const char *trace_out_start(struct hart *h);
void trace_out_records(struct hart *h, const struct ntrace_insn *r, size_t n);
void trace_out_run(struct hart *h, const struct ntrace_insn *r, size_t n, unsigned int hw,
		   const struct ntrace_run_attr *a);

/*
 * Does periodic sync count the timestamp (trTeInstSyncMode 2)? Only a 1.0
 * encoder has that mode: the v0 teControl holds teSyncMaxBTM there.
 */
static inline bool te_sync_by_time(const struct encoder *te)
{
	return !M.v0 && TCI_GET(te->control, TE_SYNC_MODE) == TCI_TE_SYNC_MODE_CYCLES;
}

/* A hart's encoder instance: only trace_out.c and the inline calls below use it. */
struct trace_out {
	struct ntrace_encoder enc;
	struct hart *h;
	bool running;
	bool dropped;		/* a message did not reach the sink */
};

/*
 * A message was dropped (the path to the sink was off or the sink full):
 * as the N-Trace Error message section requires, the encoder's next
 * message is an Error (ETYPE 0, program trace lost) followed by a
 * ProgTraceSync (SYNC 7), so that a decoder knows where trace is missing
 * and resynchronises there. Called after the encoder returns, not from
 * its output callback.
 */
static inline void trace_out_overrun_check(struct trace_out *o)
{
	if (o->dropped) {
		o->dropped = false;
		ntrace_encoder_overrun(&o->enc, NTRACE_ECODE_PROGRAM_LOST);
	}
}

/* A whole block with its outcome (ntrace_encoder_put_block), inline: every block. */
static inline void trace_out_block(struct hart *h, const struct ntrace_enc_block *b,
				   const struct ntrace_run_attr *a)
{
	struct trace_out *o = h->enc;

	if (o && o->running) {
		ntrace_encoder_put_block(&o->enc, b, a);
		trace_out_overrun_check(o);
	}
}
void trace_out_stop(struct hart *h);
uint32_t trace_out_features(void);
bool trace_out_has_context(void);
bool trace_out_mode_ok(unsigned int mode);
bool trace_out_sync_mode_ok(unsigned int mode);

/* gtlog.c */
void gt_open(struct hart *h);
void gt_records(struct hart *h, const struct ntrace_insn *r, size_t n);
void gt_run(struct hart *h, const struct ntrace_insn *r, size_t n,
	    const struct ntrace_run_attr *a);
void gt_flush(struct hart *h);
void gt_close(struct hart *h);

#endif /* NTRACE_MODEL_H */
