// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The parser on broken input: truncated streams, reserved MSEO values,
 * bytes outside messages (stray ends of messages among them), a message
 * whose end is missing, over-long fields, wrong field counts, empty fields,
 * all-zero memory and random bytes. Each case checks the
 * error record (code, offset, size) and that parsing resumes at the next
 * message with the right offset. The parser's fast path for messages of
 * up to 8 bytes must give the same records as its byte-by-byte path.
 */
#include <string.h>

#include <ntrace/msg.h>

#include "tap.h"

static size_t parse(const struct ntrace_codec_cfg *cfg, const uint8_t *b, size_t n,
		    struct ntrace_msg *out, size_t cap)
{
	struct ntrace_parser p;
	size_t k = 0, pos = 0, used;

	ntrace_parser_init(&p, cfg, 0);
	while (pos < n && k < cap) {
		k += ntrace_parse(&p, b + pos, n - pos, out + k, cap - k, &used);
		pos += used;
	}
	if (k + 2 <= cap)
		k += ntrace_parse_finish(&p, out + k);
	return k;
}

/* DirectBranch I-CNT=5: TCODE byte, then 5 with MSEO=11. */
#define DB5 0x0C, (5 << 2 | 3)

static void truncated(void)
{
	struct ntrace_codec_cfg cfg = { 0 };
	struct ntrace_msg m = { .tcode = NTRACE_TC_INDIRECT_BRANCH_HIST, .icnt = 0x1234,
				.addr = 0x3FFFF, .hist = 0x55,
				.flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR | NTRACE_MSGF_HIST };
	uint8_t b[2 * NTRACE_MSG_MAX_BYTES];
	struct ntrace_msg out[8];
	size_t len = ntrace_msg_encode(&cfg, &m, b), cut, k, bad = 0;

	memcpy(b + len, b, len);	/* two copies: cut the second one */
	for (cut = len + 1; cut < 2 * len; cut++) {
		k = parse(&cfg, b, cut, out, 8);
		if (k != 2 || out[0].err || out[1].err != NTRACE_MSG_ERR_TRUNCATED ||
		    out[1].offset != len || out[1].size != cut - len ||
		    out[1].tcode != NTRACE_TC_INDIRECT_BRANCH_HIST)
			bad++;
	}
	tap_ok(!bad, "truncated at every byte: TRUNCATED error at the cut message's offset");
}

static void reserved_mseo(void)
{
	/* DB5, then a message broken by MSEO=10, then DB5 */
	static const uint8_t b[] = { DB5, 0x0C, 0x02, 0x04, 0x07, DB5 };
	struct ntrace_msg out[8];
	size_t k = parse(&(struct ntrace_codec_cfg){ 0 }, b, sizeof(b), out, 8);

	tap_ok(k == 3 && !out[0].err && out[0].icnt == 5, "reserved MSEO: first message intact");
	tap_ok(k == 3 && out[1].err == NTRACE_MSG_ERR_MSEO && out[1].offset == 2 &&
	       out[1].size == 4, "reserved MSEO: error covers offset 2..5 (to the next MSEO=11)");
	tap_ok(k == 3 && !out[2].err && out[2].offset == 6 && out[2].icnt == 5,
	       "reserved MSEO: next message parsed at offset 6");
}

static void garbage_between(void)
{
	/* MSEO=01 and 11-not-idle bytes between messages, then idle */
	static const uint8_t b[] = { DB5, 0x05, 0x09, 0x0B, 0xFF, 0x13, DB5 };
	struct ntrace_msg out[8];
	size_t k = parse(&(struct ntrace_codec_cfg){ 0 }, b, sizeof(b), out, 8);

	tap_ok(k == 4 && out[1].err == NTRACE_MSG_ERR_GARBAGE && out[1].offset == 2 &&
	       out[1].size == 3, "garbage: one error for bytes 2..4");
	tap_ok(k == 4 && out[2].err == NTRACE_MSG_ERR_STRAY_EOM && out[2].offset == 6 &&
	       out[2].size == 1, "garbage: stray 11 byte after idle reported alone, STRAY_EOM");
	tap_ok(k == 4 && !out[3].err && out[3].offset == 7, "garbage: next message at offset 7");
}

