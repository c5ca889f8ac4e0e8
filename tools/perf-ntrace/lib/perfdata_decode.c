// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Decode the N-Trace AUX data of a perf.data file: program images from
 * MMAP/MMAP2, decoder settings from AUXTRACE_INFO, one decoder per AUX
 * stream, restarts where AUX records or offsets say data may be missing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntrace/perfdata.h"

#define MISC_CPUMODE_MASK	7
#define MISC_USER		2
#define PROT_EXEC_BIT		4

/* A place in one AUX stream where data may be missing. */
struct loss {
	bool has_cpu, has_tid;	/* what the AUX record's sample_id told */
	uint32_t key_cpu, key_tid;
	uint64_t at;		/* AUX area offset: bytes from here on follow a gap */
};

/* One AUXTRACE record seen in pass 1 (file order). */
struct chunk_ref {
	bool per_thread;
	uint32_t key;		/* CPU, or mmap index in per-thread mode */
	uint64_t offset, size;	/* AUX area offset and size with perf's padding */
	const uint8_t *data;
	uint64_t len;		/* size without the padding */
};

struct stream {
	bool per_thread;
	int32_t cpu;
	uint32_t idx, tid;
	const struct ntrace_pd_cpu *pcpu;
	struct ntrace_decoder *d;
	bool started;
	uint64_t next_off;	/* AUX offset right after the last chunk */
};

/* An executable user mapping (MMAP/MMAP2), in file order. */
struct mmaprec {
	uint32_t pid;
	uint64_t time;
	size_t seq;		/* record number in the file */
	const char *filename;	/* as recorded (points into the file) */
	uint64_t addr, pgoff;
};

/* A COMM with the exec flag, a FORK of a new process, or a COMM. */
struct taskev {
	uint32_t pid, ppid;
	uint64_t time;
	size_t seq;
	const char *comm;	/* COMM only */
};

/* A PERF_RECORD_AUX: one task's trace in task mode. */
struct auxrec {
	uint32_t cpu, pid, tid;
	uint64_t time, off, size, flags;
	uint64_t file_offset;
	uint64_t t_start;	/* when the task's run on the CPU began (as far as known) */
};

/* A task's switch-in (SWITCH_CPU_WIDE without the out flag). */
struct swin {
	uint32_t cpu, tid;
	uint64_t time;
};

/* Task mode: the decoder a CPU's data is being fed to. */
struct tcpu {
	uint32_t cpu;
	struct ntrace_decoder *d;
	uint32_t tid;
	struct ntrace_images *img;
	uint32_t pid;		/* whose counters the decoder adds to */
	uint64_t next_off;	/* AUX offset after the last byte fed */
	bool lossy_end;		/* data may be missing after it */
	struct ntrace_pd_chunk chunk;	/* the last data fed, as announced */
};

/* Task mode: a chunk's place in the CPU/offset order. */
struct corder {
	uint32_t key;
	uint64_t offset;
	size_t idx;
};

/* A per-process image set: the mappings it was built from. */
struct imgset {
	size_t *idx;		/* struct mmaprec indexes, ascending */
	size_t n;
	struct ntrace_images *img;
};

struct pd_dec {
	struct ntrace_perfdata *pd;
	struct ntrace_images *img;
	const struct ntrace_pd_decode_opts *opts;
	const struct ntrace_pd_decode_ops *ops;
	void *ctx;
	struct ntrace_pd_decode_stats *st;
	struct ntrace_pd_info info;
	bool have_info;
	struct loss *loss;
	size_t nloss;
	struct stream *streams;
	size_t nstreams;
	struct chunk_ref *chunks;
	size_t nchunks, cur_chunk;
	struct ntrace_decoder *last_fed;
	char **added;		/* "path@base" of the images added */
	size_t nadded;
	/* task mode */
	size_t nrec;		/* records read in pass 1 */
	struct mmaprec *mmaps;
	size_t nmmaps;
	struct taskev *execs, *forks, *comms;
	size_t nexecs, nforks, ncomms;
	struct auxrec *auxs;
	size_t nauxs;
	bool aux_keyed;		/* every AUX record has cpu, tid and time */
	struct swin *swins;
	size_t nswins;
	struct imgset *sets;
	size_t nsets;
	struct ntrace_pd_task *tasks;
	size_t ntasks;
	struct tcpu *tcpus;
	size_t ntcpus;
	struct corder *corder;	/* chunks by CPU and AUX offset */
	char *err;
	size_t errlen;
};

static void notice(struct pd_dec *x, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!x->ops->on_notice)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	x->ops->on_notice(x->ctx, buf);
}

