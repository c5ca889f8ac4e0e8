// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Task mode of the perf.data decoder, for CPU-wide recordings
 * (perf record -a / -C): the ntrace driver ends an AUX record at every
 * context switch, so each PERF_RECORD_AUX holds one task's run and its
 * sample_id names the task. Records are decoded in time order across CPUs,
 * each with the image set of its process (MMAP2 since its exec, or since
 * its fork plus the parent's mappings then); an exec inside a record is
 * cut at the new program's entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata_internal.h"

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
		return NTRACE_ENOMEM;
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
			return NTRACE_ENOMEM;
	}
	for (i = 0; i < x->nmmaps; i++) {
		const struct mmaprec *m = &x->mmaps[i];

		if (m->pid == pid && before(m->time, m->seq, lt, lseq) &&
		    (!from || before(from->time, from->seq, m->time, m->seq)) &&
		    push_idx(v, n, i))
			return NTRACE_ENOMEM;
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

	pd_host_path(x, m->filename, path, sizeof(path));
	t = pd_elf_type(path);
	if (t < 0) {
		x->st->images_missing++;
		pd_notice(x, "pid %u: no ELF file for mapping of %s at %#llx (looked for %s)", m->pid,
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
		pd_notice(x, "pid %u: cannot use %s for mapping of %s: %s", m->pid, path, m->filename,
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
		pd_host_path(x, m->filename, path, sizeof(path));
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

/*
 * tc's decoder takes input again after another's: announce its last chunk,
 * so that what it outputs is told as that chunk's task's.
 */
static void tcpu_resume(struct pd_dec *x, struct tcpu *tc)
{
	if (x->last_fed == tc->d)
		return;
	if (x->ops->on_chunk)
		x->ops->on_chunk(x->ctx, &tc->chunk);
	if (x->ops->on_decoder)
		x->ops->on_decoder(x->ctx, tc->d);
	x->last_fed = tc->d;
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
	tcpu_resume(x, tc);
	rc = ntrace_decoder_finish(tc->d);
	ntrace_decoder_stats(tc->d, &ds);
	pd_add_stats(&x->st->dec, &ds);
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
 * starts. cut: the data starts at a message boundary (an exec cut);
 * boundary: it does, but need not start a new decoder.
 */
static int task_segment(struct pd_dec *x, const struct auxrec *a, struct ntrace_images *img,
			const uint8_t *buf, uint64_t off, uint64_t len, bool cut,
			bool boundary, struct ntrace_pd_task *t)
{
	const struct ntrace_auxinfo_cpu *pcpu = ntrace_auxinfo_cpu(&x->info, (int32_t)a->cpu);
	struct tcpu *tc = tcpu_of(x, a->cpu);
	uint64_t at = a->off + off;
	struct ntrace_pd_chunk c;
	bool gap, resync = false, aligned;
	int rc;

	if (!len)
		return 0;
	if (!tc)
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
	gap = tc->lossy_end || (tc->next_off != at && (tc->d || tc->next_off)) ||
	      (!off && (a->flags & NTRACE_PD_AUX_PARTIAL));
	/* bad bytes before the first sync: damage, not a message cut at the start */
	aligned = cut || boundary || (!off && !(a->flags & PD_AUX_UNALIGNED));
	/*
	 * A record that continues the last (no stop, so no sync message to
	 * start a new decoder at) of the same task: the trace goes on, only
	 * the task's mappings changed in between.
	 */
	if (tc->d && !cut && !gap && tc->tid == a->tid && tc->img != img &&
	    (a->flags & NTRACE_PD_AUX_CONT)) {
		ntrace_decoder_set_images(tc->d, img);
		tc->img = img;
	}
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
			pd_notice(x, "CPU %u: trace data may be missing before AUX offset %#llx: resynchronising",
			       a->cpu, (unsigned long long)at);
		}
		cfg.src = x->opts ? x->opts->src : -1;
		cfg.enc.codec.strict = x->opts && x->opts->strict;
		/* skip to a message's end unless the data is known to start at one */
		cfg.enc.codec.wait_for_eom = resync && !aligned;
		tc->d = ntrace_decoder_new(&cfg, img, &x->ops->dec, x->ctx, &why);
		if (!tc->d)
			return pd_no_decoder(x, a->cpu, why);
		tc->tid = a->tid;
		tc->pid = a->pid;
		tc->img = img;
	}
	if (aligned)
		ntrace_decoder_set_aligned(tc->d);
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
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
	t->bytes += len;
	tc->next_off = at + len;
	tc->lossy_end = false;
	tc->mid_msg = (buf[off + len - 1] & 3) != 3;
	if (x->last_fed != tc->d && x->ops->on_decoder)
		x->ops->on_decoder(x->ctx, tc->d);
	x->last_fed = tc->d;
	return ntrace_decoder_feed(tc->d, buf + off, (size_t)len);
}

/*
 * A record that continues its CPU's last one (NTRACE_PD_AUX_CONT: the
 * driver published what the sink had written while it went on capturing)
 * may start inside a message, whose last bytes the sink held back. They
 * belong to the decoder that has the message's start, whichever task and
 * images the record's run is of (an exec may lie between): fed to it here,
 * up to the message's end (its byte with MSEO 3), or passed over where
 * that task is not decoded (--pid). Returns how many.
 */
static uint64_t task_tail(struct pd_dec *x, const struct auxrec *a, const uint8_t *buf,
			  uint64_t len, int *rc)
{
	struct tcpu *tc = tcpu_of(x, a->cpu);
	struct ntrace_pd_task *t;
	uint64_t n = 0;

	*rc = 0;
	if (!tc || !tc->mid_msg || tc->lossy_end || tc->next_off != a->off ||
	    !(a->flags & NTRACE_PD_AUX_CONT) || (a->flags & NTRACE_PD_AUX_PARTIAL))
		return 0;
	while (n < len && (buf[n] & 3) != 3)
		n++;
	n = n < len ? n + 1 : len;
	if (!n)
		return 0;
	tc->next_off += n;
	tc->mid_msg = (buf[n - 1] & 3) != 3;
	if (!tc->d)
		return n;
	t = task_of(x, tc->pid);
	if (!t) {
		*rc = pd_fail(x, NTRACE_ENOMEM, "out of memory");
		return 0;
	}
	t->bytes += n;
	x->st->chunk_bytes += n;
	/* its output is the last chunk's task's, at this record's time */
	tc->chunk.file_offset = a->file_offset;
	tc->chunk.aux_offset = a->off;
	tc->chunk.size = n;
	tc->chunk.resync = false;
	tc->chunk.time = a->time;
	x->last_fed = NULL;
	tcpu_resume(x, tc);
	*rc = ntrace_decoder_feed(tc->d, buf, (size_t)n);
	return n;
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
		/* chunks in offset order: this one extends the bytes from lo */
		if (s <= lo + *first_missing && e - lo > *first_missing)
			*first_missing = e - lo;
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

/*
 * A record of a process not decoded (--pid): no gap after it, and its
 * first bytes may end the last message of the task decoded before it.
 */
static int task_skip(struct pd_dec *x, const struct auxrec *a)
{
	struct tcpu *tc = tcpu_of(x, a->cpu);
	uint64_t whole, n;
	uint8_t *buf;
	int rc;

	if (!tc)
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
	if (tc->next_off != a->off)
		return 0;
	if (a->size > SIZE_MAX)
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
	buf = malloc((size_t)a->size);
	if (!buf)
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
	gather(x, a, buf, &whole);
	n = task_tail(x, a, buf, whole, &rc);
	if (!rc)
		rc = tcpu_end(x, tc);
	tc->next_off = a->off + a->size;
	tc->lossy_end = whole < a->size ||
			(a->flags & (NTRACE_PD_AUX_TRUNCATED | NTRACE_PD_AUX_COLLISION |
				     NTRACE_PD_AUX_PARTIAL));
	/* its own last message cut by its end: the next record's tail is its */
	if (whole > n)
		tc->mid_msg = (buf[whole - 1] & 3) != 3;
	free(buf);
	return rc;
}

/* Decode one AUX record: cut at execs, each part with its images. */
static int task_record(struct pd_dec *x, const struct auxrec *a)
{
	const struct ntrace_auxinfo_cpu *pcpu = ntrace_auxinfo_cpu(&x->info, (int32_t)a->cpu);
	uint64_t missing, whole, pos, tail, cut, ent[16];
	struct ntrace_pd_task *t = task_of(x, a->pid);
	const struct taskev *in[8];
	struct ntrace_images *img;
	size_t i, k, nent, nin = 0;
	uint8_t *buf;
	int rc = 0;

	if (!t || a->size > SIZE_MAX)
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
	buf = malloc(a->size ? (size_t)a->size : 1);
	if (!buf)
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
	missing = gather(x, a, buf, &whole);
	if (missing) {
		x->st->missing_bytes += missing;
		pd_notice(x, "CPU %u: %llu of the %llu bytes of the AUX record at file offset %llu are in no AUXTRACE record: decoding the first %llu",
		       a->cpu, (unsigned long long)missing, (unsigned long long)a->size,
		       (unsigned long long)a->file_offset, (unsigned long long)whole);
	}
	t->records++;
	if (a->flags & (NTRACE_PD_AUX_TRUNCATED | NTRACE_PD_AUX_PARTIAL | NTRACE_PD_AUX_COLLISION))
		t->flagged++;
	/* The execs of the process during this run, in order. */
	for (i = 0; i < x->nexecs && nin < 8; i++)
		if (x->execs[i].pid == a->pid && x->execs[i].time > a->t_start &&
		    x->execs[i].time <= a->time)
			in[nin++] = &x->execs[i];
	/* Generation k (0: before the first exec) ends at exec k or the record. */
#define LIM_T(k) ((k) < nin ? in[k]->time : a->time)
#define LIM_S(k) ((k) < nin ? in[k]->seq : SIZE_MAX)
	pos = tail = task_tail(x, a, buf, whole, &rc);
	if (rc)
		goto out;
	img = images_of(x, a->pid, LIM_T(0), LIM_S(0));
	for (k = 0; img && k < nin; k++) {
		nent = exec_entries(x, a->pid, in[k], LIM_T(k + 1), LIM_S(k + 1), ent, 16);
		cut = find_entry_sync(&pcpu->cfg.enc.codec, buf, whole, pos, ent, nent);
		if (cut >= whole)
			break;	/* the new program ran no user code in this record */
		rc = task_segment(x, a, img, buf, pos, cut - pos, pos > tail, pos > 0, t);
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
		rc = pd_fail(x, NTRACE_ENOMEM, "out of memory");
		goto out;
	}
	rc = task_segment(x, a, img, buf, pos, whole - pos, pos > tail, pos > 0, t);
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
int pd_task_decode(struct pd_dec *x)
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
		return pd_fail(x, NTRACE_ENOMEM, "out of memory");
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
		/*
		 * A task reaped before its final switch-out leaves its last
		 * record without a pid (perf's -1): it is the task that was
		 * switched in last.
		 */
		if (a->pid == UINT32_MAX && a->tid == UINT32_MAX && last &&
		    last->tid != UINT32_MAX) {
			a->pid = last->pid;
			a->tid = last->tid;
			x->st->reaped_records++;
		}
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
			pd_notice(x, "CPU %u: %llu bytes of the AUXTRACE record at AUX offset %#llx belong to no AUX record: not decoded",
			       c->key, (unsigned long long)(c->len - in),
			       (unsigned long long)c->offset);
		}
	}
	qsort(x->auxs, x->nauxs, sizeof(*x->auxs), cmp_aux_time);
	for (i = 0; i < x->nauxs && !rc; i++) {
		const struct auxrec *a = &x->auxs[i];

		if (!a->size || (x->opts && x->opts->cpu >= 0 && (int32_t)a->cpu != x->opts->cpu))
			continue;
		if (!x->opts || !x->opts->pid || a->pid == x->opts->pid)
			rc = task_record(x, a);
		else
			rc = task_skip(x, a);
	}
	for (i = 0; i < x->ntcpus && !rc; i++)
		rc = tcpu_end(x, &x->tcpus[i]);
	if (rc)
		return rc < 0 ? rc : 0;
	if (x->ntasks)
		qsort(x->tasks, x->ntasks, sizeof(*x->tasks), cmp_task);
	x->st->tasks = x->ntasks;
	for (i = 0; i < x->ntasks && x->ops->on_task; i++)
		x->ops->on_task(x->ctx, &x->tasks[i]);
	return 0;
}

bool pd_use_task_mode(const struct pd_dec *x)
{
	size_t i;

	if ((x->opts && x->opts->no_task_mode) || (x->info.flags & NTRACE_AUXINFO_SNAPSHOT) ||
	    !x->nauxs || !x->aux_keyed || !x->nchunks)
		return false;
	for (i = 0; i < x->nchunks; i++)
		if (x->chunks[i].per_thread)
			return false;
	return true;
}
