/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * N-Trace message model and streaming codec (bytes <-> messages).
 *
 * This is the lowest layer of the decoder (like libipt's packet decoder or
 * OpenCSD's packet processor): it knows the N-Trace 1.0 transmission
 * protocol (MSEO framing, fixed and variable-length fields, TCODE layouts)
 * and nothing about programs. It carries raw field values; turning U-ADDR
 * into an address, relative timestamps into absolute ones and PROCESS into
 * privilege/context are small helpers at the end of this header, used by
 * both the encoder model and the flow decoder.
 *
 * Wire format in one paragraph (spec "N-Trace Transmission Protocol"): every
 * byte is MDO[5:0] << 2 | MSEO[1:0]. A message is a run of bytes whose MDO
 * bits, concatenated least significant first, hold the fields in order:
 * TCODE[6], SRC[cfg], fixed fields, then variable-length fields. MSEO=00 on
 * every byte except the last byte of a variable-length field (01) and the
 * last byte of the message (11). Idle bytes are 0xFF. Every variable field
 * ends on a byte boundary, zero-extended; the optional TSTAMP is always the
 * last field.
 */
#ifndef NTRACE_MSG_H
#define NTRACE_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TCODE values of N-Trace 1.0 ("Fields in Messages"). */
enum ntrace_tcode {
	NTRACE_TC_OWNERSHIP = 2,
	NTRACE_TC_DIRECT_BRANCH = 3,
	NTRACE_TC_INDIRECT_BRANCH = 4,
	NTRACE_TC_ERROR = 8,
	NTRACE_TC_PROG_TRACE_SYNC = 9,
	NTRACE_TC_DIRECT_BRANCH_SYNC = 11,
	NTRACE_TC_INDIRECT_BRANCH_SYNC = 12,
	NTRACE_TC_RESOURCE_FULL = 27,
	NTRACE_TC_INDIRECT_BRANCH_HIST = 28,
	NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC = 29,
	NTRACE_TC_REPEAT_BRANCH = 30,
	NTRACE_TC_PROG_TRACE_CORRELATION = 33,
	NTRACE_TC_VENDOR_FIRST = 56,	/* 56..62: vendor defined */
	NTRACE_TC_VENDOR_LAST = 62,
};

/* What kind of TCODE a value is: defined by 1.0, vendor or reserved. */
enum ntrace_tcode_class {
	NTRACE_TCLASS_STANDARD,
	NTRACE_TCLASS_VENDOR,
	NTRACE_TCLASS_RESERVED,
};

/* B-TYPE (2 bits). */
enum ntrace_btype {
	NTRACE_BTYPE_INDIRECT = 0,	/* jump/call/return, or sync not tied to a jump */
	NTRACE_BTYPE_TRAP = 1,		/* exception or interrupt (not distinguished) */
	NTRACE_BTYPE_EXCEPTION = 2,
	NTRACE_BTYPE_INTERRUPT = 3,
};

/* SYNC (4 bits), "Synchronizing Messages": why a sync message was sent. */
enum ntrace_sync {
	NTRACE_SYNC_EXT_TRIGGER = 0,	/* marker of an external trace trigger */
	NTRACE_SYNC_RESET = 1,		/* exit from reset (pc: the reset vector) */
	NTRACE_SYNC_PERIODIC = 2,	/* periodic (trTeInstSyncMode/Max) */
	NTRACE_SYNC_DEBUG_EXIT = 3,	/* exit from debug mode */
	NTRACE_SYNC_ICNT = 4,		/* sequential instruction counter full (BTM) */
	NTRACE_SYNC_TRACE_ENABLE = 5,	/* trace re-enabled after a gap (filters) */
	NTRACE_SYNC_TRACE_EVENT = 6,	/* marker: debug watchpoint with action 4 */
	NTRACE_SYNC_FIFO_OVERRUN = 7,	/* restart after lost messages (Error) */
	NTRACE_SYNC_POWER_UP = 9,	/* exit from power-down; 8, 10..13 reserved,
					 * 14, 15 vendor */
};

/* ResourceFull RCODE (4 bits). */
enum ntrace_rcode {
	NTRACE_RCODE_ICNT = 0,		/* RDATA[0] = I-CNT      -> msg.icnt */
	NTRACE_RCODE_HIST = 1,		/* RDATA[0] = HIST       -> msg.hist */
	NTRACE_RCODE_HREPEAT = 2,	/* RDATA[0] = HIST, RDATA[1] = HREPEAT -> msg.hist, msg.count */
	/* vendor RCODEs of the SiFive pre-ratified variant (NTRACE_VARIANT_SIFIVE_V0):
	 * RDATA[0] = a count of conditional branches with one outcome -> msg.count */
	NTRACE_RCODE_V0_NOT_TAKEN = 8,	/* that many branches not taken */
	NTRACE_RCODE_V0_TAKEN = 9,	/* that many branches taken */
};

/*
 * Protocol variant (ntrace_codec_cfg.variant). N-Trace 1.0 is the default;
 * the other is an encoder built before ratification whose messages have the
 * 1.0 layout but differ in a few rules (Documentation/trace/
 * ntrace-spec-notes.rst, "Pre-ratified encoders", names the public source
 * of each):
 *   SIFIVE_V0  SiFive's trace encoder version 0 (trTeImpl version field 0),
 *              as in the HiFive Premier P550: the TSTAMP of a message that
 *              is not a sync is the XOR of its time with the last reported
 *              time (1.0: the difference); ResourceFull RCODE 8 and 9 carry
 *              a count of not-taken and taken branches (its repeated
 *              history; RCODE 2 is not used); implicit return is simple
 *              call counting only, up to 1023 calls; a co-routine swap
 *              (JALR with two different link registers) only pushes, as a
 *              call.
 */
enum ntrace_variant {
	NTRACE_VARIANT_1_0 = 0,
	NTRACE_VARIANT_SIFIVE_V0 = 1,
	NTRACE_VARIANT__COUNT
};

/* Deepest call counter of the SiFive v0 encoder (1.0: NTRACE_IRET_MAX_DEPTH). */
#define NTRACE_V0_RETURN_DEPTH	1023

/* ProgTraceCorrelation EVCODE (4 bits). */
enum ntrace_evcode {
	NTRACE_EVCODE_DEBUG = 0,	/* entering debug mode */
	NTRACE_EVCODE_LOW_POWER = 1,	/* entering low-power mode */
	NTRACE_EVCODE_TRACE_DISABLED = 4, /* trace disabled (stop, end of trace) */
};

/* Error ETYPE (4 bits); ECODE is a bit mask of the message kinds lost. */
#define NTRACE_ETYPE_FIFO_OVERRUN	0	/* messages dropped: queue overrun */
#define NTRACE_ECODE_PROGRAM_LOST	0x04	/* program trace messages lost */
#define NTRACE_ECODE_OWNERSHIP_LOST	0x08	/* Ownership messages lost */
#define NTRACE_ECODE_VENDOR_LOST	0x80	/* vendor messages lost */

/* Field size limits of N-Trace 1.0 ("Maximum Field Sizes"). */
#define NTRACE_MAX_SRC_BITS	12
#define NTRACE_MAX_ICNT_BITS	22
#define NTRACE_MAX_ADDR_BITS	63
#define NTRACE_MAX_HIST_BITS	32
#define NTRACE_MAX_TSTAMP_BITS	64
#define NTRACE_MAX_HREPEAT_BITS	18
#define NTRACE_MAX_BCNT_BITS	18

/*
 * Largest message the codec writes, and the parser's default limit: every
 * field of the largest standard message at 64 bits plus a 12-bit SRC fits.
 * Vendor messages may be longer; raise ntrace_codec_cfg.max_msg_bytes.
 */
#define NTRACE_MSG_MAX_BYTES	64
#define NTRACE_MSG_RAW_FIELDS	4	/* variable fields kept for vendor/reserved messages */

#define NTRACE_IDLE_BYTE	0xFF
#define NTRACE_MSEO_NORMAL	0x0	/* start of message / middle of field */
#define NTRACE_MSEO_END_FIELD	0x1	/* last byte of a variable field */
#define NTRACE_MSEO_RESERVED	0x2
#define NTRACE_MSEO_END_MSG	0x3	/* last byte of the message */

/*
 * Configuration the byte layer needs. Everything else (mode, options) does
 * not change the bytes of a message, so the codec does not need it.
 */
struct ntrace_codec_cfg {
	uint8_t src_bits;	/* SRC width (trTeSrcBits), 0 = no SRC field, max 12 */
	uint8_t xlen;		/* 32 or 64 (0 means 64): address width for MSB extension */
	bool ext_addr_msb;	/* trTeInstExtendAddrMSB: address fields may skip identical MSBs */
	bool tstamp;		/* trTsEnable: a TSTAMP may follow the last field */
	uint16_t max_msg_bytes;	/* parser: longer messages are errors; 0 = NTRACE_MSG_MAX_BYTES */
	bool wait_for_eom;	/* parser: stream may start mid-message (wrapped
				 * circular buffer): ignore bytes until the first
				 * MSEO=11 byte instead of reporting them */
	bool strict;		/* parser and decoder: 1.0 to the letter. Without
				 * it, what real encoders do where 1.0 says
				 * otherwise and the meaning is clear (enum
				 * ntrace_quirk) is decoded through, counted and
				 * reported once per source */
	uint8_t variant;	/* enum ntrace_variant: parser (RCODE 8/9), encoder
				 * and decoder */
};

/* ntrace_msg.flags */
#define NTRACE_MSGF_TSTAMP	0x01	/* tstamp holds a TSTAMP field */
#define NTRACE_MSGF_HIST	0x02	/* hist holds a HIST (or RDATA[0] HIST) field */
#define NTRACE_MSGF_COUNT	0x04	/* count holds B-CNT or HREPEAT */
#define NTRACE_MSGF_ADDR	0x08	/* addr holds F-ADDR or U-ADDR */
#define NTRACE_MSGF_ICNT	0x10	/* icnt holds I-CNT (or RDATA[0] I-CNT) */
#define NTRACE_MSGF_RAW_TRUNC	0x20	/* vendor/reserved: fields beyond raw[] or 64 bits dropped */
#define NTRACE_MSGF_LAYOUT_RAW	0x40	/* layout unknown (vendor/reserved TCODE, RCODE
					 * or CDF): var fields are in raw[] only, a
					 * TSTAMP cannot be told apart */
