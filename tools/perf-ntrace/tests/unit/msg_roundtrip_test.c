// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Codec round trips: every TCODE with every optional field combination
 * (SRC widths, TSTAMP, HIST of ProgTraceCorrelation, HREPEAT, unknown RCODE
 * and CDF, vendor and reserved TCODEs), field values of every length, with
 * and without MSB-extended addresses, for XLEN 64 and 32. Each message is
 * written, parsed back and compared field by field; then the whole stream
 * is parsed again split at every byte boundary and one byte at a time, with
 * an output array of one record, and must give the same records.
 */
#include <stdlib.h>
#include <string.h>

#include <ntrace/msg.h>

#include "tap.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A value of a random bit length 0..max_bits (0 gives 0). */
static uint64_t rnd_bits(unsigned int max_bits)
{
	unsigned int b = (unsigned int)(rnd() % (max_bits + 1));

	if (!b)
		return 0;
	return (rnd() & (b == 64 ? ~0ull : (1ull << b) - 1)) | 1ull << (b - 1);
}

static int same(const struct ntrace_msg *a, const struct ntrace_msg *b)
{
	return a->err == b->err && a->tcode == b->tcode && a->flags == b->flags &&
	       a->src == b->src && a->sync == b->sync && a->btype == b->btype &&
	       a->code == b->code && a->cdf == b->cdf && a->nraw == b->nraw &&
	       a->icnt == b->icnt && a->addr == b->addr && a->hist == b->hist &&
	       a->count == b->count && a->data == b->data && a->tstamp == b->tstamp &&
	       !memcmp(a->raw, b->raw, sizeof(a->raw));
}

/* Build a random message of the given TCODE; variant picks optional parts. */
static void make(const struct ntrace_codec_cfg *cfg, unsigned int tcode, unsigned int variant,
		 struct ntrace_msg *m)
{
	unsigned int aw = cfg->xlen == 32 ? 31 : 63;
	unsigned int i;

	memset(m, 0, sizeof(*m));
	m->tcode = tcode;
	if (cfg->src_bits)
		m->src = (uint16_t)(rnd() & ((1u << cfg->src_bits) - 1));
	switch (tcode) {
	case NTRACE_TC_OWNERSHIP:
		m->data = rnd_bits(40);
		break;
	case NTRACE_TC_DIRECT_BRANCH:
		m->icnt = rnd_bits(64);
		m->flags = NTRACE_MSGF_ICNT;
		break;
	case NTRACE_TC_INDIRECT_BRANCH:
	case NTRACE_TC_INDIRECT_BRANCH_HIST:
	case NTRACE_TC_PROG_TRACE_SYNC:
	case NTRACE_TC_DIRECT_BRANCH_SYNC:
	case NTRACE_TC_INDIRECT_BRANCH_SYNC:
	case NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC:
		m->icnt = rnd_bits(64);
		m->addr = rnd_bits(aw);
		if (variant & 4)	/* address with high ones (MSB extension) */
			m->addr |= ((1ull << aw) - 1) & ~((1ull << (rnd() % aw)) - 1);
		m->flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR;
		if (tcode == NTRACE_TC_INDIRECT_BRANCH || tcode == NTRACE_TC_INDIRECT_BRANCH_SYNC ||
		    tcode == NTRACE_TC_INDIRECT_BRANCH_HIST ||
		    tcode == NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC)
			m->btype = rnd() & 3;
		if (ntrace_tcode_is_sync(tcode))
			m->sync = rnd() & 15;
		if (tcode == NTRACE_TC_INDIRECT_BRANCH_HIST ||
		    tcode == NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC) {
			m->hist = rnd_bits(64);
			m->flags |= NTRACE_MSGF_HIST;
		}
		break;
	case NTRACE_TC_ERROR:
		m->code = rnd() & 15;
		m->data = rnd_bits(8);
		break;
	case NTRACE_TC_RESOURCE_FULL:
		m->code = (uint8_t[]){ 0, 1, 2, 3, 8 }[variant % 5];
		if (m->code == 0) {
			m->icnt = rnd_bits(64);
			m->flags = NTRACE_MSGF_ICNT;
		} else if (m->code <= 2) {
			m->hist = rnd_bits(64);
			m->flags = NTRACE_MSGF_HIST;
			if (m->code == 2) {
				m->count = rnd_bits(18);
				m->flags |= NTRACE_MSGF_COUNT;
			}
		}
		break;
	case NTRACE_TC_REPEAT_BRANCH:
		m->count = rnd_bits(64);
		m->flags = NTRACE_MSGF_COUNT;
		break;
	case NTRACE_TC_PROG_TRACE_CORRELATION:
		m->code = rnd() & 15;
		m->cdf = variant % 3;
		if (m->cdf < 2) {
			m->icnt = rnd_bits(64);
			m->flags = NTRACE_MSGF_ICNT;
		}
		if (m->cdf == 1) {
			m->hist = rnd_bits(64);
			m->flags |= NTRACE_MSGF_HIST;
		}
		break;
	}
	if (ntrace_tcode_class(tcode) != NTRACE_TCLASS_STANDARD ||
	    (tcode == NTRACE_TC_RESOURCE_FULL && m->code > 2) ||
	    (tcode == NTRACE_TC_PROG_TRACE_CORRELATION && m->cdf > 1)) {
		/* Unknown layout: raw segments after the known fixed fields. */
		m->flags = NTRACE_MSGF_LAYOUT_RAW;
		m->nraw = 1 + variant % NTRACE_MSG_RAW_FIELDS;
		for (i = 0; i < m->nraw; i++)
			m->raw[i] = rnd_bits(64);
		m->icnt = m->hist = m->count = 0;
		return;
	}
	if (cfg->tstamp && (variant & 1)) {
		m->tstamp = rnd_bits(64);
		m->flags |= NTRACE_MSGF_TSTAMP;
	}
}

