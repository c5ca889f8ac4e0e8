// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: the RAM sink component, in one of its two modes (trRamMode):
 *  - SMEM: the sink writes a physically contiguous range of system memory:
 *    a window of the perf AUX area itself where the PMU can (direct mode,
 *    ntrace_sink_enable_at()), else a bounce buffer of contiguous pages
 *    the sink owns from probe, which the PMU copies into the AUX area when
 *    it drains;
 *  - SRAM: the sink writes its own memory, read back one 32-bit word per
 *    trRamData read from where trRamRP points (trRamRP advances by itself
 *    and wraps at trRamLimit). The PMU reads only the bytes that go into
 *    the AUX buffer, straight into it (ntrace_sink_read()).
 * See Documentation/admin-guide/perf/ntrace.rst, "Buffers".
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/ntrace_tci.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include "ntrace.h"

static unsigned int buf_kb = 256;
module_param(buf_kb, uint, 0444);
MODULE_PARM_DESC(buf_kb, "RAM sink bounce buffer per CPU, KiB (16..4096)");

static bool use_sram;
module_param_named(sram, use_sram, bool, 0444);
MODULE_PARM_DESC(sram, "use SRAM mode on RAM sinks that have both SRAM and SMEM mode (default: SMEM)");

static bool double_buffer = true;
module_param(double_buffer, bool, 0444);
MODULE_PARM_DESC(double_buffer, "give a shared SMEM sink a second buffer, filled while a drain reads the first (default on; off: the sink stays off while a drain copies it)");

/* SRAM sizes the driver takes: a word at least, 4 GiB at most (Low half) */
#define SRAM_MIN	SZ_1K

static u64 read64(void __iomem *lo)
{
	return readl(lo) | (u64)readl(lo + 4) << 32;
}

static void write64(void __iomem *lo, u64 v)
{
	writel(upper_32_bits(v), lo + 4);
	writel(lower_32_bits(v), lo);
}

/* trRamControl with Active and the sink's mode */
static u32 ram_ctl(const struct ntrace_sink *sink)
{
	return TCI_ACTIVE | (sink->sram ? 0 : TCI_RAM_MODE_SMEM);
}

static void sink_free_buf(void *data)
{
	struct ntrace_sink *sink = data;

	free_pages((unsigned long)sink->buf, get_order(sink->buf_size));
}

static void sink_free_buf2(void *data)
{
	struct ntrace_sink *sink = data;

	free_pages((unsigned long)sink->buf2, get_order(sink->buf_size));
}

