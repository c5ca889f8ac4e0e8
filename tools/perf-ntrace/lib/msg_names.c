// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Names of TCODEs, SYNC reasons and parse errors, and the one-line text form
 * of a message used by "perf-ntrace dump" and test diagnostics.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include <ntrace/msg.h>

enum ntrace_tcode_class ntrace_tcode_class(unsigned int tcode)
{
	switch (tcode) {
	case NTRACE_TC_OWNERSHIP:
	case NTRACE_TC_DIRECT_BRANCH:
	case NTRACE_TC_INDIRECT_BRANCH:
	case NTRACE_TC_ERROR:
	case NTRACE_TC_PROG_TRACE_SYNC:
	case NTRACE_TC_DIRECT_BRANCH_SYNC:
	case NTRACE_TC_INDIRECT_BRANCH_SYNC:
	case NTRACE_TC_RESOURCE_FULL:
	case NTRACE_TC_INDIRECT_BRANCH_HIST:
	case NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC:
	case NTRACE_TC_REPEAT_BRANCH:
	case NTRACE_TC_PROG_TRACE_CORRELATION:
		return NTRACE_TCLASS_STANDARD;
	}
	if (tcode >= NTRACE_TC_VENDOR_FIRST && tcode <= NTRACE_TC_VENDOR_LAST)
		return NTRACE_TCLASS_VENDOR;
	return NTRACE_TCLASS_RESERVED;
}

const char *ntrace_tcode_name(unsigned int tcode)
{
	switch (tcode) {
	case NTRACE_TC_OWNERSHIP:
		return "Ownership";
	case NTRACE_TC_DIRECT_BRANCH:
		return "DirectBranch";
	case NTRACE_TC_INDIRECT_BRANCH:
		return "IndirectBranch";
	case NTRACE_TC_ERROR:
		return "Error";
	case NTRACE_TC_PROG_TRACE_SYNC:
		return "ProgTraceSync";
	case NTRACE_TC_DIRECT_BRANCH_SYNC:
		return "DirectBranchSync";
	case NTRACE_TC_INDIRECT_BRANCH_SYNC:
		return "IndirectBranchSync";
	case NTRACE_TC_RESOURCE_FULL:
		return "ResourceFull";
	case NTRACE_TC_INDIRECT_BRANCH_HIST:
		return "IndirectBranchHist";
	case NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC:
		return "IndirectBranchHistSync";
	case NTRACE_TC_REPEAT_BRANCH:
		return "RepeatBranch";
	case NTRACE_TC_PROG_TRACE_CORRELATION:
		return "ProgTraceCorrelation";
	}
	return ntrace_tcode_class(tcode) == NTRACE_TCLASS_VENDOR ? "Vendor" : "Reserved";
}

const char *ntrace_msg_err_name(unsigned int err)
{
	static const char *const names[NTRACE_MSG_ERR__COUNT] = {
		[NTRACE_MSG_OK] = "ok",
		[NTRACE_MSG_ERR_GARBAGE] = "bytes outside a message that are not idle",
		[NTRACE_MSG_ERR_MSEO] = "reserved MSEO=10 inside a message",
		[NTRACE_MSG_ERR_TOO_LONG] = "message too long (end of message missing?)",
		[NTRACE_MSG_ERR_FIELD_TOO_LONG] = "variable field longer than 64 bits",
		[NTRACE_MSG_ERR_SHORT] = "message ended inside its fixed fields",
		[NTRACE_MSG_ERR_FIELD_COUNT] = "wrong number of fields for the TCODE",
		[NTRACE_MSG_ERR_TRUNCATED] = "trace ends inside a message",
		[NTRACE_MSG_ERR_EMPTY_FIELD] = "variable field with no bits",
		[NTRACE_MSG_ERR_STRAY_EOM] = "end-of-message bytes between messages",
	};

	return err < NTRACE_MSG_ERR__COUNT ? names[err] : "unknown error";
}

const char *ntrace_sync_name(unsigned int sync)
{
	static const char *const names[16] = {
		"ext-trigger", "reset", "periodic", "debug-exit", "icnt-full",
		"trace-enable", "trace-event", "fifo-overrun", "reserved8", "power-up",
		"reserved10", "reserved11", "reserved12", "reserved13", "vendor14", "vendor15",
	};

	return names[sync & 15];
}

const char *ntrace_variant_name(unsigned int variant)
{
	static const char *const names[NTRACE_VARIANT__COUNT] = {
		[NTRACE_VARIANT_1_0] = "1.0",
		[NTRACE_VARIANT_SIFIVE_V0] = "sifive-v0",
	};

	return variant < NTRACE_VARIANT__COUNT ? names[variant] : "?";
}

