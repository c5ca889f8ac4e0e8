// SPDX-License-Identifier: GPL-2.0-only
/*
 * Record this task's user-space execution with the "ntrace" PMU, BTM and
 * HTM, per task and per CPU, and check the AUX data against what must
 * hold for any correct trace of it:
 *  - PERF_RECORD_ITRACE_START names this process, AUX records arrive and
 *    none is flagged truncated or partial (the buffers are large enough;
 *    an SRAM sink may fill before a late drain, on a lockdep kernel or a
 *    busy host, and only that is accepted: a PARTIAL record of exactly
 *    the SRAM's size),
 *    or, with an AUX area too small, only the last one with data, as
 *    TRUNCATED (empty TRUNCATED records may follow it: perf disables
 *    the event from irq_work, and a context switch before that restarts
 *    it with no room left), or none with data when the last fitted with
 *    under a page left and an empty TRUNCATED record follows;
 *  - every record frames as N-Trace (MSEO framing, known TCODEs, no cut
 *    message), starts with a synchronisation message (each drain restarts
 *    the encoder) and ends with ProgTraceCorrelation (the encoder's stop);
 *  - every synchronisation address lies inside this static program's
 *    text: the trace is user-only and of this process alone. Encoders
 *    without a privilege filter (caps/priv_filter 0, SiFive v0) refuse
 *    user-only events (EOPNOTSUPP, checked here and in ntrace_pmu_test):
 *    there the events trace user, kernel and M-mode firmware (the DT's
 *    mmode_resv regions), and a sync address is right in this program or
 *    in those, with some in this program.
 * A kernel-only per-CPU recording must hold kernel addresses only; without
 * a privilege filter it must be refused, and a user+kernel per-CPU
 * recording of system calls must hold kernel addresses (the kernel is
 * traced: what lets a user-level test accept them).
 * The periodic sync count is checked against the period caps/ give:
 * 2^(n + 3) messages for sync_period n, 2^(caps/sync_max_default + 4) by
 * default (TCI 1.0's trTeInstSyncMax; v0's teSyncMaxBTM + 1 counts alike).
 * iret=1 alone is refused where implicit return comes only with repeated
 * history (caps/variant 1: v0's teInstruction 7); btm-cpu0 asks for both.
 * Without address filters (nr_addr_filters 0) a filter is refused.
 * The bytes go to /tmp/export/ntrace/ (with a description) so the host
 * can decode them against this binary. Skips without the PMU.
 */
#include <errno.h>
#include <stdint.h>
#include <linux/ntrace.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "ntrace_util.h"

#define EXPORT_DIR	"/tmp/export/ntrace"

/* Linker-script symbols: the text of this static program. */
extern char __executable_start[], etext[];

/* The sink's own buffer (caps/buffer_size), 0 if unknown */
static long sink_buffer_size(void)
{
	char size[32];

	if (nt_read_sysfs("caps/buffer_size", size, sizeof(size)))
		return 0;
	return strtol(size, NULL, 10);
}

/*
 * An SRAM sink's size, else 0. The drain timer can run late enough for
 * the fixed 64 KiB SRAM (a few ms of trace) to fill between two drains:
 * on a lockdep kernel, and on a host whose cores are busy (the vCPU is
 * not scheduled; the clean-clone CI run saw it once in ntrace-sram). The
 * driver then flags the record PARTIAL and it holds exactly the SRAM,
 * its last message cut by the stop (ntrace_sram_test checks that form).
 * Nothing else may be lost, and no other sink may lose anything.
 */
static long late_sram_size;

static void find_late_sram(void)
{
	char mode[32] = "";

	if (nt_read_sysfs("caps/sink_mode", mode, sizeof(mode)) ||
	    strcmp(mode, "sram"))
		return;
	late_sram_size = sink_buffer_size();
}

/* One CPU's line of the PMU's "drains" file. */
struct drains {
	unsigned long long direct, direct_bytes, copy, copy_bytes, peeks;
};

static int read_drains(int cpu, struct drains *d)
{
	FILE *f = fopen(NTRACE_SYSFS "/drains", "r");
	struct drains l;
	char line[256];
	int c, found = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu%d direct=%llu direct_bytes=%llu copy=%llu copy_bytes=%llu peeks=%llu",
			   &c, &l.direct, &l.direct_bytes, &l.copy,
			   &l.copy_bytes, &l.peeks) == 6 && c == cpu) {
			*d = l;
			found = 0;
		}
	if (f)
		fclose(f);
	return found;
}

