// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers of the ntrace kselftests (see ntrace_util.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/ntrace.h>

#include "ntrace_util.h"
#include "sysfs.h"

/* PERF_RECORD_AUX as include/uapi/linux/perf_event.h describes it */
struct aux_record {
	struct perf_event_header header;
	uint64_t aux_offset, aux_size, flags;
};

int nt_read_sysfs(const char *rel, char *buf, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", NTRACE_SYSFS, rel);
	return sysfs_read_line(path, buf, size) ? -1 : 0;
}

int nt_pmu_type(void)
{
	char buf[32];

	if (nt_read_sysfs("type", buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

bool nt_priv_filter(void)
{
	char buf[16];

	/*
	 * Read each time: with every component unbound (no CPU in cpumask)
	 * caps/ says 0 for everything, and a test binds them again later.
	 */
	if (nt_read_sysfs("cpumask", buf, sizeof(buf)) || !buf[0] ||
	    nt_read_sysfs("caps/priv_filter", buf, sizeof(buf)))
		return true;
	return atoi(buf);
}

long nt_cap(const char *name, long dflt)
{
	char rel[96], buf[64];

	snprintf(rel, sizeof(rel), "caps/%s", name);
	if (nt_read_sysfs(rel, buf, sizeof(buf)) || !buf[0])
		return dflt;
	return strtol(buf, NULL, 0);
}

/* M-mode firmware's reserved-memory regions, read once */
static struct {
	uint64_t start, end;
} fw[8];
static int nr_fw = -1;

static void read_fw_regions(void)
{
	const char *dir = "/proc/device-tree/reserved-memory";
	char path[512];
	struct dirent *d;
	uint8_t b[16];
	DIR *dp;
	int fd, i;

	nr_fw = 0;
	dp = opendir(dir);
	while (dp && (d = readdir(dp)) && nr_fw < (int)ARRAY_SIZE(fw)) {
		uint64_t a = 0, sz = 0;

		if (strncmp(d->d_name, "mmode_resv", 10))
			continue;
		snprintf(path, sizeof(path), "%s/%s/reg", dir, d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		/* virt: #address-cells 2, #size-cells 2, big-endian */
		if (read(fd, b, sizeof(b)) == sizeof(b)) {
			for (i = 0; i < 8; i++) {
				a = a << 8 | b[i];
				sz = sz << 8 | b[8 + i];
			}
			fw[nr_fw].start = a;
			fw[nr_fw++].end = a + sz;
		}
		close(fd);
	}
	if (dp)
		closedir(dp);
}

bool nt_firmware_addr(uint64_t addr)
{
	int i;

	if (nr_fw < 0)
		read_fw_regions();
	for (i = 0; i < nr_fw; i++)
		if (addr >= fw[i].start && addr < fw[i].end)
			return true;
	return false;
}

bool nt_sifive_v0(void)
{
	return nt_cap("variant", NTRACE_PROTO_VARIANT_1_0) ==
	       NTRACE_PROTO_VARIANT_SIFIVE_V0;
}

void nt_attr(struct perf_event_attr *attr, int type, uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->disabled = 1;
	/* user only, where the encoder can filter (SiFive v0 cannot) */
	attr->exclude_kernel = nt_priv_filter();
	attr->exclude_hv = 1;
}

int nt_open(struct perf_event_attr *attr, int pid, int cpu)
{
	int fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1, 0);

	return fd < 0 ? -errno : fd;
}

static void rec_add(struct nt_rec *rec, const uint8_t *aux, size_t aux_size,
		    const struct aux_record *r)
{
	size_t i, off = rec->len;
	uint8_t *p;

	if (rec->nr_aux >= ARRAY_SIZE(rec->aux))
		return;
	/*
	 * An empty record (flags only) adds no bytes. Not realloc(data, 0):
	 * before any data that frees the buffer of an earlier empty record
	 * and returns NULL, leaving rec->data dangling (a double free).
	 */
	if (r->aux_size) {
		p = realloc(rec->data, rec->len + r->aux_size);
		if (!p)
			return;
		rec->data = p;
	}
	p = rec->data;
	for (i = 0; i < r->aux_size; i++)
		p[off + i] = aux[(r->aux_offset + i) % aux_size];
	rec->len += r->aux_size;
	if ((r->flags & NTRACE_AUX_FLAG_CONT) && rec->nr_aux) {
		struct nt_aux *last = &rec->aux[rec->nr_aux - 1];
		bool joins = r->aux_offset == rec->aux_end;

		rec->aux_end = r->aux_offset + r->aux_size;
		if (joins) {
			last->len += r->aux_size;
			last->flags |= r->flags & ~(uint64_t)NTRACE_AUX_FLAG_CONT;
			rec->joined++;
			return;
		}
		rec->cont_breaks++;
	}
	rec->aux_end = r->aux_offset + r->aux_size;
	rec->aux[rec->nr_aux].off = off;
	rec->aux[rec->nr_aux].len = r->aux_size;
	rec->aux[rec->nr_aux].flags = r->flags;
	rec->nr_aux++;
}

/* Walk the perf ring from tail to head (data pages after the user page). */
size_t nt_ring_copy(const struct perf_event_mmap_page *up, size_t data_size,
		    uint64_t tail, void *buf, size_t size)
{
	const uint8_t *data = (const uint8_t *)up + up->data_offset;
	struct perf_event_header h;
	uint8_t *out = buf;
	size_t i;

	for (i = 0; i < sizeof(h); i++)
		((uint8_t *)&h)[i] = data[(tail + i) % data_size];
	if (h.size < sizeof(h) || h.size > size)
		return 0;
	for (i = 0; i < h.size; i++)
		out[i] = data[(tail + i) % data_size];
	return h.size;
}

static void read_ring(struct perf_event_mmap_page *up, size_t data_size,
		      const uint8_t *aux, size_t aux_size, bool snapshot,
		      struct nt_rec *rec)
{
	uint64_t head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = up->data_tail;
	uint8_t buf[256];

	while (tail < head) {
		struct perf_event_header h;

		if (!nt_ring_copy(up, data_size, tail, buf, sizeof(buf)))
			break;
		memcpy(&h, buf, sizeof(h));
		if (h.type == PERF_RECORD_AUX && snapshot) {
			const struct aux_record *r = (const void *)buf;

			if (rec->nr_aux < ARRAY_SIZE(rec->aux))
				rec->aux[rec->nr_aux++].flags = r->flags;
		} else if (h.type == PERF_RECORD_AUX) {
			rec_add(rec, aux, aux_size, (const struct aux_record *)buf);
		} else if (h.type == PERF_RECORD_ITRACE_START) {
			if (!rec->nr_itrace_start++)
				rec->itrace_pid = *(uint32_t *)(buf + sizeof(h));
		} else if (h.type == PERF_RECORD_LOST) {
			rec->lost += *(uint64_t *)(buf + sizeof(h) + 8);
		}
		tail += h.size;
	}
	__atomic_store_n(&up->data_tail, tail, __ATOMIC_RELEASE);
	if (!snapshot)
		__atomic_store_n(&up->aux_tail, up->aux_head, __ATOMIC_RELEASE);
}

/* The newest bytes of an overwritten AUX ring, oldest first. */
static void snapshot_copy(const uint8_t *aux, size_t aux_size,
			  struct nt_rec *rec)
{
	uint64_t head = rec->aux_head;
	size_t i, n = head < aux_size ? head : aux_size;

	free(rec->data);
	rec->data = malloc(n ? n : 1);
	if (!rec->data)
		return;
	for (i = 0; i < n; i++)
		rec->data[i] = aux[(head - n + i) % aux_size];
	rec->len = n;
}

static int record(struct perf_event_attr *attr, int cpu, unsigned int aux_pages,
		  bool snapshot, const char *filter, void (*work)(void *),
		  void *arg, struct nt_rec *rec)
{
	size_t pg = sysconf(_SC_PAGESIZE), data_size = 64 * pg;
	size_t aux_size = aux_pages * pg;
	struct perf_event_mmap_page *up;
	void *base, *aux;
	int fd, err = 0;

	memset(rec, 0, sizeof(*rec));
	fd = nt_open(attr, cpu >= 0 ? -1 : 0, cpu);
	if (fd < 0)
		return fd;
	base = mmap(NULL, pg + data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		goto out_fd;
	}
	up = base;
	up->aux_offset = pg + data_size;
	up->aux_size = aux_size;
	/* a read-only AUX mapping asks for overwrite (snapshot) mode */
	aux = mmap(NULL, aux_size, snapshot ? PROT_READ : PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, up->aux_offset);
	if (aux == MAP_FAILED) {
		err = -errno;
		goto out_base;
	}
	if (filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
		err = -errno;
		goto out_aux;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		goto out_aux;
	}
	work(arg);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	rec->aux_head = __atomic_load_n(&up->aux_head, __ATOMIC_ACQUIRE);
	read_ring(up, data_size, aux, aux_size, snapshot, rec);
	if (snapshot)
		snapshot_copy(aux, aux_size, rec);
out_aux:
	munmap(aux, aux_size);
out_base:
	munmap(base, pg + data_size);
out_fd:
	close(fd);
	return err;
}

int nt_record(struct perf_event_attr *attr, int cpu, unsigned int aux_pages,
	      void (*work)(void *), void *arg, struct nt_rec *rec)
{
	return record(attr, cpu, aux_pages, false, NULL, work, arg, rec);
}

int nt_record_filtered(struct perf_event_attr *attr, const char *filter,
		       unsigned int aux_pages, void (*work)(void *), void *arg,
		       struct nt_rec *rec)
{
	return record(attr, -1, aux_pages, false, filter, work, arg, rec);
}

int nt_record_snapshot(struct perf_event_attr *attr, unsigned int aux_pages,
		       void (*work)(void *), void *arg, struct nt_rec *rec)
{
	return record(attr, -1, aux_pages, true, NULL, work, arg, rec);
}

void nt_rec_free(struct nt_rec *rec)
{
	free(rec->data);
	rec->data = NULL;
}

/* ---- N-Trace framing ---------------------------------------------------- */

/* TCODEs of N-Trace 1.0 and whether they carry SYNC + F-ADDR. */
bool nt_tcode_is_sync(int tcode)
{
	return tcode == 9 || tcode == 11 || tcode == 12 || tcode == 29;
}

static bool tcode_known(int tcode)
{
	static const int known[] = { 2, 3, 4, 8, 9, 11, 12, 27, 28, 29, 30, 33 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (known[i] == tcode)
			return true;
	return false;
}

/* Bits [from, from+n) of a little-endian bit string of MDO bits. */
static uint64_t bits(const uint8_t *mdo, unsigned int from, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n && i < 64; i++)
		if (mdo[(from + i) / 8] >> ((from + i) % 8) & 1)
			v |= 1ull << i;
	return v;
}

static void frame_msg(const uint8_t *m, size_t n, unsigned int src_bits,
		      uint64_t lo, uint64_t hi, struct nt_frame_stats *st)
{
	uint8_t mdo[64] = { 0 };
	unsigned int nbits = 0, fend[16], nf = 0, fixed, start;
	size_t i;
	int tcode;

	for (i = 0; i < n; i++) {
		unsigned int b;

		for (b = 0; b < 6; b++, nbits++)
			if (m[i] >> (2 + b) & 1)
				mdo[nbits / 8] |= 1 << (nbits % 8);
		if ((m[i] & 3) && nf < 16)
			fend[nf++] = nbits;	/* a field ends with this byte */
	}
	tcode = m[0] >> 2;
	st->msgs++;
	if (src_bits && bits(mdo, 6, src_bits) < 64)
		st->src_seen |= 1ull << bits(mdo, 6, src_bits);
	if (st->first_tcode < 0)
		st->first_tcode = tcode;
	st->last_tcode = tcode;
	if (!tcode_known(tcode)) {
		if (!st->bad++)
			snprintf(st->why, sizeof(st->why), "unknown TCODE %d", tcode);
		return;
	}
	if (tcode == 33)
		st->correlation_msgs++;
	if (!nt_tcode_is_sync(tcode))
		return;
	st->sync_msgs++;
	if (bits(mdo, 6 + src_bits, 4) == 2)
		st->periodic_syncs++;
	/* TCODE[6] SRC SYNC[4] (B-TYPE[2]) I-CNT F-ADDR ... */
	fixed = 6 + src_bits + 4 + ((tcode == 12 || tcode == 29) ? 2 : 0);
	/* I-CNT ends at the first field end at or after the fixed part */
	for (i = 0; i < nf && fend[i] <= fixed; i++)
		;
	if (i + 1 >= nf) {
		if (!st->bad++)
			snprintf(st->why, sizeof(st->why),
				 "sync message (TCODE %d) without F-ADDR", tcode);
		return;
	}
	start = fend[i];
	{
		uint64_t addr = bits(mdo, start, fend[i + 1] - start) << 1;

		if (addr < st->addr_min)
			st->addr_min = addr;
		if (addr > st->addr_max)
			st->addr_max = addr;
		if (addr >= lo && addr < hi)
			st->in_syncs++;
		else if (nt_kernel_addr(addr))
			st->kernel_syncs++;
		else if (nt_firmware_addr(addr))
			st->fw_syncs++;
		else if (!st->other_syncs++)
			st->other_addr = addr;
	}
}

unsigned int nt_src_bits(uint64_t config)
{
	char buf[32];

	if (!(config & NTRACE_CFG_SRC_MASK) &&
	    (nt_read_sysfs("caps/src_required", buf, sizeof(buf)) < 0 ||
	     atoi(buf) != 1))
		return 0;
	if (nt_read_sysfs("caps/src_bits", buf, sizeof(buf)) < 0)
		return 0;
	return (unsigned int)atoi(buf);
}

bool nt_syncs_in(const struct nt_frame_stats *st)
{
	return st->in_syncs && !st->other_syncs &&
	       (!(st->kernel_syncs + st->fw_syncs) || nt_traces_kernel());
}

void nt_frame_check(const uint8_t *p, size_t len, unsigned int src_bits,
		    struct nt_frame_stats *st)
{
	nt_frame_check_in(p, len, src_bits, 0, 0, st);
}

void nt_frame_check_in(const uint8_t *p, size_t len, unsigned int src_bits,
		       uint64_t lo, uint64_t hi, struct nt_frame_stats *st)
{
	size_t i, start = 0;
	bool in = false;

	memset(st, 0, sizeof(*st));
	st->first_tcode = st->last_tcode = -1;
	st->addr_min = UINT64_MAX;
	for (i = 0; i < len; i++) {
		if (!in && p[i] == 0xff) {
			st->idle++;
			continue;
		}
		if (!in) {
			in = true;
			start = i;
		}
		if ((p[i] & 3) == 2) {
			if (!st->bad++)
				snprintf(st->why, sizeof(st->why),
					 "reserved MSEO at byte %zu", i);
			in = false;
			continue;
		}
		if (i - start >= 64) {
			if (!st->bad++)
				snprintf(st->why, sizeof(st->why),
					 "message at byte %zu longer than 64 bytes",
					 start);
			in = false;
			continue;
		}
		if ((p[i] & 3) == 3) {
			frame_msg(p + start, i + 1 - start, src_bits, lo, hi, st);
			in = false;
		}
	}
	if (in && !st->bad++)
		snprintf(st->why, sizeof(st->why),
			 "message at byte %zu cut by the end", start);
}
