// SPDX-License-Identifier: GPL-2.0-only
/* Pack EXPORT_DIR into the export disk as a ustar archive (see export.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "console.h"
#include "export.h"

#define BLOCK 512

static struct {
	int fd;
	uint64_t off;		/* archive bytes written after the header block */
	uint64_t limit;		/* disk size minus the header block */
	unsigned int files;
	char err[256];
} ex;

static int put(const void *buf, size_t len)
{
	const char *p = buf;

	if (ex.off + len > ex.limit) {
		snprintf(ex.err, sizeof(ex.err), "disk too small (%llu bytes)",
			 (unsigned long long)ex.limit + BLOCK);
		return -1;
	}
	while (len) {
		ssize_t n = pwrite(ex.fd, p, len, BLOCK + ex.off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(ex.err, sizeof(ex.err), "write: %s",
				 n < 0 ? strerror(errno) : "short write");
			return -1;
		}
		p += n;
		len -= n;
		ex.off += n;
	}
	return 0;
}

static int pad(void)
{
	static const char zero[BLOCK];
	size_t rem = ex.off % BLOCK;

	return rem ? put(zero, BLOCK - rem) : 0;
}

/* Splits @path into ustar's prefix (155) and name (100) fields. */
static int split_name(const char *path, char *hdr)
{
	size_t len = strlen(path);
	const char *slash;

	if (len <= 100) {
		memcpy(hdr, path, len);
		return 0;
	}
	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		size_t plen = slash - path;

		if (plen <= 155 && len - plen - 1 <= 100 && len - plen - 1 > 0) {
			memcpy(hdr + 345, path, plen);
			memcpy(hdr, slash + 1, len - plen - 1);
			return 0;
		}
	}
	snprintf(ex.err, sizeof(ex.err), "path too long for ustar: %s", path);
	return -1;
}

static int put_header(const char *path, const struct stat *st, char type,
		      uint64_t size)
{
	char hdr[BLOCK];
	unsigned int sum = 0;

	memset(hdr, 0, sizeof(hdr));
	if (split_name(path, hdr))
		return -1;
	snprintf(hdr + 100, 8, "%07o", (unsigned int)(st->st_mode & 07777));
	snprintf(hdr + 108, 8, "%07o", 0);
	snprintf(hdr + 116, 8, "%07o", 0);
	snprintf(hdr + 124, 12, "%011llo", (unsigned long long)size);
	snprintf(hdr + 136, 12, "%011llo", (unsigned long long)st->st_mtime);
	hdr[156] = type;
	memcpy(hdr + 257, "ustar", 6);
	memcpy(hdr + 263, "00", 2);
	memcpy(hdr + 265, "root", 4);
	memcpy(hdr + 297, "root", 4);
	/* The checksum is taken with its own field read as spaces. */
	memset(hdr + 148, ' ', 8);
	for (int i = 0; i < BLOCK; i++)
		sum += (unsigned char)hdr[i];
	snprintf(hdr + 148, 8, "%06o", sum);
	hdr[155] = ' ';
	return put(hdr, sizeof(hdr));
}

static int put_file(const char *src, const char *path, const struct stat *st)
{
	char buf[65536];
	uint64_t left = st->st_size;
	int fd = open(src, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(ex.err, sizeof(ex.err), "open %s: %s", src, strerror(errno));
		return -1;
	}
	if (put_header(path, st, '0', st->st_size))
		goto fail;
	while (left) {
		ssize_t n = read(fd, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* The size is already in the header: a file that shrank
			 * while being packed would corrupt the archive.
			 */
			snprintf(ex.err, sizeof(ex.err), "read %s: %s", src,
				 n < 0 ? strerror(errno) : "file shrank");
			goto fail;
		}
		if (put(buf, n))
			goto fail;
		left -= n;
	}
	close(fd);
	ex.files++;
	return pad();
fail:
	close(fd);
	return -1;
}

static int visit(const char *src, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *rel = src + strlen(EXPORT_DIR);
	char path[512];

	if (!ftw->level)
		return 0;	/* the export directory itself */
	while (*rel == '/')
		rel++;
	if (flag == FTW_D) {
		snprintf(path, sizeof(path), "%s/", rel);
		return put_header(path, st, '5', 0);
	}
	if (flag == FTW_F && S_ISREG(st->st_mode))
		return put_file(src, rel, st);
	/* Sockets, fifos, links and unreadable directories are not carried. */
	marker("export skips %s (not a regular file or directory)", src);
	return 0;
}

void export_prepare(void)
{
	if (mkdir(EXPORT_DIR, 0777) && errno != EEXIST)
		marker("error mkdir %s: %s", EXPORT_DIR, strerror(errno));
	chmod(EXPORT_DIR, 01777);
}

int export_pack(void)
{
	static const char zero[2 * BLOCK];
	char head[BLOCK];
	uint64_t size = 0;

	ex.fd = open(EXPORT_DEV, O_WRONLY | O_CLOEXEC);
	if (ex.fd < 0) {
		if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
			return 0;	/* no export disk attached */
		marker("error export: open %s: %s", EXPORT_DEV, strerror(errno));
		return 1;
	}
	if (ioctl(ex.fd, BLKGETSIZE64, &size) || size < 4 * BLOCK) {
		marker("error export: %s has no usable size", EXPORT_DEV);
		close(ex.fd);
		return 1;
	}
	ex.limit = size - BLOCK;
	ex.off = 0;
	ex.files = 0;
	ex.err[0] = '\0';
	if (nftw(EXPORT_DIR, visit, 16, FTW_PHYS) || put(zero, sizeof(zero)) ||
	    fsync(ex.fd))
		goto fail;
	memset(head, 0, sizeof(head));
	snprintf(head, sizeof(head), "%s %llu\n", EXPORT_MAGIC,
		 (unsigned long long)ex.off);
	if (pwrite(ex.fd, head, BLOCK, 0) != BLOCK || fsync(ex.fd)) {
		snprintf(ex.err, sizeof(ex.err), "header: %s", strerror(errno));
		goto fail;
	}
	close(ex.fd);
	marker("export files=%u bytes=%llu dev=%s", ex.files,
	       (unsigned long long)ex.off, EXPORT_DEV);
	return 0;
fail:
	marker("error export: %s", ex.err[0] ? ex.err : strerror(errno));
	close(ex.fd);
	return 1;
}
