/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * perf.data reader for N-Trace recordings ("perf record -e ntrace//"):
 * the file header, the event attributes, and the records the decoder
 * needs (AUXTRACE_INFO, AUXTRACE with its trailing trace bytes, AUX,
 * ITRACE_START, MMAP/MMAP2, COMM, LOST, FINISHED_ROUND, ...).
 *
 * Own parser, no libperf: little-endian files in the normal (seekable)
 * layout and in the pipe layout (attributes in HEADER_ATTR records). Every
 * offset and size is checked against the file before use; a corrupt file
 * gets an error naming the record and its file offset, never a crash.
 */
#ifndef NTRACE_PERFDATA_H
#define NTRACE_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ntrace/auxinfo.h"
#include "ntrace/decoder.h"
#include "ntrace/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Record types (perf_event.h and perf's user record types). */
enum {
	NTRACE_PD_MMAP = 1,
	NTRACE_PD_LOST = 2,
	NTRACE_PD_COMM = 3,
	NTRACE_PD_EXIT = 4,
	NTRACE_PD_FORK = 7,
	NTRACE_PD_SAMPLE = 9,
	NTRACE_PD_MMAP2 = 10,
	NTRACE_PD_AUX = 11,
	NTRACE_PD_ITRACE_START = 12,
	NTRACE_PD_LOST_SAMPLES = 13,
	NTRACE_PD_SWITCH = 14,
	NTRACE_PD_SWITCH_CPU_WIDE = 15,
	NTRACE_PD_HEADER_ATTR = 64,
	NTRACE_PD_FINISHED_ROUND = 68,
	NTRACE_PD_ID_INDEX = 69,
	NTRACE_PD_AUXTRACE_INFO = 70,
	NTRACE_PD_AUXTRACE = 71,
	NTRACE_PD_AUXTRACE_ERROR = 72,
};

/* perf's enum auxtrace_type value added by tools/perf-patches/. */
#define NTRACE_PD_AUXTRACE_RISCV_NTRACE	7

/* AUX record flags (PERF_AUX_FLAG_*). */
#define NTRACE_PD_AUX_TRUNCATED		0x01
#define NTRACE_PD_AUX_OVERWRITE		0x02
#define NTRACE_PD_AUX_PARTIAL		0x04
#define NTRACE_PD_AUX_COLLISION		0x08
/* the ntrace PMU's NTRACE_AUX_FLAG_CONT: continues the last record */
#define NTRACE_PD_AUX_CONT		0x0100

/* header.misc bits */
#define NTRACE_PD_MISC_COMM_EXEC	0x2000	/* COMM: the name changed by exec */
#define NTRACE_PD_MISC_SWITCH_OUT	0x2000	/* SWITCH*: the task was switched out */

/* One event attribute (the fields the reader uses). */
struct ntrace_pd_attr {
	uint32_t type;		/* perf_event_attr.type (the PMU type for ntrace) */
	uint64_t config, config1, config2;	/* perf_event_attr.config* */
	uint64_t sample_type;	/* PERF_SAMPLE_* bits: the sample_id trailer layout */
	bool sample_id_all;	/* non-sample records carry a sample_id trailer */
	const uint64_t *ids;	/* the event ids (a copy owned by the reader) */
	size_t nr_ids;		/* entries in ids */
};

/* The sample_id trailer of a non-sample record (fields not present: has_* false). */
struct ntrace_pd_sample_id {
	bool has_tid, has_time, has_id, has_cpu;
	uint32_t pid, tid, cpu;
	uint64_t time, id;
};

/*
 * One record, parsed. Pointers point into the file mapping (or the
 * caller's buffer) and stay valid until ntrace_pd_close().
 */