/*
 * Whether cpu's sink should write AUX areas itself: its topology line
 * says direct=1 and the module parameter direct is on.
 */
static bool direct_expected(int cpu)
{
	FILE *f = fopen(NTRACE_SYSFS "/topology", "r");
	char line[512], sink[128] = "", want[160], param[8] = "";
	bool yes = false;
	int c;

	FILE *pf = fopen("/sys/module/ntrace/parameters/direct", "r");

	if (pf) {
		if (!fgets(param, sizeof(param), pf))
			param[0] = 0;
		fclose(pf);
	}
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " sink=");

		if (sscanf(line, "cpu%d ", &c) == 1 && c == cpu && p)
			sscanf(p + 6, "%127s", sink);
		snprintf(want, sizeof(want), "sink %s ", sink);
		if (*sink && !strncmp(line, want, strlen(want)))
			yes = strstr(line, " direct=1 ") != NULL;
	}
	if (f)
		fclose(f);
	return yes && param[0] == 'Y';
}

/* path's lines as "# what: line" comments */
static void print_file(const char *what, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		printf("# %s: %s", what, line);
	if (f)
		fclose(f);
}

/* a record the SRAM filled before a late drain (late_sram_size) */
static bool sram_filled(const struct nt_aux *a)
{
	return late_sram_size && a->len == (size_t)late_sram_size &&
	       a->flags == PERF_AUX_FLAG_PARTIAL;
}

static volatile unsigned long sink;

static __attribute__((noinline)) unsigned long leaf(unsigned long x)
{
	return x * 2654435761u >> 7;
}

typedef unsigned long (*op_fn)(unsigned long);

static __attribute__((noinline)) unsigned long add1(unsigned long x)
{
	return x + 1;
}

static __attribute__((noinline)) unsigned long xor5(unsigned long x)
{
	return x ^ 5;
}

/* Calls, returns, an indirect call and data-dependent branches. */
static void workload(void *arg)
{
	static const op_fn ops[] = { add1, xor5 };
	unsigned long i, n = (unsigned long)arg, acc = 0;

	for (i = 0; i < n; i++) {
		acc += leaf(i);
		if (acc & 4)
			acc = ops[i & 1](acc);
	}
	sink = acc;
}

static void save(const char *name, const struct nt_rec *rec, uint64_t config,
		 int cpu)
{
	char path[128];
	FILE *f;

	mkdir("/tmp/export", 0755);
	mkdir(EXPORT_DIR, 0755);
	snprintf(path, sizeof(path), EXPORT_DIR "/%s.bin", name);
	f = fopen(path, "w");
	if (f) {
		fwrite(rec->data, 1, rec->len, f);
		fclose(f);
	}
	snprintf(path, sizeof(path), EXPORT_DIR "/%s.txt", name);
	f = fopen(path, "w");
	if (f) {
		unsigned int i;

		fprintf(f, "config %#llx\ncpu %d\npid %d\ntext %p %p\n",
			(unsigned long long)config, cpu, rec->itrace_pid,
			__executable_start, etext);
		fprintf(f, "binary selftests/ntrace/ntrace_record_test\n");
		for (i = 0; i < rec->nr_aux; i++)
			fprintf(f, "aux %zu %zu %#llx\n", rec->aux[i].off,
				rec->aux[i].len,
				(unsigned long long)rec->aux[i].flags);
		fclose(f);
	}
}

/*
 * period: messages between periodic syncs the config asks for, 2^(n+3)
 * for sync_period n, 2^12 for the model's default trTeInstSyncMax 8.
 */
