// SPDX-License-Identifier: GPL-2.0-only
/* Module load/unload helpers for kselftests (see kmod.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kmod.h"

static void normalize(char *name)
{
	for (; *name; name++)
		if (*name == '-')
			*name = '_';
}

/* The file may use '-' where the module name has '_': try both. */
static int open_module(const char *name)
{
	char path[512], alt[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.ko", KMOD_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	snprintf(alt, sizeof(alt), "%s", name);
	for (char *p = alt; *p; p++)
		if (*p == '_')
			*p = '-';
	snprintf(path, sizeof(path), "%s/%s.ko", KMOD_DIR, alt);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : -ENOENT;
}

int kmod_cmdline_params(const char *name, char *buf, size_t size)
{
	char line[4096], mod[256], *w, *save;
	size_t len = 0, n;
	FILE *f;

	buf[0] = '\0';
	snprintf(mod, sizeof(mod), "%s", name);
	normalize(mod);
	n = strlen(mod);
	f = fopen("/proc/cmdline", "r");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	for (w = strtok_r(line, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		if (strncmp(w, mod, n) || w[n] != '.' || !w[n + 1])
			continue;
		if (len + strlen(w + n + 1) + 2 > size)
			return -E2BIG;
		len += sprintf(buf + len, "%s%s", len ? " " : "", w + n + 1);
	}
	return 0;
}

int kmod_load(const char *name, const char *params)
{
	char all[4096];
	int fd, ret;

	/* the kernel command line's, then the caller's (which win) */
	ret = kmod_cmdline_params(name, all, sizeof(all));
	if (ret)
		return ret;
	if (params && *params &&
	    strlen(all) + strlen(params) + 2 > sizeof(all))
		return -E2BIG;
	if (params && *params)
		sprintf(all + strlen(all), "%s%s", *all ? " " : "", params);
	fd = open_module(name);
	if (fd < 0)
		return fd;
	ret = syscall(SYS_finit_module, fd, all, 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

int kmod_unload(const char *name)
{
	char n[256];

	snprintf(n, sizeof(n), "%s", name);
	normalize(n);
	return syscall(SYS_delete_module, n, O_NONBLOCK) ? -errno : 0;
}

bool kmod_is_loaded(const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return stat(path, &st) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kmod_list(char ***names, bool with_kunit)
{
	DIR *d = opendir(KMOD_DIR);
	struct dirent *de;
	char **list = NULL;
	int n = 0;

	*names = NULL;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **grown;

		if (len < 4 || strcmp(de->d_name + len - 3, ".ko"))
			continue;
		if (!with_kunit && len > 9 && !strcmp(de->d_name + len - 9, "_kunit.ko"))
			continue;
		grown = realloc(list, (n + 1) * sizeof(*list));
		if (!grown)
			break;
		list = grown;
		list[n] = strndup(de->d_name, len - 3);
		normalize(list[n++]);
	}
	closedir(d);
	qsort(list, n, sizeof(*list), cmp_str);
	*names = list;
	return n;
}

void kmod_free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
