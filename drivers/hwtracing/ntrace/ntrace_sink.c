// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: the RAM sink component in SMEM mode. The sink writes a
 * physically contiguous range, so each sink owns a bounce buffer of
 * contiguous pages allocated at probe; the PMU copies what the sink wrote
 * into the perf AUX buffer when it drains (see
 * Documentation/admin-guide/perf/ntrace.rst, "Buffers").
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/ntrace_tci.h>
#include <linux/platform_device.h>

#include "ntrace.h"

static unsigned int buf_kb = 256;
module_param(buf_kb, uint, 0444);
MODULE_PARM_DESC(buf_kb, "RAM sink bounce buffer per CPU, KiB (16..4096)");

#define RAM_CTL		(TCI_ACTIVE | TCI_RAM_MODE_SMEM)

static u64 read64(void __iomem *lo)
{
	return readl(lo) | (u64)readl(lo + 4) << 32;
}

static void write64(void __iomem *lo, u64 v)
{
	writel(upper_32_bits(v), lo + 4);
	writel(lower_32_bits(v), lo);
}

static void sink_free_buf(void *data)
{
	struct ntrace_sink *sink = data;

	free_pages((unsigned long)sink->buf, get_order(sink->buf_size));
}

/* Largest contiguous buffer we can get, from buf_kb down to 16 KiB. */
static int sink_alloc_buf(struct ntrace_sink *sink)
{
	unsigned int min = get_order(SZ_16K);
	unsigned int order = get_order(clamp(buf_kb, 16u, 4096u) * SZ_1K);
	unsigned long addr;

	for (;; order--) {
		addr = __get_free_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN,
					order);
		if (addr || order == min)
			break;
	}
	if (!addr) {
		dev_err(sink->dev, "no contiguous trace buffer of 16 KiB or more\n");
		return -ENOMEM;
	}
	sink->buf = (void *)addr;
	sink->buf_phys = virt_to_phys(sink->buf);
	sink->buf_size = PAGE_SIZE << order;
	return devm_add_action_or_reset(sink->dev, sink_free_buf, sink);
}

static int sink_discover(struct ntrace_sink *sink)
{
	struct device *dev = sink->dev;
	void __iomem *b = sink->base;
	u64 limit;
	int err;

	sink->impl = readl(b + TCI_IMPL);
	err = ntrace_tci_check_impl(dev, sink->impl, TCI_COMP_RAM_SINK,
				    "RAM sink");
	if (err)
		return err;
	if (!(sink->impl & TCI_RAM_HAS_SMEM)) {
		dev_err(dev, "RAM sink has no system memory mode (trRamImpl %#010x)\n",
			sink->impl);
		return -ENODEV;
	}
	writel(RAM_CTL, b + TCI_CONTROL);
	if (!(readl(b + TCI_CONTROL) & TCI_RAM_MODE_SMEM)) {
		dev_err(dev, "RAM sink refuses SMEM mode\n");
		return -ENODEV;
	}
	writel(RAM_CTL | TCI_RAM_STOP_ON_WRAP, b + TCI_CONTROL);
	sink->stop_on_wrap = readl(b + TCI_CONTROL) & TCI_RAM_STOP_ON_WRAP;

	/* WARL: the lowest and highest address the sink can write. */
	write64(b + TCI_RAM_START_LOW, 0);
	sink->min_addr = read64(b + TCI_RAM_START_LOW);
	write64(b + TCI_RAM_LIMIT_LOW, ~0ull);
	sink->max_addr = read64(b + TCI_RAM_LIMIT_LOW);

	err = sink_alloc_buf(sink);
	if (err)
		return err;
	limit = sink->buf_phys + sink->buf_size - 4;
	if (sink->buf_phys < sink->min_addr || limit > sink->max_addr) {
		dev_err(dev, "buffer %pa+%zu outside the sink's range %#llx..%#llx\n",
			&sink->buf_phys, sink->buf_size, sink->min_addr,
			sink->max_addr);
		return -ENODEV;
	}
	write64(b + TCI_RAM_START_LOW, sink->buf_phys);
	write64(b + TCI_RAM_LIMIT_LOW, limit);
	write64(b + TCI_RAM_WP_LOW, sink->buf_phys);
	if (read64(b + TCI_RAM_START_LOW) != sink->buf_phys ||
	    read64(b + TCI_RAM_LIMIT_LOW) != limit) {
		dev_err(dev, "sink does not take the buffer address %pa\n",
			&sink->buf_phys);
		return -ENODEV;
	}
	return 0;
}

