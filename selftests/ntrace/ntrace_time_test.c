// SPDX-License-Identifier: GPL-2.0-only
/*
 * Trace time is perf time. With ts=1 the ntrace PMU's messages carry
 * timestamps; on the QEMU model the timestamp unit is fed by the platform
 * timer, so they are time CSR ticks / 4^ts_prescale, and perf's conversion
 * of that CSR (the event's mmap page; perf record copies it into
 * AUXTRACE_INFO) puts them on perf's clock. Checked against what this
 * program reads itself:
 *  - caps/ts_mode is 1 (External) and caps/ts_rate_hz equals the device
 *    tree's /cpus timebase-frequency;
 *  - per-task recordings, ts_prescale 0 and 2: the absolute TSTAMP of
 *    every synchronising message, times 4^prescale, lies between the time
 *    CSR values read just before PERF_EVENT_IOC_ENABLE and just after
 *    PERF_EVENT_IOC_DISABLE (exact, less one prescaled tick below), and
 *    they never decrease;
 *  - the mmap page's conversion (the formula of include/uapi/linux/
 *    ntrace.h, implemented here) puts them between perf's own timestamps
 *    of the recording (PERF_RECORD_ITRACE_START, the last PERF_RECORD_AUX),
 *    and the time CSR read around the enable ioctl around the
 *    ITRACE_START timestamp, both within one timestamp tick plus 1 us;
 *  - converted time CSR intervals agree with CLOCK_MONOTONIC over the
 *    recording (which sleeps 20 ms): both count the same timer, so within
 *    0.1 % plus the width of the read brackets plus 10 us;
 *  - "perf record -e ntrace/ts=1/u": AUXTRACE_INFO has the time
 *    conversion (hdr_size 88, version 1) equal to the mmap page's, every
 *    CPU record has ts_rate_hz = caps/ts_rate_hz, CPU 0's ts_zero is
 *    caps/ts_zero_cpu0 (0 for an External unit), the recorded timestamps
 *    (plus that ts_zero)
 *    lie between the time CSR read before and after perf ran, and each
 *    AUXTRACE record's reference (the time CSR when perf took the data)
 *    is not earlier than the data's timestamps.
 * That holds as it stands where the unit is External and fed by the
 * platform timer (caps/ts_mode 1). A SiFive v0 encoder's unit is a slave
 * of its funnel's (caps/ts_mode 4) or its own (2): it counts from its own
 * reset, not from the time CSR's zero. The driver reads it against the
 * time CSR and publishes the time CSR value at which it read 0 in
 * caps/ts_zero_cpu<N> (read after each per-task recording, for CPU 0,
 * where this program and perf run; perf record copies it into the CPU's
 * AUXTRACE_INFO record, and the perf record checks take it from there); a
 * TSTAMP plus that is a time CSR value, and every check above is made on
 * that sum, with the same tolerances. A v0 unit
 * runs unprescaled (caps/ts_prescale_max 0); perf record runs without
 * ":u" where there is no privilege filter (a user-only event is refused).
 * A ts_prescale above caps/ts_prescale_max must be refused with
 * EOPNOTSUPP.
 * Skips without the PMU or without a timestamp unit.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ntrace.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "ntrace_util.h"
#include "run.h"

#define PERF		"/usr/bin/perf"
#define PERF_DATA	"/tmp/ntrace_time_test.data"
#define DATA_PAGES	64
#define AUX_PAGES	256
#define SLACK_NS	1000		/* rounding slack of the conversions */
#define SLEEP_NS	20000000L	/* the recording sleeps this long */

static char self[4096];
static char out[1 << 16];
static volatile unsigned long sink;

