// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxr-flow: the instruction flow of an N-Trace stream as libnexus-rv's
 * trace decoder (nexusrv_trace_*) sees it, walked over program images
 * that libntrace reads and classifies. libnexus-rv decodes the HiFive
 * Premier P550's pre-ratified trace ("quirk-sifive": XOR timestamps,
 * ResourceFull RCODE 8/9, simple counting); this is an independent reading
 * of a stream for tests/nexusrv.sh to set against perf-ntrace's.
 *
 * usage: nxr-flow HWCFG SRC TRACE PCOUT XFEROUT IMAGE...
 *        nxr-flow reencode HWCFG TRACE
 *   HWCFG   libnexus-rv's hardware configuration string ("model=p550x4")
 *   SRC     the SRC to decode, -1 for all
 *   PCOUT   one retired-instruction address per line ("0x%lx")
 *   XFEROUT one line per message-given indirect target or sync address:
 *           "I|S 0xADDR TIME" (TIME: the decoder's absolute timestamp)
 * Exits 0, or 1 with the reason on stderr when libnexus-rv and the code
 * disagree. "reencode" parses every message of TRACE with libnexus-rv's
 * message decoder and writes it again with its message encoder: exit 0
 * when every message comes out as the same bytes.
 */
#include <libnexus-rv/msg-encoder.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libnexus-rv/error.h>
#include <libnexus-rv/msg-decoder.h>
#include <libnexus-rv/trace-decoder.h>

#include "ntrace/ntrace.h"

static struct ntrace_images *img;
static FILE *pcout, *xferout;
static nexusrv_trace_decoder td;

static int fail(const char *what, int rc, uint64_t pc)
{
	fprintf(stderr, "nxr-flow: %s at 0x%" PRIx64 ": %s\n", what, pc,
		rc < 0 ? str_nexus_error(-rc) : "mismatch");
	return 1;
}

/* The instructions of the block at start that fit in nhalf halfwords. */
static int emit(uint64_t start, uint32_t nhalf)
{
	uint64_t a = start, end = start + 2ull * nhalf;
	struct ntrace_idec d;

	while (a < end) {
		if (ntrace_images_decode(img, a, &d) || !d.size)
			return -1;
		fprintf(pcout, "0x%" PRIx64 "\n", a);
		a += d.size;
	}
	return a == end ? 0 : -1;
}

/*
 * The target of the message behind event ev. A sync message with a target
 * (IndirectSync) comes back as a Sync event after it, which prints it.
 */
static int indirect(uint64_t *pc, unsigned int ev)
{
	nexusrv_trace_indirect ind;
	int rc = nexusrv_trace_next_indirect(&td, &ind);

	if (rc < 0)
		return rc;
	*pc = ind.target;
	if (ev != NEXUSRV_Trace_Event_IndirectSync)
		fprintf(xferout, "I 0x%" PRIx64 " %" PRIu64 "\n", *pc, nexusrv_trace_time(&td));
	return 0;
}

/*
 * Walk from pc until the trace stops or ends. Returns 0 at a stop, 2 at
 * the end of the trace, 1 on a disagreement.
 */
static int walk(uint64_t pc)
{
	for (;;) {
		struct ntrace_block b;
		unsigned int ev = 0, last = 0;
		int32_t r;
		int rc;

		if (ntrace_images_block(img, pc, &b))
			return fail("no code", 0, pc);
		last = b.end.size / 2;
		r = nexusrv_trace_try_retire(&td, b.nhalf, &ev);
		if (r == -nexus_trace_eof)
			return 2;
		if (r < 0)
			return fail("try_retire", r, pc);
		/* a trapping instruction: libnexus-rv expects it not retired,
		 * an ingress port that counts it (QEMU's ECALL) retires it */
		if (b.end.kind == NTRACE_IK_TRAP && ev == NEXUSRV_Trace_Event_Trap &&
		    ((uint32_t)r == b.nhalf || (uint32_t)r == b.nhalf - last)) {
			if (emit(pc, (uint32_t)r))
				return fail("I-CNT inside an instruction", 0, pc);
			rc = indirect(&pc, ev);
			if (rc)
				return fail("trap", rc, b.last);
			continue;
		}
		if (emit(pc, (uint32_t)r))
			return fail("I-CNT inside an instruction", 0, pc);
		if ((uint32_t)r < b.nhalf) {	/* an event before the block's end */
			switch (ev) {
			case NEXUSRV_Trace_Event_Trap:
			case NEXUSRV_Trace_Event_IndirectSync:
				rc = indirect(&pc, ev);
				if (rc)
					return fail("trap or sync", rc, pc);
				continue;
			case NEXUSRV_Trace_Event_Sync: {
				nexusrv_trace_sync s;

				rc = nexusrv_trace_next_sync(&td, &s);
				if (rc < 0)
					return fail("sync", rc, pc);
				pc = s.addr;
				fprintf(xferout, "S 0x%" PRIx64 " %" PRIu64 "\n", pc,
					nexusrv_trace_time(&td));
				continue;
			}
			case NEXUSRV_Trace_Event_Stop: {
				nexusrv_trace_stop s;

				rc = nexusrv_trace_next_stop(&td, &s);
				return rc < 0 ? fail("stop", rc, pc) : 0;
			}
			default:
				fprintf(stderr, "nxr-flow: event %s %d halfwords into the block at 0x%"
					PRIx64 "\n", str_nexusrv_trace_event(ev), r, pc);
				return 1;
			}
		}
		/* the block ran to its last instruction: where did it go? */
		switch (b.end.kind) {
		case NTRACE_IK_BRANCH:
			rc = nexusrv_trace_next_tnt(&td);
			if (rc < 0)
				return fail("branch", rc, b.last);
			pc = rc ? b.target : b.last + b.end.size;
			break;
		case NTRACE_IK_JUMP:
		case NTRACE_IK_TABLE_JUMP:
			if (b.end.itype == NTRACE_ITYPE_DIR_CALL)
				nexusrv_trace_push_call(&td, b.last + b.end.size);
			pc = b.target;
			break;
		case NTRACE_IK_INDIRECT:
			if (b.end.itype == NTRACE_ITYPE_RETURN &&
			    ev != NEXUSRV_Trace_Event_Indirect && ev != NEXUSRV_Trace_Event_IndirectSync) {
				rc = nexusrv_trace_pop_ret(&td, &pc);	/* implied */
				if (rc < 0)
					return fail("implicit return", rc, b.last);
				break;
			}
			if (b.end.itype == NTRACE_ITYPE_RETURN) {
				uint64_t dummy;

				nexusrv_trace_pop_ret(&td, &dummy);
			}
			rc = indirect(&pc, ev);
			if (rc)
				return fail("indirect jump", rc, b.last);
			/* a call pushes; with the SiFive quirks a co-routine swap is one */
			if (b.end.itype == NTRACE_ITYPE_IND_CALL || b.end.itype == NTRACE_ITYPE_COSWAP)
				nexusrv_trace_push_call(&td, b.last + b.end.size);
			break;
		case NTRACE_IK_TRAP_RETURN:
			rc = indirect(&pc, ev);
			if (rc)
				return fail("trap return", rc, b.last);
			break;
		case NTRACE_IK_NONE:
			pc = b.last + b.end.size;
			break;
		default:
			return fail("an instruction that cannot retire", 0, b.last);
		}
	}
}

static int reencode(const char *cfg, const char *path)
{
	static uint8_t buf[1 << 16];
	nexusrv_msg_decoder md;
	nexusrv_hw_cfg hw;
	size_t n = 0;
	int fd;

	memset(&hw, 0, sizeof(hw));
	fd = open(path, O_RDONLY);
	if (nexusrv_hwcfg_parse(&hw, cfg) < 0 || fd < 0) {
		fprintf(stderr, "nxr-flow: bad configuration '%s' or trace '%s'\n", cfg, path);
		return 2;
	}
	nexusrv_msg_decoder_init(&md, &hw, fd, -1, buf, sizeof(buf));
	for (;; n++) {
		uint8_t again[NEXUS_RV_MSG_MAX_BYTES + 8];
		nexusrv_msg m;
		ssize_t k = nexusrv_msg_decoder_next(&md, &m), e;
		const uint8_t *orig;

		if (!k)
			break;
		if (k < 0) {
			fprintf(stderr, "nxr-flow: message %zu: %s\n", n, str_nexus_error(-k));
			return 1;
		}
		orig = nexusrv_msg_decoder_lastmsg(&md);
		e = nexusrv_msg_encode(&hw, again, sizeof(again), &m);
		if (e != k || memcmp(again, orig, (size_t)k)) {
			fprintf(stderr, "nxr-flow: message %zu (TCODE %u, %zd bytes) is written as "
				"%zd other bytes\n", n, m.tcode, k, e);
			return 1;
		}
	}
	close(fd);
	printf("%zu messages\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t buf[1 << 16];
	nexusrv_msg_decoder md;
	nexusrv_hw_cfg hw;
	nexusrv_trace_sync s;
	int i, fd, rc;

	if (argc == 4 && !strcmp(argv[1], "reencode"))
		return reencode(argv[2], argv[3]);
	if (argc < 7) {
		fprintf(stderr, "usage: nxr-flow HWCFG SRC TRACE PCOUT XFEROUT IMAGE...\n");
		return 2;
	}
	memset(&hw, 0, sizeof(hw));
	if (nexusrv_hwcfg_parse(&hw, argv[1]) < 0) {
		fprintf(stderr, "nxr-flow: bad hardware configuration '%s'\n", argv[1]);
		return 2;
	}
	img = ntrace_images_new(NULL);
	for (i = 6; i < argc; i++)
		if (!img || ntrace_images_add_spec(img, argv[i])) {
			fprintf(stderr, "nxr-flow: %s: %s\n", argv[i],
				img ? ntrace_images_errmsg(img) : "out of memory");
			return 2;
		}
	fd = open(argv[3], O_RDONLY);
	pcout = fopen(argv[4], "w");
	xferout = fopen(argv[5], "w");
	if (fd < 0 || !pcout || !xferout) {
		fprintf(stderr, "nxr-flow: %s\n", strerror(errno));
		return 2;
	}
	nexusrv_msg_decoder_init(&md, &hw, fd, (int16_t)atoi(argv[2]), buf, sizeof(buf));
	if (nexusrv_trace_decoder_init(&td, &md) < 0)
		return 2;
	rc = 0;
	for (;;) {	/* one segment per sync: trace start, or after a stop */
		int r = nexusrv_trace_sync_reset(&td, &s);

		if (r == -nexus_trace_eof)
			break;
		if (r < 0) {
			rc = fail("sync", r, 0);
			break;
		}
		fprintf(xferout, "S 0x%" PRIx64 " %" PRIu64 "\n", s.addr, nexusrv_trace_time(&td));
		rc = walk(s.addr);	/* a stop leaves the decoder waiting for a sync */
		if (rc == 2)
			rc = 0;
		if (rc)
			break;
	}
	nexusrv_trace_decoder_fini(&td);
	fclose(pcout);
	fclose(xferout);
	close(fd);
	ntrace_images_free(img);
	return rc;
}
