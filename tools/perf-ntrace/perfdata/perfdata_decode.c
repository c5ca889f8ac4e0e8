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

#include "../lib/err_internal.h"
#include "perfdata.h"
#include "perfdata_internal.h"

void pd_notice(struct pd_dec *x, const char *fmt, ...)
{
	struct ntrace_errbuf n;	/* not a failure: code 0, only the text */
	va_list ap;

	if (!x->ops->on_notice)
		return;
	va_start(ap, fmt);
	ntrace_err_vset(&n, 0, fmt, ap);
	va_end(ap);
	x->ops->on_notice(x->ctx, n.msg);
}

int pd_fail(struct pd_dec *x, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ntrace_err_vset(pd_errbuf(x->pd), code, fmt, ap);
	va_end(ap);
	return code;
}

int pd_no_decoder(struct pd_dec *x, uint32_t cpu, const char *why)
{
	/* decoder.h: "out of memory", else a setting */
	return pd_fail(x, strcmp(why, ntrace_errstr(NTRACE_ENOMEM)) ? NTRACE_ECONFIG : NTRACE_ENOMEM,
		       "cannot create a decoder for CPU %u: %s", cpu, why);
}

/* e_type of an ELF file: 2 ET_EXEC, 3 ET_DYN; NTRACE_ENOENT, NTRACE_ENOTELF. */
int pd_elf_type(const char *path)
{
	unsigned char h[18];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return NTRACE_ENOENT;
	n = fread(h, 1, sizeof(h), f);
	fclose(f);
	if (n != sizeof(h) || memcmp(h, "\177ELF", 4))
		return NTRACE_ENOTELF;
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
void pd_host_path(const struct pd_dec *x, const char *fn, char *path, size_t size)
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

	pd_host_path(x, fn, path, sizeof(path));
	t = pd_elf_type(path);
	if (t < 0) {
		x->st->images_missing++;
		pd_notice(x, "no ELF file for mapping of %s at %#llx (looked for %s)", fn,
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
		pd_notice(x, "cannot use %s for mapping of %s: %s", path, fn,
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
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
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
void *pd_grow(void *parr, size_t *n, size_t size)
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

static int add_mmap(struct pd_dec *x, const struct ntrace_pd_rec *r)
{
	struct mmaprec *m;

	if (!strcmp(r->u.mmap.filename, "[vdso]") && (!x->opts || !x->opts->vdso))
		return 0;
	m = GROW(x->mmaps, x->nmmaps);
	if (!m)
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
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
	case NTRACE_PD_ITRACE_START:
		/*
		 * The task's event starts tracing on the CPU: its trace there
		 * begins no earlier (a per-task recording has no switch-ins).
		 */
	case NTRACE_PD_SWITCH_CPU_WIDE:
		if ((r->type == NTRACE_PD_SWITCH_CPU_WIDE && (r->misc & NTRACE_PD_MISC_SWITCH_OUT)) ||
		    !r->sid.has_cpu || !r->sid.has_tid || !r->sid.has_time)
			return 0;
		w = GROW(x->swins, x->nswins);
		if (!w)
			return pd_fail(x, NTRACE_ENOMEM, "out of memory");
		w->cpu = r->sid.cpu;
		w->pid = r->sid.pid;
		w->tid = r->sid.tid;
		w->time = r->sid.time;
		return 0;
	default:
		return 0;
	}
	return n ? 0 : pd_fail(x, NTRACE_ENOMEM, "out of memory");
}

static int add_aux(struct pd_dec *x, const struct ntrace_pd_rec *r)
{
	struct auxrec *a;

	if (!r->sid.has_cpu || !r->sid.has_tid || !r->sid.has_time)
		x->aux_keyed = false;
	a = GROW(x->auxs, x->nauxs);
	if (!a)
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
	a->has_cpu = r->sid.has_cpu;
	a->has_tid = r->sid.has_tid;
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
	char why[NTRACE_ERRBUF_SIZE];
	struct ntrace_pd_rec r;
	int rc;

	ntrace_pd_rewind(x->pd);
	while ((rc = ntrace_pd_next(x->pd, &r)) == 1) {
		switch (r.type) {
		case NTRACE_PD_AUXTRACE_INFO:
			if (x->have_info) {
				pd_notice(x, "second AUXTRACE_INFO at offset %llu ignored",
				       (unsigned long long)r.offset);
				break;
			}
			rc = ntrace_pd_info_parse(&r, &x->info, why, sizeof(why));
			if (rc)
				return pd_fail(x, rc, "%s", why);
			x->have_info = true;
			break;
		case NTRACE_PD_MMAP:
		case NTRACE_PD_MMAP2:
			rc = (!x->opts || !x->opts->no_mmap_images) && exec_mapping(&r) ?
			     add_mmap(x, &r) : 0;
			if (rc)
				return rc;
			break;
		case NTRACE_PD_COMM:
		case NTRACE_PD_FORK:
		case NTRACE_PD_SWITCH_CPU_WIDE:
			rc = add_task_event(x, &r);
			if (rc)
				return rc;
			break;
		case NTRACE_PD_AUX:
			rc = add_aux(x, &r);
			if (rc)
				return rc;
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
				return NTRACE_ENOMEM;
			/* A region with gaps inside: restart at its start too. */
			if ((r.u.aux.flags & NTRACE_PD_AUX_PARTIAL) &&
			    add_loss(x, &r, r.u.aux.aux_offset))
				return NTRACE_ENOMEM;
			break;
		case NTRACE_PD_LOST:
			x->st->lost_records++;
			break;
		case NTRACE_PD_AUXTRACE: {
			struct chunk_ref *nc = realloc(x->chunks, (x->nchunks + 1) * sizeof(*nc));

			if (!nc)
				return pd_fail(x, NTRACE_ENOMEM, "out of memory");
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
			rc = add_task_event(x, &r);
			if (rc)
				return rc;
			break;
		default:
			break;
		}
		x->nrec++;
	}
	if (rc < 0)
		return rc;	/* the reader has the detail */
	if (!x->have_info)
		return pd_fail(x, NTRACE_EBADINPUT,
			       "no ntrace AUXTRACE_INFO record: not recorded with perf record -e ntrace// (or by a perf without the ntrace recorder)");
	unpad_chunks(x);
	return 0;
}

void pd_add_stats(struct ntrace_dec_stats *t, const struct ntrace_dec_stats *s)
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
	pd_add_stats(&x->st->dec, &ds);
	ntrace_decoder_free(s->d);
	if (x->last_fed == s->d)
		x->last_fed = NULL;
	s->d = NULL;
	return rc;
}

/*
 * (Re)start the stream's decoder; mid_message: the data may start inside a
 * message; aligned: it starts at a message boundary, so bad bytes before
 * the first sync are damage.
 */
static int stream_start(struct pd_dec *x, struct stream *s, bool mid_message, bool aligned)
{
	struct ntrace_dec_cfg cfg = s->pcpu->cfg;
	const char *why = NULL;
	int rc = stream_end(x, s);

	if (rc)
		return rc;
	cfg.src = x->opts ? x->opts->src : -1;
	cfg.enc.codec.strict = x->opts && x->opts->strict;
	cfg.enc.codec.wait_for_eom = mid_message;
	s->d = ntrace_decoder_new(&cfg, x->img, &x->ops->dec, x->ctx, &why);
	if (!s->d)
		return pd_no_decoder(x, s->pcpu->cpu, why);
	if (aligned)
		ntrace_decoder_set_aligned(s->d);
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
	s->pcpu = ntrace_auxinfo_cpu(&x->info, s->cpu);
	if (!per_thread && (int32_t)s->pcpu->cpu != s->cpu)
		pd_notice(x, "AUXTRACE_INFO has no record for CPU %d: using CPU %u's settings", s->cpu,
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

/*
 * Does stream s's data at AUX offset at start at a message boundary? Where
 * an AUX record of the stream starts that no wrap cut, or at the area's
 * start; not in snapshot mode, nor where a record of unknown stream starts
 * that may have wrapped.
 */
static bool aligned_at(const struct pd_dec *x, const struct stream *s, uint64_t at)
{
	bool known = !at;
	size_t i;

	if (x->info.flags & NTRACE_AUXINFO_SNAPSHOT)
		return false;
	for (i = 0; i < x->nauxs; i++) {
		const struct auxrec *a = &x->auxs[i];
		bool keyed = s->per_thread ? a->has_tid : a->has_cpu;

		if (a->off != at || (keyed && (s->per_thread ? a->tid != s->tid :
					       (int32_t)a->cpu != s->cpu)))
			continue;
		if (a->flags & PD_AUX_UNALIGNED)
			return false;
		known = known || keyed;
	}
	return known;
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
	bool resync, aligned;
	int rc;

	/* Pass 2 sees the AUXTRACE records in the order pass 1 listed them. */
	if (x->cur_chunk < x->nchunks && x->chunks[x->cur_chunk].offset == off)
		size = x->chunks[x->cur_chunk].len;
	x->cur_chunk++;
	s = stream_of(x, r);
	if (!s)
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
	if (x->opts && x->opts->cpu >= 0 && s->cpu != x->opts->cpu)
		return 0;
	resync = s->started && (off != s->next_off || loss_at(x, s, off) ||
				(x->info.flags & NTRACE_AUXINFO_SNAPSHOT));
	if (!s->started || resync) {
		if (resync) {
			x->st->resyncs++;
			pd_notice(x, "CPU %d: trace data may be missing before AUX offset %#llx (file offset %llu): resynchronising",
			       s->cpu, (unsigned long long)off, (unsigned long long)r->offset);
		}
		/* a restart or a first chunk past offset 0 may begin mid-message */
		aligned = aligned_at(x, s, off);
		rc = stream_start(x, s, !aligned && (resync || off != 0), aligned);
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
			pd_notice(x, "CPU %d: AUX data lost at offset %#llx: resynchronising", s->cpu,
			       (unsigned long long)cut);
			aligned = aligned_at(x, s, cut);
			rc = stream_start(x, s, !aligned, aligned);
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
			pd_notice(x, "AUXTRACE_ERROR (type %u code %u cpu %d): %s", r.u.error.type,
			       r.u.error.code, (int)r.u.error.cpu, r.u.error.msg);
		}
		if (r.type != NTRACE_PD_AUXTRACE)
			continue;
		rc = decode_chunk(x, &r);
		if (rc)
			return rc;
	}
	if (rc < 0)
		return rc;	/* the reader has the detail */
	for (i = 0; i < x->nstreams; i++) {
		rc = stream_end(x, &x->streams[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- Task mode: one AUX record = one task's trace ---------------------- */

int ntrace_pd_decode(struct ntrace_perfdata *pd, struct ntrace_images *img,
		     const struct ntrace_pd_decode_opts *opts,
		     const struct ntrace_pd_decode_ops *ops, void *ctx,
		     struct ntrace_pd_decode_stats *st)
{
	struct pd_dec x = {
		.pd = pd, .img = img, .opts = opts, .ops = ops, .ctx = ctx, .st = st,
		.aux_keyed = true,
	};
	size_t i;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = scan(&x);
	if (!rc && pd_use_task_mode(&x)) {
		rc = pd_task_decode(&x);
		if (ops->on_end)
			ops->on_end(ctx);
	} else if (!rc) {
		for (i = 0; i < x.nmmaps; i++)
			add_mmap_image(&x, &x.mmaps[i]);
		rc = decode_all(&x);
	}
	/*
	 * A sink stop value (rc > 0) ends decoding early, without an error; a
	 * negative one is the callback's failure, returned as it is.
	 */
	if (rc < 0 && !pd_errbuf(pd)->code)
		pd_fail(&x, rc, "a decoder callback failed (%d: %s)", rc, ntrace_errstr(rc));
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
	ntrace_auxinfo_free(&x.info);
	return rc < 0 ? rc : 0;
}