#define NTRACE_MSGF_EMPTY_FIELD	0x80	/* a variable field had no bits: taken as 0
					 * (a quirk; with cfg.strict, EMPTY_FIELD) */

/* ntrace_msg.err: what was wrong with a record (0 = a good message). */
enum ntrace_msg_err {
	NTRACE_MSG_OK = 0,
	NTRACE_MSG_ERR_GARBAGE,		/* bytes outside any message that are not idle
					 * (MSEO 01/10, with or without some 11) */
	NTRACE_MSG_ERR_MSEO,		/* reserved MSEO=10 inside a message */
	NTRACE_MSG_ERR_TOO_LONG,	/* message longer than max_msg_bytes (end missing?) */
	NTRACE_MSG_ERR_FIELD_TOO_LONG,	/* a variable field has non-zero bits past bit 63 */
	NTRACE_MSG_ERR_SHORT,		/* message ended inside its fixed fields */
	NTRACE_MSG_ERR_FIELD_COUNT,	/* wrong number of variable fields for the TCODE
					 * (or a TSTAMP while tstamp is off) */
	NTRACE_MSG_ERR_TRUNCATED,	/* stream ended inside a message */
	NTRACE_MSG_ERR_EMPTY_FIELD,	/* a variable field with no bits (fixed fields
					 * filled the byte that ended the field); only
					 * with cfg.strict, else a flagged message */
	NTRACE_MSG_ERR_STRAY_EOM,	/* bytes between messages that each end one
					 * (MSEO 11, not the 0xFF idle): no message
					 * lost, unless some were entirely */
	NTRACE_MSG_ERR__COUNT
};

