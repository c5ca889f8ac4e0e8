// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: the SiFive pre-ratified (version 0) personality, as on the
 * HiFive Premier P550: its encoder, its funnel and the system-memory sink
 * embedded in either's register block (linux/ntrace_tci_v0.h).
 *
 * The rest of the driver speaks TCI 1.0, so these operations translate:
 * discovery describes a v0 encoder in 1.0 terms (HTM only; implicit
 * return, a call counter, and repeated history only together, as
 * teInstruction 7; message-count sync only; a fixed SRC), and programming
 * turns the 1.0 register values the PMU computed into teControl. The
 * messages differ too (variant sifive-v0: XOR timestamps, ResourceFull
 * RCODE 8/9, a call counter of 1023): caps->variant tells the decoder.
 *
 * Differences from TCI 1.0 the driver depends on, all from the P550's
 * published register tables: no component type in te/tfImpl (only the
 * compatible says what a block is); the sink is chosen in the control
 * register (teSink, tfSink) and programmed there (te/tfStopOnWrap) and at
 * 0x10..0x1c (Base, BaseHigh shared by Limit and WP, Limit is the last
 * word, WP bit 0 says it wrapped); words of 4 << sinkBytes bytes;
 * teStallOrOverflow is cleared by writing 0; the v0 funnel has no input
 * disable register, and its enable is its sink's.
 */
#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/irqflags.h>
#include <linux/math64.h>
#include <linux/ntrace_tci.h>
#include <linux/ntrace_tci_v0.h>
#include <linux/of.h>
#include <linux/timex.h>

#include "ntrace.h"

/*
 * N-Trace parameters no v0 register shows: the values of our model of
 * the P550 (Documentation/trace/ntrace-qemu-model.rst). The call counter
 * (1023) is implied by the variant: return_depth stays 0.
 */
#define V0_ICNT_BITS		16
#define V0_HIST_BITS		32
#define V0_BCNT_BITS		18
#define V0_ITYPE_BITS		4

static u32 v0_warl(void __iomem *reg, u32 val)
{
	writel(val, reg);
	return readl(reg);
}

static bool v0_version_ok(struct device *dev, u32 impl, const char *what)
{
	if (!FIELD_GET(TCI_V0_IMPL_VERSION_MASK, impl))
		return true;
	dev_err(dev, "%s: implementation version %u, not the pre-ratified 0 its compatible says (Impl %#010x)\n",
		what, FIELD_GET(TCI_V0_IMPL_VERSION_MASK, impl), impl);
	return false;
}

/* ---- Encoder ------------------------------------------------------------ */

