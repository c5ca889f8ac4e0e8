// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmarks of the ntrace driver, run in the riscv64 guest on the N-Trace
 * QEMU model (scripts/ntrace-bench.sh). Static, no perf tool needed.
 *
 *   ntrace_bench throughput N... [-n INSNS] [-a AUX_KIB] [-j HARTS]
 *     For each N (2, 3, 4, 6, 10 or 18): a child runs a loop with one
 *     taken branch every N instructions (N - 2 ALU instructions, addi,
 *     bnez; so a BTM message every N instructions), INSNS instructions in
 *     all; the parent
 *     records it like "perf record -e ntrace//u": a per-task event on the
 *     child, AUX area of AUX_KIB (perf's default for root: 4096 KiB),
 *     consumed while the child runs. Prints per K: trace bytes, MB/s of
 *     trace, instructions/s of the traced program (and untraced), AUX
 *     records, those flagged TRUNCATED/PARTIAL/COLLISION, lost records,
 *     the child's kernel instructions traced and not, and the time the
 *     driver spent in its start, stop and drain paths (its "drains" file:
 *     with QEMU's -icount, the driver's instructions per MB drained).
 *     With -j HARTS, HARTS children run at once, child j pinned to CPU j,
 *     each with its own event (on a sink shared through funnels, HARTS
 *     encoders trace into it together); bytes and instructions are the
 *     sums, the time is from the start to the last child's end.
 *
 *   ntrace_bench switch [-n ROUNDS] [-r REPS]
 *     Two processes pinned to CPU 0 bounce a byte through two pipes ROUNDS
 *     times. Instructions (user and kernel) and context switches of both
 *     are counted (inherited counters), without and with an ntrace//u
 *     event on the parent (per task, AUX area large enough that nobody
 *     needs to read it), so that every round trip stops the event (drain
 *     into the AUX area) and starts it again once. Prints instructions per
 *     context switch in both cases and the difference per switch and per
 *     stop+start; the drain timer's work is included, amortised. Run the
 *     guest with QEMU's -icount: without it, QEMU's instret counts host
 *     time, not instructions.
 *
 *   ntrace_bench reload [PARAMS]
 *     Reload ntrace.ko with module parameters (e.g. buf_kb=64).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "ntrace_util.h"	/* selftests/ntrace: nt_pmu_type(), nt_open() */


static long page;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void pin0(void)
{
	pin(0);
}

/* k ALU instructions, addi, taken bnez: one BTM message per iteration. */
#define ALU1 "add t0, t0, %0\n"
#define ALU2 ALU1 ALU1
#define ALU4 ALU2 ALU2
#define ALU8 ALU4 ALU4
#define ALU16 ALU8 ALU8
#define LOOP(k, body)							\
	static void loop##k(unsigned long n)				\
	{								\
		asm volatile("1:\n" body				\
			     "addi %0, %0, -1\n"			\
			     "bnez %0, 1b\n"				\
			     : "+r"(n) : : "t0");			\
	}
LOOP(0, "")
LOOP(1, ALU1)
LOOP(2, ALU2)
LOOP(4, ALU4)
LOOP(8, ALU8)
LOOP(16, ALU16)

static void (*loop_of(int k))(unsigned long)
{
	switch (k) {
	case 0: return loop0;
	case 1: return loop1;
	case 2: return loop2;
	case 4: return loop4;
	case 8: return loop8;
	case 16: return loop16;
	}
	return NULL;
}

struct result {
	double secs;			/* start to the last child's end, wall clock */
	uint64_t bytes, records, truncated, partial, collision, lost;
	uint64_t kinsns;		/* the children's kernel instructions */
};

/* Consume the rings: count AUX records, their bytes and flags. */
static void consume(struct perf_event_mmap_page *up, size_t data_size,
		    struct result *r)
{
	const uint8_t *data = (const uint8_t *)up + page;
	uint64_t head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = up->data_tail;
	uint8_t buf[64];

	while (tail < head) {
		struct perf_event_header h;
		size_t i;

		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(tail + i) % data_size];
		if (h.size < sizeof(h))
			break;
		for (i = 0; i < h.size && i < sizeof(buf); i++)
			buf[i] = data[(tail + i) % data_size];
		if (h.type == PERF_RECORD_AUX) {
			uint64_t size = *(uint64_t *)(buf + 16);
			uint64_t flags = *(uint64_t *)(buf + 24);

			r->records++;
			r->bytes += size;
			r->truncated += !!(flags & PERF_AUX_FLAG_TRUNCATED);
			r->partial += !!(flags & PERF_AUX_FLAG_PARTIAL);
			r->collision += !!(flags & PERF_AUX_FLAG_COLLISION);
		} else if (h.type == PERF_RECORD_LOST) {
			r->lost += *(uint64_t *)(buf + 16);
		}
		tail += h.size;
	}
	__atomic_store_n(&up->data_tail, tail, __ATOMIC_RELEASE);
	/* the bytes are not kept: a reader that keeps up */
	__atomic_store_n(&up->aux_tail,
			 __atomic_load_n(&up->aux_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

/* One traced child of run_traced(): its event and rings. */
struct tracee {
	pid_t pid;
	int fd;
	int kfd;			/* its kernel instructions */
	void *base, *aux;
	struct perf_event_mmap_page *up;
};

/*
 * Count the kernel instructions of pid: the drains of its events run in
 * its context (the drain timer's interrupt, its context switches). Needs
 * QEMU's -icount to mean instructions (else host time).
 */
static int kernel_insns(pid_t pid)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_user = 1,
		.exclude_hv = 1,
	};

	return nt_open(&a, pid, -1);
}

static int open_tracee(struct tracee *t, size_t data_size, size_t aux_size)
{
	struct perf_event_attr a = { .size = sizeof(a) };

	a.type = nt_pmu_type();
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	t->fd = nt_open(&a, t->pid, -1);
	if (t->fd < 0)
		return -1;
	t->base = mmap(NULL, page + data_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, t->fd, 0);
	if (t->base == MAP_FAILED)
		return -1;
	t->up = t->base;
	t->up->aux_offset = page + data_size;
	t->up->aux_size = aux_size;
	t->aux = mmap(NULL, aux_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      t->fd, t->up->aux_offset);
	if (t->aux == MAP_FAILED)
		return -1;
	return ioctl(t->fd, PERF_EVENT_IOC_ENABLE, 0);
}

static void close_tracee(struct tracee *t, size_t data_size, size_t aux_size)
{
	if (t->aux && t->aux != MAP_FAILED)
		munmap(t->aux, aux_size);
	if (t->base && t->base != MAP_FAILED)
		munmap(t->base, page + data_size);
	if (t->fd >= 0)
		close(t->fd);
}

#define MAX_HARTS 16

/*
 * Run loop K for insns instructions in each of harts children (child j
 * on CPU j); trace each with its own event when aux_kib. The children
 * start together; r->secs runs from the start to the last child's end.
 */
static int run_traced(int k, uint64_t insns, unsigned int aux_kib,
		      int harts, struct result *r)
{
	size_t data_size = 64 * page, aux_size = (size_t)aux_kib * 1024;
	struct tracee t[MAX_HARTS];
	void (*loop)(unsigned long) = loop_of(k);
	int go[2], done[2], status, j, left;
	double t0;
	char c = 0;

	memset(r, 0, sizeof(*r));
	if (!loop || harts < 1 || harts > MAX_HARTS || pipe(go) || pipe(done))
		return -EINVAL;
	for (j = 0; j < harts; j++) {
		t[j] = (struct tracee){ .fd = -1, .kfd = -1 };
		t[j].pid = fork();
		if (t[j].pid == 0) {
			pin(j);
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			loop(insns / (k + 2));
			if (write(done[1], &c, 1) != 1)
				_exit(1);
			_exit(0);
		}
		if (aux_kib && open_tracee(&t[j], data_size, aux_size))
			goto fail;
		t[j].kfd = kernel_insns(t[j].pid);
	}
	t0 = now();
	for (j = 0; j < harts; j++)
		if (write(go[1], &c, 1) != 1)
			goto fail;
	for (left = harts; left;) {
		struct pollfd p[MAX_HARTS + 1];
		int n = 0;

		p[n++] = (struct pollfd){ .fd = done[0], .events = POLLIN };
		for (j = 0; aux_kib && j < harts; j++)
			p[n++] = (struct pollfd){ .fd = t[j].fd, .events = POLLIN };
		poll(p, n, 100);
		for (j = 0; aux_kib && j < harts; j++)
			consume(t[j].up, data_size, r);
		if ((p[0].revents & POLLIN) && read(done[0], &c, 1) == 1)
			left--;
	}
	r->secs = now() - t0;
	for (j = 0; j < harts; j++) {
		waitpid(t[j].pid, &status, 0);
		if (aux_kib)
			consume(t[j].up, data_size, r);
		if (t[j].kfd >= 0) {
			uint64_t v = 0;

			if (read(t[j].kfd, &v, sizeof(v)) == sizeof(v))
				r->kinsns += v;
			close(t[j].kfd);
		}
		close_tracee(&t[j], data_size, aux_size);
	}
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
	return 0;
fail:
	fprintf(stderr, "ntrace_bench: %s\n", strerror(errno));
	for (j = 0; j < harts; j++) {
		if (t[j].pid <= 0)
			continue;
		kill(t[j].pid, SIGKILL);
		waitpid(t[j].pid, &status, 0);
		if (t[j].kfd >= 0)
			close(t[j].kfd);
		close_tracee(&t[j], data_size, aux_size);
	}
	return -1;
}

/*
 * The driver's drains file summed over the CPUs: nanoseconds spent in its
 * start, stop and drain paths (with QEMU's -icount shift=4, 16 per guest
 * instruction), drains that left the sink running, the drains that
 * copied (copy mode, or a direct event's stretch at the end of a run of
 * memory too short for a window, when the next run is short too) and their
 * bytes, and the idle bytes it put before windows and copies (in the AUX
 * records' bytes, but no trace).
 */
struct driver_counts {
	unsigned long long ns, peeks, copies, copy_bytes, fill;
};

static void driver_time(struct driver_counts *c)
{
	FILE *f = fopen(NTRACE_SYSFS "/drains", "r");
	unsigned long long d, db, n, b, p, t, fl;
	char line[256];
	const char *at;

	memset(c, 0, sizeof(*c));
	while (f && fgets(line, sizeof(line), f)) {
		at = strstr(line, " direct=");
		if (at && sscanf(at, " direct=%llu direct_bytes=%llu copy=%llu copy_bytes=%llu peeks=%llu ns=%llu fill=%llu",
				 &d, &db, &n, &b, &p, &t, &fl) == 7) {
			c->ns += t;
			c->fill += fl;
			c->peeks += p;
			c->copies += n;
			c->copy_bytes += b;
		}
	}
	if (f)
		fclose(f);
}

/* "shared" when the encoders share a sink through funnels, else "per-hart" */
static const char *sink_kind(void)
{
	char v[16] = "";

	nt_read_sysfs("caps/src_required", v, sizeof(v));
	return !strcmp(v, "1") ? "shared" : "per-hart";
}

static int throughput(int argc, char **argv, uint64_t insns, unsigned int aux_kib,
		      int harts)
{
	int i;

	printf("bench throughput insns=%llu aux_kib=%u harts=%d sink=%s\n",
	       (unsigned long long)insns * harts, aux_kib, harts, sink_kind());
	for (i = 0; i < argc; i++) {
		struct result plain, tr;
		int k = atoi(argv[i]) - 2;
		struct driver_counts d0, d1;

		if (run_traced(k, insns, 0, harts, &plain))
			return 1;
		driver_time(&d0);
		if (run_traced(k, insns, aux_kib, harts, &tr))
			return 1;
		driver_time(&d1);
		/* trace bytes: the records' less the driver's idle fill */
		tr.bytes -= d1.fill - d0.fill < tr.bytes ? d1.fill - d0.fill : tr.bytes;
		printf("bench tp k=%d insn_per_branch=%d bytes=%llu secs=%.4f plain_secs=%.4f mbps=%.2f mips=%.2f plain_mips=%.2f records=%llu truncated=%llu partial=%llu collision=%llu lost=%llu kinsns=%llu plain_kinsns=%llu driver_ns=%llu peeks=%llu copies=%llu copy_bytes=%llu fill=%llu\n",
		       k, k + 2, (unsigned long long)tr.bytes, tr.secs, plain.secs,
		       tr.bytes / tr.secs / 1e6, insns * harts / tr.secs / 1e6,
		       insns * harts / plain.secs / 1e6, (unsigned long long)tr.records,
		       (unsigned long long)tr.truncated,
		       (unsigned long long)tr.partial,
		       (unsigned long long)tr.collision,
		       (unsigned long long)tr.lost,
		       (unsigned long long)tr.kinsns,
		       (unsigned long long)plain.kinsns,
		       d1.ns - d0.ns, d1.peeks - d0.peeks, d1.copies - d0.copies,
		       d1.copy_bytes - d0.copy_bytes, d1.fill - d0.fill);
		fflush(stdout);
	}
	return 0;
}

static int counter(uint32_t type, uint64_t config, bool kernel_only)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = type, .config = config,
		.disabled = 1, .inherit = 1, .exclude_user = kernel_only,
		.exclude_hv = 1,
	};

	return nt_open(&a, 0, -1);
}

