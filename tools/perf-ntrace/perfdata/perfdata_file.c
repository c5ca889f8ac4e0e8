// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * perf.data reader: file header, attributes and record iteration, with
 * every offset and size checked against the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/err_internal.h"
#include "perfdata.h"
#include "perfdata_internal.h"

#define PERF_MAGIC2	0x32454c4946524550ULL	/* "PERFILE2" little-endian */
#define PERF_MAGIC2_SW	0x50455246494c4532ULL	/* the same written big-endian */
#define FILE_HDR_SIZE	104
#define PIPE_HDR_SIZE	16
#define ATTR_SIZE_VER0	64

/* perf_event_attr.sample_type bits used in the sample_id trailer */
#define ST_TID		(1ULL << 1)
#define ST_TIME		(1ULL << 2)
#define ST_ID		(1ULL << 6)
#define ST_CPU		(1ULL << 7)
#define ST_STREAM_ID	(1ULL << 9)
#define ST_IDENTIFIER	(1ULL << 16)
#define ATTR_FLAG_SAMPLE_ID_ALL	(1ULL << 18)

struct ntrace_perfdata {
	const uint8_t *buf;
	size_t len;
	void *map;		/* mmap of the file, or NULL (caller's buffer) */
	bool pipe;
	uint64_t data_start, data_end, pos;
	struct ntrace_pd_attr *attrs;
	size_t nr_attrs;
	int failed;		/* code of the record that could not be read */
	struct ntrace_errbuf err;	/* why the last call failed */
};

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* A record cannot be read: reading stops there until ntrace_pd_rewind(). */
__attribute__((format(printf, 3, 4)))
static int next_fail(struct ntrace_perfdata *pd, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ntrace_err_vset(&pd->err, code, fmt, ap);
	va_end(ap);
	pd->failed = code;
	return code;
}

struct ntrace_errbuf *pd_errbuf(struct ntrace_perfdata *pd)
{
	return &pd->err;
}

bool ntrace_pd_is_perfdata(const void *buf, size_t len)
{
	return len >= 8 && (get64(buf) == PERF_MAGIC2 || get64(buf) == PERF_MAGIC2_SW);
}

/* Append one attribute (attr bytes of asize) with its ids. */
static int add_attr(struct ntrace_perfdata *pd, const uint8_t *a, uint64_t asize,
		    const uint8_t *ids, uint64_t nr_ids, struct ntrace_errbuf *e)
{
	struct ntrace_pd_attr *na, *at;
	uint64_t *idcopy = NULL, i;

	if (asize < ATTR_SIZE_VER0)
		return ntrace_err_set(e, NTRACE_ECORRUPT,
				      "event attribute of %llu bytes is too short (min %d)",
				      (unsigned long long)asize, ATTR_SIZE_VER0);
	if (pd->nr_attrs >= 4096)
		return ntrace_err_set(e, NTRACE_ECORRUPT, "more than 4096 event attributes");
	na = realloc(pd->attrs, (pd->nr_attrs + 1) * sizeof(*na));
	if (!na)
		return ntrace_err_set(e, NTRACE_ENOMEM, "out of memory");
	pd->attrs = na;
	if (nr_ids) {
		idcopy = malloc(nr_ids * sizeof(*idcopy));
		if (!idcopy)
			return ntrace_err_set(e, NTRACE_ENOMEM, "out of memory");
		for (i = 0; i < nr_ids; i++)
			idcopy[i] = get64(ids + 8 * i);
	}
	at = &pd->attrs[pd->nr_attrs++];
	memset(at, 0, sizeof(*at));
	at->type = get32(a);
	at->config = get64(a + 8);
	at->sample_type = get64(a + 24);
	at->sample_id_all = get64(a + 40) & ATTR_FLAG_SAMPLE_ID_ALL;
	at->config1 = asize >= 64 ? get64(a + 56) : 0;
	at->config2 = asize >= 72 ? get64(a + 64) : 0;
	at->ids = idcopy;
	at->nr_ids = nr_ids;
	return 0;
}

/* Is [off, off+size) inside the buffer? (overflow-safe) */
static bool in_file(const struct ntrace_perfdata *pd, uint64_t off, uint64_t size)
{
	return off <= pd->len && size <= pd->len - off;
}