static int sifive_te_discover(struct ntrace_encoder *te)
{
	struct ntrace_caps *c = &te->caps;
	void __iomem *ctl = te->base + TCI_V0_CONTROL;
	u32 impl = readl(te->base + TCI_V0_IMPL);
	u32 reset = readl(ctl), btm, v;
	struct device_node *out;
	bool to_funnel;

	if (!v0_version_ok(te->dev, impl, "trace encoder"))
		return -ENODEV;
	/* linked to a funnel, else writing its own sink */
	out = of_get_child_by_name(te->dev->of_node, "out-ports");
	to_funnel = out;
	of_node_put(out);
	if (FIELD_GET(TCI_V0_TE_SLICE_FORMAT_MASK, reset) !=
	    TCI_V0_TE_SLICE_FORMAT_6MDO) {
		dev_err(te->dev, "teSliceFormat %u is not N-Trace's 6 MDO + 2 MSEO\n",
			FIELD_GET(TCI_V0_TE_SLICE_FORMAT_MASK, reset));
		return -ENODEV;
	}
	if (!(impl & (to_funnel ? TCI_V0_HAS_FUNNEL_SINK : TCI_V0_HAS_SBA_SINK))) {
		dev_err(te->dev, "has no %s sink (teImpl %#010x)\n",
			to_funnel ? "funnel" : "system memory", impl);
		return -ENODEV;
	}
	c->te_impl = impl;
	c->variant = NTRACE_PROTO_VARIANT_SIFIVE_V0;
	v = v0_warl(ctl, TCI_V0_ACTIVE |
		    FIELD_PREP(TCI_V0_TE_INST_MODE_MASK, TCI_V0_TE_INST_MODE_HTM));
	if (FIELD_GET(TCI_V0_TE_INST_MODE_MASK, v) == TCI_V0_TE_INST_MODE_HTM)
		c->modes |= BIT(TCI_TE_INST_MODE_HTM);
	v = v0_warl(ctl, TCI_V0_ACTIVE |
		    FIELD_PREP(TCI_V0_TE_INST_MODE_MASK,
			       TCI_V0_TE_INST_MODE_HTM_OPT));
	if (FIELD_GET(TCI_V0_TE_INST_MODE_MASK, v) ==
	    TCI_V0_TE_INST_MODE_HTM_OPT) {
		c->modes |= BIT(TCI_TE_INST_MODE_HTM);
		c->features = TCI_TE_F_IMPLICIT_RETURN |
			      TCI_TE_F_REPEATED_HISTORY;
		c->tied_features = c->features;
		c->iret_modes = BIT(TCI_TE_IRET_MODE_COUNT);
	}
	/* sync by message count: 1.0's trTeInstSyncMax is teSyncMaxBTM + 1 */
	v = v0_warl(ctl, TCI_V0_ACTIVE |
		    FIELD_PREP(TCI_V0_TE_SYNC_MAX_BTM_MASK, TCI_V0_TE_SYNC_MAX_BTM_MAX));
	if (FIELD_GET(TCI_V0_TE_SYNC_MAX_BTM_MASK, v) == TCI_V0_TE_SYNC_MAX_BTM_MAX) {
		c->sync_modes = BIT(TCI_TE_SYNC_MODE_MSGS);
		c->sync_max = TCI_V0_TE_SYNC_MAX_BTM_MAX + 1;
	}
	btm = FIELD_GET(TCI_V0_TE_SYNC_MAX_BTM_MASK, reset);
	if (btm <= TCI_V0_TE_SYNC_MAX_BTM_MAX) {
		c->sync_mode_reset = TCI_TE_SYNC_MODE_MSGS;
		c->sync_max_reset = btm + 1;
	}
	writel(TCI_V0_ACTIVE, ctl);
	c->src_bits = FIELD_GET(TCI_V0_TE_SRC_BITS_MASK, impl);
	c->src_id = FIELD_GET(TCI_V0_TE_SRC_ID_MASK, impl);
	ntrace_encoder_probe_timestamp(te);
	if (c->ts_mode) {
		/*
		 * The unit runs from here while bound, never paused, reset
		 * or prescaled, so that one reading against the time CSR
		 * (sifive_te_ts_zero()) places all its values.
		 */
		c->ts_prescale_max = 0;
		writel(TCI_V0_TS_ACTIVE | TCI_V0_TS_COUNT,
		       te->base + TCI_V0_TS_CONTROL);
	}
	if (!c->modes) {
		dev_err(te->dev, "encoder takes no instruction trace mode (teControl %#x)\n",
			reset);
		return -ENODEV;
	}
	c->icnt_bits = V0_ICNT_BITS;
	c->hist_bits = V0_HIST_BITS;
	c->bcnt_bits = V0_BCNT_BITS;
	c->itype_bits = V0_ITYPE_BITS;
	c->va_bits = VA_BITS;
	if (!to_funnel) {
		te->sink = ntrace_sink_embed(te->dev, te->base, true);
		if (IS_ERR(te->sink))
			return PTR_ERR(te->sink);
	}
	return 0;
}

