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
 * word that repeats (enc_hrep.c). HIST values, each with its stop bit:
 * head, when not 0, the bits to send first (RCODE=1); word, repeated count
 * times; rest, the bits after the last repeat, to go on collecting from.
 */
struct enc_hrep {
	uint64_t head;
	uint64_t word;
	uint64_t count;
	uint64_t rest;
};

bool enc_hrep_cut(uint64_t a, uint64_t b, unsigned int w, struct enc_hrep *cut);

#endif /* NTRACE_ENC_INTERNAL_H */