static int fail(struct pd_dec *x, const char *fmt, ...)
{
	va_list ap;

	if (x->err && x->errlen) {
		va_start(ap, fmt);
		vsnprintf(x->err, x->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* e_type of an ELF file: 2 ET_EXEC, 3 ET_DYN, -1 unreadable/not ELF. */
static int elf_type(const char *path)
{
	unsigned char h[18];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(h, 1, sizeof(h), f);
	fclose(f);
	if (n != sizeof(h) || memcmp(h, "\177ELF", 4))
		return -1;
	return h[16] | h[17] << 8;
}

/* Is r an executable user mapping of a file? */
static bool exec_mapping(const struct ntrace_pd_rec *r)
{
	const char *fn = r->u.mmap.filename;

	return (r->u.mmap.prot & PROT_EXEC_BIT) && (r->misc & MISC_CPUMODE_MASK) == MISC_USER &&
	       ((fn[0] == '/' && strncmp(fn, "//anon", 6)) || !strcmp(fn, "[vdso]"));
}

/* Where the host has the mapped file fn. */
static void host_path(const struct pd_dec *x, const char *fn, char *path, size_t size)
{
	const char *base = strrchr(fn, '/') ? strrchr(fn, '/') + 1 : fn;

	if (!strcmp(fn, "[vdso]"))
		snprintf(path, size, "%s", x->opts && x->opts->vdso ? x->opts->vdso : "");
	else if (x->opts && x->opts->root)
		snprintf(path, size, "%s%s", x->opts->root, fn);
	else if (x->opts && x->opts->elf_dir)
		snprintf(path, size, "%s/%s", x->opts->elf_dir, base);
	else
		snprintf(path, size, "%s", fn);
}

static void add_mmap_image(struct pd_dec *x, const struct mmaprec *m)
{
	const char *fn = m->filename;
	char path[4096], key[4200];
	uint64_t load;
	size_t i;
	char **na;
	int t, rc;

	host_path(x, fn, path, sizeof(path));
	t = elf_type(path);
	if (t < 0) {
		x->st->images_missing++;
		notice(x, "no ELF file for mapping of %s at %#llx (looked for %s)", fn,
		       (unsigned long long)m->addr, path);
		return;
	}
	load = t == 3 ? m->addr - m->pgoff : 0;
	snprintf(key, sizeof(key), "%s@%llx", path, (unsigned long long)load);
	for (i = 0; i < x->nadded; i++)
		if (!strcmp(x->added[i], key))
			return;
	rc = ntrace_images_add_elf(x->img, path, load, t == 3);
	if (rc) {
		x->st->images_missing++;
		notice(x, "cannot use %s for mapping of %s: %s", path, fn,
		       ntrace_images_errmsg(x->img));
		return;
	}
	na = realloc(x->added, (x->nadded + 1) * sizeof(*na));
	if (!na)
		return;
	x->added = na;
	x->added[x->nadded] = strdup(key);
	if (x->added[x->nadded])
		x->nadded++;
	x->st->images++;
}

static int add_loss(struct pd_dec *x, const struct ntrace_pd_rec *r, uint64_t at)
{
	struct loss *nl = realloc(x->loss, (x->nloss + 1) * sizeof(*nl));

	if (!nl)
		return fail(x, "out of memory");
	x->loss = nl;
	nl = &x->loss[x->nloss++];
	memset(nl, 0, sizeof(*nl));
	nl->has_cpu = r->sid.has_cpu;
	nl->key_cpu = r->sid.cpu;
	nl->has_tid = r->sid.has_tid;
	nl->key_tid = r->sid.tid;
	nl->at = at;
	return 0;
}

/* Are the n bytes at p all zero? */
static bool all_zero(const uint8_t *p, uint64_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/*
 * perf record pads each AUXTRACE chunk with up to 7 zero bytes to a
 * multiple of 8 and counts them in the size, while the next chunk starts
 * at the unpadded end. The padding is not trace data: a zero byte is never
 * the last byte of an N-Trace message (MSEO 00), and feeding it would look
 * like a corrupt message. Find each chunk's real length: up to the next
 * chunk of its stream, or for the last one without trailing zero padding.
 */
static void unpad_chunks(struct pd_dec *x)
{
	size_t i, j;

	for (i = 0; i < x->nchunks; i++) {
		struct chunk_ref *c = &x->chunks[i];
		uint64_t pad = 0;

		for (j = i + 1; j < x->nchunks; j++)
			if (x->chunks[j].per_thread == c->per_thread && x->chunks[j].key == c->key)
				break;
		if (j < x->nchunks) {
			uint64_t end = c->offset + c->size, next = x->chunks[j].offset;

			if (next < end && end - next < 8 && next >= c->offset)
				pad = end - next;
		} else if (c->size % 8 == 0) {
			while (pad < 7 && pad < c->size && !c->data[c->size - pad - 1])
				pad++;
		}
		if (pad && all_zero(c->data + c->size - pad, pad))
			c->len = c->size - pad;
	}
}

/*
 * Room for one more element of size bytes at the end of the array *arr of
 * *n elements: the new element (zeroed), or NULL when out of memory.
 */
static void *grow(void *parr, size_t *n, size_t size)
{
	void *old;
	char *na;

	/* parr points to a T * (not a void *): copy its bytes, do not alias it */
	memcpy(&old, parr, sizeof(old));
	na = realloc(old, (*n + 1) * size);
	if (!na)
		return NULL;
	memcpy(parr, &na, sizeof(na));
	memset(na + *n * size, 0, size);
	return na + (*n)++ * size;
}

#define GROW(arr, n) grow(&(arr), &(n), sizeof(*(arr)))

static int add_mmap(struct pd_dec *x, const struct ntrace_pd_rec *r)
{
	struct mmaprec *m;

	if (!strcmp(r->u.mmap.filename, "[vdso]") && (!x->opts || !x->opts->vdso))
		return 0;
	m = GROW(x->mmaps, x->nmmaps);
	if (!m)
		return fail(x, "out of memory");
	m->pid = r->u.mmap.pid;
	m->time = r->sid.has_time ? r->sid.time : 0;
	m->seq = x->nrec;
	m->filename = r->u.mmap.filename;
	m->addr = r->u.mmap.addr;
	m->pgoff = r->u.mmap.pgoff;
	return 0;
}

static int add_task_event(struct pd_dec *x, const struct ntrace_pd_rec *r)
{
	struct taskev e = { .time = r->sid.has_time ? r->sid.time : 0, .seq = x->nrec };
	struct taskev *n;
	struct swin *w;

	switch (r->type) {
	case NTRACE_PD_COMM:
		e.pid = r->u.comm.pid;
		e.comm = r->u.comm.comm;
		n = GROW(x->comms, x->ncomms);
		if (n)
			*n = e;
		if (n && (r->misc & NTRACE_PD_MISC_COMM_EXEC)) {
			n = GROW(x->execs, x->nexecs);
			if (n)
				*n = e;
		}
		break;
	case NTRACE_PD_FORK:
		/* A new thread has the same images; time 0: perf's record of a
		 * process that existed before (its mappings are recorded too). */
		if (r->u.fork.pid == r->u.fork.ppid || !r->u.fork.time)
			return 0;
		e.pid = r->u.fork.pid;
		e.ppid = r->u.fork.ppid;
		e.time = r->u.fork.time;
		n = GROW(x->forks, x->nforks);
		if (n)
			*n = e;
		break;
	case NTRACE_PD_SWITCH_CPU_WIDE:
		if ((r->misc & NTRACE_PD_MISC_SWITCH_OUT) || !r->sid.has_cpu || !r->sid.has_tid ||
		    !r->sid.has_time)
			return 0;
		w = GROW(x->swins, x->nswins);
		if (!w)
			return fail(x, "out of memory");
		w->cpu = r->sid.cpu;
		w->tid = r->sid.tid;
		w->time = r->sid.time;
		return 0;
	default:
		return 0;
	}
	return n ? 0 : fail(x, "out of memory");
}

static int add_aux(struct pd_dec *x, const struct ntrace_pd_rec *r)
{
	struct auxrec *a;

	if (!r->sid.has_cpu || !r->sid.has_tid || !r->sid.has_time)
		x->aux_keyed = false;
	a = GROW(x->auxs, x->nauxs);
	if (!a)
		return fail(x, "out of memory");
	a->cpu = r->sid.cpu;
	a->pid = r->sid.pid;
	a->tid = r->sid.tid;
	a->time = r->sid.time;
	a->off = r->u.aux.aux_offset;
	a->size = r->u.aux.aux_size;
	a->flags = r->u.aux.flags;
	a->file_offset = r->offset;
	a->t_start = 0;
	return 0;
}

/* Pass 1: settings, images and the places where data may be missing. */
static int scan(struct pd_dec *x)
{
	struct ntrace_pd_rec r;
	int rc;

	ntrace_pd_rewind(x->pd);
	while ((rc = ntrace_pd_next(x->pd, &r)) == 1) {
		switch (r.type) {
		case NTRACE_PD_AUXTRACE_INFO:
			if (x->have_info) {
				notice(x, "second AUXTRACE_INFO at offset %llu ignored",
				       (unsigned long long)r.offset);
				break;
			}
			if (ntrace_pd_info_parse(&r, &x->info, x->err, x->errlen))
				return -1;
			x->have_info = true;
			break;
		case NTRACE_PD_MMAP:
		case NTRACE_PD_MMAP2:
			if ((!x->opts || !x->opts->no_mmap_images) && exec_mapping(&r) &&
			    add_mmap(x, &r))
				return -1;
			break;
		case NTRACE_PD_COMM:
		case NTRACE_PD_FORK:
		case NTRACE_PD_SWITCH_CPU_WIDE:
			if (add_task_event(x, &r))
				return -1;
			break;
		case NTRACE_PD_AUX:
			if (add_aux(x, &r))
				return -1;
			if (r.u.aux.flags & NTRACE_PD_AUX_TRUNCATED)
				x->st->truncated++;
			if (r.u.aux.flags & NTRACE_PD_AUX_PARTIAL)
				x->st->partial++;
			if (r.u.aux.flags & NTRACE_PD_AUX_COLLISION)
				x->st->collisions++;
			/* Data after a truncated or overwritten region follows a gap. */
			if ((r.u.aux.flags & (NTRACE_PD_AUX_TRUNCATED | NTRACE_PD_AUX_COLLISION |
					      NTRACE_PD_AUX_PARTIAL)) &&
			    add_loss(x, &r, r.u.aux.aux_offset + r.u.aux.aux_size))
				return -1;
			/* A region with gaps inside: restart at its start too. */
			if ((r.u.aux.flags & NTRACE_PD_AUX_PARTIAL) &&
			    add_loss(x, &r, r.u.aux.aux_offset))
				return -1;
			break;
		case NTRACE_PD_LOST:
			x->st->lost_records++;
			break;
		case NTRACE_PD_AUXTRACE: {
			struct chunk_ref *nc = realloc(x->chunks, (x->nchunks + 1) * sizeof(*nc));

			if (!nc)
				return fail(x, "out of memory");
			x->chunks = nc;
			nc = &x->chunks[x->nchunks++];
			nc->per_thread = r.u.auxtrace.cpu == UINT32_MAX;
			nc->key = nc->per_thread ? r.u.auxtrace.idx : r.u.auxtrace.cpu;
			nc->offset = r.u.auxtrace.offset;
			nc->size = nc->len = r.u.auxtrace.size;
			nc->data = r.u.auxtrace.data;
			break;
		}
		case NTRACE_PD_ITRACE_START:
			x->st->itrace_starts++;
			break;
		default:
			break;
		}
		x->nrec++;
	}
	if (rc < 0)
		return fail(x, "%s", ntrace_pd_errmsg(x->pd));
	if (!x->have_info)
		return fail(x, "no ntrace AUXTRACE_INFO record: not recorded with perf record -e ntrace// (or by a perf without the ntrace recorder)");
	unpad_chunks(x);
	return 0;
}

static void add_stats(struct ntrace_dec_stats *t, const struct ntrace_dec_stats *s)
{
	unsigned int i;

	t->bytes += s->bytes;
	t->messages += s->messages;
	t->insns += s->insns;
	t->runs += s->runs;
	t->taken += s->taken;
	t->indirect += s->indirect;
	t->implicit_returns += s->implicit_returns;
	t->traps += s->traps;
	t->syncs += s->syncs;
	t->errors += s->errors;
	t->parse_errors += s->parse_errors;
	t->skipped += s->skipped;
	t->lost += s->lost;
	for (i = 0; i < 64; i++)
		t->tcode[i] += s->tcode[i];
}

static int stream_end(struct pd_dec *x, struct stream *s)
{
	struct ntrace_dec_stats ds;
	int rc = 0;

	if (!s->d)
		return 0;
	if (x->last_fed != s->d && x->ops->on_decoder)
		x->ops->on_decoder(x->ctx, s->d);
	x->last_fed = s->d;	/* so that the next feed announces its decoder */
	rc = ntrace_decoder_finish(s->d);
	ntrace_decoder_stats(s->d, &ds);
	add_stats(&x->st->dec, &ds);
	ntrace_decoder_free(s->d);
	if (x->last_fed == s->d)
		x->last_fed = NULL;
	s->d = NULL;
	return rc;
}

/* (Re)start the stream's decoder; mid_message: the data may start inside a message. */
static int stream_start(struct pd_dec *x, struct stream *s, bool mid_message)
{
	struct ntrace_dec_cfg cfg = s->pcpu->cfg;
	const char *why = NULL;
	int rc = stream_end(x, s);

	if (rc)
		return rc;
	cfg.src = x->opts ? x->opts->src : -1;
	cfg.enc.codec.wait_for_eom = mid_message;
	s->d = ntrace_decoder_new(&cfg, x->img, &x->ops->dec, x->ctx, &why);
	if (!s->d)
		return fail(x, "cannot create a decoder for CPU %u: %s", s->pcpu->cpu, why);
	return 0;
}

static struct stream *stream_of(struct pd_dec *x, const struct ntrace_pd_rec *r)
{
	bool per_thread = r->u.auxtrace.cpu == UINT32_MAX;
	struct stream *s;
	size_t i;

	for (i = 0; i < x->nstreams; i++) {
		s = &x->streams[i];
		if (s->per_thread == per_thread &&
		    (per_thread ? s->idx == r->u.auxtrace.idx : s->cpu == (int32_t)r->u.auxtrace.cpu))
			return s;
	}
	s = realloc(x->streams, (x->nstreams + 1) * sizeof(*s));
	if (!s)
		return NULL;
	x->streams = s;
	s = &x->streams[x->nstreams++];
	memset(s, 0, sizeof(*s));
	s->per_thread = per_thread;
	s->cpu = per_thread ? -1 : (int32_t)r->u.auxtrace.cpu;
	s->idx = r->u.auxtrace.idx;
	s->tid = r->u.auxtrace.tid;
	s->pcpu = ntrace_pd_info_cpu(&x->info, s->cpu);
	if (!per_thread && (int32_t)s->pcpu->cpu != s->cpu)
		notice(x, "AUXTRACE_INFO has no record for CPU %d: using CPU %u's settings", s->cpu,
		       s->pcpu->cpu);
	return s;
}

/*
 * Does an AUX record belong to stream s? Per-CPU streams are told apart by
 * the CPU, per-thread ones by the thread; without the key, assume it does
 * (a needless restart costs little, a missed one gives a wrong flow).
 */
static bool loss_applies(const struct loss *l, const struct stream *s)
{
	if (!s->per_thread)
		return !l->has_cpu || (int32_t)l->key_cpu == s->cpu;
	return !l->has_tid || l->key_tid == s->tid;
}

/* Smallest loss point of stream s in (from, to], or to when none. */
static uint64_t next_loss(const struct pd_dec *x, const struct stream *s, uint64_t from,
			  uint64_t to)
{
	uint64_t best = to;
	size_t i;

	for (i = 0; i < x->nloss; i++)
		if (loss_applies(&x->loss[i], s) && x->loss[i].at > from && x->loss[i].at < best)
			best = x->loss[i].at;
	return best;
}

static bool loss_at(const struct pd_dec *x, const struct stream *s, uint64_t at)
{
	size_t i;

	for (i = 0; i < x->nloss; i++)
		if (loss_applies(&x->loss[i], s) && x->loss[i].at == at)
			return true;
	return false;
}

static int feed(struct pd_dec *x, struct stream *s, const uint8_t *p, uint64_t n)
{
	if (!n)
		return 0;
	if (x->last_fed != s->d && x->ops->on_decoder)
		x->ops->on_decoder(x->ctx, s->d);
	x->last_fed = s->d;
	return ntrace_decoder_feed(s->d, p, (size_t)n);
}

static int decode_chunk(struct pd_dec *x, const struct ntrace_pd_rec *r)
{
	uint64_t off = r->u.auxtrace.offset, size = r->u.auxtrace.size, pos, cut;
	struct ntrace_pd_chunk c;
	struct stream *s;
	bool resync;
	int rc;

	/* Pass 2 sees the AUXTRACE records in the order pass 1 listed them. */
	if (x->cur_chunk < x->nchunks && x->chunks[x->cur_chunk].offset == off)
		size = x->chunks[x->cur_chunk].len;
	x->cur_chunk++;
	s = stream_of(x, r);
	if (!s)
		return fail(x, "out of memory");
	if (x->opts && x->opts->cpu >= 0 && s->cpu != x->opts->cpu)
		return 0;
	resync = s->started && (off != s->next_off || loss_at(x, s, off) ||
				(x->info.flags & NTRACE_PD_INFO_SNAPSHOT));
	if (!s->started || resync) {
		if (resync) {
			x->st->resyncs++;
			notice(x, "CPU %d: trace data may be missing before AUX offset %#llx (file offset %llu): resynchronising",
			       s->cpu, (unsigned long long)off, (unsigned long long)r->offset);
		}
		/* The first chunk starts a fresh trace only at offset 0. */
		rc = stream_start(x, s, resync || off != 0);
		if (rc)
			return rc;
		s->started = true;
	}
	x->st->chunks++;
	x->st->chunk_bytes += size;
	if (x->ops->on_chunk) {
		memset(&c, 0, sizeof(c));
		c.file_offset = r->offset;
		c.aux_offset = off;
		c.size = size;
		c.idx = r->u.auxtrace.idx;
		c.tid = r->u.auxtrace.tid;
		c.cpu = s->cpu;
		c.resync = resync;
		x->ops->on_chunk(x->ctx, &c);
	}
	for (pos = off; pos < off + size; pos = cut) {
		cut = next_loss(x, s, pos, off + size);
		rc = feed(x, s, r->u.auxtrace.data + (pos - off), cut - pos);
		if (rc)
			return rc;
		if (cut < off + size) {
			x->st->resyncs++;
			notice(x, "CPU %d: AUX data lost at offset %#llx: resynchronising", s->cpu,
			       (unsigned long long)cut);
			rc = stream_start(x, s, true);
			if (rc)
				return rc;
		}
	}
	s->next_off = off + size;
	return 0;
}

/* Pass 2: the chunks in file order. */
static int decode_all(struct pd_dec *x)
{
	struct ntrace_pd_rec r;
	size_t i;
	int rc;

	ntrace_pd_rewind(x->pd);
	while ((rc = ntrace_pd_next(x->pd, &r)) == 1) {
		if (r.type == NTRACE_PD_AUXTRACE_ERROR) {
			x->st->auxtrace_errors++;
			notice(x, "AUXTRACE_ERROR (type %u code %u cpu %d): %s", r.u.error.type,
			       r.u.error.code, (int)r.u.error.cpu, r.u.error.msg);
		}
		if (r.type != NTRACE_PD_AUXTRACE)
			continue;
		rc = decode_chunk(x, &r);
		if (rc)
			return rc;
	}
	if (rc < 0)
		return fail(x, "%s", ntrace_pd_errmsg(x->pd));
	for (i = 0; i < x->nstreams; i++) {
		rc = stream_end(x, &x->streams[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- Task mode: one AUX record = one task's trace ---------------------- */

/* (t, seq) of a record is before the limit (lt, lseq)? */
static bool before(uint64_t t, size_t seq, uint64_t lt, size_t lseq)
{
	return t < lt || (t == lt && seq < lseq);
}

/* The last event of pid in v[0..n) before the limit, or NULL. */
static const struct taskev *last_ev(const struct taskev *v, size_t n, uint32_t pid,
				    uint64_t lt, size_t lseq)
{
	const struct taskev *best = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].pid == pid && before(v[i].time, v[i].seq, lt, lseq) &&
		    (!best || before(best->time, best->seq, v[i].time, v[i].seq)))
			best = &v[i];
	return best;
}

static int push_idx(size_t **v, size_t *n, size_t i)
{
	size_t *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -1;
	*v = nv;
	nv[(*n)++] = i;
	return 0;
}

/*
 * The mappings process pid had before the limit: its own since its last
 * exec, or since its fork plus what the parent had then.
 */
static int collect_maps(const struct pd_dec *x, uint32_t pid, uint64_t lt, size_t lseq,
			size_t **v, size_t *n, int depth)
{
	const struct taskev *e = last_ev(x->execs, x->nexecs, pid, lt, lseq);
	const struct taskev *f = last_ev(x->forks, x->nforks, pid, lt, lseq);
	const struct taskev *from = e;
	size_t i;

	if (f && (!e || before(e->time, e->seq, f->time, f->seq))) {
		from = f;
		if (depth < 64 && collect_maps(x, f->ppid, f->time, f->seq, v, n, depth + 1))
			return -1;
	}
	for (i = 0; i < x->nmmaps; i++) {
		const struct mmaprec *m = &x->mmaps[i];

		if (m->pid == pid && before(m->time, m->seq, lt, lseq) &&
		    (!from || before(from->time, from->seq, m->time, m->seq)) &&
		    push_idx(v, n, i))
			return -1;
	}
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Add mapping m to set s; dup: the same file at the same place is there. */
static void set_add(struct pd_dec *x, struct ntrace_images *img, const struct mmaprec *m,
		    const struct mmaprec *const *done, size_t ndone)
{
	char path[4096];
	uint64_t load;
	size_t i;
	int t;

	host_path(x, m->filename, path, sizeof(path));
	t = elf_type(path);
	if (t < 0) {
		x->st->images_missing++;
		notice(x, "pid %u: no ELF file for mapping of %s at %#llx (looked for %s)", m->pid,
		       m->filename, (unsigned long long)m->addr, path);
		return;
	}
	load = t == 3 ? m->addr - m->pgoff : 0;
	for (i = 0; i < ndone; i++)
		if (!strcmp(done[i]->filename, m->filename) &&
		    (t == 3 ? done[i]->addr - done[i]->pgoff : 0) == load)
			return;
	if (ntrace_images_add_elf(img, path, load, t == 3)) {
		x->st->images_missing++;
		notice(x, "pid %u: cannot use %s for mapping of %s: %s", m->pid, path, m->filename,
		       ntrace_images_errmsg(img));
		return;
	}
	x->st->images++;
}

/* The image set of process pid before the limit (built once per distinct set). */
static struct ntrace_images *images_of(struct pd_dec *x, uint32_t pid, uint64_t lt, size_t lseq)
{
	const struct mmaprec **done;
	size_t *v = NULL, n = 0, i, k;
	struct imgset *set;

	if (x->opts && x->opts->no_mmap_images)
		return x->img;
	if (collect_maps(x, pid, lt, lseq, &v, &n, 0)) {
		free(v);
		return NULL;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_size);
	for (i = 0; i < x->nsets; i++)
		if (x->sets[i].n == n && (!n || !memcmp(x->sets[i].idx, v, n * sizeof(*v)))) {
			free(v);
			return x->sets[i].img;
		}
	set = GROW(x->sets, x->nsets);
	if (!set) {
		free(v);
		return NULL;
	}
	set->idx = v;
	set->n = n;
	set->img = ntrace_images_new(x->opts ? x->opts->isa : NULL);
	done = calloc(n + 1, sizeof(*done));
	if (!set->img || !done) {
		free(done);
		return NULL;
	}
	/* Newest first: a later mapping of an address wins over an older one. */
	for (i = n, k = 0; i-- > 0;) {
		set_add(x, set->img, &x->mmaps[v[i]], done, k);
		done[k++] = &x->mmaps[v[i]];
	}
	free(done);
	x->st->image_sets++;
	return set->img;
}

/*
 * Entry points of the images process pid mapped after the exec e (and
 * before the limit): the first instruction the new program runs in user
 * mode is one of them (the dynamic linker's, or the static program's).
 */
static size_t exec_entries(struct pd_dec *x, uint32_t pid, const struct taskev *e,
			   uint64_t lt, size_t lseq, uint64_t *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < x->nmmaps && n < max; i++) {
		const struct mmaprec *m = &x->mmaps[i];
		unsigned char h[32];
		char path[4096];
		FILE *f;

		if (m->pid != pid || m->pgoff || !strcmp(m->filename, "[vdso]") ||
		    !before(e->time, e->seq, m->time, m->seq) ||
		    !before(m->time, m->seq, lt, lseq))
			continue;
		host_path(x, m->filename, path, sizeof(path));
		f = fopen(path, "rb");
		if (!f)
			continue;
		if (fread(h, 1, sizeof(h), f) == sizeof(h) && !memcmp(h, "\177ELF", 4)) {
			uint64_t entry = 0;
			int j;

			for (j = 7; j >= 0; j--)
				entry = entry << 8 | h[24 + j];
			out[n++] = entry + ((h[16] | h[17] << 8) == 3 ? m->addr : 0);
		}
		fclose(f);
	}
	return n;
}

/*
 * Offset in buf[0..len) of the first sync message at one of the addresses
 * in ent, at or after from; len when there is none.
 */
static uint64_t find_entry_sync(const struct ntrace_codec_cfg *codec, const uint8_t *buf,
				uint64_t len, uint64_t from, const uint64_t *ent, size_t nent)
{
	struct ntrace_codec_cfg cc = *codec;
	struct ntrace_msg m[64];
	struct ntrace_parser p;
	uint64_t pos = 0;
	size_t n, used, i, j;

	cc.wait_for_eom = false;
	ntrace_parser_init(&p, &cc, 0);
	while (pos < len) {
		n = ntrace_parse(&p, buf + pos, (size_t)(len - pos), m, 64, &used);
		pos += used;
		for (i = 0; i < n; i++) {
			uint64_t a;

			if (m[i].err || m[i].offset < from || !ntrace_tcode_is_sync(m[i].tcode) ||
			    !(m[i].flags & NTRACE_MSGF_ADDR))
				continue;
			a = ntrace_addr_from_faddr(m[i].addr, cc.xlen ? cc.xlen : 64);
			for (j = 0; j < nent; j++)
				if (ent[j] == a)
					return m[i].offset;
		}
		if (!n && !used)
			break;
	}
	return len;
}

static struct ntrace_pd_task *task_of(struct pd_dec *x, uint32_t pid)
{
	struct ntrace_pd_task *t;
	size_t i;

	for (i = 0; i < x->ntasks; i++)
		if (x->tasks[i].pid == pid)
			return &x->tasks[i];
	t = GROW(x->tasks, x->ntasks);
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->comm = "";
	for (i = 0; i < x->ncomms; i++)
		if (x->comms[i].pid == pid)
			t->comm = x->comms[i].comm;
	return t;
}

static struct tcpu *tcpu_of(struct pd_dec *x, uint32_t cpu)
{
	struct tcpu *tc;
	size_t i;

	for (i = 0; i < x->ntcpus; i++)
		if (x->tcpus[i].cpu == cpu)
			return &x->tcpus[i];
	tc = GROW(x->tcpus, x->ntcpus);
	if (tc) {
		memset(tc, 0, sizeof(*tc));
		tc->cpu = cpu;
	}
	return tc;
}

/* Finish the CPU's decoder; its counters go to its task. */
static int tcpu_end(struct pd_dec *x, struct tcpu *tc)
{
	struct ntrace_pd_task *t;
	struct ntrace_dec_stats ds;
	int rc;

	if (!tc->d)
		return 0;
	/* What finish flushes belongs to this decoder's last data. */
	if (x->last_fed != tc->d) {
		if (x->ops->on_chunk)
			x->ops->on_chunk(x->ctx, &tc->chunk);
		if (x->ops->on_decoder)
			x->ops->on_decoder(x->ctx, tc->d);
		x->last_fed = tc->d;
	}
	rc = ntrace_decoder_finish(tc->d);
	ntrace_decoder_stats(tc->d, &ds);
	add_stats(&x->st->dec, &ds);
	t = task_of(x, tc->pid);
	if (t) {
		t->insns += ds.insns;
		t->errors += ds.errors;
		t->lost += ds.lost;
	}
	ntrace_decoder_free(tc->d);
	if (x->last_fed == tc->d)
		x->last_fed = NULL;
	tc->d = NULL;
	return rc;
}

/*
 * Feed buf[off, off + len) of AUX record a, decoded with img. The CPU's
 * decoder goes on when the data continues the same task's, with the same
 * images and nothing lost in between (the ntrace driver starts each record
 * with a sync message anyway; other producers need not); else a new one
 * starts. cut: the data starts at a message boundary (an exec cut).
 */
static int task_segment(struct pd_dec *x, const struct auxrec *a, struct ntrace_images *img,
			const uint8_t *buf, uint64_t off, uint64_t len, bool cut,
			struct ntrace_pd_task *t)
{
	const struct ntrace_pd_cpu *pcpu = ntrace_pd_info_cpu(&x->info, (int32_t)a->cpu);
	struct tcpu *tc = tcpu_of(x, a->cpu);
	uint64_t at = a->off + off;
	struct ntrace_pd_chunk c;
	bool gap, resync = false;
	int rc;

	if (!len)
		return 0;
	if (!tc)
		return fail(x, "out of memory");
	gap = tc->lossy_end || (tc->next_off != at && (tc->d || tc->next_off)) ||
	      (!off && (a->flags & NTRACE_PD_AUX_PARTIAL));
	if (!tc->d || cut || gap || tc->tid != a->tid || tc->img != img) {
		struct ntrace_dec_cfg cfg = pcpu->cfg;
		const char *why = NULL;

		rc = tcpu_end(x, tc);
		if (rc)
			return rc;
		/* The first data of a CPU starts a fresh trace only at offset 0. */
		resync = !cut && (gap || (!tc->next_off && at));
		if (gap) {
			x->st->resyncs++;
			notice(x, "CPU %u: trace data may be missing before AUX offset %#llx: resynchronising",
			       a->cpu, (unsigned long long)at);
		}
		cfg.src = x->opts ? x->opts->src : -1;
		cfg.enc.codec.wait_for_eom = resync;
		tc->d = ntrace_decoder_new(&cfg, img, &x->ops->dec, x->ctx, &why);
		if (!tc->d)
			return fail(x, "cannot create a decoder for CPU %u: %s", a->cpu, why);
		tc->tid = a->tid;
		tc->pid = a->pid;
		tc->img = img;
	}
	memset(&c, 0, sizeof(c));
	c.file_offset = a->file_offset;
	c.aux_offset = at;
	c.size = len;
	c.tid = a->tid;
	c.cpu = (int32_t)a->cpu;
	c.resync = resync;
	c.task = true;
	c.pid = a->pid;
	c.time = a->time;
	c.img = img;
	tc->chunk = c;
	if (x->ops->on_chunk)
		x->ops->on_chunk(x->ctx, &c);
	x->st->chunks++;
	x->st->chunk_bytes += len;
	t = task_of(x, a->pid);
	if (!t)
		return fail(x, "out of memory");
	t->bytes += len;
	tc->next_off = at + len;
	tc->lossy_end = false;
	if (x->last_fed != tc->d && x->ops->on_decoder)
		x->ops->on_decoder(x->ctx, tc->d);
	x->last_fed = tc->d;
	return ntrace_decoder_feed(tc->d, buf + off, (size_t)len);
}

/* First position in x->corder of a chunk of cpu that ends after AUX offset lo. */
static size_t chunk_from(const struct pd_dec *x, uint32_t cpu, uint64_t lo)
{
	size_t l = 0, h = x->nchunks;

	while (l < h) {
		size_t m = l + (h - l) / 2;
		const struct chunk_ref *c = &x->chunks[x->corder[m].idx];

		if (c->key < cpu || (c->key == cpu && c->offset + c->len <= lo))
			l = m + 1;
		else
			h = m;
	}
	return l;
}

/* Copy AUX bytes [a->off, a->off + a->size) of a's CPU into buf; bytes missing. */
static uint64_t gather(const struct pd_dec *x, const struct auxrec *a, uint8_t *buf,
		       uint64_t *first_missing)
{
	uint64_t covered = 0, lo = a->off, hi = a->off + a->size;
	size_t i;

	*first_missing = 0;
	for (i = chunk_from(x, a->cpu, lo); i < x->nchunks; i++) {
		const struct chunk_ref *c = &x->chunks[x->corder[i].idx];
		uint64_t s, e;

		if (c->key != a->cpu || c->offset >= hi)
			break;
		s = c->offset > lo ? c->offset : lo;
		e = c->offset + c->len < hi ? c->offset + c->len : hi;
		if (s >= e)
			continue;
		memcpy(buf + (s - lo), c->data + (s - c->offset), (size_t)(e - s));
		covered += e - s;
		if (s == lo)
			*first_missing = e - lo > *first_missing ? e - lo : *first_missing;
	}
	return a->size - (covered > a->size ? a->size : covered);
}

static int cmp_corder(const void *pa, const void *pb)
{
	const struct corder *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static int cmp_swin(const void *pa, const void *pb)
{
	const struct swin *a = pa, *b = pb;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->time < b->time ? -1 : a->time > b->time;
}

/* First AUX record (sorted by CPU and offset) of cpu that ends after lo. */
static size_t aux_from(const struct pd_dec *x, uint32_t cpu, uint64_t lo)
{
	size_t l = 0, h = x->nauxs;

	while (l < h) {
		size_t m = l + (h - l) / 2;
		const struct auxrec *a = &x->auxs[m];

		if (a->cpu < cpu || (a->cpu == cpu && a->off + a->size <= lo))
			l = m + 1;
		else
			h = m;
	}
	return l;
}

static int cmp_aux_cpu(const void *pa, const void *pb)
{
	const struct auxrec *a = pa, *b = pb;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int cmp_aux_time(const void *pa, const void *pb)
{
	const struct auxrec *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int cmp_task(const void *pa, const void *pb)
{
	const struct ntrace_pd_task *a = pa, *b = pb;

	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* Decode one AUX record: cut at execs, each part with its images. */
static int task_record(struct pd_dec *x, const struct auxrec *a)
{
	const struct ntrace_pd_cpu *pcpu = ntrace_pd_info_cpu(&x->info, (int32_t)a->cpu);
	uint64_t missing, whole, pos = 0, cut, ent[16];
	struct ntrace_pd_task *t = task_of(x, a->pid);
	const struct taskev *in[8];
	struct ntrace_images *img;
	size_t i, k, nent, nin = 0;
	uint8_t *buf;
	int rc = 0;

	if (!t || a->size > SIZE_MAX)
		return fail(x, "out of memory");
	buf = malloc(a->size ? (size_t)a->size : 1);
	if (!buf)
		return fail(x, "out of memory");
	missing = gather(x, a, buf, &whole);
	if (missing) {
		x->st->missing_bytes += missing;
		notice(x, "CPU %u: %llu of the %llu bytes of the AUX record at file offset %llu are in no AUXTRACE record: decoding the first %llu",
		       a->cpu, (unsigned long long)missing, (unsigned long long)a->size,
		       (unsigned long long)a->file_offset, (unsigned long long)whole);
	}
	t->records++;
	/* The execs of the process during this run, in order. */
	for (i = 0; i < x->nexecs && nin < 8; i++)
		if (x->execs[i].pid == a->pid && x->execs[i].time > a->t_start &&
		    x->execs[i].time <= a->time)
			in[nin++] = &x->execs[i];
	/* Generation k (0: before the first exec) ends at exec k or the record. */
#define LIM_T(k) ((k) < nin ? in[k]->time : a->time)
#define LIM_S(k) ((k) < nin ? in[k]->seq : SIZE_MAX)
	img = images_of(x, a->pid, LIM_T(0), LIM_S(0));
	for (k = 0; img && k < nin; k++) {
		nent = exec_entries(x, a->pid, in[k], LIM_T(k + 1), LIM_S(k + 1), ent, 16);
		cut = find_entry_sync(&pcpu->cfg.enc.codec, buf, whole, pos, ent, nent);
		if (cut >= whole)
			break;	/* the new program ran no user code in this record */
		rc = task_segment(x, a, img, buf, pos, cut - pos, pos > 0, t);
		if (rc)
			goto out;
		pos = cut;
		t->exec_splits++;
		x->st->exec_splits++;
		img = images_of(x, a->pid, LIM_T(k + 1), LIM_S(k + 1));
	}
#undef LIM_T
#undef LIM_S
	if (!img) {
		rc = fail(x, "out of memory");
		goto out;
	}
	rc = task_segment(x, a, img, buf, pos, whole - pos, pos > 0, t);
	if (!rc && (missing || (a->flags & (NTRACE_PD_AUX_TRUNCATED | NTRACE_PD_AUX_COLLISION |
					    NTRACE_PD_AUX_PARTIAL)))) {
		struct tcpu *tc = tcpu_of(x, a->cpu);

		if (tc)
			tc->lossy_end = true;
	}
out:
	free(buf);
	return rc;
}

/* Pass 2 in task mode: the AUX records in time order. */
static int task_decode(struct pd_dec *x)
{
	size_t i, j;
	int rc = 0;

	x->st->task_mode = true;
	/* Where each record's run began: its CPU's previous record or the switch-in. */
	qsort(x->auxs, x->nauxs, sizeof(*x->auxs), cmp_aux_cpu);
	/*
	 * The same record twice (same CPU, place, size and time: perf record
	 * has been seen to write one twice, around a FINISHED_ROUND) is one.
	 */
	for (i = j = 0; i < x->nauxs; i++) {
		const struct auxrec *a = &x->auxs[i];

		if (j && x->auxs[j - 1].cpu == a->cpu && x->auxs[j - 1].off == a->off &&
		    x->auxs[j - 1].size == a->size && x->auxs[j - 1].time == a->time)
			continue;
		x->auxs[j++] = *a;
	}
	x->nauxs = j;
	if (x->nswins)
		qsort(x->swins, x->nswins, sizeof(*x->swins), cmp_swin);
	x->corder = malloc((x->nchunks ? x->nchunks : 1) * sizeof(*x->corder));
	if (!x->corder)
		return fail(x, "out of memory");
	for (i = 0; i < x->nchunks; i++) {
		x->corder[i].key = x->chunks[i].key;
		x->corder[i].offset = x->chunks[i].offset;
		x->corder[i].idx = i;
	}
	qsort(x->corder, x->nchunks, sizeof(*x->corder), cmp_corder);
	for (i = 0, j = 0; i < x->nauxs; i++) {
		struct auxrec *a = &x->auxs[i];
		const struct swin *last = NULL;

		a->t_start = i && x->auxs[i - 1].cpu == a->cpu ? x->auxs[i - 1].time : 0;
		/* the last switch-in on the CPU before the record: its task's */
		while (j < x->nswins && (x->swins[j].cpu < a->cpu ||
					 (x->swins[j].cpu == a->cpu && x->swins[j].time <= a->time))) {
			if (x->swins[j].cpu == a->cpu)
				last = &x->swins[j];
			j++;
		}
		if (!last && j && x->swins[j - 1].cpu == a->cpu)
			last = &x->swins[j - 1];
		if (last && last->tid == a->tid && last->time > a->t_start)
			a->t_start = last->time;
	}
	/* AUX bytes outside every AUX record cannot be attributed. */
	for (i = 0; i < x->nchunks; i++) {
		const struct chunk_ref *c = &x->chunks[i];
		uint64_t in = 0;

		for (j = aux_from(x, c->key, c->offset); j < x->nauxs; j++) {
			const struct auxrec *a = &x->auxs[j];
			uint64_t s = a->off > c->offset ? a->off : c->offset;
			uint64_t e = a->off + a->size < c->offset + c->len ?
				     a->off + a->size : c->offset + c->len;

			if (a->cpu != c->key || a->off >= c->offset + c->len)
				break;
			if (s < e)
				in += e - s;
		}
		if (in < c->len) {
			x->st->unattributed_bytes += c->len - in;
			notice(x, "CPU %u: %llu bytes of the AUXTRACE record at AUX offset %#llx belong to no AUX record: not decoded",
			       c->key, (unsigned long long)(c->len - in),
			       (unsigned long long)c->offset);
		}
	}
	qsort(x->auxs, x->nauxs, sizeof(*x->auxs), cmp_aux_time);
	for (i = 0; i < x->nauxs && !rc; i++) {
		const struct auxrec *a = &x->auxs[i];

		struct tcpu *tc;

		if (!a->size || (x->opts && x->opts->cpu >= 0 && (int32_t)a->cpu != x->opts->cpu))
			continue;
		if (!x->opts || !x->opts->pid || a->pid == x->opts->pid) {
			rc = task_record(x, a);
			continue;
		}
		/* Another process's record: not decoded, and not a gap either. */
		tc = tcpu_of(x, a->cpu);
		if (!tc)
			return fail(x, "out of memory");
		if (tc->next_off == a->off) {
			rc = tcpu_end(x, tc);
			tc->next_off = a->off + a->size;
			tc->lossy_end = a->flags & (NTRACE_PD_AUX_TRUNCATED | NTRACE_PD_AUX_COLLISION |
						    NTRACE_PD_AUX_PARTIAL);
		}
	}
	for (i = 0; i < x->ntcpus && !rc; i++)
		rc = tcpu_end(x, &x->tcpus[i]);
	if (rc)
		return rc < 0 ? -1 : 0;
	if (x->ntasks)
		qsort(x->tasks, x->ntasks, sizeof(*x->tasks), cmp_task);
	x->st->tasks = x->ntasks;
	for (i = 0; i < x->ntasks && x->ops->on_task; i++)
		x->ops->on_task(x->ctx, &x->tasks[i]);
	return 0;
}

static bool use_task_mode(const struct pd_dec *x)
{
	size_t i;

	if ((x->opts && x->opts->no_task_mode) || (x->info.flags & NTRACE_PD_INFO_SNAPSHOT) ||
	    !x->nauxs || !x->aux_keyed || !x->nchunks)
		return false;
	for (i = 0; i < x->nchunks; i++)
		if (x->chunks[i].per_thread)
			return false;
	return true;
}

int ntrace_pd_decode(struct ntrace_perfdata *pd, struct ntrace_images *img,
		     const struct ntrace_pd_decode_opts *opts,
		     const struct ntrace_pd_decode_ops *ops, void *ctx,
		     struct ntrace_pd_decode_stats *st, char *err, size_t errlen)
{
	struct pd_dec x = {
		.pd = pd, .img = img, .opts = opts, .ops = ops, .ctx = ctx, .st = st,
		.err = err, .errlen = errlen, .aux_keyed = true,
	};
	size_t i;
	int rc;

	memset(st, 0, sizeof(*st));
	if (err && errlen)
		err[0] = 0;
	rc = scan(&x);
	if (!rc && use_task_mode(&x)) {
		rc = task_decode(&x);
		if (ops->on_end)
			ops->on_end(ctx);
	} else if (!rc) {
		for (i = 0; i < x.nmmaps; i++)
			add_mmap_image(&x, &x.mmaps[i]);
		rc = decode_all(&x);
	}
	/* A sink stop value (rc > 0) ends decoding early, without an error. */
	for (i = 0; i < x.nstreams; i++)
		if (x.streams[i].d) {
			ntrace_decoder_free(x.streams[i].d);
			x.streams[i].d = NULL;
		}
	for (i = 0; i < x.nadded; i++)
		free(x.added[i]);
	free(x.added);
	for (i = 0; i < x.nsets; i++) {
		free(x.sets[i].idx);
		ntrace_images_free(x.sets[i].img);
	}
	free(x.sets);
	free(x.mmaps);
	free(x.execs);
	free(x.forks);
	free(x.comms);
	free(x.auxs);
	free(x.swins);
	free(x.tasks);
	free(x.corder);
	for (i = 0; i < x.ntcpus; i++)
		ntrace_decoder_free(x.tcpus[i].d);
	free(x.tcpus);
	free(x.streams);
	free(x.chunks);
	free(x.loss);
	ntrace_pd_info_free(&x.info);
	return rc < 0 ? -1 : 0;
}
