/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Test harness for the encoder model: run records through the encoder and
 * the byte codec, parse the bytes back, and return the messages as text
 * (one ntrace_msg_format() line each) so tests compare readable listings.
 */
#ifndef NTRACE_ENC_HARNESS_H
#define NTRACE_ENC_HARNESS_H

#include <stdlib.h>
#include <string.h>

#include <ntrace/encoder.h>
#include <ntrace/msg.h>

#include "tap.h"

struct enc_run {
	char text[1 << 19];
	size_t len;
	unsigned int nmsg;
	uint8_t bytes[1 << 17];
	size_t nbytes;
	int reparse_ok;		/* bytes parse back to the same messages */
};

/* Offset of the first listing byte where got differs from want (want.len: none). */
static inline size_t harness_first_diff(const struct enc_run *got, const struct enc_run *want)
{
	size_t at = 0;

	while (at < want->len && got->text[at] == want->text[at])
		at++;
	return at;
}

static int harness_collect(void *ctx, const struct ntrace_msg *m)
{
	struct enc_run *r = ctx;
	int n;

	n = ntrace_msg_format(m, r->text + r->len, sizeof(r->text) - r->len - 2);
	if (n < 0 || r->len + (size_t)n + 2 >= sizeof(r->text))
		return -1;
	r->len += (size_t)n;
	r->text[r->len++] = '\n';
	r->text[r->len] = 0;
	r->nmsg++;
	return 0;
}

/* Encode; fills r->text with the listing. Returns 0 or -1 on encoder error. */
static int enc_run(const struct ntrace_enc_cfg *cfg, const struct ntrace_insn *insn, size_t n,
		   struct enc_run *r)
{
	struct ntrace_byte_sink sink = { .codec = &cfg->codec, .next = harness_collect,
					 .next_ctx = r };
	struct ntrace_encoder e;
	struct ntrace_parser p;
	struct ntrace_msg out[512];
	static struct enc_run again;
	const char *err;
	FILE *f;
	size_t k, used, i, pos;
	char *mem = NULL;
	size_t memlen = 0;

	memset(r, 0, sizeof(*r));
	f = open_memstream(&mem, &memlen);
	if (!f)
		return -1;
	sink.out = f;
	if (ntrace_encoder_init(&e, cfg, ntrace_byte_sink_emit, &sink, &err)) {
		tap_diag("encoder config: %s", err);
		fclose(f);
		free(mem);
		return -1;
	}
	if (ntrace_encoder_put(&e, insn, n) || ntrace_encoder_finish(&e)) {
		fclose(f);
		free(mem);
		return -1;
	}
	fclose(f);
	if (memlen > sizeof(r->bytes)) {
		free(mem);
		return -1;
	}
	memcpy(r->bytes, mem, memlen);
	r->nbytes = memlen;
	free(mem);

	/* the bytes must parse back to the same listing */
	memset(&again, 0, sizeof(again));
	ntrace_parser_init(&p, &cfg->codec, 0);
	for (pos = 0; pos < r->nbytes; pos += used) {
		k = ntrace_parse(&p, r->bytes + pos, r->nbytes - pos, out, 512, &used);
		for (i = 0; i < k; i++)
			harness_collect(&again, &out[i]);
	}
	k = ntrace_parse_finish(&p, out);
	for (i = 0; i < k; i++)
		harness_collect(&again, &out[i]);
	r->reparse_ok = !strcmp(again.text, r->text);
	return 0;
}

static void print_listing(const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);

		printf("#   %.*s\n", n, p);
		p += n + (nl ? 1 : 0);
	}
}

/* Compare a run's listing with the expected text; print both on mismatch. */
__attribute__((unused)) static int expect_listing(const struct enc_run *r, const char *want, const char *name)
{
	int ok = !strcmp(r->text, want) && r->reparse_ok;

	if (!ok) {
		tap_diag("%s: got%s:", name, r->reparse_ok ? "" : " (bytes do not re-parse)");
		print_listing(r->text);
		tap_diag("%s: want:", name);
		print_listing(want);
	}
	return tap_ok(ok, "%s", name);
}

#endif /* NTRACE_ENC_HARNESS_H */