static int parse_file_header(struct ntrace_perfdata *pd, struct ntrace_errbuf *e)
{
	const uint8_t *h = pd->buf;
	uint64_t attr_size, aoff, asz, n, i;

	if (pd->len < FILE_HDR_SIZE)
		return ntrace_err_set(e, NTRACE_ECORRUPT, "perf.data header truncated (%zu bytes)",
				      pd->len);
	attr_size = get64(h + 16);
	aoff = get64(h + 24);
	asz = get64(h + 32);
	pd->data_start = get64(h + 40);
	pd->data_end = pd->data_start + get64(h + 48);
	if (!in_file(pd, pd->data_start, get64(h + 48)))
		return ntrace_err_set(e, NTRACE_ECORRUPT,
				      "data section (offset %llu, size %llu) is outside the %zu-byte file",
				      (unsigned long long)pd->data_start,
				      (unsigned long long)get64(h + 48), pd->len);
	/* Each entry: the attribute then its ids section {offset, size}. */
	if (attr_size < ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return ntrace_err_set(e, NTRACE_ECORRUPT, "bad attribute entry size %llu",
				      (unsigned long long)attr_size);
	if (!in_file(pd, aoff, asz) || asz % attr_size)
		return ntrace_err_set(e, NTRACE_ECORRUPT,
				      "attribute section (offset %llu, size %llu) is corrupt",
				      (unsigned long long)aoff, (unsigned long long)asz);
	n = asz / attr_size;
	for (i = 0; i < n; i++) {
		const uint8_t *a = pd->buf + aoff + i * attr_size;
		uint64_t ioff = get64(a + attr_size - 16), isz = get64(a + attr_size - 8);
		int rc;

		if (!in_file(pd, ioff, isz) || isz % 8)
			return ntrace_err_set(e, NTRACE_ECORRUPT,
					      "ids of attribute %llu (offset %llu, size %llu) are outside the file",
					      (unsigned long long)i, (unsigned long long)ioff,
					      (unsigned long long)isz);
		rc = add_attr(pd, a, attr_size - 16, pd->buf + ioff, isz / 8, e);
		if (rc)
			return rc;
	}
	return 0;
}

static struct ntrace_perfdata *pd_init(const void *buf, size_t len, void *map,
				       struct ntrace_errbuf *e)
{
	struct ntrace_perfdata *pd;
	uint64_t hsize;

	if (!ntrace_pd_is_perfdata(buf, len)) {
		ntrace_err_set(e, NTRACE_EBADINPUT, "not a perf.data file (no PERFILE2 magic)");
		return NULL;
	}
	if (get64(buf) == PERF_MAGIC2_SW) {
		ntrace_err_set(e, NTRACE_EFORMAT, "big-endian perf.data files are not supported");
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		ntrace_err_set(e, NTRACE_ENOMEM, "out of memory");
		return NULL;
	}
	pd->buf = buf;
	pd->len = len;
	pd->map = map;
	hsize = len >= 16 ? get64((const uint8_t *)buf + 8) : 0;
	if (hsize == PIPE_HDR_SIZE) {
		pd->pipe = true;
		pd->data_start = PIPE_HDR_SIZE;
		pd->data_end = len;
	} else if (hsize != FILE_HDR_SIZE) {
		ntrace_err_set(e, NTRACE_EVERSION, "perf.data header size %llu is neither %d nor %d",
			       (unsigned long long)hsize, FILE_HDR_SIZE, PIPE_HDR_SIZE);
		ntrace_pd_close(pd);
		return NULL;
	} else if (parse_file_header(pd, e)) {
		ntrace_pd_close(pd);
		return NULL;
	}
	pd->pos = pd->data_start;
	return pd;
}

struct ntrace_perfdata *ntrace_pd_open_mem(const void *buf, size_t len, char *err, size_t errlen)
{
	struct ntrace_errbuf e = { 0 };
	struct ntrace_perfdata *pd = pd_init(buf, len, NULL, &e);

	if (!pd)
		ntrace_err_copy(&e, err, errlen);
	return pd;
}

const char *ntrace_pd_data_path(const char *path, char *buf, size_t len)
{
	struct stat st;
	int n;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return path;
	n = snprintf(buf, len, "%s/data", path);
	return n > 0 && (size_t)n < len ? buf : path;
}

static struct ntrace_perfdata *pd_open(const char *path, struct ntrace_errbuf *e)
{
	struct ntrace_perfdata *pd;
	struct stat st;
	void *map;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ntrace_err_set(e, NTRACE_ENOENT, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ntrace_err_set(e, NTRACE_ENOENT, "'%s' is not a regular file", path);
		close(fd);
		return NULL;
	}
	if (st.st_size < 16) {
		ntrace_err_set(e, NTRACE_EBADINPUT,
			       "'%s' is too short for a perf.data file (%lld bytes)", path,
			       (long long)st.st_size);
		close(fd);
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		ntrace_err_set(e, NTRACE_ENOENT, "cannot map '%s': %s", path, strerror(errno));
		return NULL;
	}
	pd = pd_init(map, (size_t)st.st_size, map, e);
	if (!pd)
		munmap(map, (size_t)st.st_size);
	return pd;
}

struct ntrace_perfdata *ntrace_pd_open(const char *dir_or_file, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	struct ntrace_errbuf e = { 0 };
	struct ntrace_perfdata *pd = pd_open(ntrace_pd_data_path(dir_or_file, buf, sizeof(buf)),
					     &e);

	if (!pd)
		ntrace_err_copy(&e, err, errlen);
	return pd;
}

void ntrace_pd_close(struct ntrace_perfdata *pd)
{
	size_t i;

	if (!pd)
		return;
	for (i = 0; i < pd->nr_attrs; i++)
		free((void *)pd->attrs[i].ids);
	free(pd->attrs);
	if (pd->map)
		munmap(pd->map, pd->len);
	free(pd);
}

size_t ntrace_pd_nr_attrs(const struct ntrace_perfdata *pd)
{
	return pd->nr_attrs;
}

const struct ntrace_pd_attr *ntrace_pd_attr(const struct ntrace_perfdata *pd, size_t i)
{
	return i < pd->nr_attrs ? &pd->attrs[i] : NULL;
}

bool ntrace_pd_is_pipe(const struct ntrace_perfdata *pd)
{
	return pd->pipe;
}

void ntrace_pd_rewind(struct ntrace_perfdata *pd)
{
	size_t i;

	pd->pos = pd->data_start;
	pd->failed = 0;
	ntrace_err_clear(&pd->err);
	/* Pipe files define their attributes in the records: read them again. */
	if (pd->pipe) {
		for (i = 0; i < pd->nr_attrs; i++)
			free((void *)pd->attrs[i].ids);
		pd->nr_attrs = 0;
	}
}

const char *ntrace_pd_errmsg(const struct ntrace_perfdata *pd)
{
	return ntrace_err_msg(&pd->err);
}

const char *ntrace_pd_type_name(uint32_t type)
{
	static __thread char other[24];

	switch (type) {
	case NTRACE_PD_MMAP: return "MMAP";
	case NTRACE_PD_LOST: return "LOST";
	case NTRACE_PD_COMM: return "COMM";
	case NTRACE_PD_EXIT: return "EXIT";
	case 5: return "THROTTLE";
	case 6: return "UNTHROTTLE";
	case NTRACE_PD_FORK: return "FORK";
	case 8: return "READ";
	case NTRACE_PD_SAMPLE: return "SAMPLE";
	case NTRACE_PD_MMAP2: return "MMAP2";
	case NTRACE_PD_AUX: return "AUX";
	case NTRACE_PD_ITRACE_START: return "ITRACE_START";
	case NTRACE_PD_LOST_SAMPLES: return "LOST_SAMPLES";
	case NTRACE_PD_SWITCH: return "SWITCH";
	case NTRACE_PD_SWITCH_CPU_WIDE: return "SWITCH_CPU_WIDE";
	case 16: return "NAMESPACES";
	case 17: return "KSYMBOL";
	case 18: return "BPF_EVENT";
	case 19: return "CGROUP";
	case 20: return "TEXT_POKE";
	case 21: return "AUX_OUTPUT_HW_ID";
	case NTRACE_PD_HEADER_ATTR: return "HEADER_ATTR";
	case 65: return "HEADER_EVENT_TYPE";
	case 66: return "HEADER_TRACING_DATA";
	case 67: return "HEADER_BUILD_ID";
	case NTRACE_PD_FINISHED_ROUND: return "FINISHED_ROUND";
	case NTRACE_PD_ID_INDEX: return "ID_INDEX";
	case NTRACE_PD_AUXTRACE_INFO: return "AUXTRACE_INFO";
	case NTRACE_PD_AUXTRACE: return "AUXTRACE";
	case NTRACE_PD_AUXTRACE_ERROR: return "AUXTRACE_ERROR";
	case 73: return "THREAD_MAP";
	case 74: return "CPU_MAP";
	case 75: return "STAT_CONFIG";
	case 76: return "STAT";
	case 77: return "STAT_ROUND";
	case 78: return "EVENT_UPDATE";
	case 79: return "TIME_CONV";
	case 80: return "HEADER_FEATURE";
	case 81: return "COMPRESSED";
	case 82: return "FINISHED_INIT";
	case 83: return "COMPRESSED2";
	default:
		snprintf(other, sizeof(other), "type %u", type);
		return other;
	}
}

/* The attribute a non-sample record belongs to, or NULL when ambiguous. */
static const struct ntrace_pd_attr *attr_of(const struct ntrace_perfdata *pd,
					    const uint8_t *rec, uint16_t size)
{
	uint64_t st0, id;
	size_t i, j;
	bool same = true;

	if (!pd->nr_attrs)
		return NULL;
	st0 = pd->attrs[0].sample_type;
	for (i = 1; i < pd->nr_attrs; i++)
		if (pd->attrs[i].sample_type != st0 ||
		    pd->attrs[i].sample_id_all != pd->attrs[0].sample_id_all)
			same = false;
	if (same)
		return &pd->attrs[0];
	/* Different layouts: perf then puts the IDENTIFIER last in each record. */
	if (!(st0 & ST_IDENTIFIER) || size < 16)
		return NULL;
	id = get64(rec + size - 8);
	for (i = 0; i < pd->nr_attrs; i++)
		for (j = 0; j < pd->attrs[i].nr_ids; j++)
			if (pd->attrs[i].ids[j] == id)
				return &pd->attrs[i];
	return NULL;
}

/* Bytes of the sample_id trailer for a sample_type. */
static unsigned int sid_size(uint64_t st)
{
	return 8 * (!!(st & ST_TID) + !!(st & ST_TIME) + !!(st & ST_ID) +
		    !!(st & ST_STREAM_ID) + !!(st & ST_CPU) + !!(st & ST_IDENTIFIER));
}

/* Parse the trailer; returns its size (0 if none or it does not fit). */
static unsigned int parse_sid(const struct ntrace_perfdata *pd, const uint8_t *rec,
			      uint16_t size, unsigned int min_body, struct ntrace_pd_sample_id *sid)
{
	const struct ntrace_pd_attr *a = attr_of(pd, rec, size);
	unsigned int n;
	const uint8_t *p;

	memset(sid, 0, sizeof(*sid));
	if (!a || !a->sample_id_all)
		return 0;
	n = sid_size(a->sample_type);
	if (!n || 8u + min_body + n > size)
		return 0;
	p = rec + size - n;
	if (a->sample_type & ST_TID) {
		sid->has_tid = true;
		sid->pid = get32(p);
		sid->tid = get32(p + 4);
		p += 8;
	}
	if (a->sample_type & ST_TIME) {
		sid->has_time = true;
		sid->time = get64(p);
		p += 8;
	}
	if (a->sample_type & ST_ID) {
		sid->has_id = true;
		sid->id = get64(p);
		p += 8;
	}
	if (a->sample_type & ST_STREAM_ID)
		p += 8;
	if (a->sample_type & ST_CPU) {
		sid->has_cpu = true;
		sid->cpu = get32(p);
		p += 8;
	}
	if (a->sample_type & ST_IDENTIFIER) {
		sid->has_id = true;
		sid->id = get64(p);
	}
	return n;
}

/* A NUL-terminated string inside [s, end), or NULL. */
static const char *str_in(const uint8_t *s, const uint8_t *end)
{
	return s < end && memchr(s, 0, (size_t)(end - s)) ? (const char *)s : NULL;
}

static int parse_body(struct ntrace_perfdata *pd, struct ntrace_pd_rec *r, const uint8_t *rec)
{
	const uint8_t *b = r->body, *end = rec + r->size;
	unsigned int blen = r->size - 8u, tail;
	const char *what = ntrace_pd_type_name(r->type);

#define NEED(n) do { if (blen < (n)) return next_fail(pd, NTRACE_ECORRUPT, \
					"%s record at offset %llu is too short (%u bytes)", \
					what, (unsigned long long)r->offset, r->size); } while (0)
	switch (r->type) {
	case NTRACE_PD_MMAP:
	case NTRACE_PD_MMAP2: {
		unsigned int fn = r->type == NTRACE_PD_MMAP ? 32 : 64;

		NEED(fn + 1);
		tail = parse_sid(pd, rec, r->size, fn + 1, &r->sid);
		r->u.mmap.pid = get32(b);
		r->u.mmap.tid = get32(b + 4);
		r->u.mmap.addr = get64(b + 8);
		r->u.mmap.len = get64(b + 16);
		r->u.mmap.pgoff = get64(b + 24);
		r->u.mmap.prot = r->type == NTRACE_PD_MMAP2 ? get32(b + 56) : 4 /* PROT_EXEC */;
		r->u.mmap.flags = r->type == NTRACE_PD_MMAP2 ? get32(b + 60) : 0;
		r->u.mmap.filename = str_in(b + fn, end - tail);
		if (!r->u.mmap.filename)
			return next_fail(pd, NTRACE_ECORRUPT,
					 "%s record at offset %llu: file name is not terminated",
					 what, (unsigned long long)r->offset);
		break;
	}
	case NTRACE_PD_COMM:
		NEED(9);
		tail = parse_sid(pd, rec, r->size, 9, &r->sid);
		r->u.comm.pid = get32(b);
		r->u.comm.tid = get32(b + 4);
		r->u.comm.comm = str_in(b + 8, end - tail);
		if (!r->u.comm.comm)
			return next_fail(pd, NTRACE_ECORRUPT,
					 "COMM record at offset %llu: name is not terminated",
					 (unsigned long long)r->offset);
		break;
	case NTRACE_PD_FORK:
	case NTRACE_PD_EXIT:
		NEED(24);
		parse_sid(pd, rec, r->size, 24, &r->sid);
		r->u.fork.pid = get32(b);
		r->u.fork.ppid = get32(b + 4);
		r->u.fork.tid = get32(b + 8);
		r->u.fork.ptid = get32(b + 12);
		r->u.fork.time = get64(b + 16);
		break;
	case NTRACE_PD_SWITCH:
		parse_sid(pd, rec, r->size, 0, &r->sid);
		break;
	case NTRACE_PD_SWITCH_CPU_WIDE:
		NEED(8);
		parse_sid(pd, rec, r->size, 8, &r->sid);
		r->u.swtch.next_prev_pid = get32(b);
		r->u.swtch.next_prev_tid = get32(b + 4);
		break;
	case NTRACE_PD_AUX:
		NEED(24);
		parse_sid(pd, rec, r->size, 24, &r->sid);
		r->u.aux.aux_offset = get64(b);
		r->u.aux.aux_size = get64(b + 8);
		r->u.aux.flags = get64(b + 16);
		break;
	case NTRACE_PD_ITRACE_START:
		NEED(8);
		parse_sid(pd, rec, r->size, 8, &r->sid);
		r->u.itrace_start.pid = get32(b);
		r->u.itrace_start.tid = get32(b + 4);
		break;
	case NTRACE_PD_LOST:
		NEED(16);
		parse_sid(pd, rec, r->size, 16, &r->sid);
		r->u.lost.id = get64(b);
		r->u.lost.lost = get64(b + 8);
		break;
	case NTRACE_PD_AUXTRACE_INFO:
		NEED(8);
		r->u.info.type = get32(b);
		r->u.info.priv = b + 8;
		r->u.info.priv_size = blen - 8;
		break;
	case NTRACE_PD_AUXTRACE_ERROR: {
		unsigned int m = get32(b + 20) ? 40 : 32, i;

		NEED(m);
		r->u.error.type = get32(b);
		r->u.error.code = get32(b + 4);
		r->u.error.cpu = get32(b + 8);
		r->u.error.pid = get32(b + 12);
		r->u.error.tid = get32(b + 16);
		r->u.error.ip = get64(b + 24);
		for (i = 0; i < 64 && m + i < blen && b[m + i]; i++)
			r->u.error.msg[i] = (char)b[m + i];
		r->u.error.msg[i] = 0;
		break;
	}
	case NTRACE_PD_HEADER_ATTR: {
		uint32_t asize;
		int rc;

		NEED(ATTR_SIZE_VER0);
		asize = get32(b + 4);
		if (!asize)
			asize = ATTR_SIZE_VER0;
		if (asize < ATTR_SIZE_VER0 || asize > blen || (blen - asize) % 8)
			return next_fail(pd, NTRACE_ECORRUPT,
					 "HEADER_ATTR record at offset %llu: attribute size %u does not fit",
					 (unsigned long long)r->offset, asize);
		rc = pd->pipe ? add_attr(pd, b, asize, b + asize, (blen - asize) / 8, &pd->err) : 0;
		if (rc) {
			pd->failed = rc;
			return rc;
		}
		break;
	}
	default:
		break;
	}