static u32 sink_ctl(struct ntrace_sink *sink)
{
	return RAM_CTL | (sink->stop_on_wrap ? TCI_RAM_STOP_ON_WRAP : 0);
}

/* Start writing at the start of the buffer (the sink is off and empty). */
int ntrace_sink_enable(struct ntrace_sink *sink)
{
	void __iomem *b = sink->base;

	write64(b + TCI_RAM_WP_LOW, sink->buf_phys);
	if (read64(b + TCI_RAM_WP_LOW) != sink->buf_phys)
		return -EBUSY;
	writel(sink_ctl(sink) | TCI_ENABLE, b + TCI_CONTROL);
	return 0;
}

/*
 * trRamEnable 1 -> 0 flushes the last partial word; wait for trRamEmpty,
 * then tell how much of the buffer holds trace. With stop-on-wrap the
 * data is in order from the start; with a wrapping sink the oldest byte
 * is at the write pointer (d->head).
 */
int ntrace_sink_disable(struct ntrace_sink *sink, struct ntrace_drain *d)
{
	void __iomem *b = sink->base;
	u64 wp;
	int err;

	writel(sink_ctl(sink), b + TCI_CONTROL);
	err = ntrace_tci_wait(b + TCI_CONTROL, TCI_EMPTY, TCI_EMPTY);
	wp = read64(b + TCI_RAM_WP_LOW);
	d->wrapped = wp & TCI_RAM_WRAP;
	wp &= ~3ull;
	d->head = 0;
	if (wp < sink->buf_phys || wp > sink->buf_phys + sink->buf_size) {
		d->len = 0;
		return -EIO;
	}
	d->len = wp - sink->buf_phys;
	if (d->wrapped) {
		if (!sink->stop_on_wrap)
			d->head = d->len;
		d->len = sink->buf_size;
	}
	return err;
}

const char *ntrace_sink_mode_name(const struct ntrace_sink *sink)
{
	return sink->sram ? "sram" : "smem";
}

static int sink_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct ntrace_sink *sink;
	struct resource *res;
	int err;

	sink = devm_kzalloc(dev, sizeof(*sink), GFP_KERNEL);
	if (!sink)
		return -ENOMEM;
	sink->dev = dev;
	raw_spin_lock_init(&sink->lock);
	res = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	if (!res || resource_size(res) < TCI_BLOCK_SIZE) {
		dev_err(dev, "needs one 4 KiB register block\n");
		return -EINVAL;
	}
	sink->base = devm_ioremap(dev, res->start, TCI_BLOCK_SIZE);
	if (!sink->base)
		return -ENOMEM;
	err = ntrace_tci_activate(dev, sink->base);
	if (!err)
		err = sink_discover(sink);
	if (err) {
		ntrace_tci_deactivate(sink->base);
		return err;
	}
	platform_set_drvdata(pdev, sink);
	ntrace_register_sink(sink);
	dev_dbg(dev, "trRamImpl %#010x, buffer %zu KiB\n", sink->impl,
		sink->buf_size / SZ_1K);
	return 0;
}

static void sink_remove(struct platform_device *pdev)
{
	struct ntrace_sink *sink = platform_get_drvdata(pdev);

	ntrace_unregister_sink(sink);
	ntrace_tci_deactivate(sink->base);
}

static const struct of_device_id sink_of_match[] = {
	{ .compatible = "qemu,ntrace-ramsink" },
	{ }
};
MODULE_DEVICE_TABLE(of, sink_of_match);

struct platform_driver ntrace_sink_driver = {
	.probe = sink_probe,
	.remove = sink_remove,
	.driver = {
		.name = "ntrace-ramsink",
		.of_match_table = sink_of_match,
	},
};
