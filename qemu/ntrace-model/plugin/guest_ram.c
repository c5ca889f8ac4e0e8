// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host view of guest RAM. QEMU runs with main RAM in a shared file
 * (memory-backend-file,share=on); the model maps the same file, so stores
 * it makes (register values, trace bytes) are what the guest reads, and
 * what guest stores leave there is what the model decodes.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"

int guest_ram_map(void)
{
	struct stat st;
	void *p;
	int fd;

	fd = open(M.ram_path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "ntrace-model: cannot open guest RAM file %s: %s\n",
			M.ram_path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < M.ram_size) {
		fprintf(stderr,
			"ntrace-model: guest RAM file %s is smaller than ram_size 0x%llx "
			"(is it the mem-path of memory-backend-file with share=on?)\n",
			M.ram_path, (unsigned long long)M.ram_size);
		close(fd);
		return -1;
	}
	if (!M.ram_size)
		M.ram_size = (uint64_t)st.st_size;
	p = mmap(NULL, M.ram_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "ntrace-model: mmap of %s failed: %s\n", M.ram_path,
			strerror(errno));
		return -1;
	}
	M.ram = p;
	return 0;
}
