// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The message codec against the worked examples of N-Trace 1.0: the "N-Trace
 * Message Example" byte table, the address XOR table of "Address
 * Compression", the four encodings of "Virtual Addresses Optimization", the
 * HIST examples and the Ownership PROCESS examples.
 */
#include <string.h>

#include <ntrace/msg.h>

#include "tap.h"

static size_t parse_all(const struct ntrace_codec_cfg *cfg, const uint8_t *b, size_t n,
			struct ntrace_msg *out, size_t max)
{
	struct ntrace_parser p;
	size_t used, k;

	ntrace_parser_init(&p, cfg, 0);
	k = ntrace_parse(&p, b, n, out, max, &used);
	if (k < max)
		k += ntrace_parse_finish(&p, out + k);
	return k;
}

/* "N-Trace Message Example": IndirectBranchHist between idle bytes. */
static void mseo_example(void)
{
	static const uint8_t bytes[] = { 0xFF, 0x70, 0xD0, 0x1D, 0x1D, 0xF8, 0xFF, 0xFF };
	struct ntrace_codec_cfg cfg = { 0 };
	struct ntrace_msg m[4];
	uint8_t enc[NTRACE_MSG_MAX_BYTES];
	size_t n = parse_all(&cfg, bytes, sizeof(bytes), m, 4), len;

	tap_ok(n == 1, "mseo example: one record");
	tap_ok(m[0].err == 0 && m[0].tcode == NTRACE_TC_INDIRECT_BRANCH_HIST,
	       "mseo example: IndirectBranchHist");
	tap_ok(m[0].offset == 1 && m[0].size == 6, "mseo example: offset 1, 6 bytes");
	tap_ok(m[0].btype == 0, "mseo example: B-TYPE=0");
	tap_ok(m[0].icnt == 0x7D, "mseo example: I-CNT=0x7D");
	tap_ok(m[0].addr == 0x7 && m[0].addr_bits == 6, "mseo example: U-ADDR=0x7 (6 bits)");
	tap_ok(m[0].hist == 0xFFE, "mseo example: HIST=0xFFE");
	tap_ok(!(m[0].flags & NTRACE_MSGF_TSTAMP), "mseo example: no TSTAMP");
	len = ntrace_msg_encode(&cfg, &m[0], enc);
	tap_ok(len == 6 && !memcmp(enc, bytes + 1, 6), "mseo example: re-encodes to the same bytes");
}

/* "Address XOR Calculation Examples". */
static void xor_example(void)
{
	uint64_t ref = 0x3FC04;

	tap_ok(ntrace_faddr_field(0x3FC04) == 0x1FE02, "xor example: F-ADDR of 0x3FC04 = 0x1FE02");
	tap_ok(ntrace_uaddr_field(0x3F368, ref) == 0x7B6, "xor example: U-ADDR of 0x3F368 = 0x7B6");
	tap_ok(ntrace_addr_from_uaddr(0x7B6, ref, 64) == 0x3F368, "xor example: 0x7B6 -> 0x3F368");
	ref = 0x3F368;
	tap_ok(ntrace_uaddr_field(0x3E100, ref) == 0x934, "xor example: U-ADDR of 0x3E100 = 0x934");
	tap_ok(ntrace_addr_from_uaddr(0x934, ref, 64) == 0x3E100, "xor example: 0x934 -> 0x3E100");
}

/*
 * "Virtual Addresses Optimization" examples: the F-ADDR field bytes of a
 * ProgTraceSync (SYNC=2, I-CNT=0) built around each example's MDO table.
 */
struct va_case {
	const char *name;
	uint8_t mdo[11];
	unsigned int nmdo;
	uint64_t field;		/* F-ADDR field value after extension */
	uint64_t addr;		/* address */
};

static const struct va_case va_cases[] = {
	{ "non-extended", { 63, 63, 63, 63, 63, 31 }, 6, 0x7FFFFFFFFull, 0xFFFFFFFFEull },
	{ "extended", { 63, 63, 63, 63, 31, 60 }, 6, 0x7FFFFFFF1FFFFFFFull,
	  0xFFFFFFFE3FFFFFFEull },
	{ "extra zero MDO", { 63, 63, 63, 63, 63, 63, 0 }, 7, 0xFFFFFFFFFull, 0x1FFFFFFFFEull },
	{ "full 64-bit", { 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 5 }, 11,
	  0x5FFFFFFFFFFFFFFFull, 0xBFFFFFFFFFFFFFFEull },
};