static void check(const char *name, uint64_t config, int cpu,
		  unsigned long iters, unsigned int aux_pages, bool truncate,
		  unsigned long period)
{
	static struct nt_rec rec;
	struct perf_event_attr attr;
	struct nt_frame_stats st;
	unsigned long msgs = 0, syncs = 0, bad = 0, start_bad = 0, end_bad = 0;
	unsigned long periodic = 0;
	unsigned long out_of_text = 0, lossy = 0, empty_trunc = 0, filled = 0;
	unsigned long in_text = 0, ksyncs = 0, fwsyncs = 0, idle = 0;
	struct drains before, after;
	bool have_drains, direct, maybe;
	uint64_t lo = (uintptr_t)__executable_start, hi = (uintptr_t)etext;
	unsigned int i, last = 0;
	char why[160] = "";
	int err;

	nt_attr(&attr, nt_pmu_type(), config);
	have_drains = !read_drains(0, &before);
	err = nt_record(&attr, cpu, aux_pages, workload, (void *)iters, &rec);
	have_drains = have_drains && !read_drains(0, &after);
	if (err) {
		ksft_test_result_fail("%s: record: %s\n", name, strerror(-err));
		ksft_test_result_skip("%s: no data\n", name);
		ksft_test_result_skip("%s: no data\n", name);
		ksft_test_result_skip("%s: no data\n", name);
		ksft_test_result_skip("%s: no data\n", name);
		ksft_test_result_skip("%s: no data\n", name);
		return;
	}
	ksft_test_result(rec.nr_aux > 0 && rec.len > 0 &&
			 rec.itrace_pid == getpid(),
			 "%s: %u AUX records, %zu bytes, ITRACE_START pid %d (mine %d)\n",
			 name, rec.nr_aux, rec.len, rec.itrace_pid, getpid());
	for (i = 0; i < rec.nr_aux; i++)
		if (rec.aux[i].len)
			last = i;	/* the last record with data */
	for (i = 0; i < rec.nr_aux; i++) {
		const struct nt_aux *a = &rec.aux[i];
		bool full = sram_filled(a), cut;

		if (truncate && i > last && !a->len &&
		    a->flags == PERF_AUX_FLAG_TRUNCATED) {
			empty_trunc++;
			continue;
		}
		if (full)
			filled++;
		else if (a->flags & (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL))
			lossy++;
		if (!a->len)
			continue;
		nt_frame_check_in(rec.data + a->off, a->len, nt_src_bits(0),
				  lo, hi, &st);
		periodic += st.periodic_syncs;
		in_text += st.in_syncs;
		ksyncs += st.kernel_syncs;
		fwsyncs += st.fw_syncs;
		/*
		 * Idle bytes alone: the fill before a window in the next run
		 * of memory, published by a stop before the sink wrote.
		 */
		if (!st.msgs && !st.bad) {
			idle++;
			continue;
		}
		/* a full SRAM stopped the sink: no ProgTraceCorrelation */
		cut = full && st.bad == 1 && strstr(st.why, "cut by the end");
		if (truncate && i == last) {
			/* cut where the AUX buffer was full: no end checks */
			msgs += st.msgs;
			syncs += st.sync_msgs;
			continue;
		}
		msgs += st.msgs;
		syncs += st.sync_msgs;
		if (st.bad && !cut && !bad++)
			snprintf(why, sizeof(why), "record %u: %s", i, st.why);
		if (!nt_tcode_is_sync(st.first_tcode) && !start_bad++)
			printf("# %s: record %u of %u (%zu bytes at %zu, flags %#llx) starts with TCODE %d\n",
			       name, i, rec.nr_aux, a->len, a->off,
			       (unsigned long long)a->flags, st.first_tcode);
		if (!full && st.last_tcode != 33 && !end_bad++)
			printf("# %s: record %u of %u (%zu bytes at %zu, flags %#llx) ends with TCODE %d\n",
			       name, i, rec.nr_aux, a->len, a->off,
			       (unsigned long long)a->flags, st.last_tcode);
		if (st.other_syncs ||
		    ((st.kernel_syncs + st.fw_syncs) && !nt_traces_kernel())) {
			if (!out_of_text++)
				printf("# %s: record %u: sync addresses %#llx..%#llx (first outside %#llx), text %#llx..%#llx\n",
				       name, i, (unsigned long long)st.addr_min,
				       (unsigned long long)st.addr_max,
				       (unsigned long long)st.other_addr,
				       (unsigned long long)lo,
				       (unsigned long long)hi);
		}
	}
	printf("# %s: %lu messages, %lu sync (%lu periodic), %lu lossy records\n",
	       name, msgs, syncs, periodic, lossy);
	/*
	 * Full: the last record with data is cut (TRUNCATED), or it fitted
	 * and less than a page was left, so the next start ended an empty
	 * TRUNCATED record at once.
	 */
	if (truncate)
		ksft_test_result(rec.nr_aux &&
				 ((lossy == 1 && rec.aux[last].flags & PERF_AUX_FLAG_TRUNCATED) ||
				  (!lossy && empty_trunc)),
				 "%s: only the last record with data is flagged, TRUNCATED, or an empty TRUNCATED record follows it (%lu flagged, then %lu empty TRUNCATED)\n",
				 name, lossy, empty_trunc);
	else
		ksft_test_result(!lossy && !rec.lost,
				 "%s: no record truncated or partial (%lu), no lost records (%llu)%s\n",
				 name, lossy, (unsigned long long)rec.lost,
				 filled ? ", but the SRAM filled before a late drain and those records are flagged PARTIAL" : "");
	if (filled)
		printf("# %s: %lu records hold a whole SRAM (%ld bytes), flagged PARTIAL\n",
		       name, filled, late_sram_size);
	ksft_test_result(!bad && !start_bad && !end_bad && msgs > 0,
			 "%s: frames as N-Trace, each record from a sync to a ProgTraceCorrelation or idle bytes alone (%lu bad, %lu bad starts, %lu bad ends, %lu idle%s%s)\n",
			 name, bad, start_bad, end_bad, idle, *why ? ": " : "",
			 why);
	/*
	 * Kernel and user traced into an area that fills (a slow kernel,
	 * KASAN): the kernel's trace may fill it before the program runs.
	 */
	ksft_test_result(syncs > 0 && !out_of_text &&
			 (in_text > 0 || (truncate && nt_traces_kernel())),
			 "%s: every sync address is in this program's text%s (%lu syncs: %lu in it, %lu in the kernel, %lu in firmware)\n",
			 name, nt_traces_kernel() ?
			 " or the kernel or M-mode firmware (no privilege filter: all traced)" : "",
			 syncs, in_text, ksyncs, fwsyncs);
	/*
	 * At most one per period (plus one per record); for short periods
	 * also at least half that (other syncs, e.g. on returns to user
	 * mode, restart the count, which matters only for long periods).
	 */
	ksft_test_result(periodic <= msgs / period + rec.nr_aux &&
			 (period > 64 || periodic >= msgs / period / 2),
			 "%s: %lu periodic syncs for %lu messages, period %lu\n",
			 name, periodic, msgs, period);
	/*
	 * CPU 0's drain counters (this task runs there) account for every
	 * byte of the records, and the sink wrote them itself where its
	 * topology line and the module parameter say it can. An AUX area
	 * smaller than the sink's buffer is written directly only where
	 * perf allocated it in one run of memory (a shorter run would lose
	 * what the copy keeps), which a fragmented guest may not give: then
	 * either way passes, and the line says which.
	 */
	direct = direct_expected(0);
	maybe = direct && (long)aux_pages * sysconf(_SC_PAGESIZE) < sink_buffer_size();
	if (have_drains && after.direct_bytes + after.copy_bytes -
	    before.direct_bytes - before.copy_bytes != rec.len)
		print_file("drains", NTRACE_SYSFS "/drains");
	if (!have_drains)
		ksft_test_result_skip("%s: no drains file\n", name);
	else
		ksft_test_result(after.direct_bytes + after.copy_bytes -
				 before.direct_bytes - before.copy_bytes == rec.len &&
				 (maybe || (direct ? after.direct > before.direct :
						    after.direct == before.direct)),
				 "%s: CPU 0's drains hold the records' %zu bytes: %llu direct (%llu bytes), %llu copied (%llu bytes); the sink writes the AUX area: %s\n",
				 name, rec.len, after.direct - before.direct,
				 after.direct_bytes - before.direct_bytes,
				 after.copy - before.copy,
				 after.copy_bytes - before.copy_bytes,
				 maybe ? "where perf gave one run (smaller than the sink's buffer)" :
				 direct ? "yes" : "no");
	/*
	 * A drain that left the sink running (a peek) published a record
	 * the next one continues (NTRACE_AUX_FLAG_CONT): each such record
	 * starts where the last ended, and the joined records frame above
	 * as whole runs, from a sync to a ProgTraceCorrelation.
	 */
	if (!have_drains)
		ksft_test_result_skip("%s: no drains file\n", name);
	else
		ksft_test_result(!rec.cont_breaks &&
				 rec.joined <= after.peeks - before.peeks &&
				 (after.peeks == before.peeks || rec.joined),
				 "%s: records that continue the last (%u, %u not where it ended) come from CPU 0's drains that left the sink running (%llu)\n",
				 name, rec.joined, rec.cont_breaks,
				 after.peeks - before.peeks);
	save(name, &rec, config, cpu);
	nt_rec_free(&rec);
}