/*
 * One parsed (or to-be-encoded) message, or one error record.
 *
 * Which value fields are meaningful depends on tcode (and flags):
 *   Ownership              data = PROCESS
 *   DirectBranch           icnt
 *   IndirectBranch         btype, icnt, addr (U-ADDR)
 *   Error                  code = ETYPE, data = ECODE
 *   ProgTraceSync          sync, icnt, addr (F-ADDR)
 *   DirectBranchSync       sync, icnt, addr (F-ADDR)
 *   IndirectBranchSync     sync, btype, icnt, addr (F-ADDR)
 *   ResourceFull           code = RCODE; RCODE 0: icnt; 1: hist; 2: hist, count = HREPEAT;
 *                          RCODE 8/9 of the SiFive v0 variant: count; other RCODEs:
 *                          raw[] (LAYOUT_RAW)
 *   IndirectBranchHist     btype, icnt, addr (U-ADDR), hist
 *   IndirectBranchHistSync sync, btype, icnt, addr (F-ADDR), hist
 *   RepeatBranch           count = B-CNT
 *   ProgTraceCorrelation   code = EVCODE, cdf, icnt, hist when cdf == 1
 *   vendor / reserved      raw[0..nraw-1]: the variable-length segments after
 *                          TCODE and SRC (unknown fixed fields are in raw[0])
 *   unknown RCODE / CDF    code (and cdf) set; raw[] holds the variable fields
 * Address fields hold the field value as transmitted (address bits 63..1 or
 * the XOR of them). With ext_addr_msb the parser applies the MSB extension
 * and keeps XLEN-1 bits, so the value is exactly addr >> 1 (F-ADDR) or
 * (addr ^ prev) >> 1 (U-ADDR) for XLEN-bit addresses; use the helpers at
 * the end of this header to get addresses. HIST values include the stop bit.
 *
 * Error records (err != 0) cover bytes [offset, offset + size); tcode is the
 * TCODE of the message being parsed when known, else 0xFF. After an error the
 * parser resynchronises on the next message start that follows a byte with
 * MSEO=11.
 */
