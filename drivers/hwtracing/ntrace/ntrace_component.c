// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: which role a trace component node plays. This is the one place
 * that decides it, for every compatible the drivers accept
 * (riscv,trace-component.yaml):
 *  - a per-type compatible (ours, qemu,ntrace-*, or the riscv,trace-*
 *    ones) names the role;
 *  - SiFive's pre-ratified blocks (sifive,trace-encoder0,
 *    sifive,trace-funnel0, with no generic fallback: their implementation
 *    register has no component type) name the role and the personality,
 *    SiFive v0 (ntrace_sifive.c);
 *  - a node with only the generic "riscv,trace-component" (the upstream
 *    binding, whose "qemu,trace-component" first entry names no type) is
 *    identified by its implementation register: tr??CompType and
 *    tr??VerMajor (ntrace_role_of_impl()).
 *
 * The role drivers all match the generic compatible and each probe asks
 * ntrace_component_claim() first, so the driver core hands a node to
 * the one driver whose role it has (the others return -ENODEV, which the
 * core takes as "not mine" and tries the next driver). The alternative,
 * one driver for the generic compatible that calls the role's probe,
 * would bind such nodes under another driver name than the same
 * component described with a per-type compatible, and the sysfs
 * bind/unbind interface (/sys/bus/platform/drivers/ntrace-encoder, ...)
 * would then depend on how the DT was written.
 *
 * The decision is kept per node, so the register block is read once
 * however many drivers ask, and a component no driver takes (a PIB sink,
 * an ATB bridge, an unknown type or version, a block that does not come
 * out of reset) is reported once per load of the module.
 */
#define pr_fmt(fmt) "ntrace: " fmt

#include <linux/bitfield.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/mod_devicetable.h>
#include <linux/mutex.h>
#include <linux/ntrace_tci.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

#include "ntrace.h"

#define GENERIC_COMPATIBLE	"riscv,trace-component"

#define KIND(role, pers)	((void *)(uintptr_t)((role) | (pers) << 8))
#define KIND_ROLE(data)		((enum ntrace_role)((uintptr_t)(data) & 0xff))
#define KIND_PERS(data)		((enum ntrace_personality)((uintptr_t)(data) >> 8))

/* Per-type compatibles: the role is in the name. */
static const struct of_device_id typed_ids[] = {
	{ .compatible = "qemu,ntrace-encoder", .data = (void *)NTRACE_ROLE_ENCODER },
	{ .compatible = "qemu,ntrace-ramsink", .data = (void *)NTRACE_ROLE_SINK },
	{ .compatible = "qemu,ntrace-funnel", .data = (void *)NTRACE_ROLE_FUNNEL },
	{ .compatible = "riscv,trace-encoder", .data = (void *)NTRACE_ROLE_ENCODER },
	{ .compatible = "riscv,trace-ramsink", .data = (void *)NTRACE_ROLE_SINK },
	{ .compatible = "riscv,trace-funnel", .data = (void *)NTRACE_ROLE_FUNNEL },
	{ .compatible = "sifive,trace-encoder0",
	  .data = KIND(NTRACE_ROLE_ENCODER, NTRACE_SIFIVE_V0) },
	{ .compatible = "sifive,trace-funnel0",
	  .data = KIND(NTRACE_ROLE_FUNNEL, NTRACE_SIFIVE_V0) },
	{ }
};

/* Every node the module may drive: module init looks for one. */
const struct of_device_id ntrace_component_ids[] = {
	{ .compatible = "qemu,ntrace-encoder" },
	{ .compatible = "qemu,ntrace-ramsink" },
	{ .compatible = "qemu,ntrace-funnel" },
	{ .compatible = "riscv,trace-encoder" },
	{ .compatible = "riscv,trace-ramsink" },
	{ .compatible = "riscv,trace-funnel" },
	{ .compatible = "sifive,trace-encoder0" },
	{ .compatible = "sifive,trace-funnel0" },
	{ .compatible = GENERIC_COMPATIBLE },
	{ }
};

