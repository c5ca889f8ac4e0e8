// SPDX-License-Identifier: GPL-2.0-only
/*
 * A RAM sink in SRAM mode (the driver's sram=1 on a sink with SRAM: the
 * ntrace-sram guest config), read out through trRamRP/trRamData:
 *  - caps/sink_mode says "sram" and caps/buffer_size is the SRAM's size,
 *    the size the PMU's topology file gives the sink;
 *  - overflow: with drain_us at its maximum (1 s) the trace of a busy loop
 *    outgrows the SRAM between drains (the task's context switches still
 *    drain). The sink stops on wrap, so each such drain gives the first
 *    buffer_size bytes, in a record flagged PERF_AUX_FLAG_PARTIAL (the
 *    driver's flag for trace the sink lost; not TRUNCATED: the AUX area
 *    has room), which starts with a sync message and frames as N-Trace up
 *    to its last whole message; only a last message cut by the stop may
 *    follow, shorter than any message can be; every sync address lies in
 *    this program. The records are read only after the loop: the AUX
 *    area (4 MiB) leaves room for many SRAM-fulls, but a slow kernel
 *    (KASAN, lockdep) drains more often and may fill it; then the drain
 *    that did not fit is flagged TRUNCATED, which is right only if what
 *    the records before it left was less than one SRAM-full and no
 *    record with data follows. The same loop with the
 *    default drain period loses nothing (the exact decode of SRAM
 *    recordings is scripts/perf-e2e-sram.sh's).
 * Skips without the PMU or when the sinks are not in SRAM mode.
 */
#include <errno.h>
#include <linux/ntrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest.h"
#include "ntrace_util.h"
#include "sysfs.h"

#define DRAIN_PARAM	"/sys/module/ntrace/parameters/drain_us"
/* longer than any N-Trace 1.0 message (ProgTraceSync with all fields) */
#define MAX_MSG		64
/* AUX area of the overflow recording: many SRAM-fulls */
#define OVERFLOW_AUX_PAGES	1024

extern char __executable_start[], etext[];

static volatile unsigned long sink_var;

static void busy_loop(void *arg)
{
	unsigned long i, n = (unsigned long)arg, acc = 0;

	for (i = 0; i < n; i++)
		if ((i * 2654435761u) & 32)
			acc += i ^ (acc >> 3);
	sink_var = acc;
}

/* size=N of the "sink NAME mode=sram size=N cpus=..." topology line */
static long topology_sram_size(void)
{
	FILE *f = fopen(NTRACE_SYSFS "/topology", "r");
	char line[512], *p;
	long size = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "sink ", 5) || !strstr(line, " mode=sram "))
			continue;
		p = strstr(line, " size=");
		if (p)
			size = strtol(p + 6, NULL, 10);
	}
	fclose(f);
	return size;
}

/* Offset just after the last end-of-message byte (MSEO 11) of p. */
static size_t whole_msgs_end(const uint8_t *p, size_t len)
{
	while (len && (p[len - 1] & 3) != 3)
		len--;
	return len;
}