static inline uint64_t time_csr(void)
{
	uint64_t t;

	__asm__ volatile("rdtime %0" : "=r"(t));
	return t;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* A time CSR value and CLOCK_MONOTONIC read between two time CSR reads. */
struct stamp {
	uint64_t t0, t1;	/* time CSR before and after */
	uint64_t mono;
};

static void take_stamp(struct stamp *s)
{
	int i;

	/* retry a pair the host stretched (vCPU preempted in between) */
	for (i = 0; i < 10; i++) {
		s->t0 = time_csr();
		s->mono = mono_ns();
		s->t1 = time_csr();
		if (s->t1 - s->t0 < 100)
			break;
	}
}

/* ---- perf time conversion (include/uapi/linux/ntrace.h) ---------------- */

struct tconv {
	uint32_t mult;
	uint16_t shift;
	bool cap_zero, cap_short;
	uint64_t zero, cycles, mask;
};

static uint64_t tconv_ns(const struct tconv *c, uint64_t cyc)
{
	uint64_t quot, rem;

	if (c->cap_short)
		cyc = c->cycles + ((cyc - c->cycles) & c->mask);
	quot = cyc >> c->shift;
	rem = cyc & ((1ull << c->shift) - 1);
	return c->zero + quot * c->mult + ((rem * c->mult) >> c->shift);
}

/* The page's conversion, under its seqlock. */
static int tconv_read(const volatile struct perf_event_mmap_page *pc, struct tconv *c)
{
	uint32_t seq;
	int i;

	for (i = 0; i < 10000; i++) {
		seq = pc->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		c->mult = pc->time_mult;
		c->shift = pc->time_shift;
		c->zero = pc->time_zero;
		c->cycles = pc->time_cycles;
		c->mask = pc->time_mask;
		c->cap_zero = pc->cap_user_time_zero;
		c->cap_short = pc->cap_user_time_short;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (pc->lock == seq && !(seq & 1))
			return c->mult ? 0 : -ENODATA;
	}
	return -EBUSY;
}

static int64_t diff(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b);
}

/* ---- N-Trace: absolute timestamps of synchronising messages ------------ */

/*
 * With timestamps on, the last field of every message is TSTAMP, absolute
 * in a synchronising message (N-Trace 1.0 "Timestamp Reporting"). Fields
 * end with MSEO 1, messages with MSEO 3; each byte carries 6 MDO bits.
 */
struct ts_list {
	uint64_t v[8192];
	unsigned int n;
	unsigned long msgs;
	unsigned long bad;
	/* the message being read, which a continued AUX record completes */
	bool in;
	int tcode;
	unsigned int nbits, prev_end, last_end, nf;
	uint8_t mdo[64];
};

/* cont: p continues the bytes of the last call (NTRACE_AUX_FLAG_CONT) */
static void sync_timestamps(const uint8_t *p, size_t len, bool cont, struct ts_list *l)
{
	size_t i;

	if (!cont)
		l->in = false;
	for (i = 0; i < len; i++) {
		unsigned int b;

		if (!l->in && p[i] == 0xff)
			continue;		/* idle */
		if (!l->in) {
			l->in = true;
			l->nbits = l->prev_end = l->last_end = l->nf = 0;
			memset(l->mdo, 0, sizeof(l->mdo));
			l->tcode = p[i] >> 2;
		}
		if ((p[i] & 3) == 2 || l->nbits + 6 > 8 * sizeof(l->mdo)) {
			l->bad++;
			l->in = false;
			continue;
		}
		for (b = 0; b < 6; b++, l->nbits++)
			if (p[i] >> (2 + b) & 1)
				l->mdo[l->nbits / 8] |= 1 << (l->nbits % 8);
		if (p[i] & 3) {
			l->prev_end = l->last_end;
			l->last_end = l->nbits;
			l->nf++;
		}
		if ((p[i] & 3) != 3)
			continue;
		l->in = false;
		l->msgs++;
		if (!nt_tcode_is_sync(l->tcode))
			continue;
		if (l->nf < 3) {
			l->bad++;
			continue;
		}
		if (l->n < ARRAY_SIZE(l->v)) {
			uint64_t v = 0;
			unsigned int k;

			for (k = 0; k < l->last_end - l->prev_end && k < 64; k++)
				if (l->mdo[(l->prev_end + k) / 8] >> ((l->prev_end + k) % 8) & 1)
					v |= 1ull << k;
			l->v[l->n++] = v;
		}
	}
}

