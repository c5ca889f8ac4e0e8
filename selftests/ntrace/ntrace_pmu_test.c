// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "ntrace" PMU as user space sees it: format/ matches the bit layout
 * of include/uapi/linux/ntrace.h, caps/ reports what the QEMU N-Trace model
 * implements (Documentation/trace/ntrace-qemu-model.rst, register map),
 * cpumask covers the online harts, and bad configurations are refused
 * with the documented errno. caps/variant picks the model's expected
 * values: the TCI 1.0 encoder's, or the SiFive v0 encoder's as the driver
 * describes it in 1.0 terms (admin guide, "SiFive pre-ratified"). What an
 * encoder lacks (caps/ 0) must be refused with EOPNOTSUPP, not ignored:
 * each such option alone, a user- or kernel-only event without a privilege
 * filter, iret or rephist alone where they come only together (v0); an
 * address filter on a PMU with none (nr_addr_filters 0) perf refuses with
 * EINVAL. Skips when the PMU is absent (no trace components in this boot
 * configuration).
 */
#include <errno.h>
#include <limits.h>
#include <linux/ntrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/ntrace_tci_v0.h>

#include "kselftest.h"
#include "ntrace_util.h"

struct fmt {
	const char *name;
	uint64_t mask;
};

static const struct fmt formats[] = {
	{ "htm", NTRACE_CFG_HTM_MASK },
	{ "iret", NTRACE_CFG_IRET_MASK },
	{ "iret_mode", NTRACE_CFG_IRET_MODE_MASK },
	{ "rephist", NTRACE_CFG_REPHIST_MASK },
	{ "seqjump", NTRACE_CFG_SEQJUMP_MASK },
	{ "alljumps", NTRACE_CFG_ALLJUMPS_MASK },
	{ "ts", NTRACE_CFG_TS_MASK },
	{ "ctx", NTRACE_CFG_CTX_MASK },
	{ "sync", NTRACE_CFG_SYNC_MASK },
	{ "sync_period", NTRACE_CFG_SYNC_PERIOD_MASK },
	{ "ts_prescale", NTRACE_CFG_TS_PRESCALE_MASK },
	{ "src", NTRACE_CFG_SRC_MASK },
};

/* What the model's registers give (the model document's register map). */
static const struct {
	const char *name, *value;
} model_caps[] = {
	{ "version", "1.0" },
	{ "protocol", "1.0" },
	{ "te_impl", "0x00010101" },
	{ "btm", "1" },
	{ "htm", "1" },
	{ "iret", "1" },
	{ "iret_modes", "0xe" },
	{ "rephist", "1" },
	{ "seqjump", "1" },
	{ "alljumps", "1" },
	{ "ctx", "1" },
	{ "sync_modes", "0xe" },
	{ "sync_max", "15" },
	{ "sync_mode_default", "1" },
	{ "sync_max_default", "8" },
	{ "nr_filters", "2" },
	{ "nr_comparators", "2" },
	{ "priv_filter", "1" },
	{ "ts_mode", "1" },		/* External: the platform timer */
	{ "ts_width", "48" },
	{ "ts_prescale_max", "3" },
	{ "ts_rate_hz", "10000000" },	/* virt's timebase-frequency */
	{ "icnt_bits", "16" },
	{ "hist_bits", "32" },
	{ "return_depth", "16" },
	{ "return_addr_bits", "16" },
	{ "itype_bits", "4" },
	{ "xlen", "64" },		/* the guest is qemu-system-riscv64 */
	{ "variant", "0" },
};

/*
 * The model's SiFive v0 encoder as the driver reports it: HTM only,
 * implicit return (a call counter) and repeated history only together,
 * message-count sync (teSyncMaxBTM up to 11, 3 after reset), no filters,
 * a 40-bit slave or internal timestamp unit; the widths no v0 register
 * shows are the driver's statement of the model's. te_impl, ts_mode and
 * ts_prescale_max depend on the encoder's sink: test_caps().
 */
