/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Internal to the perf.data decoder: what perfdata_decode.c (pass 1 over
 * the records; stream mode, one decoder per AUX stream) and
 * perfdata_task.c (task mode, one task's run per AUX record, for CPU-wide
 * recordings) share.
 */
#ifndef NTRACE_PERFDATA_INTERNAL_H
#define NTRACE_PERFDATA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata.h"

#define MISC_CPUMODE_MASK	7
#define MISC_USER		2
#define PROT_EXEC_BIT		4

/*
 * AUX record flags of data that may start inside a message: a buffer
 * wrapped under it (the AUX area in overwrite mode, a sink), another
 * writer's data may be mixed in, or it continues the last record (cut
 * while the sink went on writing). The ntrace driver starts every other
 * record at a message boundary.
 */
#define PD_AUX_UNALIGNED	(NTRACE_PD_AUX_OVERWRITE | NTRACE_PD_AUX_PARTIAL | \
				 NTRACE_PD_AUX_COLLISION | NTRACE_PD_AUX_CONT)

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
	const struct ntrace_auxinfo_cpu *pcpu;
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
	bool has_cpu, has_tid;	/* what the sample_id told */
	uint32_t cpu, pid, tid;
	uint64_t time, off, size, flags;
	uint64_t file_offset;
	uint64_t t_start;	/* when the task's run on the CPU began (as far as known) */
};

/* A task's switch-in (SWITCH_CPU_WIDE without the out flag) or ITRACE_START. */
struct swin {
	uint32_t cpu, pid, tid;
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
	bool mid_msg;		/* the last byte fed did not end a message */
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
	struct ntrace_auxinfo info;
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
};

/* perfdata_file.c: where the reader keeps the detail of a failure */
struct ntrace_errbuf *pd_errbuf(struct ntrace_perfdata *pd);

/* perfdata_decode.c */
/* A warning for the caller's ops->on_notice (decoding goes on). */
void pd_notice(struct pd_dec *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Decoding fails: code, and the detail on the reader (ntrace_pd_errmsg()). */
int pd_fail(struct pd_dec *x, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* ntrace_decoder_new() refused: why names a setting, or memory. */
int pd_no_decoder(struct pd_dec *x, uint32_t cpu, const char *why);
/* ELF e_type of the file at path, or a negative code when it is not a readable ELF. */
int pd_elf_type(const char *path);
/* Where the recorded file name fn is on this host (opts->root, elf_dir, vdso). */
void pd_host_path(const struct pd_dec *x, const char *fn, char *path, size_t size);
/* t += s, counter by counter. */
void pd_add_stats(struct ntrace_dec_stats *t, const struct ntrace_dec_stats *s);
/* Append one zeroed element to the array *parr of *n elements; NULL if out of memory. */
void *pd_grow(void *parr, size_t *n, size_t size);
#define GROW(arr, n) pd_grow(&(arr), &(n), sizeof(*(arr)))

/* perfdata_task.c */
/* Decode every AUX record in time order as one task's run. */
int pd_task_decode(struct pd_dec *x);
/* The recording suits task mode (per-CPU AUX records with cpu, tid and time). */
bool pd_use_task_mode(const struct pd_dec *x);

#endif /* NTRACE_PERFDATA_INTERNAL_H */