static bool nondecreasing(const struct ts_list *l)
{
	unsigned int i;

	for (i = 1; i < l->n; i++)
		if (l->v[i] < l->v[i - 1])
			return false;
	return true;
}

/* ---- the workload -------------------------------------------------------- */

static __attribute__((noinline)) unsigned long step(unsigned long x)
{
	return x * 2654435761u >> 5;
}

static void spin(unsigned long n)
{
	unsigned long i, acc = 0;

	for (i = 0; i < n; i++)
		acc += (acc & 8) ? step(i) : i;
	sink = acc;
}

static void workload(void)
{
	struct timespec ts = { 0, SLEEP_NS };

	spin(20000);
	nanosleep(&ts, NULL);
	spin(20000);
}

/* ---- caps ---------------------------------------------------------------- */

static uint64_t cap_u64(const char *name, bool *ok)
{
	char rel[64], v[64];

	snprintf(rel, sizeof(rel), "caps/%s", name);
	if (nt_read_sysfs(rel, v, sizeof(v))) {
		*ok = false;
		return 0;
	}
	return strtoull(v, NULL, 0);
}

/* /cpus timebase-frequency of the device tree (big-endian cells) */
static uint64_t dt_timebase(void)
{
	uint8_t b[8];
	uint64_t v = 0;
	ssize_t n, i;
	int fd = open("/proc/device-tree/cpus/timebase-frequency", O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, b, sizeof(b));
	close(fd);
	for (i = 0; i < n; i++)
		v = v << 8 | b[i];
	return n == 4 || n == 8 ? v : 0;
}

static uint64_t rate_hz, ts_mode, ps_max;
/* trace time is the time CSR (External unit, the platform timer) */
static bool csr_time;

/*
 * Where the unit counts from its own reset (SiFive v0): add the time CSR
 * value at which CPU 0's unit read 0 (caps/ts_zero_cpu0) to every value.
 */
static int place_on_time_csr(struct ts_list *l, uint64_t *zero)
{
	bool ok = true;
	unsigned int i;

	*zero = 0;
	if (csr_time)
		return 0;
	*zero = cap_u64("ts_zero_cpu0", &ok);
	if (!ok)
		return -ENODATA;
	for (i = 0; i < l->n; i++)
		l->v[i] += *zero;
	return 0;
}

/* ps_max before the plan: how many results the recordings give */
static void check_caps_quiet(void)
{
	bool ok = true;

	ps_max = cap_u64("ts_prescale_max", &ok);
}

static bool check_caps(void)
{
	bool ok = true;
	uint64_t tb = dt_timebase();

	ts_mode = cap_u64("ts_mode", &ok);
	rate_hz = cap_u64("ts_rate_hz", &ok);
	ps_max = cap_u64("ts_prescale_max", &ok);
	csr_time = ts_mode == NTRACE_TS_MODE_EXTERNAL;
	if (nt_sifive_v0())
		/* v0: the funnel's unit (a slave of it) or the encoder's own */
		ksft_test_result(ok && (ts_mode == NTRACE_TS_MODE_SHARED ||
					ts_mode == NTRACE_TS_MODE_INTERNAL_SYSTEM),
				 "caps/ts_mode is %llu (SiFive v0: 4, a slave of the funnel's unit, or 2, its own)\n",
				 (unsigned long long)ts_mode);
	else
		ksft_test_result(ok && ts_mode == NTRACE_TS_MODE_EXTERNAL,
				 "caps/ts_mode is %llu (1: External, the platform timer)\n",
				 (unsigned long long)ts_mode);
	ksft_test_result(ok && tb && rate_hz == tb,
			 "caps/ts_rate_hz %llu equals /cpus timebase-frequency %llu\n",
			 (unsigned long long)rate_hz, (unsigned long long)tb);
	return ok && ts_mode && rate_hz;
}

