// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: the trace encoder component. Probe does the TCI reset handshake
 * and hands discovery to the personality's operations: for a TCI 1.0
 * encoder (here) it checks trTeImpl and the N-Trace format, and finds the
 * optional features by writing WARL fields and reading them back; SiFive
 * v0 encoders are in ntrace_sifive.c. The program/enable/disable calls
 * run on the encoder's own CPU.
 */
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/iopoll.h>
#include <linux/mod_devicetable.h>
#include <linux/ntrace_tci.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <asm/pgtable.h>

#include "ntrace.h"

/*
 * N-Trace parameters that no TCI register shows. These are the values of
 * the QEMU model (Documentation/trace/ntrace-qemu-model.rst, "Limits");
 * silicon with other values needs a DT property for them.
 */
#define NT_ICNT_BITS		16
#define NT_HIST_BITS		32
#define NT_HREPEAT_BITS		18
#define NT_BCNT_BITS		18
#define NT_RETURN_DEPTH		16
#define NT_RETURN_ADDR_BITS	16
#define NT_ITYPE_BITS		4

/* trTeInstFeatures option bits (all but the mode and source fields) */
#define TE_FEATURE_BITS							\
	(TCI_TE_F_NO_ADDR_DIFF | TCI_TE_F_NO_TRAP_ADDR | TCI_TE_F_SEQ_JUMP |	\
	 TCI_TE_F_IMPLICIT_RETURN | TCI_TE_F_BRANCH_PREDICTION |		\
	 TCI_TE_F_JUMP_TARGET_CACHE | TCI_TE_F_REPEATED_HISTORY |		\
	 TCI_TE_F_ALL_JUMPS | TCI_TE_F_EXTEND_ADDR_MSB)

static u32 te_warl(void __iomem *reg, u32 val)
{
	writel(val, reg);
	return readl(reg);
}

/* reset: trTeControl as it read right after the Active handshake */
static void te_probe_control(struct ntrace_encoder *te, u32 reset)
{
	static const u8 modes[] = { TCI_TE_INST_MODE_BTM, TCI_TE_INST_MODE_HTM };
	struct ntrace_caps *c = &te->caps;
	void __iomem *ctl = te->base + TCI_CONTROL;
	unsigned int i, m;
	u32 v;

	c->sync_mode_reset = FIELD_GET(TCI_TE_SYNC_MODE_MASK, reset);
	c->sync_max_reset = FIELD_GET(TCI_TE_SYNC_MAX_MASK, reset);
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		m = modes[i];
		v = te_warl(ctl, TCI_ACTIVE |
			    FIELD_PREP(TCI_TE_INST_MODE_MASK, m));
		if (FIELD_GET(TCI_TE_INST_MODE_MASK, v) == m)
			c->modes |= BIT(m);
	}
	v = te_warl(ctl, TCI_ACTIVE | TCI_TE_CONTEXT |
		    FIELD_PREP(TCI_TE_INST_MODE_MASK, TCI_TE_INST_MODE_BTM));
	c->ctx = v & TCI_TE_CONTEXT;
	for (m = TCI_TE_SYNC_MODE_MSGS; m <= TCI_TE_SYNC_MODE_HWORDS; m++) {
		v = te_warl(ctl, TCI_ACTIVE |
			    FIELD_PREP(TCI_TE_SYNC_MODE_MASK, m));
		if (FIELD_GET(TCI_TE_SYNC_MODE_MASK, v) == m)
			c->sync_modes |= BIT(m);
	}
	v = te_warl(ctl, TCI_ACTIVE | TCI_TE_SYNC_MAX_MASK);
	c->sync_max = FIELD_GET(TCI_TE_SYNC_MAX_MASK, v);
	writel(reset & ~(TCI_ENABLE | TCI_TE_INST_TRACING), ctl);
}