static void sink_free_copy(void *data)
{
	kvfree(data);
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

/*
 * System-memory mode: a bounce buffer the sink may write, between the
 * lowest and highest address it takes (min_addr, max_addr).
 */
static int smem_setup(struct ntrace_sink *sink)
{
	const struct ntrace_sink_ops *ops = sink->ops;
	struct device *dev = sink->dev;
	u64 limit, start, got_limit;
	unsigned int w = sink->word;
	int err;

	err = sink_alloc_buf(sink);
	if (err)
		return err;
	limit = sink->buf_phys + sink->buf_size - w;
	if (sink->buf_phys < sink->min_addr || limit > sink->max_addr) {
		dev_err(dev, "buffer %pa+%zu outside the sink's range %#llx..%#llx\n",
			&sink->buf_phys, sink->buf_size, sink->min_addr,
			sink->max_addr);
		return -ENODEV;
	}
	err = ops->set_window(sink, sink->buf_phys, limit);
	ops->set_wp(sink, sink->buf_phys);
	ops->get_window(sink, &start, &got_limit);
	if (err || start != sink->buf_phys || got_limit != limit) {
		dev_err(dev, "sink does not take the buffer address %pa\n",
			&sink->buf_phys);
		return -ENODEV;
	}
	/*
	 * Direct mode needs any word-aligned window (the spec's "SMEM
	 * Generic" sink may trim it to a power of two) of 4-byte words,
	 * and stop-on-wrap.
	 */
	if (w == 4 && sink->stop_on_wrap &&
	    !ops->set_window(sink, sink->buf_phys + 4, limit - 8)) {
		ops->get_window(sink, &start, &got_limit);
		sink->any_window = start == sink->buf_phys + 4 &&
				   got_limit == limit - 8;
	}
	ops->set_window(sink, sink->buf_phys, limit);
	return 0;
}

/*
 * SRAM mode: trRamStart is fixed at 0 and the highest trRamLimit is the
 * SRAM's last word (its size). The trace is read through trRamData, which
 * needs a settable trRamRP (the spec's test: set it to trRamLimit). The
 * buffer positions the PMU sees are SRAM offsets (buf_phys 0); sink->buf
 * is a copy for sinks shared through funnels, whose whole content is
 * split by source (ntrace_sink_fetch()).
 */
static int sram_setup(struct ntrace_sink *sink)
{
	struct device *dev = sink->dev;
	void __iomem *b = sink->base;
	u64 last = sink->max_addr;

	if (sink->min_addr || last < SRAM_MIN - 4 || last > U32_MAX) {
		dev_err(dev, "SRAM range %#llx..%#llx unusable\n",
			sink->min_addr, last);
		return -ENODEV;
	}
	write64(b + TCI_RAM_LIMIT_LOW, last);
	write64(b + TCI_RAM_RP_LOW, last);
	if (read64(b + TCI_RAM_RP_LOW) != last) {
		dev_err(dev, "SRAM sink without a settable trRamRP: its trace cannot be read\n");
		return -ENODEV;
	}
	write64(b + TCI_RAM_RP_LOW, 0);
	write64(b + TCI_RAM_WP_LOW, 0);
	sink->buf_phys = 0;
	sink->buf_size = last + 4;
	sink->buf = kvzalloc(sink->buf_size, GFP_KERNEL);
	if (!sink->buf)
		return -ENOMEM;
	return devm_add_action_or_reset(dev, sink_free_copy, sink->buf);
}

/* TCI 1.0: which mode, stop-on-wrap, the address range (WARL). */
static int v1_discover(struct ntrace_sink *sink)
{
	struct device *dev = sink->dev;
	void __iomem *b = sink->base;
	bool has_sram, has_smem;
	int err;

	sink->impl = readl(b + TCI_IMPL);
	err = ntrace_tci_check_impl(dev, sink->impl, TCI_COMP_RAM_SINK,
				    "RAM sink");
	if (err)
		return err;
	has_sram = sink->impl & TCI_RAM_HAS_SRAM;
	has_smem = sink->impl & TCI_RAM_HAS_SMEM;
	if (!has_sram && !has_smem) {
		dev_err(dev, "RAM sink has neither SRAM nor SMEM mode (trRamImpl %#010x)\n",
			sink->impl);
		return -ENODEV;
	}
	sink->sram = has_sram && (use_sram || !has_smem);
	/* the mode first: the other registers depend on it */
	writel(ram_ctl(sink), b + TCI_CONTROL);
	if ((readl(b + TCI_CONTROL) & TCI_RAM_MODE_SMEM) !=
	    (ram_ctl(sink) & TCI_RAM_MODE_SMEM)) {
		dev_err(dev, "RAM sink refuses %s mode\n",
			ntrace_sink_mode_name(sink));
		return -ENODEV;
	}
	writel(ram_ctl(sink) | TCI_RAM_STOP_ON_WRAP, b + TCI_CONTROL);
	sink->stop_on_wrap = readl(b + TCI_CONTROL) & TCI_RAM_STOP_ON_WRAP;

	/* WARL: the lowest and highest address the sink can write. */
	write64(b + TCI_RAM_START_LOW, 0);
	sink->min_addr = read64(b + TCI_RAM_START_LOW);
	write64(b + TCI_RAM_LIMIT_LOW, ~0ull);
	sink->max_addr = read64(b + TCI_RAM_LIMIT_LOW);
	sink->word = 4;
	return 0;
}

static int v1_set_window(struct ntrace_sink *sink, u64 start, u64 limit)
{
	write64(sink->base + TCI_RAM_START_LOW, start);
	write64(sink->base + TCI_RAM_LIMIT_LOW, limit);
	return 0;
}

static void v1_get_window(struct ntrace_sink *sink, u64 *start, u64 *limit)
{
	*start = read64(sink->base + TCI_RAM_START_LOW);
	*limit = read64(sink->base + TCI_RAM_LIMIT_LOW);
}

static void v1_set_wp(struct ntrace_sink *sink, u64 wp)
{
	write64(sink->base + TCI_RAM_WP_LOW, wp);
}

static u64 v1_get_wp(struct ntrace_sink *sink)
{
	return read64(sink->base + TCI_RAM_WP_LOW);
}

static void v1_control(struct ntrace_sink *sink, bool enable)
{
	writel(ram_ctl(sink) | (sink->win_stop ? TCI_RAM_STOP_ON_WRAP : 0) |
	       (enable ? TCI_ENABLE : 0), sink->base + TCI_CONTROL);
}

static int v1_wait_empty(struct ntrace_sink *sink)
{
	return ntrace_tci_wait(sink->base + TCI_CONTROL, TCI_EMPTY, TCI_EMPTY);
}

static const struct ntrace_sink_ops v1_ops = {
	.discover = v1_discover,
	.set_window = v1_set_window,
	.get_window = v1_get_window,
	.set_wp = v1_set_wp,
	.get_wp = v1_get_wp,
	.control = v1_control,
	.wait_empty = v1_wait_empty,
};

static int sink_discover(struct ntrace_sink *sink)
{
	int err = sink->ops->discover(sink);

	if (err)
		return err;
	return sink->sram ? sram_setup(sink) : smem_setup(sink);
}

/*
 * Capture into [start, start + len) from wp (the sink is off and empty).
 * SMEM: trRamStart/Limit are set each time, as direct mode moves them;
 * check: the window must read back exactly, or the sink would write
 * memory that is not the AUX area's.
 */
static int sink_start(struct ntrace_sink *sink, u64 start, size_t len,
		      u64 wp, bool stop, bool check)
{
	const struct ntrace_sink_ops *ops = sink->ops;
	u64 limit = start + len - sink->word, got_start, got_limit;

	if (!sink->sram && ops->set_window(sink, start, limit))
		return -ERANGE;
	ops->set_wp(sink, wp);
	if (ops->get_wp(sink) != wp)
		return -EBUSY;
	if (check) {
		ops->get_window(sink, &got_start, &got_limit);
		if (got_start != start || got_limit != limit)
			return -ERANGE;
	}
	sink->win_start = start;
	sink->win_size = len;
	sink->win_stop = stop;
	ops->control(sink, true);
	return 0;
}

/* Capture into the sink's own buffer, from its start. */
int ntrace_sink_enable(struct ntrace_sink *sink)
{
	return sink_start(sink, sink->buf_phys, sink->buf_size, sink->buf_phys,
			  sink->stop_on_wrap, false);
}

/*
 * A sink shared by several encoders fills sooner and is drained by
 * whichever CPU comes first: its buffers are this many times buf_kb (at
 * most 4 MiB). Measured on the model with 4 harts through one funnel,
 * drains came up to some 170 ms apart on a busy host: 256 KiB filled,
 * 1 MiB did not.
 */
#define SHARED_BUF_GROW		4

/* Whether the idle sink takes [phys, phys + size) as its window. */
static bool sink_window_ok(struct ntrace_sink *sink, phys_addr_t phys,
			   size_t size)
{
	u64 limit = phys + size - sink->word, start, got_limit;

	if (phys < sink->min_addr || limit > sink->max_addr ||
	    sink->ops->set_window(sink, phys, limit))
		return false;
	sink->ops->get_window(sink, &start, &got_limit);
	return start == phys && got_limit == limit;
}

/*
 * A sink shared through funnels gets a second buffer, so that it fills
 * one while a drain reads the other, both SHARED_BUF_GROW times its own
 * (the first replaced; process context, kept until the sink goes). Only
 * an SMEM sink that stops on wrap and takes the windows gets them, and
 * only while no CPU traces into it: the drain changes mode with them.
 * Allocation failures fall back to buffers of the sink's size, then to
 * none (a copy with the sink off).
 */
int ntrace_sink_add_buf2(struct ntrace_sink *sink)
{
	size_t size = min_t(size_t, SHARED_BUF_GROW * sink->buf_size, SZ_4M);
	size_t old_size = sink->buf_size;
	unsigned long a = 0, b, old = 0, flags;
	bool done = false;

	if (sink->buf2)
		return 0;
	if (sink->sram || !sink->stop_on_wrap || !double_buffer)
		return -EOPNOTSUPP;
	if (size > sink->buf_size)
		a = __get_free_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN,
				     get_order(size));
	if (!a)
		size = sink->buf_size;
	b = __get_free_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN,
			     get_order(size));
	/* before buf2 is in use: nothing can fail after */
	if (!b || devm_add_action(sink->dev, sink_free_buf2, sink)) {
		free_pages(a, get_order(size));
		free_pages(b, get_order(size));
		return -ENOMEM;
	}
	raw_spin_lock_irqsave(&sink->lock, flags);
	/* idle: disabled, and its registers are the driver's to write */
	if (cpumask_empty(&sink->active) &&
	    (!a || sink_window_ok(sink, virt_to_phys((void *)a), size)) &&
	    sink_window_ok(sink, virt_to_phys((void *)b), size)) {
		if (a) {
			old = (unsigned long)sink->buf;
			sink->buf = (void *)a;
			sink->buf_phys = virt_to_phys(sink->buf);
			sink->buf_size = size;
		}
		sink->buf2 = (void *)b;
		sink->buf2_phys = virt_to_phys(sink->buf2);
		sink->alt = false;
		done = true;
	}
	sink->ops->set_window(sink, sink->buf_phys,
			      sink->buf_phys + sink->buf_size - sink->word);
	raw_spin_unlock_irqrestore(&sink->lock, flags);
	if (!done) {
		devm_remove_action(sink->dev, sink_free_buf2, sink);
		free_pages(a, get_order(size));
		free_pages(b, get_order(size));
		return -EOPNOTSUPP;
	}
	free_pages(old, get_order(old_size));
	dev_dbg(sink->dev, "shared: two buffers of %zu KiB\n", size / SZ_1K);
	return 0;
}