static const struct {
	const char *name, *value;
} v0_caps[] = {
	{ "version", "0.0" },
	{ "protocol", "0.0" },
	{ "btm", "0" },
	{ "htm", "1" },
	{ "iret", "1" },
	{ "iret_modes", "0x2" },	/* a call counter */
	{ "rephist", "1" },
	{ "seqjump", "0" },
	{ "alljumps", "0" },
	{ "ctx", "0" },
	{ "sync_modes", "0x2" },	/* messages */
	{ "sync_max", "12" },
	{ "sync_mode_default", "1" },
	{ "sync_max_default", "4" },
	{ "nr_filters", "0" },
	{ "nr_comparators", "0" },
	{ "priv_filter", "0" },
	{ "ts_width", "40" },
	{ "ts_rate_hz", "10000000" },
	{ "icnt_bits", "16" },
	{ "hist_bits", "32" },
	{ "bcnt_bits", "18" },
	{ "return_depth", "0" },	/* the call counter: implied */
	{ "return_addr_bits", "0" },
	{ "itype_bits", "4" },
	{ "xlen", "64" },
	{ "variant", "1" },
};

static void format_string(uint64_t mask, char *buf, size_t size)
{
	int lo = __builtin_ctzll(mask), hi = 63 - __builtin_clzll(mask);

	if (lo == hi)
		snprintf(buf, size, "config:%d", lo);
	else
		snprintf(buf, size, "config:%d-%d", lo, hi);
}

static void test_format(void)
{
	char rel[64], got[64], want[64];
	size_t i;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		snprintf(rel, sizeof(rel), "format/%s", formats[i].name);
		format_string(formats[i].mask, want, sizeof(want));
		if (nt_read_sysfs(rel, got, sizeof(got)) || strcmp(got, want)) {
			printf("# %s: '%s', UAPI says '%s'\n", rel, got, want);
			bad++;
		}
	}
	ksft_test_result(!bad, "format/ matches the UAPI config layout\n");
}

/*
 * The SRC width the driver uses: the CPU number fits (trTeSrcID), no more
 * (the model offers 12 bits). nr_cpu_ids: the last possible CPU + 1.
 */
static unsigned int want_src_bits(void)
{
	/* v0: a fixed SRC of nSrcBits (teImpl), whatever the CPU count */
	if (nt_sifive_v0())
		return (nt_cap("te_impl", 0) & TCI_V0_TE_SRC_BITS_MASK) >> 24;

	char buf[256] = "";
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	unsigned int last, bits = 1;
	char *p;

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	p = buf + strcspn(buf, "\n");
	while (p > buf && p[-1] >= '0' && p[-1] <= '9')
		p--;
	last = strtoul(p, NULL, 10);
	while (bits < 12 && last >> bits)
		bits++;
	return bits;
}

static int cap_is(const char *name, const char *value)
{
	char rel[64], got[64] = "";

	snprintf(rel, sizeof(rel), "caps/%s", name);
	if (!nt_read_sysfs(rel, got, sizeof(got)) && !strcmp(got, value))
		return 0;
	printf("# %s: '%s', the model has '%s'\n", rel, got, value);
	return 1;
}