static void te_probe_features(struct ntrace_encoder *te)
{
	struct ntrace_caps *c = &te->caps;
	void __iomem *reg = te->base + TCI_TE_INST_FEATURES;
	u32 ones = te_warl(reg, ~0u);
	u32 zero = te_warl(reg, 0);
	unsigned int m, hw_bits;
	u32 v;

	c->features = ones & TE_FEATURE_BITS;
	hw_bits = min_t(u32, FIELD_GET(TCI_TE_F_SRC_BITS_MASK, ones),
			TCI_TE_SRC_BITS_MAX);
	/*
	 * SRC holds the CPU number: no wider than that (12 bits, the
	 * most, add two bytes to every message), if the WARL field takes it.
	 */
	c->src_bits = ntrace_src_bits(hw_bits, nr_cpu_ids);
	v = te_warl(reg, FIELD_PREP(TCI_TE_F_SRC_BITS_MASK, c->src_bits));
	if (FIELD_GET(TCI_TE_F_SRC_BITS_MASK, v) != c->src_bits)
		c->src_bits = hw_bits;
	c->src_id_writable = FIELD_GET(TCI_TE_F_SRC_ID_MASK, ones) ==
			     FIELD_MAX(TCI_TE_F_SRC_ID_MASK) &&
			     !FIELD_GET(TCI_TE_F_SRC_ID_MASK, zero);
	/* else its messages carry the value trTeSrcID keeps */
	c->src_id = FIELD_GET(TCI_TE_F_SRC_ID_MASK, zero);
	for (m = TCI_TE_IRET_MODE_COUNT; m <= TCI_TE_IRET_MODE_FULL; m++) {
		v = te_warl(reg, TCI_TE_F_IMPLICIT_RETURN |
			    FIELD_PREP(TCI_TE_F_IRET_MODE_MASK, m));
		if (FIELD_GET(TCI_TE_F_IRET_MODE_MASK, v) == m)
			c->iret_modes |= BIT(m);
	}
	writel(0, reg);
}

static void te_probe_filters(struct ntrace_encoder *te)
{
	struct ntrace_caps *c = &te->caps;
	void __iomem *b = te->base;
	u32 cmp = FIELD_PREP(TCI_CMP_P_FUNC_MASK, TCI_CMP_FUNC_GE) |
		  FIELD_PREP(TCI_CMP_S_FUNC_MASK, TCI_CMP_FUNC_LE) |
		  FIELD_PREP(TCI_CMP_MATCH_MODE_MASK, TCI_CMP_MODE_P_AND_S);
	u32 all = GENMASK(TCI_TE_MAX_FILTERS - 1, 0);
	unsigned int j;

	c->nr_filters = hweight32(te_warl(b + TCI_TE_INST_FILTERS, all) & all);
	writel(0, b + TCI_TE_INST_FILTERS);
	if (c->nr_filters) {
		void __iomem *flt = b + TCI_TE_FILTER(0) + TCI_FLT_CONTROL;

		c->priv_filter = te_warl(flt, TCI_FLT_MATCH_PRIV) &
				 TCI_FLT_MATCH_PRIV;
		writel(0, flt);
	}
	for (j = 0; j < TCI_TE_MAX_COMPS; j++) {
		void __iomem *ctl = b + TCI_TE_COMP(j) + TCI_CMP_CONTROL;

		if (te_warl(ctl, cmp) != cmp)
			break;
		writel(0, ctl);
	}
	c->nr_comparators = j;
}

/* timebase-frequency of /cpus: the rate of the time CSR, 0 if absent */
static u32 te_timebase_hz(void)
{
	struct device_node *cpus = of_find_node_by_path("/cpus");
	u32 hz = 0;

	if (cpus) {
		of_property_read_u32(cpus, "timebase-frequency", &hz);
		of_node_put(cpus);
	}
	return hz;
}

/*
 * The timestamp unit has its own Active bit and handshake. Its input rate
 * comes from the device tree (riscv,trace-component.yaml). SiFive v0
 * encoders have the same tsControl fields at the same offset.
 */