static void syscalls(void *arg)
{
	unsigned long i;

	for (i = 0; i < (unsigned long)arg; i++)
		sink += getppid();
}

/*
 * Kernel-only trace on CPU 0: the privilege filter keeps S mode only.
 * Kernel trace volume depends on the kernel (KASAN multiplies it), so a
 * record flagged TRUNCATED or PARTIAL may end inside a message.
 */
static void check_kernel(void)
{
	static struct nt_rec rec;
	struct perf_event_attr attr;
	struct nt_frame_stats st;
	unsigned long msgs = 0, syncs = 0, bad = 0, user = 0, lossy = 0;
	unsigned long ksyncs = 0;
	bool filter = nt_priv_filter();
	char why[160] = "";
	unsigned int i;
	int err, fd;

	nt_attr(&attr, nt_pmu_type(), 0);
	attr.exclude_user = 1;
	attr.exclude_kernel = 0;
	if (!filter) {
		/*
		 * No privilege filter: kernel-only is refused; what is left to
		 * check is that user+kernel trace holds the kernel.
		 */
		fd = nt_open(&attr, -1, 0);
		if (fd >= 0)
			close(fd);
		ksft_test_result(fd == -EOPNOTSUPP,
				 "kernel-cpu0: kernel-only event refused, no privilege filter: EOPNOTSUPP (got %s)\n",
				 fd >= 0 ? "success" : strerror(-fd));
		attr.exclude_user = 0;
	}
	err = nt_record(&attr, 0, 256, syscalls, (void *)500, &rec);
	for (i = 0; !err && i < rec.nr_aux; i++) {
		bool cut_ok = rec.aux[i].flags &
			      (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL);

		if (!rec.aux[i].len)
			continue;
		lossy += cut_ok;
		nt_frame_check(rec.data + rec.aux[i].off, rec.aux[i].len, nt_src_bits(0), &st);
		msgs += st.msgs;
		syncs += st.sync_msgs;
		if (st.bad && !(cut_ok && st.bad == 1 && strstr(st.why, "cut by the end")) &&
		    !bad++)
			snprintf(why, sizeof(why), ": record %u: %s", i, st.why);
		/* kernel addresses have the top bit set on RV64 */
		if (st.sync_msgs && !nt_kernel_addr(st.addr_min))
			user++;
		if (st.sync_msgs && nt_kernel_addr(st.addr_max))
			ksyncs++;
	}
	if (!filter) {
		ksft_test_result(!err && msgs && !bad && ksyncs,
				 "user+kernel-cpu0: %lu messages frame as N-Trace, %lu lossy records, %lu records with kernel sync addresses (%s%s)\n",
				 msgs, lossy, ksyncs, err ? strerror(-err) : "ok", why);
		nt_rec_free(&rec);
		return;
	}
	ksft_test_result(!err && msgs && !bad,
			 "kernel-cpu0: %lu messages frame as N-Trace, %lu lossy records (%s%s)\n",
			 msgs, lossy, err ? strerror(-err) : "ok", why);
	ksft_test_result(!err && syncs && !user,
			 "kernel-cpu0: every sync address is a kernel address (%lu syncs, %lu records with user addresses)\n",
			 syncs, user);
	nt_rec_free(&rec);
}

