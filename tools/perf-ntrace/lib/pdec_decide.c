// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Whether a trace is worth splitting, decided from the trace itself, and
 * the one-decoder path for a trace that is not.
 *
 * Pieces can only start where a decoder synchronises: a trace with one
 * sync message at its start (the usual HTM trace without periodic sync)
 * gives every piece but the first to the decoder before it, so threads
 * would only copy, wait and decode twice. The first PD_DECIDE bytes are
 * held and scanned for sync messages; pieces are cut only when those
 * bytes hold at least PD_DECIDE_CUTS places where a piece could start,
 * PD_PIECE_MIN or more apart. Otherwise the trace goes to one decoder
 * in the calling thread, writing straight to the output, exactly as
 * ntrace_decoder_feed() with a sink would: no thread, no copy, no memory
 * beyond that decoder.
 */
#include <stdlib.h>
#include <string.h>

#include "pdec_internal.h"

bool pd_sync_in(const uint8_t *b, size_t from, size_t to)
{
	size_t i;

	for (i = from ? from : 1; i < to; i++)
		if (pd_msg_starts(b, i) && ntrace_tcode_is_sync(b[i] >> 2))
			return true;
	return false;
}

/* Scan the held bytes not scanned yet for places where a piece could start. */
static void count_cuts(struct ntrace_pardec *p)
{
	const uint8_t *b = p->fill;
	size_t i;

	for (i = p->dscan ? p->dscan : 1; i < p->fill_len; i++)
		if (i >= p->dlast + PD_PIECE_MIN && pd_msg_starts(b, i) &&
		    ntrace_tcode_is_sync(b[i] >> 2)) {
			p->dlast = i;
			p->dcuts++;
		}
	p->dscan = i;
}

static int direct_runs(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct ntrace_pardec *p = ctx;

	return ntrace_sink_runs(p->dsink, r, n);
}

static int direct_event(void *ctx, const struct ntrace_dec_event *ev)
{
	struct ntrace_pardec *p = ctx;

	if (p->pc.events && !(p->pc.events & (1u << ev->type)))
		return 0;
	return p->event ? p->event(p->ctx, ev) : 0;
}

/* The decoder's stop code, with the reason. */
int pd_direct_stopped(struct ntrace_pardec *p)
{
	int rc = p->direct->stopped;

	if (!rc)
		return 0;
	return p->stopped = ntrace_err_set(&p->err, rc, "%s", p->dsink ?
					   ntrace_sink_errmsg(p->dsink) : ntrace_errstr(rc));
}

/* One decoder for the whole trace, fed what is held so far. */
static int go_direct(struct ntrace_pardec *p)
{
	struct ntrace_dec_ops ops = { p->pc.runs ? direct_runs : NULL, direct_event };
	const char *why = NULL;

	p->mode = PD_DIRECT;
	if (p->pc.runs) {
		p->dsink = ntrace_sink_new(p->pc.fmt, p->out, NULL, NULL);
		if (!p->dsink)
			return p->stopped = ntrace_err_set(&p->err, NTRACE_ENOMEM,
							   "out of memory for a sink");
		ntrace_sink_set_symbols(p->dsink, p->pc.symbols);
	}
	p->direct = ntrace_decoder_new(&p->cfg, p->img, &ops, p, &why);
	if (!p->direct)
		return p->stopped = ntrace_err_set(&p->err, NTRACE_ENOMEM, "%s", why);
	if (p->dsink)
		ntrace_sink_set_decoder(p->dsink, p->direct);
	ntrace_decoder_feed(p->direct, p->fill, p->fill_len);
	free(p->fill);
	p->fill = NULL;
	p->fill_len = 0;
	p->fill_cap = 0;
	return pd_direct_stopped(p);
}

int pd_decide(struct ntrace_pardec *p, bool end)
{
	count_cuts(p);
	if (p->dcuts >= PD_DECIDE_CUTS)
		return pd_go_parallel(p);
	if (end || p->fill_len >= PD_DECIDE)
		return go_direct(p);
	return 0;
}

int pd_direct_finish(struct ntrace_pardec *p)
{
	int rc;

	ntrace_decoder_finish(p->direct);
	rc = pd_direct_stopped(p);
	if (!rc && p->dsink && ntrace_sink_flush(p->dsink))
		rc = p->stopped = ntrace_err_set(&p->err, NTRACE_EWRITE, "%s",
						 ntrace_sink_errmsg(p->dsink));
	return rc;
}