static uint64_t read_counter(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * One ping-pong run; *insns, *switches: instructions (user and kernel)
 * and context switches of both processes. traced: an ntrace//u event on
 * the parent only (per task), so each round trip stops and starts it once.
 */
static int pingpong(unsigned long rounds, bool traced, uint64_t *insns,
		    uint64_t *switches, uint64_t *aux_records, uint64_t *aux_bad)
{
	size_t data_size = 256 * page, aux_size = 4096 * 1024;
	struct perf_event_mmap_page *up = NULL;
	struct perf_event_attr a = { .size = sizeof(a) };
	int ab[2], ba[2], fi, fs, fd = -1, status;
	void *base = MAP_FAILED, *aux = MAP_FAILED;
	struct result r = { 0 };
	unsigned long i;
	pid_t pid;
	char c = 0;

	pin0();
	fi = counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false);
	fs = counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false);
	if (fi < 0 || fs < 0) {
		fprintf(stderr, "ntrace_bench: counters: %s\n", strerror(errno));
		return -1;
	}
	if (traced) {
		a.type = nt_pmu_type();
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.disabled = 1;
		fd = nt_open(&a, 0, -1);
		if (fd < 0) {
			fprintf(stderr, "ntrace_bench: ntrace event: %s\n", strerror(errno));
			return -1;
		}
		base = mmap(NULL, page + data_size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0);
		if (base == MAP_FAILED) {
			fprintf(stderr, "ntrace_bench: mmap: %s\n", strerror(errno));
			return -1;
		}
		up = base;
		up->aux_offset = page + data_size;
		up->aux_size = aux_size;
		aux = mmap(NULL, aux_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, up->aux_offset);
		if (aux == MAP_FAILED) {
			fprintf(stderr, "ntrace_bench: AUX mmap: %s\n", strerror(errno));
			return -1;
		}
	}
	if (pipe(ab) || pipe(ba))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (read(ab[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < rounds; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	if (fd >= 0)
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fi, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fs, PERF_EVENT_IOC_ENABLE, 0);
	if (write(ab[1], &c, 1) != 1)
		return -1;
	for (i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
	waitpid(pid, &status, 0);
	ioctl(fi, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fs, PERF_EVENT_IOC_DISABLE, 0);
	*insns = read_counter(fi);
	*switches = read_counter(fs);
	close(fi);
	close(fs);
	*aux_records = *aux_bad = 0;
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		consume(up, data_size, &r);
		*aux_records = r.records;
		*aux_bad = r.truncated + r.lost;
		munmap(aux, aux_size);
		munmap(base, page + data_size);
		close(fd);
	}
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	if (i != rounds || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "ntrace_bench: ping-pong stopped after %lu rounds\n", i);
		return -1;
	}
	return 0;
}