static void test_overflow(long sram_size)
{
	static struct nt_rec rec;
	struct perf_event_attr attr;
	char old[32] = "", why[160] = "";
	unsigned int i, partial = 0, truncated = 0, full = 0, bad = 0, out = 0;
	unsigned int ptrunc = 0, trunc_bad = 0;
	size_t aux_bytes = OVERFLOW_AUX_PAGES * sysconf(_SC_PAGESIZE);
	size_t used = 0, room = 0;
	unsigned long msgs = 0, syncs = 0;
	int err;

	err = sysfs_read_line(DRAIN_PARAM, old, sizeof(old));
	if (!err)
		err = sysfs_write(DRAIN_PARAM, "1000000");
	if (!err) {
		/* sync_period 3: a sync every 64 messages, addresses to check */
		nt_attr(&attr, nt_pmu_type(), NTRACE_CFG_SET(SYNC_PERIOD, 3));
		err = nt_record(&attr, -1, OVERFLOW_AUX_PAGES, busy_loop,
				(void *)3000000ul, &rec);
		sysfs_write(DRAIN_PARAM, old);
	}
	if (err) {
		ksft_test_result_fail("overflow recording: %s\n", strerror(-err));
		ksft_test_result_skip("overflow: no data\n");
		ksft_test_result_skip("overflow: no data\n");
		return;
	}
	/* every record the sink filled: the first SRAM-full, then loss */
	for (i = 0; i < rec.nr_aux; i++) {
		const uint8_t *p = rec.data + rec.aux[i].off;
		size_t len = rec.aux[i].len, whole;
		struct nt_frame_stats st;

		bool trunc = rec.aux[i].flags & PERF_AUX_FLAG_TRUNCATED;

		/*
		 * Nothing reads the AUX area before the end: a drain finds
		 * what the records so far left. Less than the SRAM's size
		 * may not hold it (TRUNCATED); more always does. After a
		 * TRUNCATED record the event ends: no more data.
		 */
		if (trunc) {
			if (!truncated++)
				room = aux_bytes - used;
			if (aux_bytes - used > (size_t)sram_size)
				trunc_bad++;
		} else if (truncated && len) {
			trunc_bad++;
		}
		used += len;
		if (!(rec.aux[i].flags & PERF_AUX_FLAG_PARTIAL))
			continue;
		partial++;
		/* a TRUNCATED record holds what fitted */
		if (trunc)
			ptrunc++;
		else
			full += len == (size_t)sram_size;
		whole = whole_msgs_end(p, len);
		nt_frame_check(p, whole, nt_src_bits(attr.config), &st);
		msgs += st.msgs;
		syncs += st.sync_msgs;
		if (st.bad || !nt_tcode_is_sync(st.first_tcode) ||
		    len - whole >= MAX_MSG) {
			if (!bad++)
				snprintf(why, sizeof(why), "record %u: %lu bad (%.80s), first TCODE %d, %zu cut bytes",
					 i, st.bad, st.why, st.first_tcode,
					 len - whole);
		}
		if (st.sync_msgs &&
		    (st.addr_min < (uintptr_t)__executable_start ||
		     st.addr_max >= (uintptr_t)etext))
			out++;
	}
	ksft_test_result(partial && partial - ptrunc == full && !trunc_bad,
			 "overflow: %u records flagged PARTIAL, %u of them holding exactly the SRAM's %ld bytes (%u TRUNCATED), TRUNCATED only when the %zu-byte AUX area had less room (%u TRUNCATED, %zu bytes left before, %u bad; %zu bytes in %u records)\n",
			 partial, full, sram_size, ptrunc, aux_bytes,
			 truncated, truncated ? room : aux_bytes - used,
			 trunc_bad, used, rec.nr_aux);
	ksft_test_result(partial && msgs > 1000 && !bad,
			 "overflow: each starts with a sync, %lu whole messages frame, only a last message cut by the stop follows (%s)\n",
			 msgs, bad ? why : "ok");
	ksft_test_result(partial && syncs > 10 && !out,
			 "overflow: all %lu sync addresses lie in this program's text (%u records outside)\n",
			 syncs, out);
	nt_rec_free(&rec);
}

/* Without the long drain period the same loop fits: nothing lost. */
static void test_no_loss(void)
{
	static struct nt_rec rec;
	struct perf_event_attr attr;
	unsigned int i, lossy = 0, bad = 0;
	struct nt_frame_stats st;
	unsigned long msgs = 0;
	int err;

	nt_attr(&attr, nt_pmu_type(), NTRACE_CFG_SET(HTM, 1));
	err = nt_record(&attr, -1, 256, busy_loop, (void *)300000ul, &rec);
	for (i = 0; !err && i < rec.nr_aux; i++) {
		if (rec.aux[i].flags &
		    (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL))
			lossy++;
		if (!rec.aux[i].len)
			continue;
		nt_frame_check(rec.data + rec.aux[i].off, rec.aux[i].len,
			       nt_src_bits(attr.config), &st);
		msgs += st.msgs;
		bad += st.bad;
	}
	ksft_test_result(!err && rec.nr_aux && msgs && !bad && !lossy,
			 "HTM with the default drain period: %u records, %lu messages frame (%u bad), none lossy (%u) (%s)\n",
			 rec.nr_aux, msgs, bad, lossy, err ? strerror(-err) : "ok");
	nt_rec_free(&rec);
}

int main(void)
{
	char mode[32] = "", size[32] = "";
	long sram_size, topo;

	ksft_print_header();
	if (nt_pmu_type() < 0)
		ksft_exit_skip("no ntrace PMU (no N-Trace components in this machine)\n");
	if (nt_read_sysfs("caps/sink_mode", mode, sizeof(mode)) ||
	    strcmp(mode, "sram"))
		ksft_exit_skip("sinks not in SRAM mode (caps/sink_mode '%s'; the ntrace-sram config boots with ntrace.sram=1)\n",
			       mode);
	ksft_set_plan(5);
	nt_read_sysfs("caps/buffer_size", size, sizeof(size));
	sram_size = strtol(size, NULL, 10);
	topo = topology_sram_size();
	ksft_test_result(sram_size >= 1024 && !(sram_size & 3) &&
			 topo == sram_size,
			 "caps/sink_mode sram, caps/buffer_size %ld = the topology's SRAM sink size %ld\n",
			 sram_size, topo);
	test_no_loss();
	test_overflow(sram_size);
	ksft_finished();
}
