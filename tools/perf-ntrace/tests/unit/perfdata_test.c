// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf.data reader tests on files synthesised here, laid out the way
 * perf record writes them (file header, attributes with ids, records with
 * sample_id trailers and IDENTIFIER, AUXTRACE data padded to 8 bytes).
 *
 *   perfdata_test                  unit tests (TAP)
 *   perfdata_test --write OUT ...  write a synthetic perf.data for tests/perfdata.sh:
 *       --trace BIN      N-Trace bytes to carry in AUXTRACE chunks
 *       --chunks N       split them into N chunks of uneven sizes (default 1)
 *       --elf PATH@ADDR,LEN  an executable MMAP2 record for PATH
 *       --htm, --iret    encoder settings written into AUXTRACE_INFO
 *       --ts             ... with timestamps, and perf time = 5000000 +
 *                        1.5 ns per timestamp unit (time_mult 3, time_shift 1)
 *       --lose N         drop N trace bytes after the first chunk and flag
 *                        that chunk's AUX record TRUNCATED
 *       --lose-mid N     one AUXTRACE chunk holding two AUX regions, the
 *                        first TRUNCATED, with N trace bytes dropped between
 *       --no-auxtrace    leave out AUXTRACE_INFO and AUXTRACE (stock perf reads it)
 *       --pipe           pipe layout (attributes in HEADER_ATTR records)
 *     task mode (perf record -a: per-CPU AUX areas, cpu/tid/time on every record):
 *       --task PID COMM PATH@ADDR,LEN  a process: its COMM and executable MMAP2
 *       --run CPU PID BIN  one run of PID on CPU, in the order given: switch-in,
 *                        the AUX record of BIN's bytes (its AUXTRACE chunk
 *                        follows), switch-out; runs on other CPUs overlap in time
 *       --reaped PID     PID was reaped before its final switch-out: an EXIT,
 *                        then its last AUX record (and switch-out) with pid -1
 *       --no-switch-in CPU  no switch-in and no ITRACE_START on CPU
 *       --cont-mid       the last --run's bytes in two AUX records, the second
 *                        flagged NTRACE_AUX_FLAG_CONT and starting inside a
 *                        message (after the first byte past the middle that
 *                        does not end one), as a drain that left the sink
 *                        running cuts them
 *       --mmap-between PATH@ADDR,LEN  with --cont-mid: an executable MMAP2 of
 *                        the run's process between the two records (its image
 *                        set changes there)
 *       --cont-tail      the last byte of the last --run's trace (its last
 *                        message's end) goes in the next run's AUX record on
 *                        that CPU, flagged NTRACE_AUX_FLAG_CONT, as a drain
 *                        that left the sink running after a switch the event
 *                        did not cut at publishes it (with the next task's pid)
 *       --cont-at N      as --cont-mid, the second record starting at byte N
 *       --exec-in COMM PATH@ADDR,LEN  the last --run's process execs PATH
 *                        during the run, before its (first) AUX record: a
 *                        COMM record flagged exec and an executable MMAP2
 *   perfdata_test --list FILE      "OFFSET SIZE TYPE NAME" per record, offset and
 *                                  size in hex as perf report -D prints them
 *   perfdata_test --split-pcs PCS N PREFIX  cut a ground-truth .pcs file into N
 *                                  pieces PREFIX.0.pcs ... at instructions (never
 *                                  inside a trap mark), as a task's runs
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../../include/uapi/linux/ntrace.h"
#include "perfdata.h"
#include "tap.h"

/* ---- writer ---- */

struct wbuf {
	uint8_t *b;
	size_t n, cap;
};

static void wput(struct wbuf *w, const void *p, size_t n)
{
	if (w->n + n > w->cap) {
		w->cap = (w->n + n) * 2 + 256;
		w->b = realloc(w->b, w->cap);
		if (!w->b) {
			perror("realloc");
			exit(2);
		}
	}
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void w8(struct wbuf *w, uint8_t v) { wput(w, &v, 1); }
static void w16(struct wbuf *w, uint16_t v) { w8(w, (uint8_t)v); w8(w, (uint8_t)(v >> 8)); }
static void w32(struct wbuf *w, uint32_t v) { w16(w, (uint16_t)v); w16(w, (uint16_t)(v >> 16)); }
static void w64(struct wbuf *w, uint64_t v) { w32(w, (uint32_t)v); w32(w, (uint32_t)(v >> 32)); }

static void wpad8(struct wbuf *w)
{
	while (w->n % 8)
		w8(w, 0);
}

static void set16(struct wbuf *w, size_t at, uint16_t v)
{
	w->b[at] = (uint8_t)v;
	w->b[at + 1] = (uint8_t)(v >> 8);
}

#define PMU_TYPE	12
#define ST_NTRACE	((1ULL << 0) | (1ULL << 1) | (1ULL << 2) | (1ULL << 7) | (1ULL << 16)) /* IP TID TIME CPU IDENTIFIER */
#define ST_DUMMY	((1ULL << 0) | (1ULL << 1) | (1ULL << 2) | (1ULL << 16)) /* IP TID TIME IDENTIFIER */
#define ID_NTRACE	1001
#define ID_DUMMY	1002
#define ID_CPU_STEP	100	/* task mode: the ids of CPU n are ID_* + n * ID_CPU_STEP */
#define ATTR_BYTES	128
#define MAX_TASKS	8
#define MAX_RUNS	64
#define PID_REAPED	UINT32_MAX	/* perf_event_pid() of a task already reaped */
#define HEADER_AUXTRACE	18	/* feature: perf record's index of the AUXTRACE records */

struct task_spec {
	uint32_t pid;
	const char *comm, *elf;
	uint64_t addr, len;
};

struct run_spec {
	uint32_t cpu, pid;
	uint8_t *trace;
	size_t len;
	size_t cont_at;			/* 0, or where a CONT record starts */
	bool cont_tail;			/* last byte in the next run's record */
	const char *mmap_elf;		/* mapped between the two records */
	uint64_t mmap_addr, mmap_len;
	const char *exec_comm, *exec_elf;	/* exec'd in the run */
	uint64_t exec_addr, exec_len;
};

struct synth {
	const uint8_t *trace;
	size_t trace_len;
	unsigned int chunks;
	const char *elf;
	uint64_t elf_addr, elf_len;
	bool htm, iret, ts, no_auxtrace, pipe;
	size_t lose, lose_mid;
	uint64_t first_flags;	/* AUX flags of the first chunk's record */
	uint64_t time;
	/* task mode: set when there are runs */
	struct task_spec tasks[MAX_TASKS];
	struct run_spec runs[MAX_RUNS];
	unsigned int ntasks, nruns, ncpus;
	uint32_t reaped;		/* pid of the reaped task, or 0 */
	uint64_t no_switch_in;		/* CPUs (bit mask) with no switch-in */
	size_t auxtrace_at[MAX_RUNS];	/* each run's AUXTRACE record in the records */
};

/* flags: attribute bits besides disabled, sample_id_all (and mmap, comm for dummy) */
static void attr(struct wbuf *w, uint32_t type, uint64_t config, uint64_t st, uint64_t flags)
{
	size_t at = w->n;

	w32(w, type);
	w32(w, ATTR_BYTES);
	w64(w, config);
	w64(w, 1);		/* sample_period */
	w64(w, st);
	w64(w, 0);		/* read_format */
	w64(w, (1ULL << 0) | (1ULL << 18) | (type == 1 ? (1ULL << 8) | (1ULL << 9) : 0) | flags);
	while (w->n < at + ATTR_BYTES)
		w8(w, 0);
}

/* Record header now, size patched by rec_end(). */
static size_t rec_start(struct wbuf *w, uint32_t type, uint16_t misc)
{
	size_t at = w->n;

	w32(w, type);
	w16(w, misc);
	w16(w, 0);
	return at;
}

static void rec_end(struct wbuf *w, size_t at)
{
	wpad8(w);
	set16(w, at + 6, (uint16_t)(w->n - at));
}

/* sample_id trailer: TID, TIME, CPU when has_cpu, IDENTIFIER. */
static void sid_of(struct wbuf *w, uint32_t pid, uint32_t tid, uint64_t time, bool has_cpu,
		   uint32_t cpu, uint64_t id)
{
	wpad8(w);
	w32(w, pid);
	w32(w, tid);
	w64(w, time);
	if (has_cpu) {
		w32(w, cpu);
		w32(w, 0);
	}
	w64(w, id);
}

/* sample_id trailer of an ntrace (cpu) or dummy record. */
static void sid(struct wbuf *w, struct synth *s, bool ntrace)
{
	sid_of(w, 42, 42, s->time += 1000, ntrace, 0, ntrace ? ID_NTRACE : ID_DUMMY);
}

static void info_rec(struct wbuf *w, struct synth *s)
{
	struct ntrace_auxtrace_info h = {
		.magic = NTRACE_AUXTRACE_MAGIC, .version = NTRACE_AUXTRACE_VERSION,
		.hdr_size = sizeof(h), .nr_cpus = s->ncpus ? s->ncpus : 1,
		.rec_size = sizeof(struct ntrace_cpu_info),
		.pmu_type = PMU_TYPE,
		.config = (s->htm ? NTRACE_CFG_HTM_MASK : 0) | (s->iret ? NTRACE_CFG_IRET_MASK : 0) |
			  (s->ts ? NTRACE_CFG_TS_MASK : 0),
		.time_mult = s->ts ? 3 : 0, .time_shift = s->ts ? 1 : 0,
		.time_zero = s->ts ? 5000000 : 0,
	};
	struct ntrace_cpu_info c = {
		.cpu = 0, .hartid = 0, .src_id = 0, .src_bits = 0, .format = 1,
		.proto_major = 1, .mode = s->htm ? 6 : 3, .iret_mode = s->iret ? 3 : 0,
		.return_depth = s->iret ? 32 : 0, .itype_bits = 4, .xlen = 64,
		.icnt_bits = 0, .hist_bits = 0,
		.options = (s->iret ? NTRACE_OPT_IRET : 0) | (s->ts ? NTRACE_OPT_TS : 0),
		.sync_mode = 1, .ts_mode = s->ts ? NTRACE_TS_MODE_EXTERNAL : 0,
		.ts_width = s->ts ? 64 : 0,
	};
	size_t at = rec_start(w, NTRACE_PD_AUXTRACE_INFO, 0);
	uint32_t i;

	w32(w, NTRACE_PD_AUXTRACE_RISCV_NTRACE);
	w32(w, 0);
	wput(w, &h, sizeof(h));
	for (i = 0; i < h.nr_cpus; i++) {
		c.cpu = i;
		c.hartid = i;
		wput(w, &c, sizeof(c));
	}
	rec_end(w, at);
}

static void aux_rec(struct wbuf *w, struct synth *s, uint64_t off, uint64_t n, uint64_t flags)
{
	size_t at = rec_start(w, NTRACE_PD_AUX, 0);

	w64(w, off);
	w64(w, n);
	w64(w, flags);
	sid(w, s, true);
	rec_end(w, at);
}

/*
 * AUXTRACE chunk of n bytes at AUX offset off of CPU cpu's AUX area (idx:
 * perf record -a numbers the areas by CPU), padded as perf does.
 */
static void auxtrace_rec(struct wbuf *w, struct synth *s, uint64_t off, const uint8_t *p,
			 size_t n, uint32_t cpu, uint32_t tid)
{
	size_t at, pad = (8 - n % 8) % 8;

	at = rec_start(w, NTRACE_PD_AUXTRACE, 0);
	w64(w, n + pad);
	w64(w, off);
	w64(w, s->time);	/* reference */
	w32(w, cpu);		/* idx */
	w32(w, tid);
	w32(w, cpu);
	w32(w, 0);
	rec_end(w, at);
	wput(w, p, n);
	while (pad--)
		w8(w, 0);
}

/* AUX record for [off, off+size) then its AUXTRACE chunk. */
static void chunk(struct wbuf *w, struct synth *s, uint64_t off, const uint8_t *p, size_t n,
		  uint64_t aux_flags)
{
	aux_rec(w, s, off, n, aux_flags);
	auxtrace_rec(w, s, off, p, n, 0, 42);
}

/* One chunk, two AUX regions, bytes lost between them (hardware kept going). */
static void chunk_lose_mid(struct wbuf *w, struct synth *s)
{
	size_t k = s->trace_len / 3, lose = s->lose_mid, rest;
	uint8_t *p;

	if (k + lose > s->trace_len)
		lose = s->trace_len - k;
	rest = s->trace_len - k - lose;
	p = malloc(k + rest + 1);
	if (!p)
		exit(2);
	memcpy(p, s->trace, k);
	memcpy(p + k, s->trace + k + lose, rest);
	aux_rec(w, s, 0, k, NTRACE_PD_AUX_TRUNCATED);
	aux_rec(w, s, k, rest, 0);
	auxtrace_rec(w, s, 0, p, k + rest, 0, 42);
	free(p);
}

/* COMM record of process pid, misc as given (its sample_id is the caller's). */
static size_t comm_rec(struct wbuf *w, uint32_t pid, const char *comm, uint16_t misc)
{
	size_t at = rec_start(w, NTRACE_PD_COMM, misc);

	w32(w, pid);
	w32(w, pid);
	wput(w, comm, strlen(comm) + 1);
	return at;
}

/* MMAP2 record of an executable file mapping of pid (sample_id: the caller's). */
static size_t mmap2_exec_rec(struct wbuf *w, uint32_t pid, const char *path, uint64_t addr,
			     uint64_t len, uint64_t ino)
{
	size_t at = rec_start(w, NTRACE_PD_MMAP2, 2 /* PERF_RECORD_MISC_USER */);

	w32(w, pid);
	w32(w, pid);
	w64(w, addr);
	w64(w, len);
	w64(w, 0);		/* pgoff */
	w32(w, 254);		/* maj */
	w32(w, 1);		/* min */
	w64(w, ino);
	w64(w, 0);		/* ino_generation */
	w32(w, 5);		/* PROT_READ | PROT_EXEC */
	w32(w, 2);		/* MAP_PRIVATE */
	wput(w, path, strlen(path) + 1);
	return at;
}

static void records(struct wbuf *w, struct synth *s)
{
	size_t at, i, pos, end, n;
	uint64_t aux_off = 0;

	at = comm_rec(w, 42, "app", 0);
	sid(w, s, false);
	rec_end(w, at);
	if (s->elf) {
		at = mmap2_exec_rec(w, 42, s->elf, s->elf_addr, s->elf_len, 1234);
		sid(w, s, false);
		rec_end(w, at);
		at = rec_start(w, NTRACE_PD_MMAP2, 2);	/* a data mapping: no image */
		w32(w, 42);
		w32(w, 42);
		w64(w, 0x7fff0000);
		w64(w, 0x1000);
		w64(w, 0);
		w32(w, 0);
		w32(w, 0);
		w64(w, 0);
		w64(w, 0);
		w32(w, 3);
		w32(w, 0x22);
		wput(w, "[stack]", 8);
		sid(w, s, false);
		rec_end(w, at);
	}
	if (!s->no_auxtrace)
		info_rec(w, s);
	at = rec_start(w, NTRACE_PD_ITRACE_START, 0);
	w32(w, 42);
	w32(w, 42);
	sid(w, s, true);
	rec_end(w, at);
	at = rec_start(w, NTRACE_PD_FINISHED_ROUND, 0);
	rec_end(w, at);
	if (s->no_auxtrace) {
		/* AUX records are ordinary kernel records: keep one. */
		at = rec_start(w, NTRACE_PD_AUX, 0);
		w64(w, 0);
		w64(w, 4096);
		w64(w, NTRACE_PD_AUX_TRUNCATED);
		sid(w, s, true);
		rec_end(w, at);
	}
	if (s->lose_mid && !s->no_auxtrace)
		chunk_lose_mid(w, s);
	/* Uneven chunk sizes, so padding and message splits vary. */
	for (i = 0, pos = 0; !s->no_auxtrace && !s->lose_mid && i < s->chunks &&
	     pos < s->trace_len; i++) {
		n = i + 1 == s->chunks ? s->trace_len - pos :
		    (s->trace_len / s->chunks) + (i % 3) * 5 - 5;
		if (!n || n > s->trace_len - pos)
			n = s->trace_len - pos;
		end = pos + n;
		chunk(w, s, aux_off, s->trace + pos, n,
		      i == 0 && s->lose ? NTRACE_PD_AUX_TRUNCATED : i == 0 ? s->first_flags : 0);
		aux_off += n;
		pos = end;
		if (i == 0 && s->lose)
			pos += s->lose < s->trace_len - pos ? s->lose : s->trace_len - pos;
		at = rec_start(w, NTRACE_PD_FINISHED_ROUND, 0);
		rec_end(w, at);
	}
	at = rec_start(w, NTRACE_PD_LOST, 0);
	w64(w, ID_DUMMY);
	w64(w, 3);
	sid(w, s, false);
	rec_end(w, at);
}

/* The ids of an attribute: one per CPU in task mode. */
static void ids(struct wbuf *w, uint64_t id, unsigned int nids)
{
	unsigned int c;

	for (c = 0; c < nids; c++)
		w64(w, id + c * ID_CPU_STEP);
}

/* CPU-wide context switch record of pid on cpu (next/prev: the idle task). */
static void switch_rec(struct wbuf *w, uint32_t cpu, uint32_t pid, uint64_t time, bool out)
{
	size_t at = rec_start(w, NTRACE_PD_SWITCH_CPU_WIDE, out ? NTRACE_PD_MISC_SWITCH_OUT : 0);

	w32(w, 0);		/* next_prev_pid */
	w32(w, 0);		/* next_prev_tid */
	sid_of(w, pid, pid, time, true, cpu, ID_DUMMY + cpu * ID_CPU_STEP);
	rec_end(w, at);
}

static void round_end(struct wbuf *w)
{
	rec_end(w, rec_start(w, NTRACE_PD_FINISHED_ROUND, 0));
}

/*
 * Task mode, as perf record -a writes it with the ntrace driver: each CPU
 * has its AUX area, every record has pid, tid, time and cpu, and the driver
 * ends an AUX record at every context switch (before the switch-out event),
 * so a run is switch-in, AUX, switch-out. A run starts after its CPU's and
 * its task's previous runs ended, and at least 700 after the run before it:
 * runs on other CPUs overlap, and the file is in time order only per CPU.
 * Rounds of two runs, as perf drains the CPUs' buffers in turn.
 */
static void records_task(struct wbuf *w, struct synth *s)
{
	uint64_t aux_off[64] = { 0 }, cpu_end[64] = { 0 }, task_end[MAX_TASKS] = { 0 };
	uint64_t carry[64] = { 0 };	/* the last run's bytes this run's record starts with */
	uint64_t t = 1000000, t0;
	unsigned int i, k, c, last = MAX_RUNS;
	size_t at;

	/* the processes, as perf synthesizes them when it starts */
	for (k = 0; k < s->ntasks; k++) {
		const struct task_spec *tk = &s->tasks[k];

		at = comm_rec(w, tk->pid, tk->comm, 0);
		sid_of(w, tk->pid, tk->pid, t += 100, true, 0, ID_DUMMY);
		rec_end(w, at);
		at = mmap2_exec_rec(w, tk->pid, tk->elf, tk->addr, tk->len, 1234 + k);
		sid_of(w, tk->pid, tk->pid, t += 100, true, 0, ID_DUMMY);
		rec_end(w, at);
	}
	info_rec(w, s);
	/* the event starts tracing on each CPU, the idle task running there */
	for (c = 0; c < s->ncpus; c++) {
		if (s->no_switch_in >> c & 1)
			continue;
		at = rec_start(w, NTRACE_PD_ITRACE_START, 0);
		w32(w, 0);
		w32(w, 0);
		sid_of(w, 0, 0, t += 100, true, c, ID_NTRACE + c * ID_CPU_STEP);
		rec_end(w, at);
	}
	round_end(w);
	for (i = 0; i < s->nruns; i++)
		if (s->reaped && s->runs[i].pid == s->reaped)
			last = i;
	t0 = t;
	for (i = 0; i < s->nruns; i++) {
		const struct run_spec *r = &s->runs[i];
		uint32_t pid = i == last ? PID_REAPED : r->pid;
		uint64_t id = ID_NTRACE + r->cpu * ID_CPU_STEP;

		for (k = 0; s->tasks[k].pid != r->pid; k++)
			;
		t0 += 700;
		if (t0 < cpu_end[r->cpu] + 100)
			t0 = cpu_end[r->cpu] + 100;
		if (t0 < task_end[k] + 100)
			t0 = task_end[k] + 100;
		if (!(s->no_switch_in >> r->cpu & 1))
			switch_rec(w, r->cpu, r->pid, t0, false);
		if (i == last) {
			/* it exits, its parent reaps it, then its final switch */
			at = rec_start(w, NTRACE_PD_EXIT, 0);
			w32(w, r->pid);
			w32(w, 1);		/* ppid */
			w32(w, r->pid);
			w32(w, 1);		/* ptid */
			w64(w, t0 + 800);
			sid_of(w, r->pid, r->pid, t0 + 800, true, r->cpu,
			       ID_DUMMY + r->cpu * ID_CPU_STEP);
			rec_end(w, at);
		}
		if (r->exec_elf) {
			at = comm_rec(w, r->pid, r->exec_comm, NTRACE_PD_MISC_COMM_EXEC);
			sid_of(w, r->pid, r->pid, t0 + 820, true, r->cpu,
			       ID_DUMMY + r->cpu * ID_CPU_STEP);
			rec_end(w, at);
			at = mmap2_exec_rec(w, r->pid, r->exec_elf, r->exec_addr, r->exec_len, 5678);
			sid_of(w, r->pid, r->pid, t0 + 825, true, r->cpu,
			       ID_DUMMY + r->cpu * ID_CPU_STEP);
			rec_end(w, at);
		}
		if (r->cont_at) {
			at = rec_start(w, NTRACE_PD_AUX, 0);
			w64(w, aux_off[r->cpu] - carry[r->cpu]);
			w64(w, r->cont_at + carry[r->cpu]);
			w64(w, carry[r->cpu] ? NTRACE_AUX_FLAG_CONT : 0);
			sid_of(w, pid, pid, t0 + 850, true, r->cpu, id);
			rec_end(w, at);
		}
		if (r->cont_at && r->mmap_elf) {
			at = mmap2_exec_rec(w, r->pid, r->mmap_elf, r->mmap_addr, r->mmap_len, 4321);
			sid_of(w, r->pid, r->pid, t0 + 870, true, r->cpu,
			       ID_DUMMY + r->cpu * ID_CPU_STEP);
			rec_end(w, at);
		}
		if (r->cont_at)
			carry[r->cpu] = 0;
		at = rec_start(w, NTRACE_PD_AUX, 0);
		w64(w, aux_off[r->cpu] + r->cont_at - carry[r->cpu]);
		w64(w, r->len - r->cont_at + carry[r->cpu] - r->cont_tail);
		w64(w, r->cont_at || carry[r->cpu] ? NTRACE_AUX_FLAG_CONT : 0);
		sid_of(w, pid, pid, t0 + 900, true, r->cpu, id);
		rec_end(w, at);
		s->time = t0 + 900;
		s->auxtrace_at[i] = w->n;
		auxtrace_rec(w, s, aux_off[r->cpu], r->trace, r->len, r->cpu, UINT32_MAX);
		switch_rec(w, r->cpu, pid, t0 + 950, true);
		aux_off[r->cpu] += r->len;
		carry[r->cpu] = r->cont_tail;
		cpu_end[r->cpu] = task_end[k] = t0 + 1000;
		if (i % 2 || i + 1 == s->nruns)
			round_end(w);
	}
}

/* A whole file in w. */
static void synth(struct wbuf *w, struct synth *s)
{
	struct wbuf data = { 0 };
	size_t attrs_at, ids_at, data_at, i;
	uint64_t cfg = (s->htm ? NTRACE_CFG_HTM_MASK : 0) | (s->iret ? NTRACE_CFG_IRET_MASK : 0) |
		       (s->ts ? NTRACE_CFG_TS_MASK : 0);
	/*
	 * perf record -a: CPU in every sample_id; the tracking event has
	 * task, mmap2 and context_switch set.
	 */
	uint64_t dst = s->nruns ? ST_DUMMY | (1ULL << 7) : ST_DUMMY;
	uint64_t dflags = s->nruns ? (1ULL << 13) | (1ULL << 23) | (1ULL << 26) : 0;
	unsigned int nids = s->nruns ? s->ncpus : 1;

	s->time = 1000000;
	w->n = 0;
	wput(w, "PERFILE2", 8);
	if (s->pipe) {
		size_t at;

		w64(w, 16);
		at = rec_start(w, NTRACE_PD_HEADER_ATTR, 0);
		attr(w, PMU_TYPE, cfg, ST_NTRACE, 0);
		ids(w, ID_NTRACE, nids);
		rec_end(w, at);
		at = rec_start(w, NTRACE_PD_HEADER_ATTR, 0);
		attr(w, 1, 9, dst, dflags);
		ids(w, ID_DUMMY, nids);
		rec_end(w, at);
		if (s->nruns)
			records_task(w, s);
		else
			records(w, s);
		return;
	}
	if (s->nruns)
		records_task(&data, s);
	else
		records(&data, s);
	w64(w, 104);
	w64(w, ATTR_BYTES + 16);
	attrs_at = 104;
	ids_at = attrs_at + 2 * (ATTR_BYTES + 16);
	data_at = ids_at + 2 * 8 * nids;
	w64(w, attrs_at);
	w64(w, 2 * (ATTR_BYTES + 16));
	w64(w, data_at);
	w64(w, data.n);
	w64(w, 0);
	w64(w, 0);
	/* feature sections: task mode has the AUXTRACE index, as perf record writes it */
	w64(w, s->nruns ? 1ULL << HEADER_AUXTRACE : 0);
	for (i = 1; i < 4; i++)
		w64(w, 0);
	attr(w, PMU_TYPE, cfg, ST_NTRACE, 0);
	w64(w, ids_at);
	w64(w, 8 * nids);
	attr(w, 1, 9, dst, dflags);	/* dummy:u, the tracking event */
	w64(w, ids_at + 8 * nids);
	w64(w, 8 * nids);
	ids(w, ID_NTRACE, nids);
	ids(w, ID_DUMMY, nids);
	wput(w, data.b, data.n);
	if (s->nruns) {
		/* its section table, then the index: AUXTRACE record offsets and sizes */
		w64(w, w->n + 16);
		w64(w, 8 + 16 * (uint64_t)s->nruns);
		w64(w, s->nruns);
		for (i = 0; i < s->nruns; i++) {
			w64(w, data_at + s->auxtrace_at[i]);
			w64(w, data.b[s->auxtrace_at[i] + 6] | data.b[s->auxtrace_at[i] + 7] << 8);
		}
	}
	free(data.b);
}

/* ---- unit tests ---- */

static uint8_t trace[300];

static int count_records(struct ntrace_perfdata *pd, int *last)
{
	struct ntrace_pd_rec r;
	int n = 0, rc;

	ntrace_pd_rewind(pd);
	while ((rc = ntrace_pd_next(pd, &r)) == 1)
		n++;
	*last = rc;
	return n;
}

static void test_parse(bool pipe)
{
	struct synth s = { .trace = trace, .trace_len = sizeof(trace), .chunks = 3,
			   .elf = "/bin/app", .elf_addr = 0x10000, .elf_len = 0x2000,
			   .htm = true, .iret = true, .pipe = pipe };
	const char *tag = pipe ? "pipe" : "file";
	struct wbuf w = { 0 };
	struct ntrace_perfdata *pd;
	struct ntrace_pd_rec r;
	struct ntrace_auxinfo info;
	char err[256];
	int n[100] = { 0 }, rc, ok_sid = 1, ok_data = 1;
	uint64_t aux_bytes = 0, next_off = 0;	/* next_off: end of the last chunk, padding included */

	synth(&w, &s);
	pd = ntrace_pd_open_mem(w.b, w.n, err, sizeof(err));
	if (!tap_ok(pd != NULL, "%s: synthetic perf.data opens (%s)", tag, pd ? "ok" : err))
		return;
	tap_ok(ntrace_pd_is_pipe(pd) == pipe, "%s: layout detected", tag);
	memset(&info, 0, sizeof(info));
	while ((rc = ntrace_pd_next(pd, &r)) == 1) {
		if (r.type < 100)
			n[r.type]++;
		if (r.type == NTRACE_PD_COMM)
			ok_sid &= r.sid.has_tid && r.sid.pid == 42 && !r.sid.has_cpu &&
				  r.sid.id == ID_DUMMY && !strcmp(r.u.comm.comm, "app");
		if (r.type == NTRACE_PD_ITRACE_START || r.type == NTRACE_PD_AUX)
			ok_sid &= r.sid.has_cpu && r.sid.cpu == 0 && r.sid.id == ID_NTRACE;
		if (r.type == NTRACE_PD_MMAP2 && r.u.mmap.prot == 5)
			ok_sid &= r.u.mmap.addr == 0x10000 && r.u.mmap.len == 0x2000 &&
				  !strcmp(r.u.mmap.filename, "/bin/app") && r.misc == 2;
		if (r.type == NTRACE_PD_AUXTRACE) {
			/*
			 * The chunk's bytes are the trace's bytes at its offset,
			 * then at most 7 padding bytes that the next chunk's
			 * offset does not count.
			 */
			uint64_t o = r.u.auxtrace.offset, sz = r.u.auxtrace.size;

			ok_data &= o <= next_off && o + 8 > next_off && sz % 8 == 0 && sz >= 8 &&
				   o < sizeof(trace) &&
				   !memcmp(r.u.auxtrace.data, trace + o,
					   sz - 7 < sizeof(trace) - o ? sz - 7 : sizeof(trace) - o);
			aux_bytes += sz;
			next_off = o + sz;
		}
		if (r.type == NTRACE_PD_AUXTRACE_INFO) {
			int prc = ntrace_pd_info_parse(&r, &info, err, sizeof(err));

			tap_ok(prc == 0, "%s: AUXTRACE_INFO parses (%s)", tag, prc ? err : "ok");
		}
		if (r.type == NTRACE_PD_LOST)
			ok_sid &= r.u.lost.lost == 3 && r.u.lost.id == ID_DUMMY;
	}
	tap_ok(rc == 0, "%s: all records read to the end (%s)", tag,
	       rc ? ntrace_pd_errmsg(pd) : "ok");
	tap_ok(n[NTRACE_PD_COMM] == 1 && n[NTRACE_PD_MMAP2] == 2 && n[NTRACE_PD_AUXTRACE_INFO] == 1 &&
	       n[NTRACE_PD_ITRACE_START] == 1 && n[NTRACE_PD_AUX] == 3 && n[NTRACE_PD_AUXTRACE] == 3 &&
	       n[NTRACE_PD_FINISHED_ROUND] == 4 && n[NTRACE_PD_LOST] == 1 &&
	       n[NTRACE_PD_HEADER_ATTR] == (pipe ? 2 : 0),
	       "%s: record counts by type", tag);
	tap_ok(ntrace_pd_nr_attrs(pd) == 2 && ntrace_pd_attr(pd, 0)->type == PMU_TYPE &&
	       ntrace_pd_attr(pd, 0)->nr_ids == 1 && ntrace_pd_attr(pd, 0)->ids[0] == ID_NTRACE &&
	       ntrace_pd_attr(pd, 1)->sample_type == ST_DUMMY,
	       "%s: attributes and ids", tag);
	tap_ok(ok_sid, "%s: sample_id trailers resolved through IDENTIFIER to the right attribute",
	       tag);
	tap_ok(ok_data && aux_bytes >= sizeof(trace) && aux_bytes < sizeof(trace) + 24,
	       "%s: AUXTRACE data follows its record, padded to 8 bytes", tag);
	if (info.nr_cpus) {
		const struct ntrace_auxinfo_cpu *c = ntrace_auxinfo_cpu(&info, 0);

		tap_ok(info.pmu_type == PMU_TYPE && info.nr_cpus == 1 &&
		       c->cfg.enc.mode == 6 && c->cfg.enc.implicit_return == 3 &&
		       c->cfg.enc.return_depth == 32 && c->cfg.enc.codec.src_bits == 0,
		       "%s: AUXTRACE_INFO -> decoder settings (HTM, full implicit return)", tag);
		tap_ok(ntrace_auxinfo_cpu(&info, 7) == c, "%s: unknown CPU falls back to CPU 0", tag);
	}
	ntrace_auxinfo_free(&info);
	ntrace_pd_close(pd);
	free(w.b);
}

/* An AUXTRACE_INFO record with the ntrace payload changed by edit(). */
static int info_variant(void (*edit)(struct ntrace_auxtrace_info *, struct ntrace_cpu_info *),
			char *err, size_t errlen)
{
	struct {
		uint8_t hdr[16];
		struct ntrace_auxtrace_info h;
		struct ntrace_cpu_info c;
	} rec;
	struct ntrace_pd_rec r;
	struct ntrace_auxinfo info;
	int rc;

	memset(&rec, 0, sizeof(rec));
	rec.h.magic = NTRACE_AUXTRACE_MAGIC;
	rec.h.version = NTRACE_AUXTRACE_VERSION;
	rec.h.hdr_size = sizeof(rec.h);
	rec.h.nr_cpus = 1;
	rec.h.rec_size = sizeof(rec.c);
	rec.c.format = 1;
	rec.c.proto_major = 1;
	rec.c.mode = 3;
	rec.c.itype_bits = 4;
	edit(&rec.h, &rec.c);
	memset(&r, 0, sizeof(r));
	r.type = NTRACE_PD_AUXTRACE_INFO;
	r.u.info.type = NTRACE_PD_AUXTRACE_RISCV_NTRACE;
	r.u.info.priv = (const uint8_t *)&rec.h;
	r.u.info.priv_size = sizeof(rec.h) + sizeof(rec.c);
	rc = ntrace_pd_info_parse(&r, &info, err, errlen);
	ntrace_auxinfo_free(&info);
	return rc;
}

static void e_none(struct ntrace_auxtrace_info *h, struct ntrace_cpu_info *c) { (void)h; (void)c; }
static void e_magic(struct ntrace_auxtrace_info *h, struct ntrace_cpu_info *c) { (void)c; h->magic++; }
static void e_version(struct ntrace_auxtrace_info *h, struct ntrace_cpu_info *c) { (void)c; h->version = 2; }
static void e_ncpu(struct ntrace_auxtrace_info *h, struct ntrace_cpu_info *c) { (void)c; h->nr_cpus = 2; }
static void e_rsize(struct ntrace_auxtrace_info *h, struct ntrace_cpu_info *c) { (void)c; h->rec_size = 8; }
static void e_mode(struct ntrace_auxtrace_info *h, struct ntrace_cpu_info *c) { (void)h; c->mode = 5; }
static void e_format(struct ntrace_auxtrace_info *h, struct ntrace_cpu_info *c) { (void)h; c->format = 0; }
static void e_srcbits(struct ntrace_auxtrace_info *h, struct ntrace_cpu_info *c) { (void)h; c->src_bits = 40; }
/* shifts of 64 and more in the time conversion (found by scripts/perf-asan.sh) */
static void e_tshift(struct ntrace_auxtrace_info *h, struct ntrace_cpu_info *c)
{
	(void)c;
	h->time_mult = 1;
	h->time_shift = 84;
}
static void e_prescale(struct ntrace_auxtrace_info *h, struct ntrace_cpu_info *c) { (void)h; c->ts_prescale = 42; }

static void test_info(void)
{
	char err[256];

	tap_ok(info_variant(e_none, err, sizeof(err)) == 0, "info: minimal BTM record accepted");
	tap_ok(info_variant(e_magic, err, sizeof(err)) == NTRACE_EINVAL &&
	       strstr(err, "not from the ntrace PMU"), "info: wrong magic rejected (%s)", err);
	tap_ok(info_variant(e_version, err, sizeof(err)) == NTRACE_EVERSION &&
	       strstr(err, "version 2"), "info: unknown version rejected (%s)", err);
	tap_ok(info_variant(e_ncpu, err, sizeof(err)) == NTRACE_ECORRUPT &&
	       strstr(err, "inconsistent"), "info: more CPUs than bytes rejected (%s)", err);
	tap_ok(info_variant(e_rsize, err, sizeof(err)) == NTRACE_ECORRUPT &&
	       strstr(err, "inconsistent"), "info: short record size rejected (%s)", err);
	tap_ok(info_variant(e_mode, err, sizeof(err)) == NTRACE_ECONFIG &&
	       strstr(err, "trTeInstMode"), "info: bad trTeInstMode rejected (%s)", err);
	tap_ok(info_variant(e_format, err, sizeof(err)) == NTRACE_ECONFIG &&
	       strstr(err, "trTeFormat"), "info: non-N-Trace format rejected (%s)", err);
	tap_ok(info_variant(e_srcbits, err, sizeof(err)) == NTRACE_ECONFIG &&
	       strstr(err, "CPU 0"), "info: impossible SRC width rejected (%s)", err);
	tap_ok(info_variant(e_tshift, err, sizeof(err)) == NTRACE_ECORRUPT &&
	       strstr(err, "time_shift 84"), "info: time_shift above 63 rejected (%s)", err);
	tap_ok(info_variant(e_prescale, err, sizeof(err)) == NTRACE_ECONFIG &&
	       strstr(err, "trTsPrescale 42"), "info: trTsPrescale above 3 rejected (%s)", err);
}

static int ev_ignore(void *ctx, const struct ntrace_dec_event *ev)
{
	(void)ctx;
	(void)ev;
	return 0;
}

static int runs_count(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	(void)r;
	*(size_t *)ctx += n;
	return 0;
}

/* Every prefix and many corrupted copies: clean errors, never a crash or a loop. */
static void test_corrupt(void)
{
	struct synth s = { .trace = trace, .trace_len = sizeof(trace), .chunks = 4,
			   .elf = "/bin/app", .elf_addr = 0x10000, .elf_len = 0x2000 };
	struct wbuf w = { 0 };
	struct ntrace_perfdata *pd;
	char err[256];
	size_t len, i;
	int last, opened = 0, errs = 0, bad = 0, full;
	uint32_t rnd = 12345;
	uint8_t *copy;
	struct ntrace_images *img = ntrace_images_new(NULL);
	struct ntrace_pd_decode_opts dopts = { .src = -1, .cpu = -1, .no_mmap_images = true };
	struct ntrace_pd_decode_ops dops = { .dec = { runs_count, ev_ignore } };
	struct ntrace_pd_decode_stats dst;
	size_t nruns = 0;
	int decoded = 0;
	static const uint8_t code[] = { 0x01, 0x00, 0x01, 0x00, 0x82, 0x80 }; /* nop nop ret */

	synth(&w, &s);
	pd = ntrace_pd_open_mem(w.b, w.n, err, sizeof(err));
	full = pd ? count_records(pd, &last) : -1;
	ntrace_pd_close(pd);
	for (len = 0; len < w.n; len++) {
		pd = ntrace_pd_open_mem(w.b, len, err, sizeof(err));
		if (!pd) {
			bad += !err[0];
			continue;
		}
		opened++;
		count_records(pd, &last);
		errs += last < 0;
		ntrace_pd_close(pd);
	}
	/* The data section ends at the end of the file: any cut is caught at open. */
	tap_ok(!bad && !opened && !errs,
	       "corrupt: all %zu truncated copies refused at open with a reason (%d opened)",
	       w.n, opened);

	copy = malloc(w.n);
	if (!img || ntrace_images_add_mem(img, "code", code, sizeof(code), 0x10000)) {
		tap_ok(0, "corrupt: image set");
		return;
	}
	for (i = 0; i < 3000; i++) {
		unsigned int k, nflip = 1 + i % 4;

		memcpy(copy, w.b, w.n);
		for (k = 0; k < nflip; k++) {
			rnd = rnd * 1103515245 + 12345;
			copy[(rnd >> 8) % w.n] ^= (uint8_t)(1u << ((rnd >> 3) & 7));
		}
		pd = ntrace_pd_open_mem(copy, w.n, err, sizeof(err));
		if (pd) {
			struct ntrace_pd_rec r;
			struct ntrace_auxinfo info;
			int n = 0;

			ntrace_pd_rewind(pd);
			while (n < 100000 && ntrace_pd_next(pd, &r) == 1) {
				n++;
				if (r.type == NTRACE_PD_AUXTRACE_INFO &&
				    !ntrace_pd_info_parse(&r, &info, err, sizeof(err)))
					ntrace_auxinfo_free(&info);
			}
			bad += n >= 100000;
			/* The whole decode path too: errors are fine, crashes are not. */
			decoded += !ntrace_pd_decode(pd, img, &dopts, &dops, &nruns, &dst);
			ntrace_pd_close(pd);
		}
	}
	tap_ok(!bad, "corrupt: 3000 bit-flipped copies read and decoded without crash or endless loop (%d decoded)",
	       decoded);
	tap_ok(full == 19, "corrupt: the intact file has all 19 records (%d)", full);

	/* Specific damage with specific messages. */
	memcpy(copy, w.b, w.n);
	copy[104 + 2 * (ATTR_BYTES + 16) + 16 + 6] = 0;	/* first record's size -> 0 */
	copy[104 + 2 * (ATTR_BYTES + 16) + 16 + 7] = 0;
	pd = ntrace_pd_open_mem(copy, w.n, err, sizeof(err));
	count_records(pd, &last);
	tap_ok(last == NTRACE_ECORRUPT && strstr(ntrace_pd_errmsg(pd), "bad size 0"),
	       "corrupt: zero record size is NTRACE_ECORRUPT, named (%s)", ntrace_pd_errmsg(pd));
	ntrace_pd_close(pd);
	memcpy(copy, w.b, w.n);
	copy[40] = 0xff;	/* data offset far outside */
	copy[45] = 0x7f;
	pd = ntrace_pd_open_mem(copy, w.n, err, sizeof(err));
	tap_ok(!pd && strstr(err, "outside"), "corrupt: data section outside the file (%s)", err);
	ntrace_pd_close(pd);
	memcpy(copy, w.b, w.n);
	memcpy(copy, "PERFILE1", 8);
	pd = ntrace_pd_open_mem(copy, w.n, err, sizeof(err));
	tap_ok(!pd && strstr(err, "not a perf.data"), "corrupt: wrong magic (%s)", err);
	memcpy(copy, w.b, w.n);
	memcpy(copy, "2ELIFREP", 8);
	pd = ntrace_pd_open_mem(copy, w.n, err, sizeof(err));
	tap_ok(!pd && strstr(err, "big-endian"), "corrupt: big-endian file named (%s)", err);
	pd = ntrace_pd_open("/nonexistent/perf.data", err, sizeof(err));
	tap_ok(!pd && strstr(err, "cannot open"), "missing file (%s)", err);
	free(copy);
	free(w.b);
	ntrace_images_free(img);
}

static struct ntrace_codec_cfg enc_codec;

static int to_wbuf(void *ctx, const struct ntrace_msg *m)
{
	uint8_t b[NTRACE_MSG_MAX_BYTES];
	size_t n = ntrace_msg_encode(&enc_codec, m, b);

	wput(ctx, b, n);
	return n ? 0 : NTRACE_EINVAL;
}

static int runs_fail(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	(void)ctx;
	(void)r;
	(void)n;
	return NTRACE_EWRITE;
}

/*
 * nop, nop, ret at 0x10000, run twice (the ret's IndirectBranch makes
 * runs): its code into img, its trace (default encoder) appended to bytes.
 * 0 or -1.
 */
static int small_prog(struct ntrace_images *img, struct wbuf *bytes)
{
	static const uint8_t code[] = { 0x01, 0x00, 0x01, 0x00, 0x82, 0x80 };
	static const struct ntrace_insn prog[] = {
		{ .addr = 0x10000, .size = 2 }, { .addr = 0x10002, .size = 2 },
		{ .addr = 0x10004, .size = 2, .itype = NTRACE_ITYPE_RETURN },
		{ .addr = 0x10000, .size = 2 }, { .addr = 0x10002, .size = 2 },
	};
	struct ntrace_enc_cfg cfg;
	struct ntrace_encoder e;

	ntrace_enc_cfg_default(&cfg);
	enc_codec = cfg.codec;
	if (!img || ntrace_images_add_mem(img, "code", code, sizeof(code), 0x10000) ||
	    ntrace_encoder_init(&e, &cfg, to_wbuf, bytes, NULL) ||
	    ntrace_encoder_put(&e, prog, sizeof(prog) / sizeof(prog[0])) ||
	    ntrace_encoder_finish(&e))
		return -1;
	return 0;
}

/* ntrace_pd_decode() failures: the code, and the reason on the reader. */
static void test_decode_errors(void)
{
	struct ntrace_pd_decode_opts o = { .src = -1, .cpu = -1, .no_mmap_images = true,
					   .no_task_mode = true };
	struct ntrace_pd_decode_ops ok = { .dec = { runs_count, ev_ignore } };
	struct ntrace_pd_decode_ops fail = { .dec = { runs_fail, ev_ignore } };
	struct ntrace_images *img = ntrace_images_new(NULL);
	struct wbuf bytes = { 0 }, w = { 0 };
	struct ntrace_pd_decode_stats st;
	struct ntrace_perfdata *pd;
	struct synth sy = { .chunks = 1 };
	size_t nruns = 0;
	char err[256];
	int rc;

	if (small_prog(img, &bytes)) {
		tap_ok(0, "decode errors: set-up");
		return;
	}
	sy.trace = bytes.b;
	sy.trace_len = bytes.n;
	synth(&w, &sy);
	pd = ntrace_pd_open_mem(w.b, w.n, err, sizeof(err));
	rc = pd ? ntrace_pd_decode(pd, img, &o, &ok, &nruns, &st) : -100;
	tap_ok(rc == 0 && nruns > 0 && !strcmp(ntrace_pd_errmsg(pd), "no error"),
	       "decode errors: the file decodes (%zu runs, %d)", nruns, rc);
	rc = pd ? ntrace_pd_decode(pd, img, &o, &fail, NULL, &st) : -100;
	tap_ok(rc == NTRACE_EWRITE && strstr(ntrace_pd_errmsg(pd), "callback") &&
	       strstr(ntrace_pd_errmsg(pd), ntrace_errstr(NTRACE_EWRITE)),
	       "decode errors: a runs callback's failure is returned as it is (%d: %s)", rc,
	       pd ? ntrace_pd_errmsg(pd) : "");
	ntrace_pd_close(pd);

	sy.no_auxtrace = true;
	synth(&w, &sy);
	pd = ntrace_pd_open_mem(w.b, w.n, err, sizeof(err));
	rc = pd ? ntrace_pd_decode(pd, img, &o, &ok, &nruns, &st) : -100;
	tap_ok(rc == NTRACE_EBADINPUT && strstr(ntrace_pd_errmsg(pd), "no ntrace AUXTRACE_INFO"),
	       "decode errors: no AUXTRACE_INFO is NTRACE_EBADINPUT (%s)",
	       pd ? ntrace_pd_errmsg(pd) : err);
	ntrace_pd_close(pd);

	sy.no_auxtrace = false;
	synth(&w, &sy);
	w.b[104 + 2 * (ATTR_BYTES + 16) + 16 + 6] = 0;	/* first record's size -> 0 */
	w.b[104 + 2 * (ATTR_BYTES + 16) + 16 + 7] = 0;
	pd = ntrace_pd_open_mem(w.b, w.n, err, sizeof(err));
	rc = pd ? ntrace_pd_decode(pd, img, &o, &ok, &nruns, &st) : -100;
	tap_ok(rc == NTRACE_ECORRUPT && strstr(ntrace_pd_errmsg(pd), "bad size 0"),
	       "decode errors: a corrupt record is NTRACE_ECORRUPT, named (%s)",
	       pd ? ntrace_pd_errmsg(pd) : err);
	ntrace_pd_close(pd);

	memcpy(w.b, "PERFILE1", 8);
	pd = ntrace_pd_open_mem(w.b, w.n, NULL, 0);
	tap_ok(!pd, "decode errors: a refused file with no err buffer");
	free(w.b);
	free(bytes.b);
	ntrace_images_free(img);
}

/*
 * Bad bytes at the start of an AUX record: the ntrace driver starts a
 * record at a message boundary, so they are damage (a decode error), unless
 * the record is flagged as one a wrap cut (PARTIAL): then they may be the
 * tail of a cut message (a warning, or skipped to a message end), and
 * decoding starts at the sync after.
 */
static void test_damaged_start(void)
{
	/* a byte with the reserved MSEO 10, then an end of message */
	static const uint8_t bad[] = { 0x02, 0x03 };
	struct ntrace_pd_decode_opts o = { .src = -1, .cpu = -1, .no_mmap_images = true };
	struct ntrace_pd_decode_ops ops = { .dec = { runs_count, ev_ignore } };
	struct ntrace_images *img = ntrace_images_new(NULL);
	struct wbuf bytes = { 0 }, w = { 0 };
	struct ntrace_pd_decode_stats st;
	struct ntrace_perfdata *pd;
	struct synth sy = { .chunks = 1 };
	size_t nruns;
	int i, rc;

	wput(&bytes, bad, sizeof(bad));
	if (small_prog(img, &bytes)) {
		tap_ok(0, "damaged start: set-up");
		return;
	}
	sy.trace = bytes.b;
	sy.trace_len = bytes.n;
	for (i = 0; i < 4; i++) {
		const char *mode = i & 1 ? "task mode" : "stream mode";

		o.no_task_mode = !(i & 1);
		sy.first_flags = i & 2 ? NTRACE_PD_AUX_PARTIAL : 0;
		synth(&w, &sy);
		nruns = 0;
		pd = ntrace_pd_open_mem(w.b, w.n, NULL, 0);
		rc = pd ? ntrace_pd_decode(pd, img, &o, &ops, &nruns, &st) : -100;
		if (i & 2)
			tap_ok(!rc && nruns && st.task_mode == !o.no_task_mode && !st.dec.errors,
			       "damaged start, %s: bad bytes at the start of a PARTIAL record are no decode error (%d, %zu runs, %" PRIu64 " errors)",
			       mode, rc, nruns, st.dec.errors);
		else
			tap_ok(!rc && nruns && st.task_mode == !o.no_task_mode &&
			       st.dec.parse_errors == 1 && st.dec.errors == 1,
			       "damaged start, %s: bad bytes at the start of an AUX record are a decode error (%d, %zu runs, %" PRIu64 " errors)",
			       mode, rc, nruns, st.dec.errors);
		ntrace_pd_close(pd);
	}
	free(w.b);
	free(bytes.b);
	ntrace_images_free(img);
}

/*
 * Task mode: 42 and 43 run on CPUs 0 and 1 (small_prog's trace each
 * time); 42's last record has pid -1. It is 42's when 42 was switched in
 * last on its CPU, and no task's without a switch-in there.
 */
static void test_task_reaped(void)
{
	struct ntrace_pd_decode_opts o = { .src = -1, .cpu = -1, .no_mmap_images = true };
	struct ntrace_pd_decode_ops ops = { .dec = { runs_count, ev_ignore } };
	struct ntrace_images *img = ntrace_images_new(NULL);
	static const uint32_t sched[][2] = { { 0, 42 }, { 1, 43 }, { 1, 42 }, { 0, 43 }, { 0, 42 } };
	struct wbuf bytes = { 0 }, w = { 0 };
	struct ntrace_pd_decode_stats st;
	struct ntrace_perfdata *pd;
	struct synth sy = { .ntasks = 2, .reaped = 42 };
	size_t nruns;
	unsigned int i;
	int rc;

	if (small_prog(img, &bytes)) {
		tap_ok(0, "task mode: set-up");
		return;
	}
	sy.tasks[0] = (struct task_spec){ .pid = 42, .comm = "a", .elf = "/bin/a", .len = 0x1000 };
	sy.tasks[1] = (struct task_spec){ .pid = 43, .comm = "b", .elf = "/bin/b", .len = 0x1000 };
	for (i = 0; i < 5; i++)
		sy.runs[sy.nruns++] = (struct run_spec){ .cpu = sched[i][0], .pid = sched[i][1],
							 .trace = bytes.b, .len = bytes.n };
	sy.ncpus = 2;
	for (i = 0; i < 2; i++) {
		sy.no_switch_in = i ? 1 : 0;	/* CPU 0, where the last record is */
		synth(&w, &sy);
		nruns = 0;
		pd = ntrace_pd_open_mem(w.b, w.n, NULL, 0);
		rc = pd ? ntrace_pd_decode(pd, img, &o, &ops, &nruns, &st) : -100;
		if (!i)
			tap_ok(!rc && st.task_mode && st.chunks == 5 && st.reaped_records == 1 &&
			       st.tasks == 2 && !st.dec.errors,
			       "task mode: a pid -1 AUX record is the task's switched in last on its CPU (%d, %" PRIu64 " reaped, %" PRIu64 " tasks)",
			       rc, st.reaped_records, st.tasks);
		else
			tap_ok(!rc && st.task_mode && st.chunks == 5 && !st.reaped_records &&
			       st.tasks == 3,
			       "task mode: with no switch-in on its CPU it is no task's (%d, %" PRIu64 " reaped, %" PRIu64 " tasks)",
			       rc, st.reaped_records, st.tasks);
		ntrace_pd_close(pd);
	}
	free(w.b);
	free(bytes.b);
	ntrace_images_free(img);
}

/* ---- command-line helpers for tests/perfdata.sh ---- */

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "perfdata_test: cannot read %s\n", path);
		exit(2);
	}
	b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "perfdata_test: cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* PATH@ADDR,LEN into *path (cut in place), *addr, *len; 0 or -1. */