static void test_caps(void)
{
	char got[64], want[32];
	size_t i;
	long size, impl, nf;
	int bad = 0;
	bool v0 = nt_sifive_v0();

	if (!v0) {
		for (i = 0; i < ARRAY_SIZE(model_caps); i++)
			bad += cap_is(model_caps[i].name, model_caps[i].value);
	} else {
		for (i = 0; i < ARRAY_SIZE(v0_caps); i++)
			bad += cap_is(v0_caps[i].name, v0_caps[i].value);
		/*
		 * teImpl: version 0, a system memory or funnel sink. Behind
		 * a funnel the unit is a slave of the funnel's (tsType 4, no
		 * prescaler); with a sink of its own, internal (tsType 2),
		 * which the driver runs unprescaled (its count is placed on
		 * the time CSR once: caps/ts_zero_cpu<N>).
		 */
		impl = nt_cap("te_impl", 0);
		if ((impl & TCI_V0_IMPL_VERSION_MASK) ||
		    !(impl & (TCI_V0_HAS_SBA_SINK | TCI_V0_HAS_FUNNEL_SINK))) {
			printf("# caps/te_impl %#lx: not a v0 encoder with a sink\n", impl);
			bad++;
		}
		nf = !!(impl & TCI_V0_HAS_FUNNEL_SINK);
		snprintf(want, sizeof(want), "%d", nf ? NTRACE_TS_MODE_SHARED :
			 NTRACE_TS_MODE_INTERNAL_SYSTEM);
		bad += cap_is("ts_mode", want);
		bad += cap_is("ts_prescale_max", "0");
	}
	ksft_test_result(!bad, "caps/ reports the model's features (%s encoder)\n",
			 v0 ? "SiFive v0" : "TCI 1.0");

	ksft_test_result(!nt_read_sysfs("caps/src_bits", got, sizeof(got)) &&
			 strtoul(got, NULL, 10) == want_src_bits(),
			 "caps/src_bits is the narrowest width for every CPU number (%s, want %u)\n",
			 got, want_src_bits());

	size = nt_read_sysfs("caps/buffer_size", got, sizeof(got)) ? 0 :
	       strtol(got, NULL, 0);
	ksft_test_result(size >= 16384 && !(size & (size - 1)),
			 "caps/buffer_size is a power of two >= 16 KiB (%ld)\n",
			 size);
	/* as many as there are filters and comparators (2 at most) */
	nf = nt_cap("nr_filters", 0) < nt_cap("nr_comparators", 0) ?
	     nt_cap("nr_filters", 0) : nt_cap("nr_comparators", 0);
	if (nf > 2)
		nf = 2;
	snprintf(want, sizeof(want), "%ld", nf);
	/* perf makes the file only for a PMU with address filters */
	if (nt_read_sysfs("nr_addr_filters", got, sizeof(got)))
		snprintf(got, sizeof(got), "absent");
	ksft_test_result(nf ? !strcmp(got, want) : !strcmp(got, "absent"),
			 "nr_addr_filters is %s (filters and comparators: %s)\n",
			 nf ? want : "absent (none)", got);
}

static void test_cpumask(void)
{
	char got[64], online[64] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	if (f) {
		if (fgets(online, sizeof(online), f))
			online[strcspn(online, "\n")] = 0;
		fclose(f);
	}
	ksft_test_result(!nt_read_sysfs("cpumask", got, sizeof(got)) &&
			 !strcmp(got, online),
			 "cpumask '%s' is every online hart '%s'\n", got, online);
}

struct bad {
	const char *what;
	uint64_t config, config1;
	int xu, xk;
	int err;
};

static const struct bad bads[] = {
	{ "reserved config bit 9", 1ull << 9, 0, 1, 0, EINVAL },
	{ "reserved config bit 40", 1ull << 40, 0, 1, 0, EINVAL },
	{ "config1 non-zero", 0, 1, 1, 0, EINVAL },
	{ "rephist without htm", NTRACE_CFG_SET(REPHIST, 1), 0, 1, 0, EINVAL },
	{ "iret_mode without iret", NTRACE_CFG_SET(IRET_MODE, 3), 0, 1, 0, EINVAL },
	{ "sync_period 17", NTRACE_CFG_SET(SYNC_PERIOD, 17), 0, 1, 0, EINVAL },
	{ "ts_prescale without ts", NTRACE_CFG_SET(TS_PRESCALE, 1), 0, 1, 0, EINVAL },
	{ "user and kernel excluded", 0, 0, 1, 1, EINVAL },
};