struct fmt {
	char *buf;
	size_t size;
	size_t len;
};

/* snprintf that appends and keeps counting past the end of the buffer. */
__attribute__((format(printf, 2, 3)))
static void put(struct fmt *f, const char *fmt, ...)
{
	size_t room = f->len < f->size ? f->size - f->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? f->buf + f->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		f->len += (size_t)n;
}

int ntrace_msg_format(const struct ntrace_msg *m, char *buf, size_t size)
{
	struct fmt f = { .buf = buf, .size = size };
	unsigned int t = m->tcode, i;

	if (size)
		buf[0] = 0;
	if (m->err) {
		put(&f, "ERROR size=%u", m->size);
		if (m->tcode != 0xFF)
			put(&f, " tcode=%u", t);
		put(&f, " (%s)", ntrace_msg_err_name(m->err));
		return (int)f.len;
	}
	put(&f, "%s", ntrace_tcode_name(t));
	if (ntrace_tcode_class(t) != NTRACE_TCLASS_STANDARD)
		put(&f, "(%u)", t);
	if (m->src)
		put(&f, " src=%u", m->src);
	if (m->flags & NTRACE_MSGF_LAYOUT_RAW) {
		if (t == NTRACE_TC_RESOURCE_FULL)
			put(&f, " rcode=%u", m->code);
		if (t == NTRACE_TC_PROG_TRACE_CORRELATION)
			put(&f, " evcode=%u cdf=%u", m->code, m->cdf);
		for (i = 0; i < m->nraw; i++)
			put(&f, " raw%u=0x%" PRIx64, i, m->raw[i]);
		if (m->flags & NTRACE_MSGF_RAW_TRUNC)
			put(&f, " (truncated)");
		if (m->flags & NTRACE_MSGF_EMPTY_FIELD)
			put(&f, " (a field of no bits, taken as 0)");
		return (int)f.len;
	}
	switch (t) {
	case NTRACE_TC_OWNERSHIP:
		put(&f, " process=0x%" PRIx64 " fmt=%u v=%u prv=%u", m->data,
		    ntrace_process_format(m->data), ntrace_process_v(m->data),
		    ntrace_process_prv(m->data));
		if (ntrace_process_format(m->data) >= 2)
			put(&f, " context=0x%" PRIx64, ntrace_process_context(m->data));
		break;
	case NTRACE_TC_ERROR:
		put(&f, " etype=%u ecode=0x%" PRIx64, m->code, m->data);
		break;
	case NTRACE_TC_RESOURCE_FULL:
		put(&f, " rcode=%u", m->code);
		break;
	case NTRACE_TC_PROG_TRACE_CORRELATION:
		put(&f, " evcode=%u cdf=%u", m->code, m->cdf);
		break;
	case NTRACE_TC_REPEAT_BRANCH:
		put(&f, " bcnt=%" PRIu64, m->count);
		break;
	}
	if (ntrace_tcode_is_sync(t))
		put(&f, " sync=%u(%s)", m->sync, ntrace_sync_name(m->sync));
	if (t == NTRACE_TC_INDIRECT_BRANCH || t == NTRACE_TC_INDIRECT_BRANCH_SYNC ||
	    t == NTRACE_TC_INDIRECT_BRANCH_HIST || t == NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC)
		put(&f, " btype=%u", m->btype);
	if (m->flags & NTRACE_MSGF_ICNT)
		put(&f, " icnt=%" PRIu64, m->icnt);
	if (m->flags & NTRACE_MSGF_ADDR)
		put(&f, " %s=0x%" PRIx64, ntrace_tcode_has_uaddr(t) ? "uaddr" : "faddr", m->addr);
	if (m->flags & NTRACE_MSGF_HIST)
		put(&f, " hist=0x%" PRIx64, m->hist);
	if ((m->flags & NTRACE_MSGF_COUNT) && t == NTRACE_TC_RESOURCE_FULL)
		put(&f, " %s=%" PRIu64, m->code == NTRACE_RCODE_V0_NOT_TAKEN ? "not_taken" :
		    m->code == NTRACE_RCODE_V0_TAKEN ? "taken" : "hrepeat", m->count);
	if (m->flags & NTRACE_MSGF_TSTAMP)
		put(&f, " tstamp=%" PRIu64, m->tstamp);
	if (m->flags & NTRACE_MSGF_EMPTY_FIELD)
		put(&f, " (a field of no bits, taken as 0)");
	return (int)f.len;
}