static int elf_spec(char *spec, const char **path, uint64_t *addr, uint64_t *len)
{
	char *at = strrchr(spec, '@'), *comma = at ? strchr(at, ',') : NULL;

	if (!at || !comma) {
		fprintf(stderr, "perfdata_test: PATH@ADDR,LEN wanted, not %s\n", spec);
		return -1;
	}
	*at = 0;
	*path = spec;
	*addr = strtoull(at + 1, NULL, 0);
	*len = strtoull(comma + 1, NULL, 0);
	return 0;
}

/* Task-mode options (argv[*i] onwards): 1 taken, 0 not one, -1 bad. */
static int task_opt(struct synth *s, int argc, char **argv, int *i)
{
	const char *o = argv[*i];
	unsigned int k;

	if (!strcmp(o, "--task") && *i + 3 < argc && s->ntasks < MAX_TASKS) {
		struct task_spec *tk = &s->tasks[s->ntasks++];

		tk->pid = (uint32_t)strtoul(argv[*i + 1], NULL, 0);
		tk->comm = argv[*i + 2];
		*i += 3;
		return elf_spec(argv[*i], &tk->elf, &tk->addr, &tk->len) ? -1 : 1;
	}
	if (!strcmp(o, "--run") && *i + 3 < argc && s->nruns < MAX_RUNS) {
		struct run_spec *r = &s->runs[s->nruns++];

		r->cpu = (uint32_t)strtoul(argv[*i + 1], NULL, 0);
		r->pid = (uint32_t)strtoul(argv[*i + 2], NULL, 0);
		r->trace = slurp(argv[*i + 3], &r->len);
		*i += 3;
		for (k = 0; k < s->ntasks && s->tasks[k].pid != r->pid; k++)
			;
		if (r->cpu >= 64 || k == s->ntasks) {
			fprintf(stderr, "perfdata_test: --run CPU PID BIN: CPU < 64, PID of a --task before\n");
			return -1;
		}
		if (r->cpu >= s->ncpus)
			s->ncpus = r->cpu + 1;
		return 1;
	}
	if (!strcmp(o, "--cont-mid") && s->nruns) {
		struct run_spec *r = &s->runs[s->nruns - 1];
		size_t k = r->len / 2;

		while (k + 1 < r->len && (r->trace[k] & 3) == 3)
			k++;
		if (k + 1 >= r->len) {
			fprintf(stderr, "perfdata_test: --cont-mid: no message to cut in the last run\n");
			return -1;
		}
		r->cont_at = k + 1;
		return 1;
	}
	if (!strcmp(o, "--cont-tail") && s->nruns) {
		struct run_spec *r = &s->runs[s->nruns - 1];

		if (r->len < 2 || (r->trace[r->len - 1] & 3) != 3 ||
		    (r->trace[r->len - 2] & 3) == 3) {
			fprintf(stderr, "perfdata_test: --cont-tail: the last run does not end with a message of 2 bytes or more\n");
			return -1;
		}
		r->cont_tail = true;
		return 1;
	}
	if (!strcmp(o, "--mmap-between") && *i + 1 < argc && s->nruns) {
		struct run_spec *r = &s->runs[s->nruns - 1];

		++*i;
		return elf_spec(argv[*i], &r->mmap_elf, &r->mmap_addr, &r->mmap_len) ? -1 : 1;
	}
	if (!strcmp(o, "--cont-at") && *i + 1 < argc && s->nruns) {
		struct run_spec *r = &s->runs[s->nruns - 1];

		r->cont_at = strtoull(argv[++*i], NULL, 0);
		if (!r->cont_at || r->cont_at >= r->len) {
			fprintf(stderr, "perfdata_test: --cont-at N: 0 < N < the last run's length\n");
			return -1;
		}
		return 1;
	}
	if (!strcmp(o, "--exec-in") && *i + 2 < argc && s->nruns) {
		struct run_spec *r = &s->runs[s->nruns - 1];

		r->exec_comm = argv[++*i];
		++*i;
		return elf_spec(argv[*i], &r->exec_elf, &r->exec_addr, &r->exec_len) ? -1 : 1;
	}
	if (!strcmp(o, "--reaped") && *i + 1 < argc) {
		s->reaped = (uint32_t)strtoul(argv[++*i], NULL, 0);
		return 1;
	}
	if (!strcmp(o, "--no-switch-in") && *i + 1 < argc) {
		k = (unsigned int)strtoul(argv[++*i], NULL, 0);
		s->no_switch_in |= k < 64 ? 1ULL << k : 0;
		return 1;
	}
	return 0;
}

