// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: RISC-V N-Trace trace encoder, funnel and RAM sink drivers and the
 * "ntrace" perf AUX PMU (Documentation/admin-guide/perf/ntrace.rst).
 * Module init binds the components found in the device tree, pairs each
 * CPU's encoder with its sink and registers the PMU; with no components
 * it fails with -ENODEV. Components can be unbound and bound through sysfs
 * at any time; the paths follow (ntrace_path.c).
 */
#include <linux/module.h>
#include <linux/of.h>
#include <linux/platform_device.h>

#include "ntrace.h"

static int __init ntrace_init(void)
{
	struct device_node *np;
	int err, n;

	np = of_find_matching_node(NULL, ntrace_component_ids);
	if (!np)
		return -ENODEV;
	of_node_put(np);

	err = platform_driver_register(&ntrace_sink_driver);
	if (err)
		return err;
	err = platform_driver_register(&ntrace_funnel_driver);
	if (err)
		goto out_sink;
	err = platform_driver_register(&ntrace_encoder_driver);
	if (err)
		goto out_funnel;
	n = ntrace_paths_build();
	if (!n) {
		pr_info("ntrace: no usable encoder -> RAM sink path\n");
		err = -ENODEV;
		goto out_encoder;
	}
	/* from here a sysfs unbind must stop events on the path's CPU */
	ntrace_paths_set_live(true);
	err = ntrace_pmu_register();
	if (err) {
		pr_err("ntrace: cannot register the PMU: %d\n", err);
		ntrace_paths_set_live(false);
		goto out_encoder;
	}
	pr_info("ntrace: %d CPU(s) with N-Trace, %zu KiB sink buffer each\n",
		n, ntrace_path_buf_size() / 1024);
	return 0;

out_encoder:
	platform_driver_unregister(&ntrace_encoder_driver);
out_funnel:
	platform_driver_unregister(&ntrace_funnel_driver);
out_sink:
	platform_driver_unregister(&ntrace_sink_driver);
	ntrace_component_forget();
	return err;
}
module_init(ntrace_init);

static void __exit ntrace_exit(void)
{
	ntrace_pmu_unregister();
	ntrace_paths_set_live(false);
	/* each component's remove ends its paths */
	platform_driver_unregister(&ntrace_encoder_driver);
	platform_driver_unregister(&ntrace_funnel_driver);
	platform_driver_unregister(&ntrace_sink_driver);
	ntrace_component_forget();
	ntrace_shared_free();
}
module_exit(ntrace_exit);

MODULE_DESCRIPTION("RISC-V N-Trace encoder, RAM sink and ntrace perf PMU");
MODULE_LICENSE("GPL");