static void sifive_te_program(struct ntrace_encoder *te,
			      const struct ntrace_prog *prog,
			      const struct ntrace_range *ranges)
{
	/* what a WARL field may change; not the status and read-only bits */
	u32 fields = TCI_V0_ACTIVE | TCI_V0_TE_INST_MODE_MASK |
		     TCI_V0_TE_INHIBIT_SRC | TCI_V0_TE_SYNC_MAX_BTM_MASK |
		     TCI_V0_TE_SYNC_MAX_INST_MASK | TCI_V0_SINK_MASK;
	u32 ctl = ntrace_sifive_te_control(prog, te->sink);
	u32 ts = prog->ts_control;

	writel(ctl, te->base + TCI_V0_CONTROL);
	if ((readl(te->base + TCI_V0_CONTROL) & fields) != ctl)
		dev_warn_once(te->dev, "encoder changed teControl %#x to %#x\n",
			      ctl, readl(te->base + TCI_V0_CONTROL));
	/* TSTAMP in every message that can have one, as 1.0's trTsEnable */
	if (ts)
		ts |= FIELD_PREP(TCI_V0_TS_BRANCH_MASK, TCI_V0_TS_BRANCH_ALL);
	/* an internal unit keeps counting (tsCount), with or without TSTAMPs */
	if (te->caps.ts_mode)
		writel((ts ? ts : TCI_V0_TS_ACTIVE) | TCI_V0_TS_COUNT,
		       te->base + TCI_V0_TS_CONTROL);
}

/* teEnable first, then teTracing; the sink's fields are left as they are. */
static void sifive_te_enable(struct ntrace_encoder *te,
			     const struct ntrace_prog *prog)
{
	void __iomem *ctl = te->base + TCI_V0_CONTROL;
	u32 v = readl(ctl) & ~TCI_V0_SINK_ERROR;

	writel(v | TCI_V0_ENABLE, ctl);
	writel(v | TCI_V0_ENABLE | TCI_V0_TE_TRACING, ctl);
}

static int sifive_te_disable(struct ntrace_encoder *te,
			     const struct ntrace_prog *prog, bool *overflow)
{
	void __iomem *ctl = te->base + TCI_V0_CONTROL;
	u32 v = readl(ctl) & ~(TCI_V0_ENABLE | TCI_V0_TE_TRACING |
			       TCI_V0_SINK_ERROR);
	int err;

	writel(v, ctl);
	err = ntrace_tci_wait(ctl, TCI_V0_EMPTY, TCI_V0_EMPTY);
	if (err)
		ntrace_tci_failed(te->dev, &te->failed,
				  "teEmpty stays 0 after disabling: trace does not flush");
	v = readl(ctl);
	*overflow = v & (TCI_V0_TE_STALL_OR_OVF | TCI_V0_SINK_ERROR);
	/* teStallOrOverflow is cleared by a 0, teSinkError by a 1 */
	if (*overflow)
		writel(v & ~TCI_V0_TE_STALL_OR_OVF, ctl);
	return err;
}

/* Readings of the unit between two time CSR reads, V0_TS_GAP_US apart. */
#define V0_TS_TRIES	4
#define V0_TS_GAP_US	20

/*
 * A v0 unit counts from its own reset, not from the time CSR's zero: the
 * funnel's (tsType 2, internal, bus clock) that its encoders' slave units
 * (tsType 4) follow, or the encoder's own. No register sets its value or
 * makes it count the time CSR (tsType is read-only, tsReset only zeroes
 * it), and its clock need not be the time CSR's (the P550's runs at
 * 700 MHz). So its value U (the encoder's tsLower/tsUpper: a slave's is
 * the funnel's) is read between two time CSR reads t0, t1 with
 * interrupts off: the time CSR stood at most at t1 when the unit stood at
 * U, so the time CSR value at which it read 0 is at most t1 less U in time
 * CSR ticks (its rate ts_rate_hz against timebase-frequency). The least
 * of those bounds over a few readings is the answer: a reading that was
 * slow, or a register that trailed the unit, only makes a bound larger.
 */
static int sifive_te_ts_zero(struct ntrace_encoder *te, u64 *zero)
{
	void __iomem *b = te->base;
	u64 rate = te->caps.ts_rate_hz, tb = te->timebase_hz;
	u64 best = U64_MAX, unit, t1;
	unsigned long flags;
	u32 hi, lo;
	int i;

	if (!rate || !tb)
		return -ENODATA;
	for (i = 0; i < V0_TS_TRIES; i++) {
		if (i)
			udelay(V0_TS_GAP_US);
		local_irq_save(flags);
		hi = readl(b + TCI_V0_TS_UPPER);
		lo = readl(b + TCI_V0_TS_LOWER);
		if (readl(b + TCI_V0_TS_UPPER) != hi) {	/* carried: again */
			hi = readl(b + TCI_V0_TS_UPPER);
			lo = readl(b + TCI_V0_TS_LOWER);
		}
		t1 = get_cycles();
		local_irq_restore(flags);
		unit = (u64)hi << 32 | lo;
		if (rate != tb)
			unit = mul_u64_u64_div_u64(unit, tb, rate);
		best = min(best, t1 - unit);
	}
	*zero = best;
	return 0;
}