struct ntrace_pd_rec {
	uint64_t offset;	/* file offset of the record header */
	uint32_t type;		/* NTRACE_PD_* (other values are passed through) */
	uint16_t misc;		/* header.misc (PERF_RECORD_MISC_*) */
	uint16_t size;		/* header.size (AUXTRACE data not included) */
	const uint8_t *body;	/* bytes after the 8-byte header */
	struct ntrace_pd_sample_id sid;	/* trailer of non-sample records */
	union {
		struct {	/* MMAP, MMAP2 */
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t prot, flags;	/* MMAP2 only (MMAP: PROT_EXEC assumed) */
			const char *filename;	/* NUL-terminated inside the record */
		} mmap;
		struct {	/* COMM */
			uint32_t pid, tid;
			const char *comm;
		} comm;
		struct {	/* FORK, EXIT */
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} fork;
		struct {	/* SWITCH_CPU_WIDE (SWITCH: sid only) */
			uint32_t next_prev_pid, next_prev_tid;
		} swtch;
		struct {	/* AUX */
			uint64_t aux_offset, aux_size, flags;
		} aux;
		struct {	/* ITRACE_START */
			uint32_t pid, tid;
		} itrace_start;
		struct {	/* LOST */
			uint64_t id, lost;
		} lost;
		struct {	/* AUXTRACE_INFO */
			uint32_t type;
			const uint8_t *priv;
			size_t priv_size;
		} info;
		struct {	/* AUXTRACE: data follows the record in the file */
			uint64_t size, offset, reference;
			uint32_t idx, tid, cpu;
			const uint8_t *data;
		} auxtrace;
		struct {	/* AUXTRACE_ERROR */
			uint32_t type, code, cpu, pid, tid;
			uint64_t ip;
			char msg[65];
		} error;
	} u;
};

/* Opaque reader state. */
struct ntrace_perfdata;

/*
 * The file that holds a recording's header and records: path itself, or
 * path/data when path is a directory (what perf record --kcore writes).
 * Uses buf (len bytes) when it has to build the name.
 */
const char *ntrace_pd_data_path(const char *path, char *buf, size_t len);
/*
 * Map and check a perf.data file or directory (read-only mapping, kept
 * until close). On failure returns NULL with the reason in err (errlen
 * bytes): cannot open or map it (NTRACE_ENOENT), not a perf.data file
 * (NTRACE_EBADINPUT), a variant not handled (NTRACE_EFORMAT,
 * NTRACE_EVERSION), a header that points outside the file
 * (NTRACE_ECORRUPT). Records are not checked until read.
 */
struct ntrace_perfdata *ntrace_pd_open(const char *path, char *err, size_t errlen);
/* Same over a caller-owned buffer (tests, fuzzing); buf must outlive pd. */
struct ntrace_perfdata *ntrace_pd_open_mem(const void *buf, size_t len, char *err,
					   size_t errlen);
/* Unmap the file and free the reader (NULL allowed); records read from it
 * become invalid. */
void ntrace_pd_close(struct ntrace_perfdata *pd);

/* True when the first bytes are a perf.data magic ("PERFILE2"). */
bool ntrace_pd_is_perfdata(const void *buf, size_t len);

/* Number of event attributes, and attribute i (NULL when i is out of range;
 * owned by pd). In the pipe layout they appear as ntrace_pd_next() reads
 * the HEADER_ATTR records, and ntrace_pd_rewind() drops them. */
size_t ntrace_pd_nr_attrs(const struct ntrace_perfdata *pd);
const struct ntrace_pd_attr *ntrace_pd_attr(const struct ntrace_perfdata *pd, size_t i);
/* True for the pipe layout (perf record -o -). */
bool ntrace_pd_is_pipe(const struct ntrace_perfdata *pd);

/* Restart reading at the first record. */
void ntrace_pd_rewind(struct ntrace_perfdata *pd);
/*
 * Next record: 1 = *r filled, 0 = end of data, or a negative code
 * (NTRACE_ECORRUPT for a record that does not fit, NTRACE_EFORMAT for
 * compressed records, NTRACE_ENOMEM) with the reason in ntrace_pd_errmsg();
 * reading cannot continue until ntrace_pd_rewind().
 */
