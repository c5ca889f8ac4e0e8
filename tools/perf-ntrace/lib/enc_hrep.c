// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Repeated history (N-Trace 1.0 "Repeated History Optimization"): the word
 * that ResourceFull RCODE=2 repeats. A loop whose branch pattern has a
 * period that does not divide the HIST width never fills two equal
 * registers, so the encoder looks at two full registers together: when
 * their 2w bits start with repeats of their first p bits (p <= w), it holds
 * a word of whole periods instead and counts it; the bits after the last
 * whole word stay in HIST. The spec allows any
 * sequence of ResourceFull messages whose concatenated history bits are
 * the same, and a HIST field of fewer bits than the register; how
 * patterns are found is left to the encoder.
 */
#include "enc_internal.h"

/*
 * Bits of a ResourceFull message's first bytes: RCODE (4 bits), then the
 * HIST field with its stop bit, both in MDO bytes of 6 bits. A word of
 * whole periods that fills the bytes the shortest word needs costs no more
 * bytes and counts fewer repeats.
 */
#define MDO_BITS	6
#define RCODE_BITS	4

static unsigned int word_bits(unsigned int p, unsigned int w)
{
	unsigned int min = p < 2 ? 2 : p;	/* at least 2 history bits */
	unsigned int bytes = (RCODE_BITS + 1 + min + MDO_BITS - 1) / MDO_BITS;
	unsigned int cap = bytes * MDO_BITS - RCODE_BITS - 1;

	if (cap > w)
		cap = w;
	return cap / p * p;
}

bool enc_hrep_cut(uint64_t a, uint64_t b, unsigned int w, uint64_t *word, uint64_t *count,
		  uint64_t *rest)
{
	uint64_t mask = (1ull << w) - 1;
	uint64_t s = (a & mask) << w | (b & mask);	/* oldest bit highest */
	unsigned int n = 2 * w, p, l, k, r;

	for (p = 1; p <= w; p++) {
		uint64_t diff = (s ^ s >> p) & ((1ull << (n - p)) - 1);
		/* the longest prefix of the 2w bits with period p */
		unsigned int run = diff ? (unsigned int)__builtin_clzll(diff) - (64 - (n - p)) + p : n;

		/*
		 * Whole periods, at least two words, and what follows them must
		 * fit in HIST: the shortest word that does.
		 */
		for (l = word_bits(p, w); l <= w; l += p) {
			k = run / l;
			if (k >= 2 && k * l > w)
				goto found;
		}
	}
	return false;
found:
	r = n - k * l;
	*word = 1ull << l | s >> (n - l);
	*count = k;
	*rest = 1ull << r | (s & ((1ull << r) - 1));
	return true;
}