/* ---- a per-task recording through perf_event_open ------------------------ */

struct recording {
	struct stamp before, after;	/* around ENABLE ... DISABLE */
	uint64_t en0, en1;		/* time CSR around the ENABLE ioctl */
	struct tconv conv;
	int conv_err;
	uint64_t itrace_time, aux_time;	/* perf's sample_id times */
	unsigned int nr_itrace, nr_aux;
	uint64_t aux_end;		/* where the last AUX record ended */
	struct ts_list ts;
};

/* PERF_RECORD_AUX with sample_id = { time } */
struct aux_rec {
	struct perf_event_header header;
	uint64_t aux_offset, aux_size, flags;
	uint64_t time;
};

static void walk_ring(struct perf_event_mmap_page *up, const uint8_t *aux, size_t aux_size,
		      struct recording *r)
{
	size_t data_size = DATA_PAGES * sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = up->data_tail;
	static uint8_t buf[1 << 20];
	uint8_t rec[256];

	while (tail < head) {
		struct perf_event_header h;
		size_t i;

		if (!nt_ring_copy(up, data_size, tail, rec, sizeof(rec)))
			break;
		memcpy(&h, rec, sizeof(h));
		if (h.type == PERF_RECORD_ITRACE_START && h.size >= sizeof(h) + 16) {
			if (!r->nr_itrace++)
				memcpy(&r->itrace_time, rec + sizeof(h) + 8, 8);
		} else if (h.type == PERF_RECORD_AUX && h.size >= sizeof(struct aux_rec)) {
			const struct aux_rec *a = (const void *)rec;
			size_t n = a->aux_size < sizeof(buf) ? a->aux_size : sizeof(buf);

			r->nr_aux++;
			r->aux_time = a->time;
			for (i = 0; i < n; i++)
				buf[i] = aux[(a->aux_offset + i) % aux_size];
			sync_timestamps(buf, n, (a->flags & NTRACE_AUX_FLAG_CONT) &&
					a->aux_offset == r->aux_end, &r->ts);
			r->aux_end = a->aux_offset + a->aux_size;
		}
		tail += h.size;
	}
	__atomic_store_n(&up->data_tail, tail, __ATOMIC_RELEASE);
}

static int record(unsigned int prescale, struct recording *r)
{
	size_t pg = sysconf(_SC_PAGESIZE), aux_size = AUX_PAGES * pg;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *up;
	void *base, *aux;
	int fd, err = 0;

	memset(r, 0, sizeof(*r));
	nt_attr(&attr, nt_pmu_type(),
		NTRACE_CFG_SET(TS, 1) | NTRACE_CFG_SET(TS_PRESCALE, prescale));
	attr.sample_type = PERF_SAMPLE_TIME;
	attr.sample_id_all = 1;
	fd = nt_open(&attr, 0, -1);
	if (fd < 0)
		return fd;
	base = mmap(NULL, (DATA_PAGES + 1) * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		goto out_fd;
	}
	up = base;
	up->aux_offset = (DATA_PAGES + 1) * pg;
	up->aux_size = aux_size;
	aux = mmap(NULL, aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, up->aux_offset);
	if (aux == MAP_FAILED) {
		err = -errno;
		goto out_base;
	}
	r->conv_err = tconv_read(up, &r->conv);
	take_stamp(&r->before);
	r->en0 = time_csr();
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		goto out_aux;
	}
	r->en1 = time_csr();
	workload();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	take_stamp(&r->after);
	walk_ring(up, aux, aux_size, r);
out_aux:
	munmap(aux, aux_size);