/*
 * Snapshot mode: ten times more trace than the 64 KiB AUX area. The area
 * wraps (aux_head beyond its size), records are flagged OVERWRITE and
 * never TRUNCATED, and the newest 64 KiB, after the first message end (the
 * oldest bytes may start inside a message), frame up to the final
 * ProgTraceCorrelation (unless the last record is flagged PARTIAL: its
 * end was lost), in this program's text.
 */
static void check_snapshot(void)
{
	static struct nt_rec rec;
	uint64_t lo = (uintptr_t)__executable_start, hi = (uintptr_t)etext;
	struct perf_event_attr attr;
	struct nt_frame_stats st = { .last_tcode = -1 };
	unsigned int i, over = 0, trunc = 0, partial = 0;
	bool end_lost;
	size_t start = 0;
	int err;

	nt_attr(&attr, nt_pmu_type(), 0);
	err = nt_record_snapshot(&attr, 16, workload, (void *)200000, &rec);
	for (i = 0; i < rec.nr_aux; i++) {
		over += !!(rec.aux[i].flags & PERF_AUX_FLAG_OVERWRITE);
		trunc += !!(rec.aux[i].flags & PERF_AUX_FLAG_TRUNCATED);
		partial += !!(rec.aux[i].flags & PERF_AUX_FLAG_PARTIAL);
	}
	/*
	 * The newest bytes are the last record's. Its drain may have found
	 * the sink full (a late drain on a slow kernel) and lost the last
	 * messages, the ProgTraceCorrelation among them: then the record
	 * must say so (PARTIAL).
	 */
	end_lost = rec.nr_aux &&
		   (rec.aux[rec.nr_aux - 1].flags & PERF_AUX_FLAG_PARTIAL);
	ksft_test_result(!err && rec.aux_head > 16 * 4096 && over && !trunc,
			 "snapshot: AUX area wrapped (head %llu), %u OVERWRITE records, %u TRUNCATED (%s)\n",
			 (unsigned long long)rec.aux_head, over, trunc,
			 err ? strerror(-err) : "ok");
	while (start < rec.len && (rec.data[start] & 3) != 3)
		start++;
	if (!err && start < rec.len)
		nt_frame_check_in(rec.data + start + 1, rec.len - start - 1,
				  nt_src_bits(0), lo, hi, &st);
	ksft_test_result(!err && st.msgs && !st.bad &&
			 (st.last_tcode == 33 || end_lost) && nt_syncs_in(&st),
			 "snapshot: newest %zu bytes frame to a ProgTraceCorrelation (or the last record is flagged PARTIAL), in this program%s (%lu messages, %lu syncs in it, %lu in the kernel, %lu in firmware, %lu elsewhere, last TCODE %d, %u of %u records PARTIAL, last %s%s%s)\n",
			 rec.len, nt_traces_kernel() ? " or the kernel or firmware" : "",
			 st.msgs, st.in_syncs, st.kernel_syncs, st.fw_syncs,
			 st.other_syncs,
			 st.last_tcode, partial, rec.nr_aux,
			 end_lost ? "PARTIAL" : "not PARTIAL",
			 st.bad ? ": " : "", st.why);
	nt_rec_free(&rec);
}

