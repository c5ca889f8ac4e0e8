/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel log relay: a thread copies every /dev/kmsg record to the console as
 * "kmsg| [seconds] text", from the first record of the boot on. The kernel's
 * own console is kept quiet (loglevel=) so the init is the only writer.
 */
#ifndef NTGUEST_KMSG_RELAY_H
#define NTGUEST_KMSG_RELAY_H

int kmsg_relay_start(void);
/* Return once every kernel message logged before the call was relayed. */
void kmsg_relay_sync(void);

#endif