static int cmd_write(int argc, char **argv)
{
	struct synth s = { .chunks = 1 };
	struct wbuf w = { 0 };
	uint8_t *tr = NULL;
	char *elf = NULL;
	unsigned int k;
	FILE *f;
	int i, rc;

	for (i = 3; i < argc; i++) {
		rc = task_opt(&s, argc, argv, &i);
		if (rc < 0)
			return 2;
		if (rc)
			continue;
		if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
			tr = slurp(argv[++i], &s.trace_len);
			s.trace = tr;
		} else if (!strcmp(argv[i], "--chunks") && i + 1 < argc) {
			s.chunks = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--lose") && i + 1 < argc) {
			s.lose = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--lose-mid") && i + 1 < argc) {
			s.lose_mid = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--elf") && i + 1 < argc) {
			elf = strdup(argv[++i]);
			if (!elf || elf_spec(elf, &s.elf, &s.elf_addr, &s.elf_len))
				return 2;
		} else if (!strcmp(argv[i], "--htm")) {
			s.htm = true;
		} else if (!strcmp(argv[i], "--iret")) {
			s.iret = true;
		} else if (!strcmp(argv[i], "--ts")) {
			s.ts = true;
		} else if (!strcmp(argv[i], "--no-auxtrace")) {
			s.no_auxtrace = true;
		} else if (!strcmp(argv[i], "--pipe")) {
			s.pipe = true;
		} else {
			fprintf(stderr, "perfdata_test: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (!s.chunks)
		s.chunks = 1;
	synth(&w, &s);
	f = fopen(argv[2], "wb");
	if (!f || fwrite(w.b, 1, w.n, f) != w.n || fclose(f)) {
		fprintf(stderr, "perfdata_test: cannot write %s\n", argv[2]);
		return 2;
	}
	free(w.b);
	free(tr);
	free(elf);
	for (k = 0; k < s.nruns; k++)
		free(s.runs[k].trace);
	return 0;
}

/*
 * Cut a .pcs file into n pieces of about equal size, each starting at a
 * retired instruction (a trap mark and its cause stay together): the runs
 * of a task between context switches.
 */
static int cmd_split_pcs(const char *path, unsigned int n, const char *prefix)
{
	size_t len, nw, i, from = 0, to;
	uint8_t *b = slurp(path, &len);
	unsigned int k;
	char name[4096];
	FILE *f;

	if (len < 8 || (len - 8) % 8 || memcmp(b, "NTGTPCS1", 8) || !n) {
		fprintf(stderr, "perfdata_test: %s is not a .pcs file\n", path);
		return 2;
	}
	nw = (len - 8) / 8;
	for (k = 0; k < n; k++) {
		to = k + 1 == n ? nw : nw * (k + 1) / n;
		/* a trap mark (bit 0 set) and its cause are two words */
		for (i = from; i < to; i += b[8 + 8 * i] & 1 ? 2 : 1)
			;
		while (i < nw && (b[8 + 8 * i] & 1))
			i += 2;
		to = i < nw ? i : nw;
		snprintf(name, sizeof(name), "%s.%u.pcs", prefix, k);
		f = fopen(name, "wb");
		if (!f || fwrite("NTGTPCS1", 1, 8, f) != 8 ||
		    fwrite(b + 8 + 8 * from, 8, to - from, f) != to - from || fclose(f)) {
			fprintf(stderr, "perfdata_test: cannot write %s\n", name);
			return 2;
		}
		from = to;
	}
	free(b);
	return 0;
}

static int cmd_list(const char *path)
{
	struct ntrace_perfdata *pd;
	struct ntrace_pd_rec r;
	char err[256];
	int rc;

	pd = ntrace_pd_open(path, err, sizeof(err));
	if (!pd) {
		fprintf(stderr, "perfdata_test: %s\n", err);
		return 2;
	}
	while ((rc = ntrace_pd_next(pd, &r)) == 1)
		printf("%#" PRIx64 " %#x %u %s\n", r.offset, r.size, r.type,
		       ntrace_pd_type_name(r.type));
	if (rc < 0)
		fprintf(stderr, "perfdata_test: %s\n", ntrace_pd_errmsg(pd));
	ntrace_pd_close(pd);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc >= 3 && !strcmp(argv[1], "--write"))
		return cmd_write(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "--list"))
		return cmd_list(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "--split-pcs"))
		return cmd_split_pcs(argv[2], (unsigned int)strtoul(argv[3], NULL, 0), argv[4]);
	for (i = 0; i < sizeof(trace); i++)
		trace[i] = (uint8_t)(i * 7 + 3);
	test_parse(false);
	test_parse(true);
	test_info();
	test_corrupt();
	test_decode_errors();
	test_damaged_start();
	test_task_reaped();
	return tap_done();
}