void ntrace_encoder_probe_timestamp(struct ntrace_encoder *te)
{
	static const u8 modes[] = {
		TCI_TS_MODE_INTERNAL_SYSTEM, TCI_TS_MODE_INTERNAL_CORE,
		TCI_TS_MODE_SHARED, TCI_TS_MODE_EXTERNAL,
	};
	struct ntrace_caps *c = &te->caps;
	void __iomem *reg = te->base + TCI_TS_CONTROL;
	unsigned int i;
	u32 v;

	writel(TCI_TS_ACTIVE, reg);
	if (readl_poll_timeout(reg, v, v & TCI_TS_ACTIVE, 10, 100000))
		return;		/* no timestamp unit */
	c->ts_width = FIELD_GET(TCI_TS_WIDTH_MASK, v);
	for (i = 0; i < ARRAY_SIZE(modes) && c->ts_width; i++) {
		v = te_warl(reg, TCI_TS_ACTIVE |
			    FIELD_PREP(TCI_TS_MODE_MASK, modes[i]));
		if (FIELD_GET(TCI_TS_MODE_MASK, v) == modes[i]) {
			c->ts_mode = modes[i];
			break;
		}
	}
	v = te_warl(reg, TCI_TS_ACTIVE | TCI_TS_PRESCALE_MASK |
		    FIELD_PREP(TCI_TS_MODE_MASK, c->ts_mode));
	c->ts_prescale_max = FIELD_GET(TCI_TS_PRESCALE_MASK, v);
	writel(TCI_TS_ACTIVE, reg);
	v = 0;
	of_property_read_u32(te->dev->of_node, "riscv,timestamp-frequency", &v);
	te->timebase_hz = te_timebase_hz();
	c->ts_rate_hz = ntrace_ts_rate(c->ts_mode, v, te->timebase_hz);
	if (c->ts_mode && !c->ts_rate_hz)
		dev_info(te->dev, "timestamp mode %u with no known rate (riscv,timestamp-frequency)\n",
			 c->ts_mode);
}

static int te_v1_discover(struct ntrace_encoder *te)
{
	struct ntrace_caps *c = &te->caps;
	struct device *dev = te->dev;
	u32 reset = readl(te->base + TCI_CONTROL), v;
	int err;

	c->te_impl = readl(te->base + TCI_IMPL);
	err = ntrace_tci_check_impl(dev, c->te_impl, TCI_COMP_ENCODER,
				    "trace encoder");
	if (err)
		return err;
	v = te_warl(te->base + TCI_CONTROL, TCI_ACTIVE |
		    FIELD_PREP(TCI_TE_FORMAT_MASK, TCI_TE_FORMAT_NTRACE));
	if (FIELD_GET(TCI_TE_FORMAT_MASK, v) != TCI_TE_FORMAT_NTRACE) {
		dev_err(dev, "encoder does not speak N-Trace (trTeFormat %u)\n",
			FIELD_GET(TCI_TE_FORMAT_MASK, v));
		return -ENODEV;
	}
	if (FIELD_GET(TCI_TE_IMPL_PROTO_MAJOR_MASK, c->te_impl) != 1) {
		dev_err(dev, "N-Trace protocol %u.%u unsupported (trTeImpl %#010x), driver supports 1.0\n",
			FIELD_GET(TCI_TE_IMPL_PROTO_MAJOR_MASK, c->te_impl),
			FIELD_GET(TCI_TE_IMPL_PROTO_MINOR_MASK, c->te_impl),
			c->te_impl);
		return -ENODEV;
	}
	c->ver_major = FIELD_GET(TCI_IMPL_VER_MAJOR_MASK, c->te_impl);
	c->ver_minor = FIELD_GET(TCI_IMPL_VER_MINOR_MASK, c->te_impl);
	c->proto_major = FIELD_GET(TCI_TE_IMPL_PROTO_MAJOR_MASK, c->te_impl);
	c->proto_minor = FIELD_GET(TCI_TE_IMPL_PROTO_MINOR_MASK, c->te_impl);
	te_probe_control(te, reset);
	te_probe_features(te);
	te_probe_filters(te);
	ntrace_encoder_probe_timestamp(te);
	if (!c->modes) {
		dev_err(dev, "encoder has neither BTM nor HTM\n");
		return -ENODEV;
	}
	c->icnt_bits = NT_ICNT_BITS;
	c->hist_bits = NT_HIST_BITS;
	c->hrepeat_bits = NT_HREPEAT_BITS;
	c->bcnt_bits = NT_BCNT_BITS;
	c->return_depth = NT_RETURN_DEPTH;
	c->return_addr_bits = NT_RETURN_ADDR_BITS;
	c->itype_bits = NT_ITYPE_BITS;
	c->va_bits = VA_BITS;
	return 0;
}

