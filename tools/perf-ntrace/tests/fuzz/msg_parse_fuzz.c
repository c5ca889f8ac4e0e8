// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target for the message parser. The first input byte picks the
 * codec configuration. Checks: records are in order and inside the input,
 * parsing in two chunks gives the same records, and every good message
 * written back by the codec parses to the same fields (a field of no bits,
 * the EMPTY_FIELD quirk, as 0). Built by "make
 * fuzzers", run by tests/fuzz.sh.
 */
#include <stdlib.h>
#include <string.h>

#include <ntrace/msg.h>

#define CAP 4096

static struct ntrace_msg a[CAP + 2], b[CAP + 2], c[4];

static size_t run(const struct ntrace_codec_cfg *cfg, const uint8_t *d, size_t n, size_t cut,
		  struct ntrace_msg *out)
{
	struct ntrace_parser p;
	size_t k = 0, pos = 0, used;

	ntrace_parser_init(&p, cfg, 0);
	while (pos < n && k < CAP) {
		size_t end = pos < cut ? cut : n;

		k += ntrace_parse(&p, d + pos, end - pos, out + k, CAP - k, &used);
		pos += used;
	}
	return k + ntrace_parse_finish(&p, out + k);
}

static int same(const struct ntrace_msg *x, const struct ntrace_msg *y)
{
	return x->err == y->err && x->tcode == y->tcode && x->flags == y->flags &&
	       x->src == y->src && x->sync == y->sync && x->btype == y->btype &&
	       x->code == y->code && x->cdf == y->cdf && x->icnt == y->icnt &&
	       x->addr == y->addr && x->hist == y->hist && x->count == y->count &&
	       x->data == y->data && x->tstamp == y->tstamp && x->nraw == y->nraw &&
	       !memcmp(x->raw, y->raw, sizeof(x->raw));
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct ntrace_codec_cfg cfg = { 0 }, again;
	uint8_t buf[NTRACE_MSG_MAX_BYTES];
	size_t ka, kb, i;
	uint64_t end = 0;

	if (n < 2 || n > 3000)
		return 0;
	cfg.src_bits = d[0] % 13;
	cfg.tstamp = d[0] & 0x10;
	cfg.ext_addr_msb = d[0] & 0x20;
	cfg.xlen = d[0] & 0x40 ? 32 : 64;
	cfg.wait_for_eom = d[0] & 0x80;
	d++;
	n--;
	again = cfg;
	again.wait_for_eom = false;
	ka = run(&cfg, d, n, 0, a);
	kb = run(&cfg, d, n, n / 2, b);
	if (ka != kb)
		abort();
	for (i = 0; i < ka; i++) {
		if (!same(&a[i], &b[i]) || a[i].offset != b[i].offset || a[i].size != b[i].size)
			abort();
		if (a[i].offset < end || a[i].offset + a[i].size > n || !a[i].size)
			abort();
		end = a[i].offset + a[i].size;
		if (!a[i].err && !(a[i].flags & NTRACE_MSGF_RAW_TRUNC)) {
			/* a field of no bits (a quirk) is written back as 0 */
			struct ntrace_msg m = a[i];
			size_t len;

			m.flags &= (uint8_t)~NTRACE_MSGF_EMPTY_FIELD;
			len = ntrace_msg_encode(&cfg, &m, buf);
			if (!len || run(&again, buf, len, 0, c) != 1 || !same(&m, &c[0]))
				abort();
		}
	}
	return 0;
}
