// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: the trace funnel component. A funnel merges the messages of its
 * inputs (graph in-ports port@N: input N, bit N of trFunnelDisInput) into
 * its output, a RAM sink or another funnel. Probe does the TCI reset
 * handshake and hands discovery to the personality (TCI 1.0 here, which
 * checks trFunnelImpl; SiFive v0, whose funnel has its sink in its own
 * block, in ntrace_sifive.c); attaching and detaching sources (which
 * enables and disables inputs and the funnel) is done by the shared sink
 * code with the sink's lock held (ntrace_shared.c).
 */
#include <linux/iopoll.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/ntrace_tci.h>
#include <linux/platform_device.h>

#include "ntrace.h"

/* trFunnelEnable = 1 and wait until it reads 1. */
static int funnel_enable(struct ntrace_funnel *f)
{
	void __iomem *ctl = f->base + TCI_CONTROL;

	writel(TCI_ACTIVE | TCI_ENABLE, ctl);
	return ntrace_tci_wait(ctl, TCI_ENABLE, TCI_ENABLE);
}

/*
 * A source starts sending through input: enable that input (the others
 * stay disabled unless a source uses them, so an encoder that is not part
 * of a session cannot fill the sink), and the funnel if it was off.
 * trFunnelDisInput may change while the funnel is enabled.
 */
static int v1_attach(struct ntrace_funnel *f, unsigned int input)
{
	u32 dis;

	if (!f->input_users[input]++)
		f->disabled &= ~BIT(input);
	writel(f->disabled, f->base + TCI_FUNNEL_DIS_INPUT);
	dis = readl(f->base + TCI_FUNNEL_DIS_INPUT);
	if (dis & BIT(input) & f->inputs) {
		/* its source's trace would vanish: see ntrace_path_failed() */
		if (!(f->failed_inputs & BIT(input)))
			dev_err(f->dev, "input %u stays disabled (trFunnelDisInput %#x): not used until it is bound again\n",
				input, dis);
		f->failed_inputs |= BIT(input);
	}
	if (f->users++)
		return 0;
	return funnel_enable(f);
}

/* Wait until the funnel holds no message (trFunnelEmpty). */
static int v1_flush(struct ntrace_funnel *f)
{
	return ntrace_tci_wait(f->base + TCI_CONTROL, TCI_EMPTY, TCI_EMPTY);
}

/*
 * The source that entered through input stops (its encoder is disabled
 * and flushed): disable the input once no source uses it, and the funnel
 * (trFunnelEnable 1 -> 0, then trFunnelEmpty) after its last source.
 */
static int v1_detach(struct ntrace_funnel *f, unsigned int input)
{
	if (WARN_ON_ONCE(!f->users || !f->input_users[input]))
		return -EINVAL;
	if (!--f->input_users[input])
		f->disabled |= BIT(input);
	writel(f->disabled, f->base + TCI_FUNNEL_DIS_INPUT);
	if (--f->users)
		return 0;
	writel(TCI_ACTIVE, f->base + TCI_CONTROL);
	return v1_flush(f);
}

static int v1_discover(struct ntrace_funnel *f)
{
	void __iomem *dis = f->base + TCI_FUNNEL_DIS_INPUT;
	int err;

	f->impl = readl(f->base + TCI_IMPL);
	err = ntrace_tci_check_impl(f->dev, f->impl, TCI_COMP_FUNNEL, "funnel");
	if (err)
		return err;
	/* WARL: the inputs that exist read back as 1 */
	writel(TCI_FUNNEL_DIS_INPUT_MASK, dis);
	f->inputs = readl(dis) & TCI_FUNNEL_DIS_INPUT_MASK;
	if (!f->inputs) {
		/* optional register: every input always enabled */
		dev_info(f->dev, "no trFunnelDisInput: inputs cannot be disabled\n");
		f->inputs = TCI_FUNNEL_DIS_INPUT_MASK;
	}
	/* no input enabled until a source uses it (ntrace_funnel_attach()) */
	f->disabled = f->inputs;
	return 0;
}

static const struct ntrace_funnel_ops v1_ops = {
	.discover = v1_discover,
	.attach = v1_attach,
	.flush = v1_flush,
	.detach = v1_detach,
};

int ntrace_funnel_attach(struct ntrace_funnel *f, unsigned int input)
{
	return f->ops->attach(f, input);
}

int ntrace_funnel_flush(struct ntrace_funnel *f)
{
	return f->ops->flush(f);
}

int ntrace_funnel_detach(struct ntrace_funnel *f, unsigned int input)
{
	return f->ops->detach(f, input);
}

static int funnel_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct ntrace_funnel *f;
	struct resource *res;
	int err, pers;

	pers = ntrace_component_claim(pdev, NTRACE_ROLE_FUNNEL);
	if (pers < 0)
		return pers;
	f = devm_kzalloc(dev, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->dev = dev;
	f->ops = pers == NTRACE_SIFIVE_V0 ? &ntrace_sifive_funnel_ops : &v1_ops;
	res = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	if (!res || resource_size(res) < TCI_BLOCK_SIZE) {
		dev_err(dev, "needs one 4 KiB register block\n");
		return -EINVAL;
	}
	f->base = devm_ioremap(dev, res->start, TCI_BLOCK_SIZE);
	if (!f->base)
		return -ENOMEM;
	err = ntrace_tci_activate(dev, f->base);
	if (!err)
		err = f->ops->discover(f);
	if (err) {
		ntrace_tci_deactivate(f->base);
		return err;
	}
	platform_set_drvdata(pdev, f);
	ntrace_register_funnel(f);
	dev_dbg(dev, "trFunnelImpl %#010x, inputs %#x\n", f->impl, f->inputs);
	return 0;
}

static void funnel_remove(struct platform_device *pdev)
{
	struct ntrace_funnel *f = platform_get_drvdata(pdev);

	ntrace_unregister_funnel(f);
	if (f->sink)
		ntrace_sink_unembed(f->sink);
	writel(0, f->base + TCI_TS_CONTROL);
	ntrace_tci_deactivate(f->base);
}

static const struct of_device_id funnel_of_match[] = {
	{ .compatible = "qemu,ntrace-funnel" },
	{ .compatible = "riscv,trace-funnel" },
	{ .compatible = "sifive,trace-funnel0" },
	/* which of them is a funnel: ntrace_component_claim() */
	{ .compatible = "riscv,trace-component" },
	{ }
};
MODULE_DEVICE_TABLE(of, funnel_of_match);

struct platform_driver ntrace_funnel_driver = {
	.probe = funnel_probe,
	.remove = funnel_remove,
	.driver = {
		.name = "ntrace-funnel",
		.of_match_table = funnel_of_match,
	},
};