out_base:
	munmap(base, (DATA_PAGES + 1) * pg);
out_fd:
	close(fd);
	return err;
}

/* Results check_recording(prescale) gives. */
static unsigned int recording_results(unsigned int prescale)
{
	return prescale > ps_max ? 1 : 4;
}

static void check_recording(unsigned int prescale)
{
	static struct recording r;
	uint64_t tick_ns, lo, hi, first_ns = 0, last_ns = 0, zero;
	int64_t dconv, dmono, tol;
	bool inside = true;
	unsigned int i;
	int err = record(prescale, &r);

	if (prescale > ps_max) {
		ksft_test_result(err == -EOPNOTSUPP,
				 "ps%u: ts_prescale above caps/ts_prescale_max %llu refused: EOPNOTSUPP (got %s)\n",
				 prescale, (unsigned long long)ps_max,
				 err ? strerror(-err) : "success");
		return;
	}

	ksft_print_msg("ps%u: %u sync timestamps in %lu messages (%lu bad), %u AUX records, time CSR %llu..%llu\n",
		       prescale, r.ts.n, r.ts.msgs, r.ts.bad, r.nr_aux,
		       (unsigned long long)r.before.t0, (unsigned long long)r.after.t1);
	if (err || !r.ts.n || r.conv_err) {
		ksft_test_result_fail("ps%u: recording with ts=1 (%s, %u timestamps, conversion %s)\n",
				      prescale, strerror(-err), r.ts.n, strerror(-r.conv_err));
		ksft_test_result_skip("ps%u: no timestamps to place on perf's clock\n", prescale);
		ksft_test_result_skip("ps%u: no conversion to check\n", prescale);
		ksft_test_result_skip("ps%u: no conversion to compare\n", prescale);
		return;
	}
	tick_ns = ((1000000000ull << 2 * prescale) + rate_hz - 1) / rate_hz;
	first_ns = tconv_ns(&r.conv, r.ts.v[0] << 2 * prescale);
	last_ns = tconv_ns(&r.conv, r.ts.v[r.ts.n - 1] << 2 * prescale);
	if (place_on_time_csr(&r.ts, &zero)) {
		ksft_test_result_fail("ps%u: no caps/ts_zero_cpu0 to place the v0 unit's count on the time CSR\n",
				      prescale);
		ksft_test_result_skip("ps%u: no trace time to place on perf's clock\n", prescale);
		goto conversion;
	}
	if (!csr_time) {
		first_ns = tconv_ns(&r.conv, r.ts.v[0] << 2 * prescale);
		last_ns = tconv_ns(&r.conv, r.ts.v[r.ts.n - 1] << 2 * prescale);
		ksft_print_msg("ps%u: the unit's count plus caps/ts_zero_cpu0 %llu\n", prescale,
			       (unsigned long long)zero);
	}
	/* 1. trace time is the time CSR, divided by 4^prescale */
	lo = r.before.t1 >> (2 * prescale);
	hi = r.after.t0 >> (2 * prescale);
	for (i = 0; i < r.ts.n; i++)
		inside &= r.ts.v[i] >= lo && r.ts.v[i] <= hi;
	ksft_test_result(inside && nondecreasing(&r.ts) && !r.ts.bad,
			 "ps%u: %u sync TSTAMPs x4^%u lie in the time CSR reads around the recording (%llu..%llu, trace %llu..%llu) and never decrease\n",
			 prescale, r.ts.n, prescale, (unsigned long long)r.before.t1,
			 (unsigned long long)r.after.t0,
			 (unsigned long long)(r.ts.v[0] << 2 * prescale),
			 (unsigned long long)(r.ts.v[r.ts.n - 1] << 2 * prescale));

	/* 2. on perf's clock: between perf's own records of the recording */
	ksft_test_result(r.nr_itrace && r.nr_aux &&
			 diff(first_ns, r.itrace_time) >= -(int64_t)(tick_ns + SLACK_NS) &&
			 diff(r.aux_time, last_ns) >= -SLACK_NS,
			 "ps%u: converted trace time %llu..%llu ns lies between perf's first ITRACE_START %llu and last AUX record %llu (of %u, %u; tolerance %llu ns)\n",
			 prescale, (unsigned long long)first_ns, (unsigned long long)last_ns,
			 (unsigned long long)r.itrace_time, (unsigned long long)r.aux_time,
			 r.nr_itrace, r.nr_aux, (unsigned long long)(tick_ns + SLACK_NS));

conversion:
	/* 3. the page's conversion is perf's clock: ITRACE_START within the enable ioctl */
	ksft_test_result(diff(r.itrace_time, tconv_ns(&r.conv, r.en0)) >= -SLACK_NS &&
			 diff(tconv_ns(&r.conv, r.en1), r.itrace_time) >= -SLACK_NS,
			 "ps%u: the mmap page's conversion of the time CSR around the enable ioctl (%llu..%llu ns) holds perf's ITRACE_START time %llu (cap_user_time_zero %d)\n",
			 prescale, (unsigned long long)tconv_ns(&r.conv, r.en0),
			 (unsigned long long)tconv_ns(&r.conv, r.en1),
			 (unsigned long long)r.itrace_time, r.conv.cap_zero);

	/* 4. the same rate as CLOCK_MONOTONIC */
	dconv = diff(tconv_ns(&r.conv, r.after.t0), tconv_ns(&r.conv, r.before.t0));
	dmono = diff(r.after.mono, r.before.mono);
	tol = dmono / 1000 + 10000 +
	      (int64_t)((r.before.t1 - r.before.t0 + r.after.t1 - r.after.t0) * 1000000000ull /
			rate_hz);
	ksft_test_result(dmono >= SLEEP_NS && llabs(dconv - dmono) <= tol,
			 "ps%u: converted time CSR interval %lld ns equals CLOCK_MONOTONIC's %lld ns within %lld ns\n",
			 prescale, (long long)dconv, (long long)dmono, (long long)tol);
}

