/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* The AutoFDO sink's counting (sink_autofdo.c), used by dec_sink.c. */
#ifndef NTRACE_SINK_AUTOFDO_H
#define NTRACE_SINK_AUTOFDO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ntrace/decoder.h"
#include "ntrace/image.h"

#pragma GCC visibility push(hidden)

struct ntrace_afdo;

struct ntrace_afdo *ntrace_afdo_new(void);
void ntrace_afdo_free(struct ntrace_afdo *p);
/* Before the runs of one call: the images may have changed since. */
void ntrace_afdo_new_call(struct ntrace_afdo *p);
/* Count run r (addresses in img). 0 or NTRACE_ENOMEM. */
int ntrace_afdo_run(struct ntrace_afdo *p, struct ntrace_images *img,
		    const struct ntrace_dec_run *r);
/* The image named dso (its path, or the end of it after a '/': the path
 * in the traced system under a root directory, a base name), or with NULL
 * the one with the most instructions, into *idx. 0 or NTRACE_EINVAL. */
int ntrace_afdo_pick(const struct ntrace_afdo *p, const char *dso, uint32_t *idx);
/* Name and instruction count of image idx; NULL past the last. */
const char *ntrace_afdo_name(const struct ntrace_afdo *p, uint32_t idx, uint64_t *insns);
/* Write image idx's counts in llvm-profgen's unsymbolized format, or with
 * autofdo_text in AutoFDO's text format; max (0: none): divide all counts
 * by one factor, rounding up, so that none exceeds max. */
int ntrace_afdo_write(const struct ntrace_afdo *p, uint32_t idx, bool autofdo_text,
		      uint64_t max, FILE *out);

#pragma GCC visibility pop

#endif /* NTRACE_SINK_AUTOFDO_H */
