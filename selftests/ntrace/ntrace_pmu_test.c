// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "ntrace" PMU as user space sees it: format/ matches the bit layout
 * of include/uapi/linux/ntrace.h, caps/ reports what the QEMU N-Trace model
 * implements (Documentation/trace/ntrace-qemu-model.rst, register map),
 * cpumask covers the online harts, and bad configurations are refused
 * with the documented errno. Skips when the PMU is absent (no trace
 * components in this boot configuration).
 */
#include <errno.h>
#include <limits.h>
#include <linux/ntrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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

static void test_caps(void)
{
	char rel[64], got[64];
	size_t i;
	long size;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(model_caps); i++) {
		snprintf(rel, sizeof(rel), "caps/%s", model_caps[i].name);
		if (nt_read_sysfs(rel, got, sizeof(got)) ||
		    strcmp(got, model_caps[i].value)) {
			printf("# %s: '%s', the model has '%s'\n", rel, got,
			       model_caps[i].value);
			bad++;
		}
	}
	ksft_test_result(!bad, "caps/ reports the model's features\n");

	ksft_test_result(!nt_read_sysfs("caps/src_bits", got, sizeof(got)) &&
			 strtoul(got, NULL, 10) == want_src_bits(),
			 "caps/src_bits is the narrowest width for every CPU number (%s, want %u)\n",
			 got, want_src_bits());

	size = nt_read_sysfs("caps/buffer_size", got, sizeof(got)) ? 0 :
	       strtol(got, NULL, 0);
	ksft_test_result(size >= 16384 && !(size & (size - 1)),
			 "caps/buffer_size is a power of two >= 16 KiB (%ld)\n",
			 size);
	ksft_test_result(!nt_read_sysfs("nr_addr_filters", got, sizeof(got)) &&
			 !strcmp(got, "2"),
			 "nr_addr_filters is 2 (two filters and comparators)\n");
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

static void test_errno(int type)
{
	struct perf_event_attr attr;
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(bads); i++) {
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

	nt_attr(&attr, type, NTRACE_CFG_SET(HTM, 1) | NTRACE_CFG_SET(IRET, 1) |
		NTRACE_CFG_SET(IRET_MODE, 2) | NTRACE_CFG_SET(REPHIST, 1) |
		NTRACE_CFG_SET(SEQJUMP, 1) | NTRACE_CFG_SET(ALLJUMPS, 1) |
		NTRACE_CFG_SET(TS, 1) | NTRACE_CFG_SET(TS_PRESCALE, 3) |
		NTRACE_CFG_SET(CTX, 1) | NTRACE_CFG_SET(SYNC, 2) |
		NTRACE_CFG_SET(SYNC_PERIOD, 16) | NTRACE_CFG_SET(SRC, 1));
	fd = nt_open(&attr, 0, -1);
	if (fd >= 0)
		close(fd);
	ksft_test_result(fd >= 0, "every option at once opens (%s)\n",
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
	int type = nt_pmu_type();

	ksft_print_header();
	if (type < 0)
		ksft_exit_skip("no ntrace PMU (no N-Trace components in this machine)\n");
	ksft_set_plan(7 + ARRAY_SIZE(bads) + 2 + 3);
	ksft_test_result(type > 0, "PMU registered with type %d\n", type);
	test_format();
	test_caps();
	test_cpumask();
	test_errno(type);
	test_filters(type);
	ksft_finished();
}
