// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Throughput of the encoder model and the message parser on a synthetic
 * instruction stream (loops with conditional branches, calls/returns and
 * indirect jumps), in BTM and HTM. Prints records/s, bytes, MB/s and
 * messages/s; not a test (no pass/fail), run by "make bench".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ntrace/encoder.h>
#include <ntrace/msg.h>

#define NREC (4u << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct mem {
	uint8_t *buf;
	size_t len, cap;
};

static int to_mem(void *ctx, const struct ntrace_msg *m)
{
	static const struct ntrace_codec_cfg cfg = { .xlen = 64 };
	struct mem *b = ctx;

	if (b->len + NTRACE_MSG_MAX_BYTES > b->cap)
		return -1;
	b->len += ntrace_msg_encode(&cfg, m, b->buf + b->len);
	return 0;
}

/* Pseudo-random program flow: blocks of 3..12 instructions ending in a branch. */
static void make_records(struct ntrace_insn *r, size_t n)
{
	uint64_t x = 12345, pc = 0x10000;
	size_t i = 0;

	while (i < n) {
		unsigned int len = 3 + (unsigned int)(x % 10), k;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		for (k = 0; k < len && i < n; k++, i++) {
			r[i] = (struct ntrace_insn){ .addr = pc, .size = (x >> (k + 20)) & 1 ? 2 : 4 };
			pc += r[i].size;
		}
		if (!i)
			continue;
		switch ((x >> 40) % 16) {
		case 0:
			r[i - 1].itype = NTRACE_ITYPE_INDIRECT;
			pc = 0x10000 + ((x >> 8) & 0xFFFF) * 2;
			break;
		case 1:
			r[i - 1].itype = NTRACE_ITYPE_NOT_TAKEN;
			break;
		default:
			r[i - 1].itype = NTRACE_ITYPE_TAKEN;
			pc -= ((x >> 30) & 0x3F) * 2;
			if (pc < 0x10000)
				pc = 0x10000;
			break;
		}
	}
}

int main(void)
{
	static struct ntrace_msg out[4096];
	struct ntrace_insn *r = malloc(NREC * sizeof(*r));
	struct mem m = { .cap = 64u << 20 };
	unsigned int mode;

	m.buf = malloc(m.cap);
	if (!r || !m.buf)
		return 1;
	make_records(r, NREC);
	for (mode = 0; mode < 2; mode++) {
		struct ntrace_enc_cfg cfg;
		struct ntrace_encoder e;
		struct ntrace_parser p;
		size_t pos, used, k, msgs = 0, rep;
		double t0, t1, t2;

		ntrace_enc_cfg_default(&cfg);
		cfg.mode = mode ? NTRACE_MODE_HTM : NTRACE_MODE_BTM;
		m.len = 0;
		ntrace_encoder_init(&e, &cfg, to_mem, &m, NULL);
		t0 = now();
		ntrace_encoder_put(&e, r, NREC);
		ntrace_encoder_finish(&e);
		t1 = now();
		for (rep = 0; rep < 10; rep++) {
			msgs = 0;
			ntrace_parser_init(&p, &cfg.codec, 0);
			for (pos = 0; pos < m.len; pos += used) {
				k = ntrace_parse(&p, m.buf + pos, m.len - pos, out, 4096, &used);
				msgs += k;
			}
		}
		t2 = now();
		printf("bench %s: encoder %.1f M records/s; %zu bytes (%.3f bytes/record), "
		       "parser %.0f MB/s, %.1f M messages/s (%zu messages), %.0f M records/s "
		       "equivalent\n",
		       mode ? "HTM" : "BTM", NREC / (t1 - t0) / 1e6, m.len, (double)m.len / NREC,
		       10.0 * m.len / (t2 - t1) / 1e6, 10.0 * msgs / (t2 - t1) / 1e6, msgs,
		       10.0 * NREC / (t2 - t1) / 1e6);
	}
	free(r);
	free(m.buf);
	return 0;
}