static int switches(unsigned long rounds, int reps)
{
	uint64_t best[2] = { UINT64_MAX, UINT64_MAX }, sw[2] = { 0 };
	uint64_t recs = 0, bad = 0;
	int r, t;

	/* alternate; keep the lowest count of each case */
	for (r = 0; r < reps; r++)
		for (t = 0; t < 2; t++) {
			uint64_t insns, s, rc, b;

			if (pingpong(rounds, t, &insns, &s, &rc, &b)) {
				fprintf(stderr, "ntrace_bench: ping-pong failed\n");
				return 1;
			}
			if (insns < best[t]) {
				best[t] = insns;
				sw[t] = s;
			}
			if (t) {
				recs = rc;
				bad += b;
			}
		}
	printf("bench switch sink=%s cpus=%ld rounds=%lu switches_plain=%llu switches_traced=%llu insn_per_switch_plain=%.0f insn_per_switch_traced=%.0f driver_insn_per_switch=%.0f driver_insn_per_stop_start=%.0f aux_records=%llu aux_lost_or_truncated=%llu\n",
	       sink_kind(), sysconf(_SC_NPROCESSORS_ONLN), rounds, (unsigned long long)sw[0], (unsigned long long)sw[1],
	       (double)best[0] / sw[0], (double)best[1] / sw[1],
	       (double)best[1] / sw[1] - (double)best[0] / sw[0],
	       ((double)best[1] - (double)best[0]) / rounds,
	       (unsigned long long)recs, (unsigned long long)bad);
	return 0;
}

