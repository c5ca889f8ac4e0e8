// SPDX-License-Identifier: GPL-2.0-only
/*
 * The system around the events for the kernel-interface fuzzer: the PMUs,
 * the trace components' driver binding, the module and its writable
 * parameters (see fuzz.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "kmod.h"
#include "sysfs.h"

#define PMU_DIR "/sys/bus/event_source/devices/"
#define DRV_DIR "/sys/bus/platform/drivers/"

static int pmu_type(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), PMU_DIR "%s/type", name);
	return sysfs_read_line(path, buf, sizeof(buf)) ? -1 : atoi(buf);
}

int fz_pmus_probe(struct fz_pmus *p)
{
	p->ntrace = pmu_type("ntrace");
	p->cpu = pmu_type("cpu");
	p->ctr = kmod_is_loaded("riscv_ctr");
	p->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	return p->ntrace < 0 ? -ENODEV : 0;
}

int fz_components(struct fz_component *c, int max)
{
	static const char *const drvs[] = {
		"ntrace-encoder", "ntrace-ramsink", "ntrace-funnel",
	};
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(drvs); i++) {
		char dir[128];
		struct dirent *de;
		DIR *d;

		snprintf(dir, sizeof(dir), DRV_DIR "%s", drvs[i]);
		d = opendir(dir);
		if (!d)
			continue;
		/* the device links are the entries with a '.' or '@' in them */
		while ((de = readdir(d)) && n < max) {
			if (de->d_type != DT_LNK || !strpbrk(de->d_name, ".@") ||
			    strlen(de->d_name) >= sizeof(c[n].dev))
				continue;
			snprintf(c[n].drv, sizeof(c[n].drv), "%s", drvs[i]);
			snprintf(c[n].dev, sizeof(c[n].dev), "%s", de->d_name);
			c[n++].unbound = false;
		}
		closedir(d);
	}
	return n;
}

int fz_component_bind(struct fz_component *c, bool bind)
{
	char path[128];
	int err;

	snprintf(path, sizeof(path), DRV_DIR "%s/%s", c->drv,
		 bind ? "bind" : "unbind");
	err = sysfs_write(path, c->dev);
	if (!err)
		c->unbound = !bind;
	return err;
}

int fz_param_write(const char *name, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/ntrace/parameters/%s", name);
	return sysfs_write(path, value);
}

int fz_param_read(const char *name, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/ntrace/parameters/%s", name);
	return sysfs_read_line(path, buf, size);
}

int fz_module_reload(const char *name, int *unload_err)
{
	int err = -EBUSY;

	/* a closed event lets go of the module once its last user is gone */
	for (int i = 0; i < 200 && kmod_is_loaded(name); i++) {
		err = kmod_unload(name);
		if (!err || (err != -EBUSY && err != -EWOULDBLOCK && err != -EAGAIN))
			break;
		usleep(10000);
	}
	*unload_err = kmod_is_loaded(name) ? err : 0;
	if (*unload_err)
		return *unload_err;
	return kmod_load(name, NULL);
}