static void te_v1_program(struct ntrace_encoder *te,
			  const struct ntrace_prog *prog,
			  const struct ntrace_range *ranges)
{
	void __iomem *b = te->base;
	u32 priv = prog->priv_mask ? TCI_FLT_MATCH_PRIV : 0;
	u32 features = ntrace_prog_features(prog, &te->caps, te->cpu);
	u32 fields = TCI_TE_INST_MODE_MASK | TCI_TE_CONTEXT |
		     TCI_TE_SYNC_MODE_MASK | TCI_TE_SYNC_MAX_MASK |
		     TCI_TE_FORMAT_MASK;
	unsigned int i, used = 0;

	writel(TCI_ACTIVE | prog->te_control, b + TCI_CONTROL);
	writel(features, b + TCI_TE_INST_FEATURES);
	/* Discovery promised these values: a WARL change would mislead the decoder. */
	if ((readl(b + TCI_CONTROL) & fields) != prog->te_control ||
	    readl(b + TCI_TE_INST_FEATURES) != features)
		dev_warn_once(te->dev, "encoder changed trTeControl %#x / trTeInstFeatures %#x\n",
			      prog->te_control, features);
	for (i = 0; i < prog->nr_ranges; i++, used++) {
		void __iomem *cmp = b + TCI_TE_COMP(i);
		void __iomem *flt = b + TCI_TE_FILTER(i);

		writel(upper_32_bits(ranges[i].start),
		       cmp + TCI_CMP_PMATCH_HIGH);
		writel(lower_32_bits(ranges[i].start), cmp + TCI_CMP_PMATCH_LOW);
		writel(upper_32_bits(ranges[i].end), cmp + TCI_CMP_SMATCH_HIGH);
		writel(lower_32_bits(ranges[i].end), cmp + TCI_CMP_SMATCH_LOW);
		writel(FIELD_PREP(TCI_CMP_P_FUNC_MASK, TCI_CMP_FUNC_GE) |
		       FIELD_PREP(TCI_CMP_S_FUNC_MASK, TCI_CMP_FUNC_LE) |
		       FIELD_PREP(TCI_CMP_MATCH_MODE_MASK, TCI_CMP_MODE_P_AND_S),
		       cmp + TCI_CMP_CONTROL);
		writel(prog->priv_mask, flt + TCI_FLT_MATCH_INST);
		writel(TCI_FLT_ENABLE | priv | TCI_FLT_MATCH_COMP1 |
		       FIELD_PREP(TCI_FLT_COMP1_MASK, i), flt + TCI_FLT_CONTROL);
	}
	if (!used && prog->priv_mask) {
		writel(prog->priv_mask,
		       b + TCI_TE_FILTER(0) + TCI_FLT_MATCH_INST);
		writel(TCI_FLT_ENABLE | TCI_FLT_MATCH_PRIV,
		       b + TCI_TE_FILTER(0) + TCI_FLT_CONTROL);
		used = 1;
	}
	for (i = used; i < te->caps.nr_filters; i++)
		writel(0, b + TCI_TE_FILTER(i) + TCI_FLT_CONTROL);
	writel(used ? GENMASK(used - 1, 0) : 0, b + TCI_TE_INST_FILTERS);
	if (te->caps.ts_mode)
		writel(prog->ts_control ? prog->ts_control : TCI_TS_ACTIVE,
		       b + TCI_TS_CONTROL);
}

/* trTeEnable first, then trTeInstTracing, as the TCI asks. */
static void te_v1_enable(struct ntrace_encoder *te,
			 const struct ntrace_prog *prog)
{
	u32 ctl = TCI_ACTIVE | prog->te_control | TCI_ENABLE;

	writel(ctl, te->base + TCI_CONTROL);
	writel(ctl | TCI_TE_INST_TRACING, te->base + TCI_CONTROL);
}

/*
 * trTeEnable 1 -> 0 flushes the encoder into the sink; wait for
 * trTeEmpty. *overflow: the encoder dropped messages (sink full).
 */
static int te_v1_disable(struct ntrace_encoder *te,
			 const struct ntrace_prog *prog, bool *overflow)
{
	void __iomem *ctl = te->base + TCI_CONTROL;
	int err;

	writel(TCI_ACTIVE | prog->te_control, ctl);
	err = ntrace_tci_wait(ctl, TCI_EMPTY, TCI_EMPTY);
	if (err)
		ntrace_tci_failed(te->dev, &te->failed,
				  "trTeEmpty stays 0 after disabling: trace does not flush");
	*overflow = readl(ctl) & TCI_TE_INST_STALL_OR_OVF;
	if (*overflow)		/* W1C: the next trace starts clean */
		writel(TCI_ACTIVE | prog->te_control | TCI_TE_INST_STALL_OR_OVF,
		       ctl);
	return err;
}