/* Reload ntrace.ko with new parameters (the init loaded it). */
static int reload(const char *params)
{
	int fd;

	if (syscall(SYS_delete_module, "ntrace", O_NONBLOCK) && errno != ENOENT) {
		fprintf(stderr, "ntrace_bench: unload: %s\n", strerror(errno));
		return 1;
	}
	fd = open("/lib/modules/ntrace/ntrace.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || syscall(SYS_finit_module, fd, params, 0)) {
		fprintf(stderr, "ntrace_bench: load: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	printf("bench reload %s\n", params);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = 0;
	unsigned int aux_kib = 4096;
	int opt, reps = 3, harts = 1;

	page = sysconf(_SC_PAGESIZE);
	if (argc < 2 || (strcmp(argv[1], "reload") && nt_pmu_type() < 0)) {
		fprintf(stderr, "usage: ntrace_bench throughput|switch [-n N] [-a AUX_KIB] [-j HARTS] [-r REPS] [K...] (needs the ntrace PMU)\n");
		return 2;
	}
	optind = 2;
	while ((opt = getopt(argc, argv, "n:a:r:j:")) != -1) {
		switch (opt) {
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 'a': aux_kib = atoi(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 'j': harts = atoi(optarg); break;
		default: return 2;
		}
	}
	if (!strcmp(argv[1], "throughput"))
		return throughput(argc - optind, argv + optind,
				  n ? n : 100000000, aux_kib, harts);
	if (!strcmp(argv[1], "reload"))
		return reload(argc > 2 ? argv[2] : "");
	if (!strcmp(argv[1], "switch"))
		return switches(n ? n : 5000, reps);
	fprintf(stderr, "ntrace_bench: unknown mode '%s'\n", argv[1]);
	return 2;
}