/* File offset of a code address of this program, from /proc/self/maps. */
static long file_offset(uintptr_t addr)
{
	unsigned long start, end, off;
	char line[512], perm[8];
	long ret = -1;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perm, &off) == 4 &&
		    addr >= start && addr < end && perm[2] == 'x') {
			ret = addr - start + off;
			break;
		}
	if (f)
		fclose(f);
	return ret;
}

/*
 * Address range filter on leaf() (64 bytes from its entry, through the
 * program file): every sync message, including the ones at each entry
 * into the range, lies inside it.
 */
static void check_filter(void)
{
	static struct nt_rec rec;
	uintptr_t lo = (uintptr_t)leaf, hi = lo + 64;
	char exe[256], filter[512];
	struct perf_event_attr attr;
	struct nt_frame_stats st;
	unsigned long syncs = 0, msgs = 0, bad = 0, outside = 0, filled = 0;
	long off = file_offset(lo);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	unsigned int i;
	int err = -ENOENT;
	char nr[16] = "";

	/* perf makes the file only for a PMU with address filters */
	if (nt_read_sysfs("nr_addr_filters", nr, sizeof(nr)) || !atoi(nr)) {
		/*
		 * No TCI filters (SiFive v0): the PMU has no address filters,
		 * and perf refuses one (EINVAL, its answer for such a PMU).
		 */
		if (n > 0 && off >= 0) {
			exe[n] = 0;
			snprintf(filter, sizeof(filter), "filter %#lx/64@%s", off, exe);
			nt_attr(&attr, nt_pmu_type(), 0);
			err = nt_record_filtered(&attr, filter, 256, workload,
						 (void *)20000, &rec);
			nt_rec_free(&rec);
		}
		ksft_test_result(err == -EINVAL,
				 "filter on leaf(): refused, no address filters (nr_addr_filters 0): EINVAL (got %s)\n",
				 err ? strerror(-err) : "success");
		ksft_test_result(nt_cap("nr_filters", -1) == 0 ||
				 nt_cap("nr_comparators", -1) == 0,
				 "filter on leaf(): no address filters, as caps/ say (%ld filters, %ld comparators)\n",
				 nt_cap("nr_filters", -1), nt_cap("nr_comparators", -1));
		return;
	}
	if (n > 0 && off >= 0) {
		exe[n] = 0;
		snprintf(filter, sizeof(filter), "filter %#lx/64@%s", off, exe);
		nt_attr(&attr, nt_pmu_type(), 0);
		err = nt_record_filtered(&attr, filter, 256, workload,
					 (void *)20000, &rec);
	}
	for (i = 0; !err && i < rec.nr_aux; i++) {
		if (!rec.aux[i].len)
			continue;
		nt_frame_check(rec.data + rec.aux[i].off, rec.aux[i].len, nt_src_bits(0), &st);
		msgs += st.msgs;
		syncs += st.sync_msgs;
		if (sram_filled(&rec.aux[i]) && st.bad == 1 &&
		    strstr(st.why, "cut by the end"))
			filled++;	/* the full SRAM's stop cut it */
		else
			bad += st.bad;
		if (st.bad && bad == st.bad)	/* the first bad record, to tell why */
			printf("# filter on leaf(): record %u of %u (%zu bytes, flags %#llx): %lu bad, %s\n",
			       i, rec.nr_aux, rec.aux[i].len,
			       (unsigned long long)rec.aux[i].flags, st.bad, st.why);
		if (st.sync_msgs && (st.addr_min < lo || st.addr_max >= hi))
			outside++;
	}
	ksft_test_result(!err && msgs && !bad,
			 "filter on leaf(): %lu messages frame (%s; %lu records end where the SRAM filled)\n",
			 msgs, err ? strerror(-err) : "ok", filled);
	ksft_test_result(!err && syncs && !outside,
			 "filter on leaf(): all %lu sync addresses in %#lx..%#lx\n",
			 syncs, (unsigned long)lo, (unsigned long)hi);
	nt_rec_free(&rec);
}

