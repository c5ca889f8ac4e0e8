// SPDX-License-Identifier: GPL-2.0-only
/*
 * Injected hardware faults (plugin argument fault=NAME), one per boot, for
 * tests of how the driver copes with hardware that misbehaves. Each hits
 * one component, the last of its kind (the last hart's encoder, the last
 * sink, the first funnel's last input), so that the others show that the
 * rest of the system keeps working:
 *   te_no_active     the encoder never leaves reset (trTeActive stays 0)
 *   te_bad_impl      the encoder's trTeImpl says version 2.0
 *   te_never_empty   once enabled, the encoder never reads trTeEmpty=1
 *   ram_never_empty  once enabled, the sink never reads trRamEmpty=1
 *   ram_wp_stuck     after its first 4 KiB the sink, still enabled, writes
 *                    nothing more: trRamWP no longer moves, and the
 *                    encoder whose bytes it refuses overflows
 *   ram_wp_wild      after its first 4 KiB the sink's trRamWP reads 4 KiB
 *                    past trRamLimit, as if it wrote memory it was not
 *                    given (it does not: the guest must survive the test)
 *   funnel_input_stuck  the funnel's last input stays disabled
 *                    (its trFunnelDisInput bit reads 1 whatever is written)
 */
#include <string.h>

#include "model.h"

static const char *const names[] = {
	[FAULT_NONE] = "none",
	[FAULT_TE_NO_ACTIVE] = "te_no_active",
	[FAULT_TE_BAD_IMPL] = "te_bad_impl",
	[FAULT_TE_NEVER_EMPTY] = "te_never_empty",
	[FAULT_RAM_NEVER_EMPTY] = "ram_never_empty",
	[FAULT_RAM_WP_STUCK] = "ram_wp_stuck",
	[FAULT_RAM_WP_WILD] = "ram_wp_wild",
	[FAULT_FUNNEL_INPUT_STUCK] = "funnel_input_stuck",
};

bool fault_parse(const char *name)
{
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(name, names[i])) {
			M.fault = i;
			return true;
		}
	}
	return false;
}

const char *fault_names(void)
{
	return "te_no_active, te_bad_impl, te_never_empty, ram_never_empty, "
	       "ram_wp_stuck, ram_wp_wild, funnel_input_stuck";
}

bool fault_on_hart(enum model_fault f, const struct hart *h)
{
	return M.fault == f && h->idx == M.nharts - 1;
}

bool fault_on_sink(enum model_fault f, const struct ramsink *r)
{
	return M.fault == f && r->idx == M.nsinks - 1;
}
