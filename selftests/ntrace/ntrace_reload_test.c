// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unload and reload ntrace.ko: the PMU disappears with the module and comes
 * back with the same capabilities, with a module parameter taking effect
 * (buf_kb: caps/buffer_size), and an event open keeps the module loaded
 * (EBUSY/EWOULDBLOCK on unload). Prints how long unload and load take.
 * With a 16 KiB sink buffer (copy mode) drained once a second, the sink fills up
 * (stop-on-wrap): the AUX record is flagged PARTIAL and its bytes still
 * start with a sync message; a record that does not end flushed (with
 * the ProgTraceCorrelation of its drain) is flagged too (behind funnels
 * a drain that fills the sink twice leaves the CPU's last messages
 * upstream: its record lost its tail, and may be the event's last).
 * Skips without the PMU.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "kmod.h"
#include "ntrace_util.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

static void spin(void *arg)
{
	unsigned long i, acc = 0;

	for (i = 0; i < (unsigned long)arg; i++)
		if ((i * 2654435761u) & 8)
			acc ^= i;
	sink = acc;
}

/* The sink overflows between drains: PARTIAL. */
static void test_overflow(void)
{
	static struct nt_rec rec;
	struct perf_event_attr attr;
	struct nt_frame_stats st = { .first_tcode = -1 }, e;
	unsigned int i, partial = 0, unflagged = 0, data = 0;
	int err;

	kmod_unload("ntrace");
	/*
	 * Copy mode (direct=0): in direct mode the sink writes the 1 MiB AUX
	 * area itself and its 16 KiB buffer is not used; HTM (SiFive v0 has
	 * nothing else) is compact enough never to fill that window.
	 */
	err = kmod_load("ntrace", "buf_kb=16 drain_us=1000000 direct=0");
	if (!err) {
		nt_attr(&attr, nt_pmu_type(), 0);
		err = nt_record(&attr, -1, 256, spin, (void *)2000000, &rec);
	}
	for (i = 0; !err && i < rec.nr_aux; i++) {
		partial += !!(rec.aux[i].flags & PERF_AUX_FLAG_PARTIAL);
		if (!rec.aux[i].len)
			continue;
		data++;
		nt_frame_check(rec.data + rec.aux[i].off, rec.aux[i].len,
			       nt_src_bits(0), &e);
		if (e.last_tcode != 33 &&
		    !(rec.aux[i].flags &
		      (PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_TRUNCATED))) {
			unflagged++;
			ksft_print_msg("record %u: %zu bytes, flags %#llx, %lu messages, TCODE %d..%d, %lu Correlation, %lu bad%s%s\n",
				       i, rec.aux[i].len,
				       (unsigned long long)rec.aux[i].flags,
				       e.msgs, e.first_tcode, e.last_tcode,
				       e.correlation_msgs, e.bad,
				       e.bad ? ": " : "", e.why);
		}
	}
	if (!err && rec.nr_aux)
		nt_frame_check(rec.data, rec.aux[0].len, nt_src_bits(0), &st);
	ksft_test_result(!err && partial && nt_tcode_is_sync(st.first_tcode),
			 "16 KiB sink drained once a second: %u of %u records PARTIAL, first starts with a sync (%s)\n",
			 partial, rec.nr_aux, err ? strerror(-err) : "ok");
	ksft_test_result(!err && data && !unflagged,
			 "16 KiB sink drained once a second: every record ends with a ProgTraceCorrelation or is flagged (%u of %u records with data end otherwise, unflagged)\n",
			 unflagged, data);
	nt_rec_free(&rec);
}

/*
 * A sink shared through funnels with a second buffer ("double=1" on its
 * topology line): both buffers are four times buf_kb (the driver's
 * SHARED_BUF_GROW, see ntrace.rst "Shared sinks").
 */
static bool topology_double(void)
{
	FILE *f = fopen(NTRACE_SYSFS "/topology", "r");
	char line[512];
	bool yes = false;

	while (f && fgets(line, sizeof(line), f))
		yes |= !strncmp(line, "sink ", 5) && strstr(line, " double=1 ");
	if (f)
		fclose(f);
	return yes;
}

int main(void)
{
	char caps_before[64] = "", caps_after[64] = "", size[32] = "";
	struct perf_event_attr attr;
	double t0, t_unload = 0, t_load = 0;
	int i, err, fd, type = nt_pmu_type();
	long want;

	ksft_print_header();
	if (type < 0 || !kmod_is_loaded("ntrace"))
		ksft_exit_skip("no ntrace PMU (no N-Trace components in this machine)\n");
	ksft_set_plan(6);

	nt_attr(&attr, type, 0);
	fd = nt_open(&attr, 0, -1);
	err = kmod_unload("ntrace");
	ksft_test_result(fd >= 0 && (err == -EBUSY || err == -EWOULDBLOCK) &&
			 nt_pmu_type() == type,
			 "an open event keeps the module loaded (unload: %s)\n",
			 strerror(-err));
	if (fd >= 0)
		close(fd);

	nt_read_sysfs("caps/te_impl", caps_before, sizeof(caps_before));
	for (i = 0; i < 5; i++) {
		t0 = now();
		err = kmod_unload("ntrace");
		t_unload += now() - t0;
		if (err || nt_pmu_type() >= 0)
			break;
		t0 = now();
		err = kmod_load("ntrace", i == 4 ? "buf_kb=64" : "");
		t_load += now() - t0;
		if (err || nt_pmu_type() < 0)
			break;
	}
	printf("# %d cycles: unload %.3f s, load %.3f s each\n", i,
	       i ? t_unload / i : 0, i ? t_load / i : 0);
	ksft_test_result(i == 5, "5 unload/load cycles, the PMU goes and comes back (%s)\n",
			 err ? strerror(-err) : "ok");
	nt_read_sysfs("caps/te_impl", caps_after, sizeof(caps_after));
	ksft_test_result(*caps_before && !strcmp(caps_before, caps_after),
			 "caps/te_impl the same after reload (%s)\n", caps_after);
	nt_read_sysfs("caps/buffer_size", size, sizeof(size));
	want = topology_double() ? 4 * 65536 : 65536;
	ksft_test_result(atol(size) == want,
			 "buf_kb=64 gives caps/buffer_size %ld (%s)\n", want, size);

	test_overflow();
	/* leave it as the init loaded it */
	kmod_unload("ntrace");
	kmod_load("ntrace", "");
	ksft_finished();
}