/* Open an event of this task; its fd closed, or -errno. */
static int try_open(int type, uint64_t config, int xu, int xk)
{
	struct perf_event_attr attr;
	int fd;

	nt_attr(&attr, type, config);
	attr.exclude_user = xu;
	attr.exclude_kernel = xk;
	fd = nt_open(&attr, 0, -1);
	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : fd;
}

/* test_absent() run once only to count its results, for the plan */
static bool counting;

static void expect(int got, int err, const char *what)
{
	if (counting)
		return;
	ksft_test_result(got == -err, "%s: %s (got %s)\n", what,
			 err ? strerror(err) : "opens",
			 got ? strerror(-got) : "success");
}

/*
 * Each option caps/ say the encoder lacks, alone: EOPNOTSUPP (1.0's model
 * has them all: none). Returns the number of results it gave.
 */
static int test_absent(int type)
{
	long ps_max = nt_cap("ts_prescale_max", 0);
	long sync_max = nt_cap("sync_max", 15);
	long modes = nt_cap("iret_modes", 0);
	bool filter = nt_priv_filter();
	char what[96];
	int n = 0, m;

	if (!nt_cap("seqjump", 0))
		n++, expect(try_open(type, NTRACE_CFG_SET(SEQJUMP, 1), 0, !filter),
			    EOPNOTSUPP, "seqjump on an encoder without it");
	if (!nt_cap("alljumps", 0))
		n++, expect(try_open(type, NTRACE_CFG_SET(ALLJUMPS, 1), 0, !filter),
			    EOPNOTSUPP, "alljumps on an encoder without it");
	if (!nt_cap("ctx", 0))
		n++, expect(try_open(type, NTRACE_CFG_SET(CTX, 1), 0, !filter),
			    EOPNOTSUPP, "ctx on an encoder without it");
	if (!nt_cap("src_bits", 0))
		n++, expect(try_open(type, NTRACE_CFG_SET(SRC, 1), 0, !filter),
			    EOPNOTSUPP, "src on an encoder without a SRC field");
	if (nt_cap("ts_mode", 0) && ps_max < 3) {
		snprintf(what, sizeof(what), "ts_prescale %ld above caps/ts_prescale_max",
			 ps_max + 1);
		n++, expect(try_open(type, NTRACE_CFG_SET(TS, 1) |
				     NTRACE_CFG_SET(TS_PRESCALE, ps_max + 1), 0, !filter),
			    EOPNOTSUPP, what);
	}
	if (sync_max + 2 <= 16) {
		snprintf(what, sizeof(what), "sync_period %ld above caps/sync_max + 1",
			 sync_max + 2);
		n++, expect(try_open(type, NTRACE_CFG_SET(SYNC_PERIOD, sync_max + 2),
				     0, !filter), EOPNOTSUPP, what);
	}
	for (m = 1; m <= 3 && nt_cap("iret", 0); m++) {
		if (modes & (1 << m))
			continue;
		snprintf(what, sizeof(what), "iret_mode %d, not in caps/iret_modes", m);
		n++, expect(try_open(type, NTRACE_CFG_SET(IRET, 1) |
				     NTRACE_CFG_SET(IRET_MODE, m) |
				     (nt_sifive_v0() ? NTRACE_CFG_SET(REPHIST, 1) : 0),
				     0, !filter), EOPNOTSUPP, what);
	}
	/* user- or kernel-only: the filters must match the privilege level */
	n += 2;
	expect(try_open(type, 0, 0, 1), filter ? 0 : EOPNOTSUPP,
	       filter ? "user-only event (:u)" : "user-only event (:u) without a privilege filter");
	expect(try_open(type, 0, 1, 0), filter ? 0 : EOPNOTSUPP,
	       filter ? "kernel-only event (:k)" : "kernel-only event (:k) without a privilege filter");
	if (nt_sifive_v0()) {
		/* teInstruction 7: implicit return and repeated history together */
		n += 3;
		expect(try_open(type, NTRACE_CFG_SET(IRET, 1), 0, 0), EOPNOTSUPP,
		       "iret without rephist (v0: only together)");
		expect(try_open(type, NTRACE_CFG_SET(HTM, 1) | NTRACE_CFG_SET(REPHIST, 1),
				0, 0), EOPNOTSUPP, "rephist without iret (v0: only together)");
		/* no BTM: htm=0 is HTM, so rephist with htm=0 is no error here */
		expect(try_open(type, NTRACE_CFG_SET(IRET, 1) | NTRACE_CFG_SET(REPHIST, 1),
				0, 0), 0, "iret and rephist with htm=0 (HTM: no BTM)");
	}
	return n;
}