/* Bytes that end a message between messages: STRAY_EOM unless mixed with others. */
static void stray_eom(void)
{
	/* 0x03: TCODE 0 ended at once (as some encoders pad) */
	static const uint8_t b[] = { DB5, 0x03, DB5, 0x03, 0x07, DB5 };
	static const uint8_t c[] = { DB5, 0x03, 0x07, 0x05, 0x0B, DB5 };
	struct ntrace_msg out[8];
	size_t k = parse(&(struct ntrace_codec_cfg){ 0 }, b, sizeof(b), out, 8);

	tap_ok(k == 5 && out[1].err == NTRACE_MSG_ERR_STRAY_EOM && out[1].offset == 2 &&
	       out[1].size == 1 && !out[2].err && out[2].offset == 3 &&
	       out[3].err == NTRACE_MSG_ERR_STRAY_EOM && out[3].offset == 5 && out[3].size == 2 &&
	       !out[4].err && out[4].offset == 7, "stray end-of-message bytes: STRAY_EOM records");
	k = parse(&(struct ntrace_codec_cfg){ 0 }, c, sizeof(c), out, 8);
	tap_ok(k == 3 && out[1].err == NTRACE_MSG_ERR_GARBAGE && out[1].offset == 2 &&
	       out[1].size == 4 && !out[2].err && out[2].offset == 6,
	       "stray end-of-message bytes before an MSEO=01 byte: one GARBAGE record");
}

static void missing_end(void)
{
	/* a DirectBranch whose last byte was lost runs into the next message */
	struct ntrace_codec_cfg cfg = { 0 };
	uint8_t b[200];
	struct ntrace_msg out[8];
	size_t n = 0, k, i;

	b[n++] = 0x0C;
	for (i = 0; i < 100; i++)	/* 100 bytes that never end a field */
		b[n++] = 0x10;
	b[n++] = 0x0C;
	b[n++] = 5 << 2 | 3;	/* the end the parser will resync on */
	b[n++] = 0xFF;
	b[n++] = 0x0C;
	b[n++] = 7 << 2 | 3;
	k = parse(&cfg, b, n, out, 8);
	tap_ok(k == 2 && out[0].err == NTRACE_MSG_ERR_TOO_LONG && out[0].offset == 0 &&
	       out[0].size == 103, "missing end: TOO_LONG error up to the next MSEO=11");
	tap_ok(k == 2 && !out[1].err && out[1].offset == 104 && out[1].icnt == 7,
	       "missing end: resumes at the next message");
}

static void field_too_long(void)
{
	struct ntrace_codec_cfg cfg = { 0 };
	uint8_t b[64];
	struct ntrace_msg out[8];
	size_t n = 0, k, i;

	b[n++] = 0x0C;
	for (i = 0; i < 11; i++)	/* 66 bits, top bits set */
		b[n++] = 0x3F << 2;
	b[n - 1] |= 3;
	b[n++] = 0x0C;
	b[n++] = 5 << 2 | 3;
	k = parse(&cfg, b, n, out, 8);
	tap_ok(k == 2 && out[0].err == NTRACE_MSG_ERR_FIELD_TOO_LONG && out[0].size == 12,
	       "66-bit I-CNT: FIELD_TOO_LONG for the whole message");
	tap_ok(k == 2 && !out[1].err && out[1].offset == 12, "66-bit I-CNT: next message fine");

	/* zero padding past bit 63 is not an error */
	n = 0;
	b[n++] = 0x0C;
	for (i = 0; i < 10; i++)
		b[n++] = 0x3F << 2;
	b[n++] = 0x01 << 2 | 3;	/* bits 60..65 = 000001: value has 61 bits */
	k = parse(&cfg, b, n, out, 8);
	tap_ok(k == 1 && !out[0].err && out[0].icnt == ((1ull << 61) - 1),
	       "61-bit I-CNT in 11 bytes accepted");
}

