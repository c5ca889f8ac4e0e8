/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the ntrace kselftests: the PMU's sysfs, opening events, an
 * AUX recording of this task, and a framing check of N-Trace bytes that
 * is independent of the project's decoder (MSEO framing and the fixed
 * layout of the synchronisation messages, N-Trace 1.0).
 */
#ifndef NTRACE_UTIL_H
#define NTRACE_UTIL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define NTRACE_SYSFS "/sys/bus/event_source/devices/ntrace"

/* PMU type from sysfs, or -1 if the PMU is not registered. */
int nt_pmu_type(void);
/* First line of NTRACE_SYSFS/<rel> into buf (newline cut); -1 if absent. */
int nt_read_sysfs(const char *rel, char *buf, size_t size);

/*
 * perf_event_attr for the ntrace PMU: disabled, user only where the
 * encoder has a privilege filter (nt_priv_filter()), else user and kernel.
 */
bool nt_priv_filter(void);
/*
 * Whether nt_attr()'s events trace the kernel too: an encoder without a
 * privilege filter (SiFive v0) refuses user-only events, so the tests
 * record user and kernel there, and a kernel sync address is then right.
 */
static inline bool nt_traces_kernel(void)
{
	return !nt_priv_filter();
}

/* caps/<name> as a number (any base), or dflt where it is absent. */
long nt_cap(const char *name, long dflt);
/* caps/variant says SiFive's pre-ratified (v0) encoder. */
bool nt_sifive_v0(void);
/* A kernel address: RV64's upper half (the top bit set). */
static inline bool nt_kernel_addr(uint64_t addr)
{
	return addr >> 63;
}
/*
 * An address in M-mode firmware: the device tree's reserved-memory
 * regions OpenSBI made for itself (mmode_resv*). An event that excludes
 * nothing traces machine mode too (no privilege filter: SiFive v0).
 */
bool nt_firmware_addr(uint64_t addr);
void nt_attr(struct perf_event_attr *attr, int type, uint64_t config);
/* perf_event_open(); returns the fd or -errno. */
int nt_open(struct perf_event_attr *attr, int pid, int cpu);

/* One PERF_RECORD_AUX: where its bytes are in struct nt_rec.data. */
struct nt_aux {
	size_t off, len;
	uint64_t flags;
};

struct nt_rec {
	uint8_t *data;		/* every AUX record's bytes, back to back */
	size_t len;
	struct nt_aux aux[4096];
	unsigned int nr_aux;
	/*
	 * Records flagged NTRACE_AUX_FLAG_CONT are joined to the one before
	 * (a drain that left the sink running cut them apart): joined counts
	 * them, cont_breaks those that did not start where it ended.
	 */
	unsigned int joined, cont_breaks;
	uint64_t aux_end;	/* where the last record ended in the AUX area */
	unsigned int nr_itrace_start;
	int itrace_pid;		/* pid of the first ITRACE_START */
	uint64_t lost;		/* PERF_RECORD_LOST */
	uint64_t aux_head;	/* user page aux_head at the end */
};

/*
 * Record this task (pid 0, any CPU; or cpu >= 0 with pid -1) while
 * work(arg) runs. aux_pages must be a power of 2. Returns 0 or -errno.
 */
int nt_record(struct perf_event_attr *attr, int cpu, unsigned int aux_pages,
	      void (*work)(void *), void *arg, struct nt_rec *rec);
/*
 * The same in snapshot (overwrite) mode: the AUX area is mapped read-only;
 * rec->data gets the newest min(aux_head, AUX size) bytes in order.
 */
/* Per-task recording with an address filter (PERF_EVENT_IOC_SET_FILTER). */
int nt_record_filtered(struct perf_event_attr *attr, const char *filter,
		       unsigned int aux_pages, void (*work)(void *), void *arg,
		       struct nt_rec *rec);
int nt_record_snapshot(struct perf_event_attr *attr, unsigned int aux_pages,
		       void (*work)(void *), void *arg, struct nt_rec *rec);
void nt_rec_free(struct nt_rec *rec);

/*
 * Copy the record at tail of up's data ring (data_size bytes) into buf.
 * Returns its size, or 0 when it is malformed or larger than size.
 */
size_t nt_ring_copy(const struct perf_event_mmap_page *up, size_t data_size,
		    uint64_t tail, void *buf, size_t size);

/* What the framing check found in a byte stream. */
struct nt_frame_stats {
	unsigned long msgs, idle, sync_msgs, correlation_msgs;
	unsigned long periodic_syncs;	/* SYNC = 2 */
	uint64_t src_seen;		/* bit n: a message with SRC n (< 64) */
	unsigned long bad;		/* framing errors */
	int first_tcode;		/* -1: no message */
	int last_tcode;
	uint64_t addr_min, addr_max;	/* F-ADDR of sync messages */
	/*
	 * nt_frame_check_in(): sync addresses in [lo, hi), in the kernel,
	 * in M-mode firmware, elsewhere
	 */
	unsigned long in_syncs, kernel_syncs, fw_syncs, other_syncs;
	uint64_t other_addr;		/* the first "other" one */
	char why[128];			/* first error */
};

/*
 * Width of the SRC field of a recording with config (0: none): src=1,
 * or caps/src_required (encoders share a sink through a funnel: the
 * driver forces SRC on), gives caps/src_bits.
 */
unsigned int nt_src_bits(uint64_t config);

/* src_bits: width of the SRC field (0: none). */
void nt_frame_check(const uint8_t *p, size_t len, unsigned int src_bits,
		    struct nt_frame_stats *st);
/* The same, and sort the sync addresses: in [lo, hi), kernel, other. */
void nt_frame_check_in(const uint8_t *p, size_t len, unsigned int src_bits,
		       uint64_t lo, uint64_t hi, struct nt_frame_stats *st);
/*
 * Sync addresses of a recording of code in [lo, hi) are right: some in
 * it, none elsewhere, but in the kernel and the firmware where
 * nt_traces_kernel() says they are traced (an event excluding nothing).
 */
bool nt_syncs_in(const struct nt_frame_stats *st);
bool nt_tcode_is_sync(int tcode);

#endif
