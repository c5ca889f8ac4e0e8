// SPDX-License-Identifier: GPL-2.0-only
/* Whole-line, thread-safe console output (see console.h). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "console.h"

static pthread_mutex_t con_lock = PTHREAD_MUTEX_INITIALIZER;

void con_vline(const char *tag, const char *fmt, va_list ap)
{
	char buf[2048];
	size_t n, off = 0;
	int len;

	len = snprintf(buf, sizeof(buf), "%s| ", tag);
	vsnprintf(buf + len, sizeof(buf) - len - 1, fmt, ap);
	n = strlen(buf);
	/* One line per call: fold embedded newlines, end with exactly one. */
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\n' || buf[i] == '\r')
			buf[i] = ' ';
	buf[n++] = '\n';

	pthread_mutex_lock(&con_lock);
	while (off < n) {
		ssize_t w = write(STDOUT_FILENO, buf + off, n - off);

		if (w <= 0)
			break;
		off += w;
	}
	pthread_mutex_unlock(&con_lock);
}

void con_line(const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	con_vline(tag, fmt, ap);
	va_end(ap);
}