static void field_count(void)
{
	struct ntrace_codec_cfg cfg = { 0 }, ts = { .tstamp = true };
	/* DirectBranch with two variable fields: a TSTAMP only if enabled */
	static const uint8_t b[] = { 0x0C, 5 << 2 | 1, 9 << 2 | 3 };
	/* IndirectBranch with only one variable field */
	static const uint8_t c[] = { 0x10, 5 << 2 | 3 };
	/* IndirectBranchSync with SRC=12 ending inside SRC */
	static const uint8_t d[] = { 0x30, 0x03 };
	struct ntrace_msg out[4];
	size_t k;

	k = parse(&cfg, b, sizeof(b), out, 4);
	tap_ok(k == 1 && out[0].err == NTRACE_MSG_ERR_FIELD_COUNT,
	       "extra field without trTsEnable: FIELD_COUNT");
	k = parse(&ts, b, sizeof(b), out, 4);
	tap_ok(k == 1 && !out[0].err && (out[0].flags & NTRACE_MSGF_TSTAMP) &&
	       out[0].tstamp == 9 && out[0].icnt == 5, "extra field with trTsEnable: TSTAMP=9");
	k = parse(&cfg, c, sizeof(c), out, 4);
	tap_ok(k == 1 && out[0].err == NTRACE_MSG_ERR_FIELD_COUNT,
	       "IndirectBranch without U-ADDR: FIELD_COUNT");
	k = parse(&(struct ntrace_codec_cfg){ .src_bits = 12 }, d, sizeof(d), out, 4);
	tap_ok(k == 1 && out[0].err == NTRACE_MSG_ERR_SHORT, "message ending inside SRC: SHORT");
	/* Ownership with SRC=6 bits filling byte 1, which also ends the message */
	k = parse(&(struct ntrace_codec_cfg){ .src_bits = 6, .strict = true },
		  (const uint8_t[]){ 0x08, 0x7F }, 2, out, 4);
	tap_ok(k == 1 && out[0].err == NTRACE_MSG_ERR_EMPTY_FIELD && out[0].size == 2,
	       "strict: variable field with no bits: EMPTY_FIELD");
	k = parse(&(struct ntrace_codec_cfg){ .src_bits = 6 }, (const uint8_t[]){ 0x08, 0x7F }, 2,
		  out, 4);
	tap_ok(k == 1 && !out[0].err && out[0].tcode == NTRACE_TC_OWNERSHIP && out[0].src == 31 &&
	       !out[0].data && (out[0].flags & NTRACE_MSGF_EMPTY_FIELD),
	       "variable field with no bits: 0, the message flagged EMPTY_FIELD");
}

static void zeros_and_wrap(void)
{
	static uint8_t z[100000];
	struct ntrace_msg out[8];
	struct ntrace_codec_cfg cfg = { 0 }, wrap = { .wait_for_eom = true };
	/* tail of a message from before the wrap, then DB5 */
	static const uint8_t w[] = { 0x41, 0x40, 0x13, DB5 };
	size_t k;

	k = parse(&cfg, z, sizeof(z), out, 8);
	tap_ok(k == 1 && out[0].err == NTRACE_MSG_ERR_TOO_LONG && out[0].offset == 0 &&
	       out[0].size == sizeof(z), "100000 zero bytes: one error record for all of them");
	k = parse(&wrap, w, sizeof(w), out, 8);
	tap_ok(k == 1 && !out[0].err && out[0].offset == 3,
	       "wait_for_eom: bytes before the first MSEO=11 skipped silently");
	k = parse(&cfg, w, sizeof(w), out, 8);
	tap_ok(k == 2 && out[0].err == NTRACE_MSG_ERR_GARBAGE && out[0].offset == 0 &&
	       out[0].size == 3 && !out[1].err,
	       "without wait_for_eom: the partial message is an error");
}

static uint64_t rng = 88172645463325252ull;