static void va_examples(void)
{
	struct ntrace_codec_cfg cfg = { .ext_addr_msb = true };
	size_t i;

	for (i = 0; i < sizeof(va_cases) / sizeof(va_cases[0]); i++) {
		const struct va_case *c = &va_cases[i];
		uint8_t b[16], enc[NTRACE_MSG_MAX_BYTES];
		struct ntrace_msg m[2];
		size_t n = 0, k, len;

		b[n++] = NTRACE_TC_PROG_TRACE_SYNC << 2;
		b[n++] = (uint8_t)((2 /* SYNC */ | 0 << 4) << 2 | NTRACE_MSEO_END_FIELD);
		for (k = 0; k < c->nmdo; k++)
			b[n++] = (uint8_t)(c->mdo[k] << 2 |
					   (k + 1 == c->nmdo ? NTRACE_MSEO_END_MSG : 0));
		k = parse_all(&cfg, b, n, m, 2);
		tap_ok(k == 1 && m[0].err == 0 && m[0].addr == c->field,
		       "virtual address %s: F-ADDR field 0x%llx", c->name,
		       (unsigned long long)c->field);
		tap_ok(ntrace_addr_from_faddr(m[0].addr, 64) == c->addr,
		       "virtual address %s: address 0x%llx", c->name,
		       (unsigned long long)c->addr);
		len = ntrace_msg_encode(&cfg, &m[0], enc);
		tap_ok(len == n && !memcmp(enc, b, n), "virtual address %s: re-encodes identically",
		       c->name);
	}
}

/* The Linux kernel address of the same chapter: 11 bytes plain, fewer extended. */
static void va_kernel_address(void)
{
	struct ntrace_codec_cfg plain = { 0 }, ext = { .ext_addr_msb = true };
	struct ntrace_msg m = { .tcode = NTRACE_TC_PROG_TRACE_SYNC, .sync = 2,
				.flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR };
	uint8_t b[NTRACE_MSG_MAX_BYTES];

	m.addr = ntrace_faddr_field(0xFFFFFFFF800031F4ull);
	tap_ok(m.addr == 0x7FFFFFFFC00018FAull, "kernel address: F-ADDR = 0x7FFFFFFFC00018FA");
	tap_ok(ntrace_msg_encode(&plain, &m, b) == 2 + 11, "kernel address: 11 address bytes plain");
	tap_ok(ntrace_msg_encode(&ext, &m, b) == 2 + 6, "kernel address: 6 address bytes extended");
}

/* HIST examples and the Ownership PROCESS examples. */
static void hist_and_process(void)
{
	struct ntrace_codec_cfg cfg = { 0 };
	struct ntrace_msg m = { .tcode = NTRACE_TC_INDIRECT_BRANCH_HIST,
				.flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR | NTRACE_MSGF_HIST };
	static const uint64_t hist[] = { 0x5, 0xF, 0x10, 0x1 };
	struct ntrace_msg out[2];
	uint8_t b[NTRACE_MSG_MAX_BYTES];
	size_t i, len;

	for (i = 0; i < 4; i++) {
		m.hist = hist[i];
		len = ntrace_msg_encode(&cfg, &m, b);
		tap_ok(parse_all(&cfg, b, len, out, 2) == 1 && out[0].hist == hist[i],
		       "hist example 0x%llx round-trips", (unsigned long long)hist[i]);
	}
	tap_ok(ntrace_process_context(0x3B2) == 0x1D && ntrace_process_v(0x3B2) == 1 &&
	       ntrace_process_prv(0x3B2) == 0 && ntrace_process_format(0x3B2) == 2,
	       "process example 0x3B2: scontext=0x1D VU-mode");
	tap_ok(ntrace_process_format(0xC) == 0 && ntrace_process_prv(0xC) == 3 &&
	       ntrace_process_v(0xC) == 0, "process example 0xC: M-mode");
	tap_ok(ntrace_process_make(2, 1, 0, 0x1D) == 0x3B2, "process example 0x3B2 built");
}

int main(void)
{
	mseo_example();
	xor_example();
	va_examples();
	va_kernel_address();
	hist_and_process();
	return tap_done();
}
