/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Encoder model internals shared between its files (not installed).
 */
#ifndef NTRACE_ENC_INTERNAL_H
#define NTRACE_ENC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

/* History bits of a HIST value: the position of its stop bit. */
static inline unsigned int enc_hist_len(uint64_t hist)
{
	return 63 - (unsigned int)__builtin_clzll(hist);
}

/*
 * Repeated history: two consecutive full HIST registers a (older) and b,
 * of w history bits each (stop bit at bit w, w <= 31), cut into a shorter
 * word that repeats (enc_hrep.c). On success *word is the word to hold
 * (with its stop bit), *count how often a then b repeat it, and *rest the
 * bits of b after the last repeat (a HIST value with its stop bit, to go
 * on collecting from).
 */
bool enc_hrep_cut(uint64_t a, uint64_t b, unsigned int w, uint64_t *word, uint64_t *count,
		  uint64_t *rest);

#endif /* NTRACE_ENC_INTERNAL_H */
