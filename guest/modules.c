// SPDX-License-Identifier: GPL-2.0-only
/* Module loading for the guest init (see modules.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "console.h"
#include "kmod.h"
#include "kmsg_relay.h"
#include "modules.h"
#include "selftests.h"

#define MAX_MODULES 128

struct module_file {
	char file[256];	/* basename, e.g. foo_kunit.ko */
	char name[256];	/* module name, e.g. foo_kunit */
	int loaded;
	int err;	/* errno of the last failed attempt */
};

static int is_kunit(const char *file)
{
	size_t n = strlen(file);

	return n > 9 && !strcmp(file + n - 9, "_kunit.ko");
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct module_file *)a)->file,
		      ((const struct module_file *)b)->file);
}

/* Sorted list of the *.ko files whose KUnit-ness equals @kunit. */
static int list_modules(struct module_file *mods, int kunit)
{
	DIR *d = opendir(MODULE_DIR);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < MAX_MODULES) {
		size_t len = strlen(de->d_name);

		if (len < 4 || len >= sizeof(mods[n].file) ||
		    strcmp(de->d_name + len - 3, ".ko") ||
		    is_kunit(de->d_name) != kunit)
			continue;
		memset(&mods[n], 0, sizeof(mods[n]));
		strcpy(mods[n].file, de->d_name);
		memcpy(mods[n].name, de->d_name, len - 3);
		for (char *p = mods[n].name; *p; p++)
			if (*p == '-')
				*p = '_';
		n++;
	}
	closedir(d);
	qsort(mods, n, sizeof(*mods), cmp_file);
	return n;
}

static int load_one(struct module_file *m)
{
	char path[512], params[4096];
	int fd, ret;

	/* "ntrace.sram=1" on the command line, as modprobe would pass it */
	ret = kmod_cmdline_params(m->name, params, sizeof(params));
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s", MODULE_DIR, m->file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

int load_driver_modules(void)
{
	static struct module_file mods[MAX_MODULES];
	int n = list_modules(mods, 0);
	int left = n, progress = 1, failures = 0;

	marker("modules begin count=%d", n);
	/* A module whose dependencies are not loaded yet fails with ENOENT
	 * (unknown symbol); retry until a round loads nothing new.
	 */
	while (left && progress) {
		progress = 0;
		for (int i = 0; i < n; i++) {
			int ret;

			if (mods[i].loaded)
				continue;
			ret = load_one(&mods[i]);
			if (ret == 0 || ret == -EEXIST) {
				mods[i].loaded = 1;
				progress = 1;
				left--;
				marker("modload %s ok", mods[i].name);
			} else {
				mods[i].err = -ret;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		if (mods[i].loaded)
			continue;
		/* A driver whose hardware this boot lacks refuses with ENODEV. */
		if (mods[i].err == ENODEV) {
			marker("modload %s absent %s", mods[i].name, strerror(mods[i].err));
			continue;
		}
		marker("modload %s fail %s", mods[i].name, strerror(mods[i].err));
		failures++;
	}
	kmsg_relay_sync();
	marker("modules end failures=%d", failures);
	return failures;
}

int run_kunit_modules(const char *filter)
{
	static struct module_file mods[MAX_MODULES];
	int n = list_modules(mods, 1), failures = 0;

	for (int i = 0; i < n; i++) {
		int ret;

		if (!name_matches(mods[i].name, filter))
			continue;

		marker("kunit begin %s", mods[i].name);
		/* KUnit runs the module's suites while the module loads. */
		ret = load_one(&mods[i]);
		kmsg_relay_sync();
		if (ret) {
			marker("modload %s fail %s", mods[i].name, strerror(-ret));
			failures++;
		} else if (syscall(SYS_delete_module, mods[i].name, O_NONBLOCK)) {
			marker("modunload %s fail %s", mods[i].name, strerror(errno));
			failures++;
		}
		marker("kunit end %s", mods[i].name);
	}
	return failures;
}