struct role_entry {
	struct list_head node;
	struct device_node *np;
	enum ntrace_role role;
};

static DEFINE_MUTEX(roles_lock);
static LIST_HEAD(roles);

/*
 * Read tr??Impl of a generic node. The component must be out of reset
 * for that (with tr??Active 0 it may be unclocked), and is put back in
 * reset afterwards: its driver's probe does the handshake again.
 */
static enum ntrace_role role_from_impl(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct device_node *np = dev->of_node;
	struct resource *res;
	enum ntrace_role role;
	void __iomem *base;
	const char *what;
	u32 impl;

	res = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	if (!res || resource_size(res) < TCI_BLOCK_SIZE) {
		pr_warn("%pOF: needs one 4 KiB register block, not used\n", np);
		return NTRACE_ROLE_NONE;
	}
	/* not claimed: the block may lie in no-map reserved memory */
	base = ioremap(res->start, TCI_BLOCK_SIZE);
	if (!base)
		return NTRACE_ROLE_NONE;
	if (ntrace_tci_activate(dev, base)) {
		iounmap(base);
		pr_warn("%pOF: does not come out of reset, not used\n", np);
		return NTRACE_ROLE_NONE;
	}
	impl = readl(base + TCI_IMPL);
	ntrace_tci_deactivate(base);
	iounmap(base);

	role = ntrace_role_of_impl(impl, &what);
	if (role != NTRACE_ROLE_NONE)
		return role;
	if (!what)
		pr_info("%pOF: unknown component type %#x (trImpl %#010x), not used\n",
			np, FIELD_GET(TCI_IMPL_COMP_TYPE_MASK, impl), impl);
	else if (FIELD_GET(TCI_IMPL_VER_MAJOR_MASK, impl) != 1)
		pr_info("%pOF: %s version %u.%u unsupported (trImpl %#010x), not used\n",
			np, what, FIELD_GET(TCI_IMPL_VER_MAJOR_MASK, impl),
			FIELD_GET(TCI_IMPL_VER_MINOR_MASK, impl), impl);
	else
		pr_info("%pOF: %s (trImpl %#010x): no driver for this type, not used\n",
			np, what, impl);
	return NTRACE_ROLE_NONE;
}

/*
 * The role of pdev's node, decided at the first call for that node, and
 * its personality (*pers).
 */
static enum ntrace_role component_role(struct platform_device *pdev,
				       enum ntrace_personality *pers)
{
	struct device_node *np = pdev->dev.of_node;
	const struct of_device_id *id;
	struct role_entry *e;
	enum ntrace_role role;

	*pers = NTRACE_TCI_1_0;
	id = of_match_node(typed_ids, np);
	if (id) {
		*pers = KIND_PERS(id->data);
		return KIND_ROLE(id->data);
	}

	mutex_lock(&roles_lock);
	list_for_each_entry(e, &roles, node) {
		if (e->np == np) {
			role = e->role;
			goto out;
		}
	}
	role = role_from_impl(pdev);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (e) {		/* else: decided again next time */
		e->np = of_node_get(np);
		e->role = role;
		list_add(&e->node, &roles);
	}
out:
	mutex_unlock(&roles_lock);
	return role;
}

int ntrace_component_claim(struct platform_device *pdev, enum ntrace_role role)
{
	enum ntrace_personality pers;

	return component_role(pdev, &pers) == role ? (int)pers : -ENODEV;
}

/* Module exit: forget the decisions (the next load reports again). */
void ntrace_component_forget(void)
{
	struct role_entry *e, *tmp;

	mutex_lock(&roles_lock);
	list_for_each_entry_safe(e, tmp, &roles, node) {
		list_del(&e->node);
		of_node_put(e->np);
		kfree(e);
	}
	mutex_unlock(&roles_lock);
}
