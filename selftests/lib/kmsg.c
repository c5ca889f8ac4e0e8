// SPDX-License-Identifier: GPL-2.0-only
/* /dev/kmsg helpers for kselftests (see kmsg.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmsg.h"

/* Kept in step with the host-side list in guest/console-to-tap.awk. */
static const char *const splat_prefixes[] = {
	"WARNING:", "BUG:", "Oops", "Internal error:", "Kernel panic",
	"Unable to handle kernel", "kernel BUG at", "UBSAN:", "INFO: task ",
	"watchdog: BUG:", "rcu: INFO:", "INFO: rcu_",
};

int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

bool kmsg_is_splat(const char *msg)
{
	/*
	 * Linux 6.12's scheduler warning at CPU offline: the host judges it
	 * from the whole log, a known failure or a splat by the tasks it
	 * lists (guest/console-to-tap.awk).
	 */
	if (!strncmp(msg, "WARNING:", 8) && strstr(msg, " at kernel/sched/core.c:") &&
	    strstr(msg, " sched_cpu_dying"))
		return false;
	for (size_t i = 0; i < sizeof(splat_prefixes) / sizeof(*splat_prefixes); i++)
		if (!strncmp(msg, splat_prefixes[i], strlen(splat_prefixes[i])))
			return true;
	return false;
}

int kmsg_count_splats(int fd)
{
	char rec[8192];
	int splats = 0;

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *msg, *nl;

		if (n < 0) {
			if (errno == EAGAIN)
				return splats;
			if (errno == EPIPE || errno == EINTR)
				continue; /* overwritten records: go on */
			return -errno;
		}
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		if (kmsg_is_splat(msg)) {
			printf("# kmsg: %s\n", msg);
			splats++;
		}
	}
}