const struct ntrace_encoder_ops ntrace_sifive_te_ops = {
	.discover = sifive_te_discover,
	.program = sifive_te_program,
	.enable = sifive_te_enable,
	.disable = sifive_te_disable,
	.ts_zero = sifive_te_ts_zero,
};

/* ---- Funnel ------------------------------------------------------------- */

/*
 * The funnel's timestamp unit is the one its encoders' slave units follow
 * (the P550's is the system's, on the bus clock): it runs while the
 * funnel is bound.
 */
static void sifive_funnel_ts_start(struct ntrace_funnel *f)
{
	void __iomem *reg = f->base + TCI_V0_TS_CONTROL;
	u32 v;

	writel(TCI_TS_ACTIVE, reg);
	if (readl_poll_timeout(reg, v, v & TCI_TS_ACTIVE, 10, 100000)) {
		dev_info(f->dev, "no timestamp unit: its encoders' timestamps stand still\n");
		return;
	}
	writel(TCI_TS_ACTIVE | TCI_TS_COUNT, reg);
}

static int sifive_funnel_discover(struct ntrace_funnel *f)
{
	f->impl = readl(f->base + TCI_V0_IMPL);
	if (!v0_version_ok(f->dev, f->impl, "funnel"))
		return -ENODEV;
	sifive_funnel_ts_start(f);
	/* no register to disable an input: all of them always take trace */
	f->inputs = TCI_FUNNEL_DIS_INPUT_MASK;
	f->disabled = 0;
	f->sink = ntrace_sink_embed(f->dev, f->base, false);
	return PTR_ERR_OR_ZERO(f->sink);
}

/* Its sink's enable is the funnel's: ntrace_sink_enable() does both. */
static int sifive_funnel_attach(struct ntrace_funnel *f, unsigned int input)
{
	f->input_users[input]++;
	f->users++;
	return 0;
}

/*
 * While enabled, the funnel may hold a partial word for more to come:
 * only disabling its sink flushes it (tfEnable 1 -> 0, then tfEmpty).
 */
static int sifive_funnel_flush(struct ntrace_funnel *f)
{
	return 0;
}

static int sifive_funnel_detach(struct ntrace_funnel *f, unsigned int input)
{
	if (WARN_ON_ONCE(!f->users || !f->input_users[input]))
		return -EINVAL;
	f->input_users[input]--;
	f->users--;
	return 0;
}

const struct ntrace_funnel_ops ntrace_sifive_funnel_ops = {
	.discover = sifive_funnel_discover,
	.attach = sifive_funnel_attach,
	.flush = sifive_funnel_flush,
	.detach = sifive_funnel_detach,
};

/* ---- Sink embedded in an encoder's or funnel's block --------------------- */

