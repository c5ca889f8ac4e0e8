// SPDX-License-Identifier: GPL-2.0-only
/*
 * /dev/kmsg relay thread. kmsg_relay_sync() writes a unique token into the
 * kernel log and waits until the relay thread has read it back: the kernel
 * log is ordered, so everything logged before is on the console by then.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "console.h"
#include "kmsg_relay.h"

#define SYNC_PREFIX "ntguest-sync "

static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sync_cond = PTHREAD_COND_INITIALIZER;
static unsigned long sync_seen;
static int relay_running;

static void relay_record(char *rec)
{
	char *msg = strchr(rec, ';');
	unsigned long long usec = 0;
	char *nl;
	int field = 0;

	if (!msg)
		return;
	*msg++ = '\0';
	/* Header: "level,sequence,microseconds,flags". */
	for (char *p = rec; p; p = strchr(p, ','), p = p ? p + 1 : NULL) {
		if (field++ == 2)
			usec = strtoull(p, NULL, 10);
	}
	/* Continuation lines after the first newline hold dictionary data. */
	nl = strchr(msg, '\n');
	if (nl)
		*nl = '\0';
	if (!strncmp(msg, SYNC_PREFIX, strlen(SYNC_PREFIX))) {
		pthread_mutex_lock(&sync_lock);
		sync_seen = strtoul(msg + strlen(SYNC_PREFIX), NULL, 10);
		pthread_cond_broadcast(&sync_cond);
		pthread_mutex_unlock(&sync_lock);
		return;
	}
	con_line("kmsg", "[%5llu.%06llu] %s", usec / 1000000, usec % 1000000, msg);
}

static void *relay_thread(void *arg)
{
	int fd = (int)(long)arg;
	char rec[8192];

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);

		if (n < 0) {
			if (errno == EPIPE || errno == EINTR)
				continue; /* records were overwritten: go on */
			con_line("ntrace", "error kmsg read: %s", strerror(errno));
			return NULL;
		}
		rec[n] = '\0';
		relay_record(rec);
	}
}

int kmsg_relay_start(void)
{
	pthread_t tid;
	int fd = open("/dev/kmsg", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (pthread_create(&tid, NULL, relay_thread, (void *)(long)fd)) {
		close(fd);
		return -EAGAIN;
	}
	pthread_detach(tid);
	relay_running = 1;
	return 0;
}

void kmsg_relay_sync(void)
{
	static unsigned long next;
	struct timespec ts;
	char buf[64];
	int fd, len;

	if (!relay_running)
		return;
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "<7>" SYNC_PREFIX "%lu\n", ++next);
	if (write(fd, buf, len) != len) {
		close(fd);
		return;
	}
	close(fd);
	/* Bounded wait: a stuck relay must not hang the init. */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&sync_lock);
	while (sync_seen < next)
		if (pthread_cond_timedwait(&sync_cond, &sync_lock, &ts))
			break;
	pthread_mutex_unlock(&sync_lock);
}