struct ntrace_msg {
	uint64_t offset;	/* stream offset of the first byte */
	uint32_t size;		/* bytes, first to last (idle bytes excluded) */
	uint8_t err;		/* enum ntrace_msg_err */
	uint8_t tcode;
	uint8_t flags;		/* NTRACE_MSGF_* */
	uint8_t addr_bits;	/* bits transmitted in the address field (max 64) */
	uint16_t src;		/* SRC (0 when src_bits == 0) */
	uint8_t sync;		/* SYNC */
	uint8_t btype;		/* B-TYPE */
	uint8_t code;		/* ETYPE, RCODE or EVCODE */
	uint8_t cdf;		/* CDF */
	uint8_t nraw;		/* vendor/reserved/unknown layout: entries in raw[] */
	uint8_t pad;
	uint64_t icnt;		/* I-CNT, or RDATA[0] of RCODE 0 */
	uint64_t addr;		/* F-ADDR / U-ADDR field value */
	uint64_t hist;		/* HIST, or RDATA[0] of RCODE 1/2 */
	uint64_t count;		/* B-CNT, or HREPEAT (RDATA[1] of RCODE 2) */
	uint64_t data;		/* PROCESS or ECODE */
	uint64_t tstamp;	/* TSTAMP field (absolute in sync messages, else relative) */
	uint64_t raw[NTRACE_MSG_RAW_FIELDS];
};

/* ---- Streaming parser ---------------------------------------------------- */

/*
 * Parser state. Plain data, no allocation: embed it anywhere (the caller
 * owns it; nothing to free), initialise with ntrace_parser_init(). Input
 * may be fed in chunks of any size; a message split across chunks is
 * completed by the next call. Results do not depend on how the stream is
 * split. The fields are private except pos, which callers may read.
 */
