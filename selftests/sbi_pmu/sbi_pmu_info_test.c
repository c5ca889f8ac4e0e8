// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checks /sys/firmware/sbi_pmu (sbi_pmu_info.ko) against what the kernel
 * learned from the same firmware on its own at boot (the SBI and
 * riscv-pmu-sbi lines in the kernel log), against the values measured on
 * QEMU virt + OpenSBI 1.5, and checks that perf's cycles event keeps
 * counting while the module is loaded, after it is unloaded and after it
 * is loaded again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kmod.h"
#include "kmsg.h"
#include "kselftest.h"

#define MODNAME		"sbi_pmu_info"
#define SYSDIR		"/sys/firmware/sbi_pmu"
#define MAX_CTRS	1024

/* What sysfs shows, read in one go so it can be compared after a reload. */
struct view {
	unsigned int major, minor;
	unsigned long impl_id, impl_version;
	unsigned int num, hw, fw;
	char impl_name[64], snapshot[32], event_info[32];
	/* per counter: 0 absent, 1 hardware, 2 firmware */
	unsigned char type[MAX_CTRS];
	unsigned int csr[MAX_CTRS], width[MAX_CTRS];
	unsigned long info[MAX_CTRS];
};

static struct view first;

static int read_str(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int read_ul(const char *path, unsigned long *val)
{
	char buf[64], *end;
	int err = read_str(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*val = strtoul(buf, &end, 0);
	return (errno || end == buf || *end) ? -EINVAL : 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Reads the whole sysfs view; returns NULL on success, else what failed. */
static const char *read_view(struct view *v)
{
	static char why[256];
	unsigned long a, b, val;
	char path[256], buf[64];
	struct dirent *de;
	unsigned int idx;
	DIR *d;

	memset(v, 0, sizeof(*v));
	if (read_str(SYSDIR "/sbi_spec_version", buf, sizeof(buf)) ||
	    sscanf(buf, "%lu.%lu", &a, &b) != 2)
		return "sbi_spec_version missing or not MAJOR.MINOR";
	v->major = a;
	v->minor = b;
	if (read_ul(SYSDIR "/impl_id", &v->impl_id) ||
	    read_ul(SYSDIR "/impl_version", &v->impl_version))
		return "impl_id/impl_version missing or not a number";
	if (read_str(SYSDIR "/impl_name", v->impl_name, sizeof(v->impl_name)) ||
	    read_str(SYSDIR "/snapshot", v->snapshot, sizeof(v->snapshot)) ||
	    read_str(SYSDIR "/event_info", v->event_info, sizeof(v->event_info)))
		return "impl_name/snapshot/event_info missing";
	if (read_ul(SYSDIR "/num_counters", &a) || a > MAX_CTRS)
		return "num_counters missing or out of range";
	v->num = a;
	if (read_ul(SYSDIR "/num_hw_counters", &a) ||
	    read_ul(SYSDIR "/num_fw_counters", &b))
		return "num_hw_counters/num_fw_counters missing";
	v->hw = a;
	v->fw = b;

	d = opendir(SYSDIR "/counters");
	if (!d)
		return "counters/ missing";
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (sscanf(de->d_name, "%u", &idx) != 1 || idx >= v->num) {
			snprintf(why, sizeof(why), "counters/%.64s: not an index below num_counters",
				 de->d_name);
			closedir(d);
			return why;
		}
		snprintf(path, sizeof(path), SYSDIR "/counters/%u/type", idx);
		if (read_str(path, buf, sizeof(buf)))
			goto bad;
		v->type[idx] = !strcmp(buf, "hardware") ? 1 :
			       !strcmp(buf, "firmware") ? 2 : 0;
		if (!v->type[idx])
			goto bad;
		snprintf(path, sizeof(path), SYSDIR "/counters/%u/info", idx);
		if (read_ul(path, &v->info[idx]))
			goto bad;
		snprintf(path, sizeof(path), SYSDIR "/counters/%u/csr", idx);
		if (v->type[idx] == 1) {
			if (read_ul(path, &val))
				goto bad;
			v->csr[idx] = val;
			snprintf(path, sizeof(path), SYSDIR "/counters/%u/width", idx);
			if (read_ul(path, &val))
				goto bad;
			v->width[idx] = val;
		} else if (exists(path)) {
			goto bad;	/* firmware counters have no CSR */
		}
	}
	closedir(d);
	return NULL;
bad:
	snprintf(why, sizeof(why), "counters/%u has bad or missing files", idx);
	closedir(d);
	return why;
}

/* --- the kernel log: what the kernel itself found at boot --- */

static char *klog;

static void load_klog(void)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */

	if (size <= 0)
		return;
	klog = calloc(1, size + 1);
	if (klog && klogctl(3, klog, size) < 0) {	/* READ_ALL */
		free(klog);
		klog = NULL;
	}
}

/* Finds a log line holding @key followed by two items of @fmt; 2 if found. */
static int klog_scan(const char *key, const char *fmt, void *a, void *b)
{
	const char *p = klog;

	while (p && (p = strstr(p, key))) {
		p += strlen(key);
		if (sscanf(p, fmt, a, b) == 2)
			return 2;
	}
	return -1;
}

/* --- tests --- */

static void test_counters_consistent(const struct view *v)
{
	unsigned int i, hw = 0, fw = 0;
	bool ok = true;

	for (i = 0; i < v->num; i++) {
		struct stat st;
		char path[128];

		hw += v->type[i] == 1;
		fw += v->type[i] == 2;
		if (!v->type[i])
			continue;
		/* Top bit of the XLEN word is the type (SBI counter_info). */
		if (!!(v->info[i] >> 63) != (v->type[i] == 2)) {
			ksft_print_msg("counter %u: type does not match info 0x%lx\n",
				       i, v->info[i]);
			ok = false;
		}
		snprintf(path, sizeof(path), SYSDIR "/counters/%u/type", i);
		if (stat(path, &st) || (st.st_mode & 0222)) {
			ksft_print_msg("%s: missing or writable\n", path);
			ok = false;
		}
	}
	if (hw != v->hw || fw != v->fw) {
		ksft_print_msg("counters/: %u hardware, %u firmware; files say %u, %u\n",
			       hw, fw, v->hw, v->fw);
		ok = false;
	}
	if (v->hw + v->fw > v->num)
		ok = false;
	ksft_test_result(ok, "counters/ agree with num_hw_counters, num_fw_counters and info\n");
}

static void test_hw_csr_width(const struct view *v)
{
	bool seen[32] = { false }, ok = true;
	unsigned int i, n = 0;

	for (i = 0; i < v->num; i++) {
		unsigned int csr = v->csr[i], w = v->width[i];

		if (v->type[i] != 1)
			continue;
		n++;
		/* RV64: S-mode reads hardware counters through cycle..hpmcounter31. */
		if (csr < 0xc00 || csr > 0xc1f || seen[csr - 0xc00]) {
			ksft_print_msg("counter %u: CSR 0x%x not a unique counter CSR\n", i, csr);
			ok = false;
			continue;
		}
		seen[csr - 0xc00] = true;
		if (csr == 0xc01) {
			ksft_print_msg("counter %u: time is not a PMU counter\n", i);
			ok = false;
		}
		/* The privileged spec fixes cycle and instret at 64 bits. */
		if ((csr == 0xc00 || csr == 0xc02) ? w != 64 : (w < 1 || w > 64)) {
			ksft_print_msg("counter %u: CSR 0x%x width %u\n", i, csr, w);
			ok = false;
		}
		/* The info word must decode to what csr and width say. */
		if ((v->info[i] & 0xfff) != csr || ((v->info[i] >> 12) & 0x3f) + 1 != w) {
			ksft_print_msg("counter %u: info 0x%lx vs csr 0x%x width %u\n",
				       i, v->info[i], csr, w);
			ok = false;
		}
	}
	ksft_test_result(ok && n, "hardware counters: unique counter CSRs, widths fit the CSR kind\n");
}

static void test_spec_version_vs_klog(const struct view *v)
{
	unsigned long ma, mi;

	if (klog_scan("SBI specification v", "%lu.%lu", &ma, &mi) != 2) {
		ksft_test_result_skip("SBI version: boot line no longer in the kernel log\n");
		return;
	}
	ksft_test_result(ma == v->major && mi == v->minor,
			 "sbi_spec_version %u.%u matches the kernel's boot probe %lu.%lu\n",
			 v->major, v->minor, ma, mi);
}

static void test_impl_vs_klog(const struct view *v)
{
	unsigned long id, ver;

	if (klog_scan("SBI implementation ID=", "%lx Version=%lx", &id, &ver) != 2) {
		ksft_test_result_skip("SBI implementation: boot line no longer in the kernel log\n");
		return;
	}
	ksft_test_result(id == v->impl_id && ver == v->impl_version,
			 "impl_id/impl_version 0x%lx/0x%lx match the boot log 0x%lx/0x%lx\n",
			 v->impl_id, v->impl_version, id, ver);
}

static void test_counts_vs_driver(const struct view *v)
{
	unsigned int fw, hw;

	if (klog_scan("riscv-pmu-sbi: ", "%u firmware and %u hardware", &fw, &hw) != 2) {
		ksft_test_result_skip("counter counts: riscv-pmu-sbi line not in the kernel log\n");
		return;
	}
	ksft_test_result(fw == v->fw && hw == v->hw,
			 "%u hardware + %u firmware counters, as riscv-pmu-sbi counted at boot (%u + %u)\n",
			 v->hw, v->fw, hw, fw);
}

static void test_snapshot(const struct view *v)
{
	bool driver_has = klog && strstr(klog, "riscv-pmu-sbi: SBI PMU snapshot detected");
	const char *want;

	if (v->major < 2)
		want = "not_probed";
	else if (driver_has)
		want = "supported";
	else if (klog && strstr(klog, "riscv-pmu-sbi: SBI PMU extension is available"))
		/* The driver tried on SBI >= 2.0 and the firmware refused. */
		want = "not_supported";
	else
		want = NULL;
	if (!want) {
		ksft_test_result_skip("snapshot: riscv-pmu-sbi boot lines not in the kernel log\n");
		return;
	}
	ksft_test_result(!strcmp(v->snapshot, want),
			 "snapshot '%s' agrees with riscv-pmu-sbi's own setup ('%s')\n",
			 v->snapshot, want);
}

static void test_event_info(const struct view *v)
{
	bool sup = !strcmp(v->event_info, "supported");
	bool valid = sup || !strcmp(v->event_info, "not_supported") ||
		     !strcmp(v->event_info, "error");

	ksft_test_result(valid && sup == exists(SYSDIR "/events"),
			 "event_info '%s', events/ present only when supported\n",
			 v->event_info);
}

/*
 * Measured on QEMU 10.0.2 (-M virt -cpu rv64,sscofpmf=true) with its
 * OpenSBI 1.5.1: 35 counter indices; 0 = cycle, 1 (time) rejected, 2..18 =
 * instret and hpmcounter3..18, all 64 bits; 19..34 firmware counters.
 */
static void test_known_qemu_opensbi(const struct view *v)
{
	char model[64] = "";
	bool ok = true;
	unsigned int i;

	read_str("/sys/firmware/devicetree/base/model", model, sizeof(model));
	if (strcmp(model, "riscv-virtio,qemu") || v->impl_id != 1 ||
	    v->impl_version != 0x10005) {
		ksft_test_result_skip("known values: not QEMU virt with OpenSBI 1.5 (%s, id %lu, version 0x%lx)\n",
				      model, v->impl_id, v->impl_version);
		return;
	}
	ok = v->major == 2 && v->minor == 0 && v->num == 35 && v->hw == 18 &&
	     v->fw == 16 && !strcmp(v->impl_name, "OpenSBI") &&
	     !strcmp(v->snapshot, "not_supported") &&
	     !strcmp(v->event_info, "not_supported");
	for (i = 0; i < 35 && ok; i++) {
		if (i == 1)
			ok = !v->type[i];
		else if (i <= 18)
			ok = v->type[i] == 1 && v->csr[i] == 0xc00 + i &&
			     v->width[i] == 64;
		else
			ok = v->type[i] == 2;
		if (!ok)
			ksft_print_msg("counter %u differs from the measured layout\n", i);
	}
	ksft_test_result(ok, "QEMU virt + OpenSBI 1.5.1: SBI 2.0, 18 hw (cycle, instret, hpm3-18, 64 bit) + 16 fw counters, no snapshot, no event_info\n");
}

static void test_same_view(const struct view *v)
{
	ksft_test_result(v->num == first.num && v->hw == first.hw &&
			 v->fw == first.fw && !memcmp(v->type, first.type, sizeof(v->type)) &&
			 !memcmp(v->csr, first.csr, sizeof(v->csr)) &&
			 !memcmp(v->info, first.info, sizeof(v->info)) &&
			 !strcmp(v->snapshot, first.snapshot),
			 "reloaded module shows the same counters\n");
}

/* --- perf cycles --- */

static void spin(unsigned long n)
{
	volatile unsigned long x = 0;

	while (n--)
		x += n;
}

static void test_perf_cycles(const char *when)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	struct { uint64_t val, running; } a, b;
	int fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	bool ok;

	if (fd < 0) {
		ksft_test_result_fail("perf cycles %s: perf_event_open: %s\n",
				      when, strerror(errno));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin(200000);
	ok = read(fd, &a, sizeof(a)) == sizeof(a);
	spin(2000000);
	ok = ok && read(fd, &b, sizeof(b)) == sizeof(b);
	close(fd);
	ok = ok && a.val > 0 && a.running > 0 && b.val > a.val;
	ksft_test_result(ok, "perf cycles %s: %llu then %llu\n", when,
			 (unsigned long long)a.val, (unsigned long long)b.val);
}

int main(void)
{
	bool was_loaded = kmod_is_loaded(MODNAME);
	static struct view again;
	int err, kmsg, splats;
	const char *why;

	ksft_print_header();
	kmsg = kmsg_open();
	if (!was_loaded) {
		err = kmod_load(MODNAME, "");
		if (err == -ENOENT)
			ksft_exit_skip("%s/%s.ko not found\n", KMOD_DIR, MODNAME);
		if (err)
			ksft_exit_fail_msg("loading %s: %s\n", MODNAME, strerror(-err));
	}
	ksft_set_plan(16);
	load_klog();

	why = read_view(&first);
	ksft_test_result(!why, "sysfs view readable%s%s\n", why ? ": " : "", why ?: "");
	test_counters_consistent(&first);
	test_hw_csr_width(&first);
	test_spec_version_vs_klog(&first);
	test_impl_vs_klog(&first);
	test_counts_vs_driver(&first);
	test_snapshot(&first);
	test_event_info(&first);
	test_known_qemu_opensbi(&first);
	test_perf_cycles("with the module loaded");

	err = kmod_load(MODNAME, "");
	ksft_test_result(err == -EEXIST, "second load refused with EEXIST (%s)\n",
			 strerror(-err));

	err = kmod_unload(MODNAME);
	ksft_test_result(!err && !exists(SYSDIR), "unload removes %s (%s)\n",
			 SYSDIR, strerror(-err));
	test_perf_cycles("after unload");

	err = kmod_load(MODNAME, "");
	ksft_test_result(!err && !read_view(&again), "reload: %s\n",
			 strerror(-err));
	test_same_view(&again);

	if (!was_loaded)
		kmod_unload(MODNAME);

	splats = kmsg < 0 ? kmsg : kmsg_count_splats(kmsg);
	if (splats < 0)
		ksft_test_result_skip("kernel log: /dev/kmsg: %s\n", strerror(-splats));
	else
		ksft_test_result(!splats, "no kernel warnings while loading and unloading (%d)\n",
				 splats);
	free(klog);
	ksft_finished();
}
