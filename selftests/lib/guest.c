// SPDX-License-Identifier: GPL-2.0-only
/* ntguest.quirks= on the kernel command line (see guest.h). */
#include <stdio.h>
#include <string.h>

#include "guest.h"

bool guest_has_quirk(const char *quirk)
{
	char line[4096], *p, *end;
	size_t n = strlen(quirk);
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	p = strstr(line, "ntguest.quirks=");
	if (!p)
		return false;
	p += strlen("ntguest.quirks=");
	end = p + strcspn(p, " \n");
	while (p < end) {
		size_t len = strcspn(p, ",");

		if (p + len > end)
			len = end - p;
		if (len == n && !strncmp(p, quirk, n))
			return true;
		p += len + 1;
	}
	return false;
}
