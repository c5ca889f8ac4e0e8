/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Trace Control Interface register map is include/uapi/linux/ntrace_tci.h.
 * Only ingress.c includes this file, for the two names below; once it
 * includes the UAPI header itself and uses the TCI_ names, delete this.
 */
#ifndef NTRACE_MODEL_TCI_REGS_H
#define NTRACE_MODEL_TCI_REGS_H

#include "../../../include/uapi/linux/ntrace_tci.h"

#define TE_SYNC_MODE_MASK	TCI_TE_SYNC_MODE_MASK
#define TE_SYNC_MODE_SHIFT	TCI_TE_SYNC_MODE_SHIFT

#endif /* NTRACE_MODEL_TCI_REGS_H */