static void random_bytes(void)
{
	static uint8_t b[1 << 20];
	static struct ntrace_msg out[1 << 16];
	struct ntrace_codec_cfg cfg = { .src_bits = 3, .tstamp = true, .ext_addr_msb = true };
	struct ntrace_parser p;
	size_t i, pos = 0, k, used, total = 0, bad = 0, errs = 0, good = 0;
	uint64_t end = 0;

	for (i = 0; i < sizeof(b); i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		b[i] = (uint8_t)rng;
	}
	ntrace_parser_init(&p, &cfg, 0);
	while (pos < sizeof(b)) {
		size_t chunk = 1 + (size_t)((pos * 2654435761u) % 4093);

		if (chunk > sizeof(b) - pos)
			chunk = sizeof(b) - pos;
		k = ntrace_parse(&p, b + pos, chunk, out, 1 << 16, &used);
		pos += used;
		for (i = 0; i < k; i++) {
			/* records are in order, do not overlap, stay inside the input */
			if (out[i].offset < end || out[i].offset + out[i].size > pos ||
			    !out[i].size)
				bad++;
			end = out[i].offset + out[i].size;
			if (out[i].err)
				errs++;
			else
				good++;
		}
		total += k;
	}
	k = ntrace_parse_finish(&p, out);
	tap_ok(!bad, "1 MiB of random bytes: %zu records in order, inside the input (%zu good,"
	       " %zu errors)", total + k, good, errs);
}

/* Parsed one byte at a time: the parser's byte-by-byte path only. */
static size_t parse_bytewise(const struct ntrace_codec_cfg *cfg, const uint8_t *b, size_t n,
			     struct ntrace_msg *out, size_t cap)
{
	struct ntrace_parser p;
	size_t k = 0, pos, used;

	ntrace_parser_init(&p, cfg, 0);
	for (pos = 0; pos < n && k < cap; pos++)
		k += ntrace_parse(&p, b + pos, 1, out + k, cap - k, &used);
	if (k + 2 <= cap)
		k += ntrace_parse_finish(&p, out + k);
	return k;
}

/*
 * Streams that look like messages (mostly MSEO 00, field and message ends,
 * now and then a reserved MSEO or an idle byte; standard and other
 * TCODEs), under codec settings that change the header: parsed in one
 * piece (fast path where a message fits in 8 bytes) and byte by byte.
 */
static void fast_path_same(void)
{
	static uint8_t b[1 << 18];
	static struct ntrace_msg x[1 << 17], y[1 << 17];
	unsigned int c, diff = 0, cfgs = 0;
	size_t i, kx = 0, ky = 0, total = 0;

	for (c = 0; c < 48; c++) {
		struct ntrace_codec_cfg cfg = { .src_bits = (uint8_t)(c % 13), .tstamp = c & 1,
						.ext_addr_msb = (c >> 1) & 1,
						.xlen = c & 4 ? 32 : 64,
						.max_msg_bytes = c % 7 == 3 ? 6 : 0 };
		bool start = true;

		for (i = 0; i < sizeof(b); i++) {
			unsigned int r, mseo;

			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			r = (unsigned int)rng;
			if (start) {	/* a TCODE: mostly standard ones */
				b[i] = (uint8_t)((r & 8 ? (r >> 8) % 36 : (r >> 8) & 63) << 2);
				if ((r & 0xF0) == 0)
					b[i] = NTRACE_IDLE_BYTE;
				start = b[i] == NTRACE_IDLE_BYTE;
				continue;
			}
			mseo = (r & 0xFF) < 150 ? 0 : (r & 0xFF) < 200 ? 1 : (r & 0xFF) < 252 ? 3 : 2;
			b[i] = (uint8_t)((r >> 8) << 2 | mseo);
			start = mseo == 3;
		}
		kx = parse(&cfg, b, sizeof(b), x, sizeof(x) / sizeof(x[0]));
		ky = parse_bytewise(&cfg, b, sizeof(b), y, sizeof(y) / sizeof(y[0]));
		cfgs++;
		total += kx;
		if (kx != ky || memcmp(x, y, kx * sizeof(x[0])))
			diff++;
	}
	tap_ok(!diff, "fast path and byte-by-byte path agree: %u codec settings, %zu records"
	       " (%u differ)", cfgs, total, diff);
}

int main(void)
{
	truncated();
	reserved_mseo();
	garbage_between();
	stray_eom();
	missing_end();
	field_too_long();
	field_count();
	zeros_and_wrap();
	random_bytes();
	fast_path_same();
	return tap_done();
}