static const struct ntrace_encoder_ops te_v1_ops = {
	.discover = te_v1_discover,
	.program = te_v1_program,
	.enable = te_v1_enable,
	.disable = te_v1_disable,
};

void ntrace_encoder_program(struct ntrace_encoder *te,
			    const struct ntrace_prog *prog,
			    const struct ntrace_range *ranges)
{
	te->ops->program(te, prog, ranges);
}

void ntrace_encoder_enable(struct ntrace_encoder *te,
			   const struct ntrace_prog *prog)
{
	te->ops->enable(te, prog);
}

int ntrace_encoder_disable(struct ntrace_encoder *te,
			   const struct ntrace_prog *prog, bool *overflow)
{
	return te->ops->disable(te, prog, overflow);
}

static int te_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct ntrace_encoder *te;
	struct device_node *cpu_np;
	struct resource *res;
	const __be32 *prop;
	int err, pers, len;

	pers = ntrace_component_claim(pdev, NTRACE_ROLE_ENCODER);
	if (pers < 0)
		return pers;
	te = devm_kzalloc(dev, sizeof(*te), GFP_KERNEL);
	if (!te)
		return -ENOMEM;
	te->dev = dev;
	te->ops = pers == NTRACE_SIFIVE_V0 ? &ntrace_sifive_te_ops : &te_v1_ops;
	cpu_np = of_parse_phandle(dev->of_node, "cpus", 0);
	/* early versions of the upstream binding said "cpu" */
	if (!cpu_np)
		cpu_np = of_parse_phandle(dev->of_node, "cpu", 0);
	if (!cpu_np) {
		dev_err(dev, "no \"cpus\" phandle: which hart does it trace?\n");
		return -EINVAL;
	}
	/*
	 * The logical CPU whose hart ID the node's reg holds (through
	 * riscv's arch_match_cpu_phys_id()), not the hart ID itself: the
	 * two differ on boards that boot from another hart.
	 */
	te->cpu = of_cpu_node_to_id(cpu_np);
	prop = of_get_property(cpu_np, "reg", &len);
	if (prop && len >= of_n_addr_cells(cpu_np) * (int)sizeof(*prop))
		te->hartid = of_read_number(prop, of_n_addr_cells(cpu_np));
	of_node_put(cpu_np);
	if (te->cpu < 0) {
		dev_info(dev, "its hart is not a CPU of this kernel, ignored\n");
		return -ENODEV;
	}
	/*
	 * Not devm_platform_ioremap_resource(): the block may lie in a
	 * no-map reserved-memory range that is already claimed.
	 */
	res = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	if (!res || resource_size(res) < TCI_BLOCK_SIZE) {
		dev_err(dev, "needs one 4 KiB register block\n");
		return -EINVAL;
	}
	te->base = devm_ioremap(dev, res->start, TCI_BLOCK_SIZE);
	if (!te->base)
		return -ENOMEM;
	err = ntrace_tci_activate(dev, te->base);
	if (!err)
		err = te->ops->discover(te);
	if (err) {
		ntrace_tci_deactivate(te->base);
		return err;
	}
	platform_set_drvdata(pdev, te);
	ntrace_register_encoder(te);
	dev_dbg(dev, "cpu %d, trTeImpl %#010x\n", te->cpu, te->caps.te_impl);
	return 0;
}

static void te_remove(struct platform_device *pdev)
{
	struct ntrace_encoder *te = platform_get_drvdata(pdev);

	ntrace_unregister_encoder(te);
	if (te->sink)
		ntrace_sink_unembed(te->sink);
	writel(0, te->base + TCI_TS_CONTROL);
	ntrace_tci_deactivate(te->base);
}

static const struct of_device_id te_of_match[] = {
	{ .compatible = "qemu,ntrace-encoder" },
	{ .compatible = "riscv,trace-encoder" },
	{ .compatible = "sifive,trace-encoder0" },
	/* which of them is an encoder: ntrace_component_claim() */
	{ .compatible = "riscv,trace-component" },
	{ }
};
MODULE_DEVICE_TABLE(of, te_of_match);

struct platform_driver ntrace_encoder_driver = {
	.probe = te_probe,
	.remove = te_remove,
	.driver = {
		.name = "ntrace-encoder",
		.of_match_table = te_of_match,
	},
};