/* Capture into the buffer sink->alt names (with buf2), from its start. */
int ntrace_sink_enable_alt(struct ntrace_sink *sink)
{
	u64 start = sink->alt ? sink->buf2_phys : sink->buf_phys;

	if (!sink->buf2)
		return -EOPNOTSUPP;
	return sink_start(sink, start, sink->buf_size, start,
			  sink->stop_on_wrap, true);
}

/*
 * The trace of the window the sink captured into last, at the offsets
 * ntrace_sink_disable() gave (SRAM: after ntrace_sink_fetch()).
 */
const u8 *ntrace_sink_data(const struct ntrace_sink *sink)
{
	if (sink->buf2 && sink->win_start == sink->buf2_phys)
		return sink->buf2;
	return sink->buf + (sink->win_start - sink->buf_phys);
}

/*
 * Capture into the window w of an AUX area: stopping on wrap at its end
 * (stop), or wrapping in it (a snapshot ring).
 */
int ntrace_sink_enable_at(struct ntrace_sink *sink,
			  const struct ntrace_window *w, bool stop)
{
	if (!sink->any_window)
		return -EOPNOTSUPP;
	return sink_start(sink, w->start, w->len, w->wp, stop, true);
}

/* Where trRamWP (wrap bit cleared) is in the window; -EIO outside it. */
static int wp_offset(struct ntrace_sink *sink, u64 wp, size_t *len)
{
	wp &= ~3ull;
	if (wp < sink->win_start || wp > sink->win_start + sink->win_size) {
		ntrace_tci_failed(sink->dev, &sink->failed,
				  "trRamWP outside the buffer it was given");
		return -EIO;
	}
	*len = wp - sink->win_start;
	return 0;
}