struct ntrace_parser {
	struct ntrace_codec_cfg cfg;
	uint64_t pos;		/* stream offset of the next input byte */
	/* current message */
	uint64_t start;		/* offset of its first byte */
	uint32_t nbytes;
	uint8_t state;		/* private: idle / in message / skipping */
	uint8_t tcode;
	uint8_t hdr_need;	/* fixed-field bits after TCODE still wanted */
	uint8_t hdr_got;
	uint64_t hdr;		/* SRC and fixed fields, LSB first */
	uint64_t acc;		/* current variable field */
	uint16_t acc_bits;
	uint8_t acc_hi_or;	/* OR / AND of the bits past bit 63 */
	uint8_t acc_hi_and;
	uint8_t nfields;
	uint8_t ferr;		/* first field-level error seen in this message */
	bool fempty;		/* a field had no bits (not strict): taken as 0 */
	uint8_t field_bits[8];
	uint64_t field[8];
	/* pending bad region (merged until a good start or idle byte) */
	bool bad;
	uint8_t bad_err;
	uint8_t bad_tcode;
	uint64_t bad_start;
	uint64_t bad_end;
};

/* Reset *p with a copy of cfg; offsets in records start at base_offset. */
void ntrace_parser_init(struct ntrace_parser *p, const struct ntrace_codec_cfg *cfg,
			uint64_t base_offset);

/*
 * Parse up to len bytes of buf, writing at most max records (messages and
 * error records, in stream order) to out. Stops early when out is full.
 * Returns the number of records written; *consumed gets the number of input
 * bytes used (call again with the rest). Never fails, never allocates.
 */
size_t ntrace_parse(struct ntrace_parser *p, const uint8_t *buf, size_t len,
		    struct ntrace_msg *out, size_t max, size_t *consumed);

/*
 * End of stream: report a message cut off by the end (ERR_TRUNCATED) or a
 * pending bad region. Returns the number of records written to out (0 or 1
 * today; pass room for 2). The parser is then idle and may be fed more.
 *
 * Typical use:
 *	ntrace_parser_init(&p, &cfg, 0);
 *	while ((len = read_chunk(buf)))
 *		for (pos = 0; pos < len; pos += used) {
 *			n = ntrace_parse(&p, buf + pos, len - pos, recs, NREC, &used);
 *			handle(recs, n);
 *		}
 *	handle(recs, ntrace_parse_finish(&p, recs));
 */
size_t ntrace_parse_finish(struct ntrace_parser *p, struct ntrace_msg out[2]);

/* ---- Encoder (message -> bytes) ---------------------------------------- */

/*
 * Write one message as bytes (no idle bytes). Uses the fields named for its
 * tcode above; TSTAMP is written when msg->flags has NTRACE_MSGF_TSTAMP (and
 * cfg->tstamp is set), HIST of ProgTraceCorrelation when cdf == 1, HREPEAT
 * when code == RCODE_HREPEAT. Vendor/reserved TCODEs and unknown layouts are
 * written from raw[]. Variable fields use the fewest bytes; address fields
 * use MSB extension when cfg->ext_addr_msb is set and it is shorter.
 * Returns the byte count (<= NTRACE_MSG_MAX_BYTES), or 0 if a fixed field
 * does not fit its width (src, sync, btype, code, cdf) or tcode > 63.
 */
size_t ntrace_msg_encode(const struct ntrace_codec_cfg *cfg, const struct ntrace_msg *msg,
			 uint8_t buf[NTRACE_MSG_MAX_BYTES]);

/* ---- Names and classification ------------------------------------------ */

/* Class of a TCODE value (any value; > 63 is RESERVED). */
enum ntrace_tcode_class ntrace_tcode_class(unsigned int tcode);
/*
 * Static names, never NULL: message name ("IndirectBranchHist", "Vendor",
 * "Reserved"), error description ("unknown error" out of range), SYNC
 * reason ("trace-enable"; only the low 4 bits of sync are used).
 */
const char *ntrace_tcode_name(unsigned int tcode);
const char *ntrace_msg_err_name(unsigned int err);
const char *ntrace_sync_name(unsigned int sync);

/*
 * Format one record (message or error record) as a single line (no
 * newline) of named fields, e.g. "IndirectBranchHist btype=0 icnt=125
 * uaddr=0x7 hist=0xffe", into buf (always NUL-terminated when size > 0,
 * truncated if short). Returns the length that snprintf would have written.
 */
int ntrace_msg_format(const struct ntrace_msg *msg, char *buf, size_t size);

/* ---- Field semantics shared by encoder and decoder ----------------------- */