/* Every option caps/ offer, at their largest values, at once. */
static uint64_t all_options(void)
{
	long modes = nt_cap("iret_modes", 0), sync = nt_cap("sync_modes", 0);
	long sync_max = nt_cap("sync_max", 0);
	uint64_t c = 0;

	if (nt_cap("htm", 0))
		c |= NTRACE_CFG_SET(HTM, 1);
	if (nt_cap("iret", 0))
		c |= NTRACE_CFG_SET(IRET, 1) |
		     NTRACE_CFG_SET(IRET_MODE, modes ? 63 - __builtin_clzll(modes) : 0);
	if (nt_cap("rephist", 0) && nt_cap("htm", 0))
		c |= NTRACE_CFG_SET(REPHIST, 1);
	if (nt_cap("seqjump", 0))
		c |= NTRACE_CFG_SET(SEQJUMP, 1);
	if (nt_cap("alljumps", 0))
		c |= NTRACE_CFG_SET(ALLJUMPS, 1);
	if (nt_cap("ts_mode", 0))
		c |= NTRACE_CFG_SET(TS, 1) |
		     NTRACE_CFG_SET(TS_PRESCALE, nt_cap("ts_prescale_max", 0));
	if (nt_cap("ctx", 0))
		c |= NTRACE_CFG_SET(CTX, 1);
	if (sync)
		c |= NTRACE_CFG_SET(SYNC, 63 - __builtin_clzll(sync));
	if (sync_max)
		c |= NTRACE_CFG_SET(SYNC_PERIOD, sync_max + 1 > 16 ? 16 : sync_max + 1);
	if (nt_cap("src_bits", 0))
		c |= NTRACE_CFG_SET(SRC, 1);
	return c;
}

static void test_errno(int type)
{
	struct perf_event_attr attr;
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(bads); i++) {
		/*
		 * Without BTM (v0) htm=0 means HTM: "rephist without htm"
		 * is no such thing there (test_absent() checks rephist).
		 */
		if (bads[i].config == NTRACE_CFG_SET(REPHIST, 1) &&
		    !nt_cap("btm", 0)) {
			fd = try_open(type, NTRACE_CFG_SET(REPHIST, 1), 0, 0);
			ksft_test_result(fd == -EOPNOTSUPP,
					 "rephist alone with htm=0 on an encoder without BTM: not EINVAL but EOPNOTSUPP (rephist needs iret there; got %s)\n",
					 fd ? strerror(-fd) : "success");
			continue;
		}
		nt_attr(&attr, type, bads[i].config);
		attr.config1 = bads[i].config1;
		attr.exclude_user = bads[i].xu && bads[i].xk;
		attr.exclude_kernel = bads[i].xk || !bads[i].xu;
		fd = nt_open(&attr, 0, -1);
		if (fd >= 0)
			close(fd);
		ksft_test_result(fd == -bads[i].err, "%s: %s (got %s)\n",
				 bads[i].what, strerror(bads[i].err),
				 fd >= 0 ? "success" : strerror(-fd));
	}

	nt_attr(&attr, type, all_options());
	fd = nt_open(&attr, 0, -1);
	if (fd >= 0)
		close(fd);
	ksft_test_result(fd >= 0, "every option caps/ offer at once opens (config %#llx: %s)\n",
			 (unsigned long long)attr.config,
			 fd >= 0 ? "ok" : strerror(-fd));

	nt_attr(&attr, type, 0);
	attr.exclude_kernel = 0;
	fd = nt_open(&attr, -1, 0);
	if (fd >= 0)
		close(fd);
	ksft_test_result(fd >= 0, "per-CPU event on cpu 0 with kernel trace opens (%s)\n",
			 fd >= 0 ? "ok" : strerror(-fd));
}