/*
 * trRamEnable 1 -> 0 flushes the last partial word; wait for trRamEmpty,
 * then tell how much of the window holds trace (offsets from its start).
 * With stop-on-wrap the data is in order from the start; with a wrapping
 * sink the oldest byte is at the write pointer (d->head).
 */
int ntrace_sink_disable(struct ntrace_sink *sink, struct ntrace_drain *d)
{
	u64 wp;
	int err;

	sink->ops->control(sink, false);
	err = sink->ops->wait_empty(sink);
	if (err)
		ntrace_tci_failed(sink->dev, &sink->failed,
				  "trRamEmpty stays 0 after disabling: trace does not flush");
	wp = sink->ops->get_wp(sink);
	/* trRamWrap and the v0 teSinkWrapped are both bit 0 */
	d->wrapped = wp & TCI_RAM_WRAP;
	d->head = 0;
	if (wp_offset(sink, wp, &d->len)) {
		d->len = 0;
		return -EIO;
	}
	if (d->wrapped) {
		if (!sink->win_stop)
			d->head = d->len;
		d->len = sink->win_size;
	}
	return err;
}

/*
 * How much of the window the sink has written, while it goes on capturing
 * (direct mode, stopping on wrap). The Trace Control Interface lets a tool
 * read trRamWP and the memory below it at any time, and write neither
 * trRamStart/Limit nor trRamWP while the sink captures ("SMEM mode"): so
 * the window cannot move, but what lies below trRamWP is trace, whole
 * words of it (the last partial word stays in the sink). -ENOSPC: it
 * wrapped, so it stopped (full); -EIO: trRamWP is outside the window.
 */
int ntrace_sink_written(struct ntrace_sink *sink, size_t *len)
{
	u64 wp = sink->ops->get_wp(sink);

	if (wp & TCI_RAM_WRAP)
		return -ENOSPC;
	return wp_offset(sink, wp, len);
}

