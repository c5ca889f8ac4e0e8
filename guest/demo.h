/* SPDX-License-Identifier: GPL-2.0-only */
/* Demo mode report: what the loaded modules discovered, as "demo|" lines. */
#ifndef NTGUEST_DEMO_H
#define NTGUEST_DEMO_H

void demo_report(void);

#endif