/* ---- perf record --------------------------------------------------------- */

struct pd_header {
	uint64_t magic, size, attr_size;
	uint64_t attrs[2], data[2], event_types[2];
};

struct pd_auxtrace {
	struct perf_event_header header;
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu, reserved;
};

#define PD_MAGIC		0x32454c4946524550ull	/* "PERFILE2" */
#define PD_AUXTRACE_INFO	70
#define PD_AUXTRACE		71

static uint8_t *read_file(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	p = malloc(st.st_size ? st.st_size : 1);
	*len = p ? read(fd, p, st.st_size) : 0;
	close(fd);
	if (p && *len != (size_t)st.st_size) {
		free(p);
		return NULL;
	}
	return p;
}

static void check_perf_record(void)
{
	/* user only where the encoders can filter: else refused */
	char *ev = nt_priv_filter() ? "ntrace/ts=1/u" : "ntrace/ts=1/";
	char *argv[] = { PERF, "record", "-q", "-o", PERF_DATA, "-e", ev,
			 "--", self, "work", NULL };
	static struct ts_list ts;
	struct ntrace_auxtrace_info info = { 0 };
	struct pd_header hd;
	struct stamp s0, s1;
	struct tconv page = { 0 };
	struct perf_event_attr attr;
	bool have_info = false, rates = true, refs_ok = true, info_ok;
	unsigned int nbuf = 0, ncpu = 0, i;
	uint64_t lo, hi, off, end, prescale_shift = 0, zero, rec_zero = 0;
	static struct { uint64_t ref; unsigned int n; } refs[1024];
	unsigned int nref = 0, last_idx = 0;
	uint64_t last_end = 0;
	uint8_t *p;
	size_t len = 0;
	void *base;
	int fd, st;

	/* the kernel's conversion, from a page of our own ntrace event */
	nt_attr(&attr, nt_pmu_type(), NTRACE_CFG_SET(TS, 1));
	fd = nt_open(&attr, 0, -1);
	base = fd < 0 ? MAP_FAILED : mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (base != MAP_FAILED) {
		tconv_read(base, &page);
		munmap(base, sysconf(_SC_PAGESIZE));
	}
	if (fd >= 0)
		close(fd);

	unlink(PERF_DATA);
	take_stamp(&s0);
	st = run_capture(argv, out, sizeof(out), 60);
	take_stamp(&s1);
	p = read_file(PERF_DATA, &len);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || !p || len < sizeof(hd)) {
		ksft_print_msg("perf record failed (status %#x):\n%s\n", st, out);
		ksft_test_result_fail("perf record -e %s\n", ev);
		ksft_test_result_skip("perf record: no AUXTRACE_INFO to check\n");
		ksft_test_result_skip("perf record: no timestamps to check\n");
		free(p);
		return;
	}
	ksft_test_result_pass("perf record -e %s (%zu bytes)\n", ev, len);
	memcpy(&hd, p, sizeof(hd));
	off = hd.data[0];
	end = hd.data[0] + hd.data[1];
	while (hd.magic == PD_MAGIC && end <= len && off + sizeof(struct perf_event_header) <= end) {
		struct perf_event_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > end)
			break;
		if (h.type == PD_AUXTRACE_INFO && h.size >= 16 + sizeof(info) && !have_info) {
			const uint8_t *priv = p + off + 16;

			memcpy(&info, priv, sizeof(info));
			have_info = info.magic == NTRACE_AUXTRACE_MAGIC &&
				    info.hdr_size >= sizeof(info) &&
				    info.rec_size >= NTRACE_CPU_INFO_SIZE_V1 &&
				    16 + info.hdr_size + (uint64_t)info.nr_cpus * info.rec_size <= h.size;
			for (i = 0; have_info && i < info.nr_cpus; i++) {
				struct ntrace_cpu_info c;

				memset(&c, 0, sizeof(c));
				memcpy(&c, priv + info.hdr_size + (size_t)i * info.rec_size,
				       info.rec_size < sizeof(c) ? info.rec_size : sizeof(c));
				rates &= c.ts_rate_hz == rate_hz && c.ts_mode == ts_mode &&
					 (c.options & NTRACE_OPT_TS);
				if (c.cpu == 0)
					rec_zero = c.ts_zero;
				prescale_shift = 2 * c.ts_prescale;
				ncpu++;
			}
		} else if (h.type == PD_AUXTRACE && h.size >= sizeof(struct pd_auxtrace)) {
			struct pd_auxtrace a;
			unsigned int n0 = ts.n;

			memcpy(&a, p + off, sizeof(a));
			if (off + h.size + a.size > end)
				break;
			/* a buffer may go on from the last of its AUX area */
			sync_timestamps(p + off + h.size, a.size,
					nbuf && a.idx == last_idx && a.offset == last_end, &ts);
			last_idx = a.idx;
			last_end = a.offset + a.size;
			if (ts.n > n0 && nref < ARRAY_SIZE(refs)) {
				refs[nref].ref = a.reference;
				refs[nref++].n = ts.n;
			}
			nbuf++;
			off += a.size;
		}
		off += h.size;
	}
	info_ok = have_info && info.version == NTRACE_AUXTRACE_VERSION &&
		  info.hdr_size == 88 && info.time_mult && page.mult &&
		  info.time_mult == page.mult && info.time_shift == page.shift &&
		  !!(info.time_flags & NTRACE_TIME_CAP_ZERO) == page.cap_zero &&
		  !!(info.time_flags & NTRACE_TIME_CAP_SHORT) == page.cap_short;
	if (info_ok) {
		struct tconv fc = {
			.mult = info.time_mult, .shift = info.time_shift,
			.zero = info.time_zero, .cycles = info.time_cycles,
			.mask = info.time_mask,
			.cap_short = info.time_flags & NTRACE_TIME_CAP_SHORT,
		};

		/* same conversion: the same time CSR value, the same perf time */
		info_ok = llabs(diff(tconv_ns(&fc, s1.t0), tconv_ns(&page, s1.t0))) <= SLACK_NS;
	}
	/*
	 * v0: the recorder copied caps/ts_zero_cpu0 into CPU 0's record; the
	 * unit runs unchanged while bound, so it is what the file says now
	 * (less the jitter of two readings). Elsewhere it is 0.
	 */
	if (!csr_time) {
		bool ok = true;

		zero = cap_u64("ts_zero_cpu0", &ok);
		ksft_print_msg("perf record: CPU 0's record has ts_zero %llu, caps/ts_zero_cpu0 %llu\n",
			       (unsigned long long)rec_zero, (unsigned long long)zero);
		/* two readings agree within 1 ms (the model's registers trail) */
		if (!ok || !rec_zero || llabs(diff(rec_zero, zero)) > (int64_t)(rate_hz / 1000))
			info_ok = false;
	} else if (rec_zero) {
		info_ok = false;
	}
	ksft_test_result(info_ok && rates && ncpu,
			 "perf record: AUXTRACE_INFO v%u (hdr_size %u) has the mmap page's time conversion (mult %u shift %u, flags %#x), ts_rate_hz %llu in all %u CPU records, CPU 0's ts_zero %llu (caps/ts_zero_cpu0's; 0 where TSTAMP is the time CSR)\n",
			 info.version, info.hdr_size, info.time_mult, info.time_shift,
			 info.time_flags, (unsigned long long)rate_hz, ncpu,
			 (unsigned long long)rec_zero);
	lo = s0.t1 >> prescale_shift;
	hi = s1.t0 >> prescale_shift;
	/* v0: the unit's count plus the time CSR at its 0 that perf recorded */
	for (i = 0; i < ts.n; i++)
		ts.v[i] += rec_zero;
	/* a buffer's reference against the TSTAMPs on the time CSR */
	for (i = 0; i < nref; i++)
		if (refs[i].n && refs[i].ref < (ts.v[refs[i].n - 1] << prescale_shift))
			refs_ok = false;
	ksft_test_result(ts.n && !ts.bad && ts.v[0] >= lo && ts.v[ts.n - 1] <= hi &&
			 nondecreasing(&ts) && refs_ok,
			 "perf record: %u sync TSTAMPs in %u AUXTRACE buffers lie in the time CSR reads around perf (%llu..%llu, trace %llu..%llu), never decrease, and no buffer's reference is earlier\n",
			 ts.n, nbuf, (unsigned long long)lo, (unsigned long long)hi,
			 (unsigned long long)(ts.n ? ts.v[0] : 0),
			 (unsigned long long)(ts.n ? ts.v[ts.n - 1] : 0));
	free(p);
	unlink(PERF_DATA);
}

int main(int argc, char **argv)
{
	ssize_t n;
	cpu_set_t set;

	if (argc > 1 && !strcmp(argv[1], "work")) {
		workload();
		return 0;
	}
	ksft_print_header();
	if (nt_pmu_type() < 0)
		ksft_exit_skip("no ntrace PMU (no N-Trace components in this machine)\n");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		ksft_exit_fail_msg("readlink /proc/self/exe\n");
	self[n] = 0;
	check_caps_quiet();
	ksft_set_plan(2 + recording_results(0) + recording_results(2) + 3);
	if (!check_caps()) {
		for (n = 0; n < recording_results(0) + recording_results(2) + 3; n++)
			ksft_test_result_skip("no timestamp unit with a known rate: nothing to record\n");
		ksft_finished();
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	check_recording(0);
	check_recording(2);
	check_perf_record();
	ksft_finished();
}