void ntrace_sink_read_start(struct ntrace_sink_reader *r,
			    struct ntrace_sink *sink, size_t from)
{
	unsigned int skip = from & 3;

	r->sink = sink;
	r->pos = from;
	r->have = 0;
	if (!sink->sram)
		return;
	/* the sink is disabled and empty: trRamRP is writable */
	write64(sink->base + TCI_RAM_RP_LOW, from - skip);
	if (skip) {
		r->word = readl(sink->base + TCI_RAM_DATA) >> (8 * skip);
		r->have = 4 - skip;
	}
}

/* SRAM: len bytes from trRamData; a word read is never read again. */
static void sram_read(struct ntrace_sink_reader *r, u8 *dst, size_t len)
{
	void __iomem *data = r->sink->base + TCI_RAM_DATA;

	r->pos += len;
	for (; len && r->have; len--, r->have--, r->word >>= 8)
		*dst++ = r->word;
	/*
	 * One 32-bit read per word. Relaxed: the reads go to one device,
	 * in order after the trRamRP write (a readl with a barrier), and
	 * the data only reaches memory through the CPU's own stores.
	 */
	for (; len >= 4; len -= 4, dst += 4)
		put_unaligned_le32(readl_relaxed(data), dst);
	if (!len)
		return;
	r->word = readl_relaxed(data);
	r->have = 4;
	for (; len; len--, r->have--, r->word >>= 8)
		*dst++ = r->word;
}

void ntrace_sink_read(struct ntrace_sink_reader *r, u8 *dst, size_t len)
{
	struct ntrace_sink *sink = r->sink;

	if (sink->sram) {
		/* trRamRP wraps from trRamLimit to 0 by itself */
		sram_read(r, dst, len);
		r->pos %= sink->buf_size;
		return;
	}
	while (len) {
		size_t n = min(len, sink->buf_size - r->pos);

		memcpy(dst, sink->buf + r->pos, n);
		dst += n;
		len -= n;
		r->pos = (r->pos + n) % sink->buf_size;
	}
}

/*
 * After ntrace_sink_disable(): make sink->buf hold the d->len bytes of
 * trace at their buffer offsets, as SMEM mode has them already.
 */
void ntrace_sink_fetch(struct ntrace_sink *sink, const struct ntrace_drain *d)
{
	struct ntrace_sink_reader r;

	if (!sink->sram || !d->len)
		return;
	ntrace_sink_read_start(&r, sink, 0);
	sram_read(&r, sink->buf, d->len);
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

	err = ntrace_component_claim(pdev, NTRACE_ROLE_SINK);
	if (err < 0)
		return err;
	sink = devm_kzalloc(dev, sizeof(*sink), GFP_KERNEL);
	if (!sink)
		return -ENOMEM;
	sink->dev = dev;
	sink->ops = &v1_ops;
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

/*
 * A sink in the register block of the encoder or funnel dev (SiFive v0):
 * set up and registered with it, its memory devres-managed by dev.
 */
struct ntrace_sink *ntrace_sink_embed(struct device *dev, void __iomem *base,
				      bool in_encoder)
{
	struct ntrace_sink *sink;
	int err;

	sink = devm_kzalloc(dev, sizeof(*sink), GFP_KERNEL);
	if (!sink)
		return ERR_PTR(-ENOMEM);
	sink->dev = dev;
	sink->base = base;
	sink->ops = &ntrace_sifive_sink_ops;
	sink->embedded = true;
	sink->in_encoder = in_encoder;
	raw_spin_lock_init(&sink->lock);
	err = sink_discover(sink);
	if (err)
		return ERR_PTR(err);
	ntrace_register_sink(sink);
	dev_dbg(dev, "embedded sink, buffer %zu KiB\n", sink->buf_size / SZ_1K);
	return sink;
}

void ntrace_sink_unembed(struct ntrace_sink *sink)
{
	ntrace_unregister_sink(sink);
}

static void sink_remove(struct platform_device *pdev)
{
	struct ntrace_sink *sink = platform_get_drvdata(pdev);

	ntrace_unregister_sink(sink);
	ntrace_tci_deactivate(sink->base);
}

static const struct of_device_id sink_of_match[] = {
	{ .compatible = "qemu,ntrace-ramsink" },
	{ .compatible = "riscv,trace-ramsink" },
	/* which of them is a RAM sink: ntrace_component_claim() */
	{ .compatible = "riscv,trace-component" },
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