static int sifive_sink_discover(struct ntrace_sink *sink)
{
	void __iomem *b = sink->base;
	u32 ctl = TCI_V0_ACTIVE |
		  FIELD_PREP(TCI_V0_SINK_MASK, TCI_V0_SINK_SBA);
	u32 high, v;

	sink->impl = readl(b + TCI_V0_IMPL);
	if (!v0_version_ok(sink->dev, sink->impl, "sink"))
		return -ENODEV;
	if (!(sink->impl & TCI_V0_HAS_SBA_SINK)) {
		dev_err(sink->dev, "no system memory sink (Impl %#010x): SRAM, ATB and PIB sinks are not supported\n",
			sink->impl);
		return -ENODEV;
	}
	sink->word = 4 << FIELD_GET(TCI_V0_SINK_BYTES_MASK, sink->impl);
	/* a disabled funnel drops what its encoders send (teSinkError) */
	sink->drops_when_off = !sink->in_encoder;
	if (!sink->in_encoder) {
		v = v0_warl(b + TCI_V0_CONTROL, ctl);
		if (FIELD_GET(TCI_V0_SINK_MASK, v) != TCI_V0_SINK_SBA) {
			dev_err(sink->dev, "refuses its system memory sink (tfSink %u)\n",
				FIELD_GET(TCI_V0_SINK_MASK, v));
			return -ENODEV;
		}
		sink->stop_on_wrap = v0_warl(b + TCI_V0_CONTROL,
					     ctl | TCI_V0_STOP_ON_WRAP) &
				     TCI_V0_STOP_ON_WRAP;
		writel(ctl, b + TCI_V0_CONTROL);
	} else {
		sink->stop_on_wrap = true;	/* teStopOnWrap: set at start */
	}
	/* WARL: the address bits BaseHigh holds; a window never crosses 4 GiB */
	writel(~0u, b + TCI_V0_SINK_BASE_HIGH);
	high = readl(b + TCI_V0_SINK_BASE_HIGH);
	writel(0, b + TCI_V0_SINK_BASE_HIGH);
	sink->min_addr = 0;
	sink->max_addr = (u64)high << 32 | (u32)-sink->word;
	return 0;
}

static int sifive_sink_set_window(struct ntrace_sink *sink, u64 start,
				  u64 limit)
{
	void __iomem *b = sink->base;

	if (upper_32_bits(start) != upper_32_bits(limit))
		return -ERANGE;
	writel(upper_32_bits(start), b + TCI_V0_SINK_BASE_HIGH);
	writel(lower_32_bits(start), b + TCI_V0_SINK_BASE);
	writel(lower_32_bits(limit), b + TCI_V0_SINK_LIMIT);
	return 0;
}

static void sifive_sink_get_window(struct ntrace_sink *sink, u64 *start,
				   u64 *limit)
{
	u64 high = (u64)readl(sink->base + TCI_V0_SINK_BASE_HIGH) << 32;

	*start = high | readl(sink->base + TCI_V0_SINK_BASE);
	*limit = high | readl(sink->base + TCI_V0_SINK_LIMIT);
}

static void sifive_sink_set_wp(struct ntrace_sink *sink, u64 wp)
{
	writel(lower_32_bits(wp), sink->base + TCI_V0_SINK_WP);
}

static u64 sifive_sink_get_wp(struct ntrace_sink *sink)
{
	u64 high = (u64)readl(sink->base + TCI_V0_SINK_BASE_HIGH) << 32;

	return high | readl(sink->base + TCI_V0_SINK_WP);
}

static void sifive_sink_control(struct ntrace_sink *sink, bool enable)
{
	void __iomem *ctl = sink->base + TCI_V0_CONTROL;
	u32 v;

	/*
	 * The control register is the component's: an encoder's sink changes
	 * only its own fields, and its enable is the encoder's (teEnable).
	 */
	if (sink->in_encoder) {
		v = readl(ctl) & ~(TCI_V0_STOP_ON_WRAP | TCI_V0_SINK_ERROR);
		writel(v | (sink->win_stop ? TCI_V0_STOP_ON_WRAP : 0), ctl);
		return;
	}
	v = TCI_V0_ACTIVE | FIELD_PREP(TCI_V0_SINK_MASK, TCI_V0_SINK_SBA) |
	    (sink->win_stop ? TCI_V0_STOP_ON_WRAP : 0);
	writel(v | (enable ? TCI_V0_ENABLE | TCI_V0_SINK_ERROR : 0), ctl);
}

static int sifive_sink_wait_empty(struct ntrace_sink *sink)
{
	return ntrace_tci_wait(sink->base + TCI_V0_CONTROL, TCI_V0_EMPTY,
			       TCI_V0_EMPTY);
}

const struct ntrace_sink_ops ntrace_sifive_sink_ops = {
	.discover = sifive_sink_discover,
	.set_window = sifive_sink_set_window,
	.get_window = sifive_sink_get_window,
	.set_wp = sifive_sink_set_wp,
	.get_wp = sifive_sink_get_wp,
	.control = sifive_sink_control,
	.wait_empty = sifive_sink_wait_empty,
};