#undef NEED
	return 0;
}

int ntrace_pd_next(struct ntrace_perfdata *pd, struct ntrace_pd_rec *r)
{
	const uint8_t *rec;
	uint64_t next;
	int rc;

	if (pd->failed)
		return pd->failed;
	if (pd->pos >= pd->data_end)
		return 0;
	memset(r, 0, sizeof(*r));
	r->offset = pd->pos;
	if (pd->data_end - pd->pos < 8)
		return next_fail(pd, NTRACE_ECORRUPT,
				 "record header at offset %llu is cut off by the end of the data",
				 (unsigned long long)pd->pos);
	rec = pd->buf + pd->pos;
	r->type = get32(rec);
	r->misc = get16(rec + 4);
	r->size = get16(rec + 6);
	r->body = rec + 8;
	if (r->size < 8 || r->size % 8)
		return next_fail(pd, NTRACE_ECORRUPT, "record at offset %llu has a bad size %u (type %s)",
				 (unsigned long long)pd->pos, r->size, ntrace_pd_type_name(r->type));
	if (r->size > pd->data_end - pd->pos)
		return next_fail(pd, NTRACE_ECORRUPT,
				 "%s record at offset %llu (size %u) runs past the end of the data",
				 ntrace_pd_type_name(r->type), (unsigned long long)pd->pos, r->size);
	if (r->type == 81 || r->type == 83)
		return next_fail(pd, NTRACE_EFORMAT,
				 "compressed records at offset %llu are not supported (record with -z off)",
				 (unsigned long long)pd->pos);
	next = pd->pos + r->size;
	if (r->type == NTRACE_PD_AUXTRACE) {
		const uint8_t *b = r->body;

		if (r->size < 48)
			return next_fail(pd, NTRACE_ECORRUPT,
					 "AUXTRACE record at offset %llu is too short (%u bytes)",
					 (unsigned long long)pd->pos, r->size);
		r->u.auxtrace.size = get64(b);
		r->u.auxtrace.offset = get64(b + 8);
		r->u.auxtrace.reference = get64(b + 16);
		r->u.auxtrace.idx = get32(b + 24);
		r->u.auxtrace.tid = get32(b + 28);
		r->u.auxtrace.cpu = get32(b + 32);
		if (r->u.auxtrace.size > pd->data_end - next)
			return next_fail(pd, NTRACE_ECORRUPT,
					 "AUXTRACE record at offset %llu: %llu data bytes run past the end of the data",
					 (unsigned long long)pd->pos,
					 (unsigned long long)r->u.auxtrace.size);
		r->u.auxtrace.data = pd->buf + next;
		next += r->u.auxtrace.size;
	} else {
		rc = parse_body(pd, r, rec);
		if (rc)
			return rc;
	}
	pd->pos = next;
	return 1;
}

int ntrace_pd_info_parse(const struct ntrace_pd_rec *r, struct ntrace_auxinfo *info,
			 char *err, size_t errlen)
{
	struct ntrace_errbuf e = { 0 };
	char why[NTRACE_ERRBUF_SIZE];
	int rc;

	memset(info, 0, sizeof(*info));
	if (r->type != NTRACE_PD_AUXTRACE_INFO)
		rc = ntrace_err_set(&e, NTRACE_EINVAL, "record at offset %llu is not AUXTRACE_INFO",
				    (unsigned long long)r->offset);
	else if ((rc = ntrace_auxinfo_parse(r->u.info.priv, r->u.info.priv_size, info, why,
					    sizeof(why))))
		/* name the record: the payload parser cannot */
		ntrace_err_set(&e, rc, "AUXTRACE_INFO at offset %llu (type %u): %s",
			       (unsigned long long)r->offset, r->u.info.type, why);
	return rc ? ntrace_err_copy(&e, err, errlen) : 0;
}