static int set_filter(int type, const char *filter)
{
	struct perf_event_attr attr;
	int fd, ret;

	nt_attr(&attr, type, 0);
	fd = nt_open(&attr, 0, -1);
	if (fd < 0)
		return fd;
	ret = ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) ? -errno : 0;
	close(fd);
	return ret;
}

static void test_filters(int type)
{
	char exe[PATH_MAX], f[3 * PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int ret;

	if (n <= 0) {
		ksft_test_result_skip("address filters: no /proc/self/exe\n");
		ksft_test_result_skip("address filters: no /proc/self/exe\n");
		ksft_test_result_skip("address filters: no /proc/self/exe\n");
		return;
	}
	exe[n] = 0;
	if (!nt_cap("nr_filters", 0) || !nt_cap("nr_comparators", 0)) {
		/*
		 * No TCI filters (SiFive v0): the PMU has no address filters
		 * and perf refuses every filter string with EINVAL.
		 */
		snprintf(f, sizeof(f), "filter 0x1000/0x100@%s", exe);
		ret = set_filter(type, f);
		ksft_test_result(ret == -EINVAL,
				 "no filters: an address range filter is refused: EINVAL (got %s)\n",
				 ret ? strerror(-ret) : "success");
		snprintf(f, sizeof(f), "filter 0x1000/0x100@%s,filter 0x2000/0x80@%s",
			 exe, exe);
		ret = set_filter(type, f);
		ksft_test_result(ret == -EINVAL,
				 "no filters: two address range filters refused: EINVAL (got %s)\n",
				 ret ? strerror(-ret) : "success");
		snprintf(f, sizeof(f), "start 0x1000@%s", exe);
		ret = set_filter(type, f);
		ksft_test_result(ret == -EINVAL,
				 "no filters: start/stop filter refused: EINVAL (got %s)\n",
				 ret ? strerror(-ret) : "success");
		return;
	}
	snprintf(f, sizeof(f), "filter 0x1000/0x100@%s,filter 0x2000/0x80@%s",
		 exe, exe);
	ret = set_filter(type, f);
	ksft_test_result(!ret, "two address range filters accepted (%s)\n",
			 ret ? strerror(-ret) : "ok");
	snprintf(f, sizeof(f),
		 "filter 0x1000/0x100@%s,filter 0x2000/0x80@%s,filter 0x3000/0x10@%s",
		 exe, exe, exe);
	ret = set_filter(type, f);
	ksft_test_result(ret == -EOPNOTSUPP,
			 "three address range filters: EOPNOTSUPP (got %s)\n",
			 ret ? strerror(-ret) : "success");
	snprintf(f, sizeof(f), "start 0x1000@%s", exe);
	ret = set_filter(type, f);
	ksft_test_result(ret == -EOPNOTSUPP,
			 "start/stop filter: EOPNOTSUPP (got %s)\n",
			 ret ? strerror(-ret) : "success");
}

int main(void)
{
	int type = nt_pmu_type(), n;

	ksft_print_header();
	if (type < 0)
		ksft_exit_skip("no ntrace PMU (no N-Trace components in this machine)\n");
	counting = true;
	n = test_absent(type);
	counting = false;
	ksft_set_plan(7 + ARRAY_SIZE(bads) + 2 + n + 3);
	ksft_test_result(type > 0, "PMU registered with type %d\n", type);
	test_format();
	test_caps();
	test_cpumask();
	test_errno(type);
	test_absent(type);
	test_filters(type);
	ksft_finished();
}