int main(void)
{
	struct perf_event_attr attr;
	unsigned long period;
	uint64_t iret;
	cpu_set_t set;
	int fd;

	ksft_print_header();
	if (nt_pmu_type() < 0)
		ksft_exit_skip("no ntrace PMU (no N-Trace components in this machine)\n");
	/* v0: one more (iret alone refused); kernel-only: 2 either way */
	ksft_set_plan(5 * 7 + 2 + 2 + 2 + nt_sifive_v0());
	find_late_sram();
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	/* messages between periodic syncs by default */
	period = 1ul << (nt_cap("sync_max_default", 8) + 4);
	/* about 100 KiB of trace into a 1 MiB AUX area */
	check("btm-task", 0, -1, 20000, 256, false, period);
	check("htm-task", NTRACE_CFG_SET(HTM, 1), -1, 20000, 256, false, period);
	iret = NTRACE_CFG_SET(IRET, 1);
	if (nt_sifive_v0()) {
		/* implicit return only with repeated history (teInstruction 7) */
		nt_attr(&attr, nt_pmu_type(), iret);
		fd = nt_open(&attr, -1, 0);
		if (fd >= 0)
			close(fd);
		ksft_test_result(fd == -EOPNOTSUPP,
				 "iret=1 without rephist refused (v0: only together): EOPNOTSUPP (got %s)\n",
				 fd >= 0 ? "success" : strerror(-fd));
		iret |= NTRACE_CFG_SET(REPHIST, 1);
	}
	check("btm-cpu0", iret, 0, 20000, 256, false, period);
	check("btm-sync32", NTRACE_CFG_SET(SYNC_PERIOD, 2), -1, 20000, 256,
	      false, 32);
	/* ten times more into 64 KiB: the AUX area fills up */
	check("btm-full", 0, -1, 200000, 16, true, period);
	check_kernel();
	check_snapshot();
	check_filter();
	ksft_finished();
}
