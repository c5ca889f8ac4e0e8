// SPDX-License-Identifier: GPL-2.0-only
/*
 * /init of the ntrace test guest (static; no shell exists in the image).
 *
 * Kernel command line (read from /proc/cmdline; the "ntguest." prefix is a
 * module name no module uses, so the kernel ignores these):
 *   ntguest.mode=test|demo|run  test (default): load modules, run the KUnit
 *                            modules, run the kselftests; demo: load modules,
 *                            print what they discovered and run RUNLIST_PATH
 *                            if there is one; run: load
 *                            modules and run the commands of RUNLIST_PATH
 *                            (runlist.h)
 *   ntguest.timeout=SECONDS  per-kselftest timeout (default 300)
 *   ntguest.filter=A,B       run only the KUnit modules and kselftests whose
 *                            name contains A or B
 *
 * Console protocol: see console.h. The run ends with the marker
 * "ntrace| end mode=M failures=N", then the guest powers off. Before that,
 * what was written under EXPORT_DIR goes to the export disk, if one is
 * attached (export.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "console.h"
#include "demo.h"
#include "export.h"
#include "kmsg_relay.h"
#include "modules.h"
#include "runlist.h"
#include "selftests.h"

static char cmdline[4096];

static void do_mount(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		marker("error mount %s on %s: %s", type, dir, strerror(errno));
}

/* Value of "ntguest.<key>=" on the command line, or @def. */
static const char *param(const char *key, const char *def)
{
	static char val[8][256];
	static int slot;
	char pat[64], *p;
	size_t n;

	snprintf(pat, sizeof(pat), "ntguest.%s=", key);
	for (p = strstr(cmdline, pat); p; p = strstr(p + 1, pat)) {
		if (p != cmdline && p[-1] != ' ')
			continue;
		p += strlen(pat);
		n = strcspn(p, " \n");
		if (n >= sizeof(val[0]))
			n = sizeof(val[0]) - 1;
		slot = (slot + 1) % 8;
		memcpy(val[slot], p, n);
		val[slot][n] = '\0';
		return val[slot];
	}
	return def;
}

static void read_cmdline(void)
{
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return;
	if (!fgets(cmdline, sizeof(cmdline), f))
		cmdline[0] = '\0';
	fclose(f);
}

static void __attribute__((noreturn)) power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	/* Not reached on a working SBI SRST; never return from PID 1. */
	for (;;)
		pause();
}

int main(void)
{
	const char *mode;
	struct utsname uts;
	int failures = 0, ret;

	setvbuf(stdout, NULL, _IONBF, 0);
	do_mount("proc", "/proc", "proc");
	do_mount("sysfs", "/sys", "sysfs");
	do_mount("devtmpfs", "/dev", "devtmpfs");
	do_mount("debugfs", "/sys/kernel/debug", "debugfs");
	do_mount("tmpfs", "/tmp", "tmpfs");
	export_prepare();
	read_cmdline();
	mode = param("mode", "test");
	uname(&uts);
	marker("begin mode=%s kernel=%s cpus=%ld", mode, uts.release,
	       sysconf(_SC_NPROCESSORS_ONLN));
	ret = kmsg_relay_start();
	if (ret) {
		marker("error kmsg relay: %s", strerror(-ret));
		failures++;
	}
	kmsg_relay_sync();

	if (!strcmp(mode, "test")) {
		failures += load_driver_modules();
		failures += run_kunit_modules(param("filter", NULL));
		failures += run_selftests(param("filter", NULL),
					  atoi(param("timeout", "300")));
	} else if (!strcmp(mode, "demo")) {
		failures += load_driver_modules();
		demo_report();
		/* the demo's recordings, when scripts/demo.sh packed some */
		if (!access(RUNLIST_PATH, R_OK))
			failures += run_list(RUNLIST_PATH, atoi(param("timeout", "300")));
	} else if (!strcmp(mode, "run")) {
		failures += load_driver_modules();
		failures += run_list(RUNLIST_PATH, atoi(param("timeout", "300")));
	} else {
		marker("error unknown ntguest.mode=%s (test, demo or run)", mode);
		failures++;
	}

	failures += export_pack();
	kmsg_relay_sync();
	marker("end mode=%s failures=%d", mode, failures);
	power_off();
}