int ntrace_pd_next(struct ntrace_perfdata *pd, struct ntrace_pd_rec *r);
/* Why the last call failed (owned by pd, valid until the next call); "no
 * error" if none did. */
const char *ntrace_pd_errmsg(const struct ntrace_perfdata *pd);
/* "MMAP2", "AUXTRACE", ... or "type N" in a per-thread static buffer for
 * unknown types (valid until the next call in the thread). */
const char *ntrace_pd_type_name(uint32_t type);

/* ---- AUXTRACE_INFO of the ntrace PMU (include/uapi/linux/ntrace.h) ---- */

/*
 * Parse an AUXTRACE_INFO record's payload (ntrace/auxinfo.h). Returns 0,
 * NTRACE_EINVAL for a record of another type, or ntrace_auxinfo_parse()'s
 * code, with the reason naming the record in err. Free with
 * ntrace_auxinfo_free().
 */
int ntrace_pd_info_parse(const struct ntrace_pd_rec *r, struct ntrace_auxinfo *info,
			 char *err, size_t errlen);

/* ---- decoding a whole file ---- */

/*
 * One AUXTRACE chunk as announced to ntrace_pd_decode_ops.on_chunk. In
 * task mode (see ntrace_pd_decode()) it is one AUX record's data instead,
 * or the part of it before or after an exec: one task's trace.
 */
struct ntrace_pd_chunk {
	uint64_t file_offset;	/* of the AUXTRACE record (task mode: of the AUX record) */
	uint64_t aux_offset;	/* position in the AUX area (AUXTRACE offset) */
	uint64_t size;		/* trace bytes in the chunk */
	uint32_t idx, tid;	/* AUX mmap index, thread (per-thread mode; task mode: the task) */
	int32_t cpu;		/* -1 in per-thread mode */
	bool resync;		/* decoding restarted here (gap or loss before it) */
	bool task;		/* task mode: pid, tid, time and img are set */
	uint32_t pid;		/* task mode: the process whose trace this is */
	uint64_t time;		/* task mode: perf time of the AUX record (end of the data) */
	struct ntrace_images *img;	/* task mode: the images it is decoded with */
};

/* One process of a task-mode decode, as reported to on_task at the end. */
struct ntrace_pd_task {
	uint32_t pid;
	const char *comm;	/* last COMM name of the process ("" if none) */
	uint64_t records;	/* AUX records (pieces) decoded for it */
	uint64_t bytes, insns;	/* trace bytes, instructions decoded */
	uint64_t errors, lost;	/* decode errors, Error (lost trace) messages */
	uint64_t exec_splits;	/* AUX records cut at an exec */
	uint64_t flagged;	/* AUX records flagged TRUNCATED, PARTIAL or COLLISION */
};

/* Callbacks of ntrace_pd_decode(); ctx is passed to each. */
struct ntrace_pd_decode_ops {
	struct ntrace_dec_ops dec;	/* runs and events of every decoder */
	/* A decoder is about to be fed (a new one per stream and per resync). */
	void (*on_decoder)(void *ctx, struct ntrace_decoder *d);
	/* Optional: a chunk starts. */
	void (*on_chunk)(void *ctx, const struct ntrace_pd_chunk *c);
	/* Optional: a notice (loss, AUXTRACE_ERROR, missing image...). */
	void (*on_notice)(void *ctx, const char *text);
	/* Optional, task mode: each process's counters at the end, by pid. */
	void (*on_task)(void *ctx, const struct ntrace_pd_task *t);
	/* Optional, task mode: the last data was decoded; the image sets given
	 * to on_chunk are freed after this returns (flush what uses them). */
	void (*on_end)(void *ctx);
};

