// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Repeated history (N-Trace 1.0 "Repeated History Optimization"): the word
 * that ResourceFull RCODE=2 repeats. A loop whose branch pattern has a
 * period that does not divide the HIST width never fills two equal
 * registers, so the encoder looks at two full registers together: when
 * their 2w bits start with repeats of their first p bits (p <= w), it holds
 * a word of whole periods instead and counts it; the bits after the last
 * whole word stay in HIST. When the repeats start later (a loop entered in
 * the first register), the bits before them are sent first as a shorter
 * HIST word. The spec allows any
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

/*
 * Whole words of l bits (a multiple of p, from word_bits()) in a run of
 * len bits with period p followed by more bits: at least two words, and
 * the bits after them must fit in HIST (fewer than w). Returns the word
 * length, 0 if none fits.
 */
static unsigned int fit_words(unsigned int p, unsigned int len, unsigned int more,
			      unsigned int w)
{
	unsigned int l;

	for (l = word_bits(p, w); l <= w; l += p) {
		if (len / l >= 2 && len - len / l * l + more < w)
			return l;
	}
	return 0;
}

bool enc_hrep_cut(uint64_t a, uint64_t b, unsigned int w, struct enc_hrep *cut)
{
	uint64_t mask = (1ull << w) - 1;
	uint64_t s = (a & mask) << w | (b & mask);	/* oldest bit highest */
	unsigned int n = 2 * w, p, l, j = 0, best_p = 0, best_run = 0, run = 0, k, r;

	/* the shortest period that whole words starting at the first bit use */
	for (p = 1; p <= w; p++) {
		uint64_t diff = (s ^ s >> p) & ((1ull << (n - p)) - 1);
		unsigned int tail;

		run = diff ? (unsigned int)__builtin_clzll(diff) - (64 - (n - p)) + p : n;
		if (fit_words(p, run, n - run, w))
			break;
		/* else the longest run with period p that reaches the last bit */
		tail = diff ? (unsigned int)__builtin_ctzll(diff) + p : n;
		if (tail > best_run && n - tail >= 2 && n - tail <= w && fit_words(p, tail, 0, w)) {
			best_run = tail;
			best_p = p;
		}
	}
	if (p > w) {
		/* a loop that started inside a: the bits before it go first */
		if (!best_p)
			return false;
		p = best_p;
		run = best_run;
		j = n - run;
	}
	l = fit_words(p, run, n - j - run, w);
	k = run / l;
	r = n - j - k * l;
	cut->head = j ? 1ull << j | s >> (n - j) : 0;
	cut->word = 1ull << l | (s >> (n - j - l) & ((1ull << l) - 1));
	cut->count = k;
	cut->rest = 1ull << r | (s & ((1ull << r) - 1));
	return true;
}
