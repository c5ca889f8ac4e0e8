// SPDX-License-Identifier: GPL-2.0-only
/* ntguest.* words of the kernel command line (see guest.h). */
#include <stdio.h>
#include <string.h>

#include "guest.h"

int guest_param(const char *name, char *buf, size_t size)
{
	char line[4096], key[128], *p;
	size_t len;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	snprintf(key, sizeof(key), "ntguest.%s=", name);
	for (p = strstr(line, key); p; p = strstr(p + 1, key))
		if (p == line || p[-1] == ' ')
			break;
	if (!p)
		return -1;
	p += strlen(key);
	len = strcspn(p, " \n");
	snprintf(buf, size, "%.*s", (int)len, p);
	return 0;
}

bool guest_has_quirk(const char *quirk)
{
	char list[1024], *tok, *save;

	if (guest_param("quirks", list, sizeof(list)))
		return false;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, quirk))
			return true;
	return false;
}
