// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every Trace Control Interface component shares: the trXXActive
 * reset handshake and the trXXImpl version check.
 */
#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/iopoll.h>
#include <linux/ntrace_tci.h>

#include "ntrace.h"

/* Hardware may take "arbitrarily long" to power up; give it 100 ms. */
#define TCI_POLL_US		10
#define TCI_TIMEOUT_US		100000
/* Flushing on disable, with interrupts off: 10 ms. */
#define TCI_ATOMIC_TIMEOUT_US	10000

int ntrace_tci_wait(void __iomem *reg, u32 mask, u32 want)
{
	u32 v;

	return readl_poll_timeout_atomic(reg, v, (v & mask) == want, 1,
					 TCI_ATOMIC_TIMEOUT_US);
}

/*
 * A component that misses a handshake, or writes where it was not told
 * to, is broken: say so once, and leave it alone until it is bound again
 * (its probe resets it). The CPUs whose path it is on stop tracing; the
 * others go on.
 */
void ntrace_tci_failed(struct device *dev, bool *failed, const char *what)
{
	if (!READ_ONCE(*failed))
		dev_err(dev, "%s: not used until it is bound again\n", what);
	WRITE_ONCE(*failed, true);
}

/*
 * Reset and discovery: take the component through reset (Active 0), then
 * release it and wait until trXXActive reads back 1. Writes before that
 * may be lost, so nothing else is touched until the poll succeeds.
 */
int ntrace_tci_activate(struct device *dev, void __iomem *base)
{
	u32 v;
	int err;

	writel(0, base + TCI_CONTROL);
	err = readl_poll_timeout(base + TCI_CONTROL, v, !(v & TCI_ACTIVE),
				 TCI_POLL_US, TCI_TIMEOUT_US);
	if (err) {
		dev_err(dev, "does not enter reset (trControl %#x)\n", v);
		return err;
	}
	writel(TCI_ACTIVE, base + TCI_CONTROL);
	err = readl_poll_timeout(base + TCI_CONTROL, v, v & TCI_ACTIVE,
				 TCI_POLL_US, TCI_TIMEOUT_US);
	if (err)
		dev_err(dev, "does not leave reset within %u ms (trControl %#x)\n",
			TCI_TIMEOUT_US / 1000, v);
	return err;
}

void ntrace_tci_deactivate(void __iomem *base)
{
	writel(0, base + TCI_CONTROL);
}

/*
 * Version policy of the TCI specification: major 1 is what this driver
 * knows; 0 (pre-ratified) and anything newer are refused; a newer minor
 * or the experimental minor 15 only warn.
 */
int ntrace_tci_check_impl(struct device *dev, u32 impl, u32 type,
			  const char *what)
{
	u32 major = FIELD_GET(TCI_IMPL_VER_MAJOR_MASK, impl);
	u32 minor = FIELD_GET(TCI_IMPL_VER_MINOR_MASK, impl);
	u32 got = FIELD_GET(TCI_IMPL_COMP_TYPE_MASK, impl);

	if (got != type) {
		dev_err(dev, "trImpl %#010x: component type %#x, expected %#x (%s)\n",
			impl, got, type, what);
		return -ENODEV;
	}
	if (major != 1) {
		dev_err(dev, "%s version %u.%u unsupported (trImpl %#010x), driver supports 1.0\n",
			what, major, minor, impl);
		return -ENODEV;
	}
	if (minor == 15)
		dev_warn(dev, "%s version 1.15 is experimental (trImpl %#010x), using 1.0 features\n",
			 what, impl);
	else if (minor)
		dev_warn(dev, "%s version 1.%u is newer than 1.0 (trImpl %#010x), using 1.0 features\n",
			 what, minor, impl);
	return 0;
}