static const unsigned int tcodes[] = {
	2, 3, 4, 8, 9, 11, 12, 27, 28, 29, 30, 33,
	56, 62,			/* vendor */
	0, 1, 5, 40, 63,	/* reserved */
};

#define NMSG 600

static struct ntrace_msg msgs[NMSG], got[2 * NMSG + 4], got2[2 * NMSG + 4];
static uint8_t stream[NMSG * (NTRACE_MSG_MAX_BYTES + 3)];

static size_t parse_chunks(const struct ntrace_codec_cfg *cfg, const uint8_t *b, size_t n,
			   const size_t *cuts, size_t ncuts, size_t max_out, struct ntrace_msg *out,
			   size_t cap)
{
	struct ntrace_parser p;
	size_t k = 0, pos = 0, c;

	ntrace_parser_init(&p, cfg, 1000);
	for (c = 0; c <= ncuts; c++) {
		size_t end = c < ncuts ? cuts[c] : n;

		while (pos < end && k < cap) {
			size_t used, lim = max_out < cap - k ? max_out : cap - k;

			k += ntrace_parse(&p, b + pos, end - pos, out + k, lim, &used);
			pos += used;
		}
	}
	if (k + 2 <= cap)
		k += ntrace_parse_finish(&p, out + k);
	return k;
}

static int same_list(const struct ntrace_msg *a, const struct ntrace_msg *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!same(&a[i], &b[i]) || a[i].offset != b[i].offset || a[i].size != b[i].size)
			return 0;
	return 1;
}

static void run_cfg(const struct ntrace_codec_cfg *cfg, const char *name)
{
	size_t n = 0, i, k, bad_encode = 0, bad_rt = 0, bad_split = 0;
	uint64_t offs[NMSG];
	size_t sizes[NMSG];
	char line[256];

	for (i = 0; i < NMSG; i++) {
		unsigned int tcode = tcodes[i % (sizeof(tcodes) / sizeof(tcodes[0]))];
		size_t len;

		make(cfg, tcode, (unsigned int)(i / 19 + i), &msgs[i]);
		if (i % 3 == 0)	/* idle bytes between some messages */
			stream[n++] = NTRACE_IDLE_BYTE;
		len = ntrace_msg_encode(cfg, &msgs[i], stream + n);
		if (!len) {
			bad_encode++;
			continue;
		}
		offs[i] = 1000 + n;
		sizes[i] = len;
		n += len;
	}
	tap_ok(!bad_encode, "%s: every message encodes", name);

	k = parse_chunks(cfg, stream, n, NULL, 0, 1 << 20, got, 2 * NMSG + 4);
	if (k != NMSG)
		bad_rt++;
	for (i = 0; i < NMSG && i < k; i++) {
		if (!same(&got[i], &msgs[i]) || got[i].offset != offs[i] ||
		    got[i].size != sizes[i]) {
			if (bad_rt++ < 3) {
				ntrace_msg_format(&msgs[i], line, sizeof(line));
				tap_diag("sent %s", line);
				ntrace_msg_format(&got[i], line, sizeof(line));
				tap_diag("got  %s", line);
			}
		}
	}
	tap_ok(!bad_rt, "%s: %d messages parse back identical with offsets", name, NMSG);

	/* split in two at every byte boundary of the first 400 bytes */
	for (i = 1; i < 400 && i < n; i++) {
		size_t cut = i;

		k = parse_chunks(cfg, stream, n, &cut, 1, 1 << 20, got2, 2 * NMSG + 4);
		if (k != NMSG || !same_list(got, got2, NMSG))
			bad_split++;
	}
	tap_ok(!bad_split, "%s: same records when split at any byte boundary", name);

	/* one byte at a time, one record at a time */
	{
		static size_t cuts[sizeof(stream)];

		for (i = 0; i + 1 < n; i++)
			cuts[i] = i + 1;
		k = parse_chunks(cfg, stream, n, cuts, n - 1, 1, got2, 2 * NMSG + 4);
		tap_ok(k == NMSG && same_list(got, got2, NMSG),
		       "%s: same records fed one byte and one record at a time", name);
	}
}

int main(void)
{
	static const uint8_t srcs[] = { 0, 1, 7, 12 };
	struct ntrace_codec_cfg cfg;
	char name[96];
	unsigned int s, ts, ext, xl;

	for (s = 0; s < 4; s++)
		for (ts = 0; ts < 2; ts++)
			for (ext = 0; ext < 2; ext++)
				for (xl = 0; xl < 2; xl++) {
					memset(&cfg, 0, sizeof(cfg));
					cfg.src_bits = srcs[s];
					cfg.tstamp = ts;
					cfg.ext_addr_msb = ext;
					cfg.xlen = xl ? 32 : 64;
					snprintf(name, sizeof(name),
						 "src=%u tstamp=%u ext=%u xlen=%u", srcs[s], ts,
						 ext, cfg.xlen);
					run_cfg(&cfg, name);
				}
	return tap_done();
}
