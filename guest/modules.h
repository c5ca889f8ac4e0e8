/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Module steps of a test boot: load every module in MODULE_DIR that is not a
 * KUnit test (in rounds, so modules load after the ones they depend on),
 * then load and unload each *_kunit.ko alone; KUnit reports in the kernel
 * log, which the relay puts on the console.
 */
#ifndef NTGUEST_MODULES_H
#define NTGUEST_MODULES_H

#define MODULE_DIR "/lib/modules/ntrace"

/* Both return the number of failures (each also reported as a marker). */
int load_driver_modules(void);
/* @filter: as for run_selftests(), matched against the module name. */
int run_kunit_modules(const char *filter);

#endif
