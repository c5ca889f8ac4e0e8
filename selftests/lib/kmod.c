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

int kmod_load(const char *name, const char *params)
{
	int fd = open_module(name), ret;

	if (fd < 0)
		return fd;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
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