/* Options of ntrace_pd_decode(); the strings are borrowed for the call. */
struct ntrace_pd_decode_opts {
	int32_t src;		/* as ntrace_dec_cfg.src (-1: every source) */
	int32_t cpu;		/* decode only this CPU's chunks (-1: all) */
	const char *root;	/* prefix for MMAP file names (host copy of the guest fs) */
	const char *elf_dir;	/* else look for the file's basename here */
	const char *vdso;	/* the kernel's vDSO (vdso.so) for [vdso] mappings */
	bool no_mmap_images;	/* only the images the caller added */
	uint32_t pid;		/* task mode: decode only this process (0: all) */
	bool no_task_mode;	/* decode per AUX stream even when task mode is possible */
	const struct ntrace_isa_cfg *isa;	/* ISA of the per-process image sets
						 * (NULL: RV64GC) */
	bool strict;		/* as ntrace_codec_cfg.strict */
};

/*
 * Counters of ntrace_pd_decode(): AUXTRACE chunks and their bytes, decoder
 * restarts, AUX records flagged TRUNCATED / PARTIAL / COLLISION, LOST
 * records, AUXTRACE_ERROR records, ITRACE_START records, images added from
 * MMAP records and mapped files that could not be found.
 */
struct ntrace_pd_decode_stats {
	struct ntrace_dec_stats dec;	/* summed over every decoder */
	uint64_t chunks, chunk_bytes, resyncs, truncated, partial, collisions;
	uint64_t lost_records, auxtrace_errors, itrace_starts, images, images_missing;
	/* task mode */
	bool task_mode;		/* decoded per AUX record and process */
	uint64_t tasks;		/* processes with trace */
	uint64_t image_sets;	/* distinct per-process image sets built */
	uint64_t exec_splits;	/* AUX records cut at an exec */
	uint64_t unattributed_bytes;	/* AUX bytes no AUX record covers (not decoded) */
	uint64_t missing_bytes;	/* bytes AUX records announce that no AUXTRACE holds */
	uint64_t reaped_records;	/* AUX records of pid -1 given to the task switched in */
};

/*
 * Task mode, chosen for files whose AUX data is per CPU (perf record -a,
 * -C, or a workload on per-CPU mmaps) and whose PERF_RECORD_AUX records
 * carry cpu, tid and time in their sample_id, unless snapshot mode or
 * opts->no_task_mode: the ntrace driver ends an AUX record at every
 * context switch and each record starts with a sync message, so each AUX
 * record is one task's trace, written in that task's context. Every AUX
 * record is decoded on its own, in time order across CPUs, with the images
 * its process had mapped at that time (MMAP/MMAP2 of that pid since its
 * last exec or fork; a fork inherits the parent's). When the process
 * exec'd during the record (COMM with the exec flag between the task's
 * switch-in and the record), the data is cut at the first sync message
 * at an entry point of an image mapped by the new program: before it the
 * old images, after it the new ones.
 *
 * Otherwise: decode every AUXTRACE chunk of the file in file order, one decoder per
 * AUX stream (CPU in per-CPU mode, mmap index in per-thread mode), each
 * configured from AUXTRACE_INFO. Decoding restarts (waiting for a sync
 * message) where data may be missing: a gap between chunks of a stream,
 * the end of an AUX region flagged TRUNCATED or COLLISION, or a snapshot
 * chunk. Executable MMAP/MMAP2 records add program images to img unless
 * opts->no_mmap_images. Returns 0 (also when a callback stopped decoding
 * with a positive value), or for a file that cannot be decoded a negative
 * code with the reason in ntrace_pd_errmsg(): ntrace_pd_next()'s for a
 * corrupt record, AUXTRACE_INFO's, NTRACE_EBADINPUT when there is no
 * ntrace AUXTRACE_INFO, NTRACE_ECONFIG when no decoder can be made with
 * its settings, NTRACE_ENOMEM, or a callback's negative return.
 */
int ntrace_pd_decode(struct ntrace_perfdata *pd, struct ntrace_images *img,
		     const struct ntrace_pd_decode_opts *opts,
		     const struct ntrace_pd_decode_ops *ops, void *ctx,
		     struct ntrace_pd_decode_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_PERFDATA_H */