/* Messages with a SYNC field: they carry F-ADDR and an absolute TSTAMP. */
static inline bool ntrace_tcode_is_sync(unsigned int tcode)
{
	return tcode == NTRACE_TC_PROG_TRACE_SYNC || tcode == NTRACE_TC_DIRECT_BRANCH_SYNC ||
	       tcode == NTRACE_TC_INDIRECT_BRANCH_SYNC ||
	       tcode == NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC;
}

/* Messages whose address field is a U-ADDR (XOR with the previous address). */
static inline bool ntrace_tcode_has_uaddr(unsigned int tcode)
{
	return tcode == NTRACE_TC_INDIRECT_BRANCH || tcode == NTRACE_TC_INDIRECT_BRANCH_HIST;
}

/* Address field value <-> address ("Address Compression"). */
static inline uint64_t ntrace_faddr_field(uint64_t addr)
{
	return addr >> 1;
}

static inline uint64_t ntrace_uaddr_field(uint64_t addr, uint64_t prev)
{
	return (addr ^ prev) >> 1;
}

static inline uint64_t ntrace_addr_from_faddr(uint64_t field, unsigned int xlen)
{
	uint64_t a = field << 1;

	return xlen == 32 ? (uint32_t)a : a;
}

static inline uint64_t ntrace_addr_from_uaddr(uint64_t field, uint64_t prev, unsigned int xlen)
{
	uint64_t a = (field << 1) ^ prev;

	return xlen == 32 ? (uint32_t)a : a;
}

/*
 * Timestamp reconstruction ("Timestamp Reporting"): sync messages carry the
 * absolute value, other messages an offset from the last reported one: the
 * difference in N-Trace 1.0, the XOR in the SiFive v0 variant. Returns the
 * absolute time of msg and updates *last; messages without a TSTAMP get
 * *last unchanged.
 */
static inline uint64_t ntrace_tstamp_update_variant(uint64_t *last, const struct ntrace_msg *msg,
						    unsigned int variant)
{
	if (!(msg->flags & NTRACE_MSGF_TSTAMP))
		return *last;
	if (ntrace_tcode_is_sync(msg->tcode))
		*last = msg->tstamp;
	else if (variant == NTRACE_VARIANT_SIFIVE_V0)
		*last ^= msg->tstamp;
	else
		*last += msg->tstamp;
	return *last;
}

/* The same for N-Trace 1.0. */
static inline uint64_t ntrace_tstamp_update(uint64_t *last, const struct ntrace_msg *msg)
{
	return ntrace_tstamp_update_variant(last, msg, NTRACE_VARIANT_1_0);
}

/* The TSTAMP field of a message that is not a sync, at time ts after last. */
static inline uint64_t ntrace_tstamp_field(uint64_t ts, uint64_t last, unsigned int variant)
{
	return variant == NTRACE_VARIANT_SIFIVE_V0 ? ts ^ last : ts - last;
}

/* Name of a variant ("1.0", "sifive-v0"; "?" when out of range). */
const char *ntrace_variant_name(unsigned int variant);

/*
 * Ownership PROCESS = {CONTEXT, V, PRV[1:0], FORMAT[1:0]}.
 * FORMAT 0: V/PRV change only; 2: scontext; 3: hcontext; 1 reserved.
 */
#define NTRACE_PROCESS_FMT_PRIV		0
#define NTRACE_PROCESS_FMT_SCONTEXT	2
#define NTRACE_PROCESS_FMT_HCONTEXT	3

static inline uint64_t ntrace_process_make(unsigned int fmt, unsigned int v, unsigned int prv,
					   uint64_t context)
{
	return context << 5 | (uint64_t)(v & 1) << 4 | (prv & 3) << 2 | (fmt & 3);
}

static inline unsigned int ntrace_process_format(uint64_t p) { return p & 3; }
static inline unsigned int ntrace_process_prv(uint64_t p) { return (p >> 2) & 3; }
static inline unsigned int ntrace_process_v(uint64_t p) { return (p >> 4) & 1; }
static inline uint64_t ntrace_process_context(uint64_t p) { return p >> 5; }

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_MSG_H */
