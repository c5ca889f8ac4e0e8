// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel-interface fuzzer for the ntrace PMU and the CTR branch stacks.
 * From one seed it runs a fixed number of operations drawn at random:
 * perf_event_open() with random and edge-case attributes (fuzz_attr.c),
 * PERF_EVENT_IOC_* with random arguments and filter strings, mmap() of the
 * ring and the AUX area with random sizes, offsets and protections, reads
 * of what the kernel wrote, close(); interleaved with traced work, fork,
 * exec, exit, threads, CPU hotplug, unbind and bind of the trace
 * components, writes to the module's parameters and module reloads.
 *
 * It fails on any kernel report (WARNING, BUG, KASAN, lockdep, ...), on
 * output the kernel wrote that breaks perf's ABI (a record of size 0, an
 * AUX record beyond aux_head, unknown AUX flags), on a module that cannot
 * be unloaded once every event is closed, and when the driver no longer
 * records cleanly afterwards; on a kernel with kmemleak, on a leak found
 * after the run. Each failure names its seed and operation.
 *
 * ntguest.fuzz=SEED,OPS on the kernel command line sets the run
 * (default 1,1500). Only run when asked for (settings: on_request=1):
 * scripts/harden.sh boots it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "fuzz.h"
#include "guest.h"
#include "kmemleak.h"
#include "kmod.h"
#include "kmsg.h"
#include "kselftest.h"

#define MAX_EVENTS	24
#define MAX_CHILDREN	4
#define MAX_THREADS	2
#define MAX_COMPONENTS	32
#define MAX_CPUS	64
#define HISTORY		32
#define MAX_ERRNO	134

enum fz_op {
	OP_RECORD, OP_OPEN, OP_IOCTL, OP_READ, OP_MMAP_RING, OP_MMAP_AUX, OP_MUNMAP,
	OP_CONSUME, OP_CLOSE, OP_WORK, OP_FORK, OP_THREAD, OP_REAP,
	OP_HOTPLUG, OP_BIND, OP_PARAM, OP_RELOAD, NR_OPS,
};

static const struct {
	const char *name;
	unsigned int weight;
} ops[NR_OPS] = {
	[OP_RECORD] = { "record", 8 },	[OP_OPEN] = { "open", 12 },	[OP_IOCTL] = { "ioctl", 16 },
	[OP_READ] = { "read", 3 },	[OP_MMAP_RING] = { "mmap-ring", 8 },
	[OP_MMAP_AUX] = { "mmap-aux", 8 }, [OP_MUNMAP] = { "munmap", 3 },
	[OP_CONSUME] = { "consume", 8 }, [OP_CLOSE] = { "close", 7 },
	[OP_WORK] = { "work", 10 },	[OP_FORK] = { "fork", 4 },
	[OP_THREAD] = { "thread", 3 },	[OP_REAP] = { "reap", 3 },
	[OP_HOTPLUG] = { "hotplug", 1 }, [OP_BIND] = { "bind", 2 },
	[OP_PARAM] = { "param", 2 },	[OP_RELOAD] = { "reload", 1 },
};

struct fz_event {
	int fd;			/* -1: free */
	enum fz_kind kind;
	void *ring;		/* user page and data pages */
	size_t ring_len;
	bool ring_ro;		/* mapped read-only: overwrite mode */
	void *aux;
	size_t aux_len;
};

struct fz_thread {
	pthread_t id;
	bool live;
};

static struct fz {
	struct fz_rng rng;
	uint64_t seed;
	unsigned long nr_ops, op;
	struct fz_pmus pmus;
	struct fz_event ev[MAX_EVENTS];
	pid_t child[MAX_CHILDREN];
	struct fz_thread thr[MAX_THREADS];
	struct fz_component comp[MAX_COMPONENTS];
	int ncomp;
	bool offline[MAX_CPUS];
	bool ctr_module;	/* riscv_ctr was loaded at the start */
	char params[4][32];	/* the module parameters' first values */
	int kmsg;
	size_t page;
	/* what happened */
	unsigned long count[NR_OPS], ok[NR_OPS];
	unsigned long err[NR_OPS][MAX_ERRNO];
	unsigned long splats, abi_bad, aux_records, aux_bytes, sigtraps;
	char first_abi[256];
	unsigned long splat_op;
	unsigned char history[HISTORY];
} fz;

static const char *const param_names[] = { "drain_us", "direct", "switch_drain", "peek" };
_Static_assert(ARRAY_SIZE(param_names) == ARRAY_SIZE(fz.params), "a saved value per parameter");

static volatile unsigned long spin_sink;

static void spin(unsigned long n)
{
	unsigned long i, acc = 0;

	for (i = 0; i < n; i++) {
		if ((i * 2654435761u) & 16)
			acc ^= i;
		if (!(i & 0x3fff))
			acc += getppid();
	}
	spin_sink = acc;
}

static void note(enum fz_op op, int ret)
{
	fz.count[op]++;
	if (ret >= 0)
		fz.ok[op]++;
	else if (-ret < MAX_ERRNO)
		fz.err[op][-ret]++;
}

static void abi_fail(const char *fmt, ...)
{
	va_list ap;

	fz.abi_bad++;
	if (fz.first_abi[0])
		return;
	va_start(ap, fmt);
	vsnprintf(fz.first_abi, sizeof(fz.first_abi), fmt, ap);
	va_end(ap);
	printf("# ABI: %s (seed %llu, operation %lu)\n", fz.first_abi,
	       (unsigned long long)fz.seed, fz.op);
}

static struct fz_event *pick_event(bool open)
{
	unsigned int start = fz_below(&fz.rng, MAX_EVENTS);

	for (unsigned int i = 0; i < MAX_EVENTS; i++) {
		struct fz_event *e = &fz.ev[(start + i) % MAX_EVENTS];

		if ((e->fd >= 0) == open)
			return e;
	}
	return NULL;
}

/* An open event with a ring but no AUX area, else any open one. */
static struct fz_event *pick_unmapped_aux(void)
{
	unsigned int start = fz_below(&fz.rng, MAX_EVENTS);

	for (unsigned int i = 0; i < MAX_EVENTS; i++) {
		struct fz_event *e = &fz.ev[(start + i) % MAX_EVENTS];

		if (e->fd >= 0 && e->ring && !e->aux)
			return e;
	}
	return pick_event(true);
}

static int any_fd(void)
{
	struct fz_event *e = pick_event(true);

	return e ? e->fd : -1;
}

static int live_child(void)
{
	unsigned int start = fz_below(&fz.rng, MAX_CHILDREN);

	for (unsigned int i = 0; i < MAX_CHILDREN; i++)
		if (fz.child[(start + i) % MAX_CHILDREN] > 0)
			return fz.child[(start + i) % MAX_CHILDREN];
	return 0;
}

static void unmap_aux(struct fz_event *e)
{
	if (e->aux)
		munmap(e->aux, e->aux_len);
	e->aux = NULL;
}

static void unmap_ring(struct fz_event *e)
{
	unmap_aux(e);
	if (e->ring)
		munmap(e->ring, e->ring_len);
	e->ring = NULL;
}

static void close_event(struct fz_event *e)
{
	unmap_ring(e);
	close(e->fd);
	e->fd = -1;
}

static int op_open(void)
{
	struct fz_rng *r = &fz.rng;
	struct perf_event_attr attr;
	struct fz_event *e = pick_event(false), *leader;
	enum fz_kind kind;
	int pid = 0, cpu = -1, group = -1, fd;
	unsigned long flags = 0;

	if (!e)
		return -EMFILE;
	kind = fz_below(r, 10) < 5 ? FZ_NTRACE : fz_one_in(r, 2) ? FZ_CTR : FZ_SIDE;
	fz_attr(r, &fz.pmus, kind, &attr, fz_one_in(r, 2));
	switch (fz_below(r, 10)) {
	case 0: case 1: case 2: case 3:
		break;
	case 4: case 5:		/* CPU-wide */
		pid = -1;
		cpu = fz_below(r, fz.pmus.ncpus);
		break;
	case 6: case 7:		/* another task */
		pid = live_child();
		cpu = fz_one_in(r, 2) ? -1 : (int)fz_below(r, fz.pmus.ncpus);
		break;
	case 8:			/* this task on one CPU */
		cpu = fz_below(r, fz.pmus.ncpus);
		break;
	default: {		/* nonsense */
		static const int bad[][2] = {
			{ -1, -1 }, { 0, 4096 }, { 999999, -1 }, { -2, 0 }, { 0, -2 },
		};
		unsigned int i = fz_below(r, ARRAY_SIZE(bad));

		pid = bad[i][0];
		cpu = bad[i][1];
	}
	}
	leader = kind == FZ_SIDE || fz_one_in(r, 8) ? pick_event(true) : NULL;
	if (leader)
		group = leader->fd;
	if (fz_one_in(r, 4))
		flags |= PERF_FLAG_FD_CLOEXEC;
	if (fz_one_in(r, 25))
		flags |= PERF_FLAG_FD_NO_GROUP;
	if (fz_one_in(r, 25))
		flags |= PERF_FLAG_FD_OUTPUT;
	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, group, flags);
	if (fd < 0)
		return -errno;
	e->fd = fd;
	e->kind = kind;
	return fd;
}

/*
 * What perf record does: a plausible event (per task, for a child or
 * CPU-wide), its ring, for N-Trace its AUX area (read-only: snapshot
 * mode), enabled.
 */
static int op_record(void)
{
	struct fz_rng *r = &fz.rng;
	struct fz_event *e = pick_event(false);
	struct perf_event_attr attr;
	struct perf_event_mmap_page *up;
	enum fz_kind kind = fz.pmus.ctr && fz_one_in(r, 4) ? FZ_CTR : FZ_NTRACE;
	size_t pages = 1 + (1u << fz_below(r, 4)), aux_pages = 1u << fz_below(r, 7);
	int pid = 0, cpu = -1;
	void *p;

	if (!e)
		return -EMFILE;
	fz_attr(r, &fz.pmus, kind, &attr, false);
	attr.disabled = 1;
	if (fz_one_in(r, 3)) {
		pid = -1;
		cpu = fz_below(r, fz.pmus.ncpus);
	} else if (fz_one_in(r, 3)) {
		pid = live_child();
	}
	e->fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (e->fd < 0) {
		e->fd = -1;
		return -errno;
	}
	e->kind = kind;
	p = mmap(NULL, pages * fz.page, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	e->ring = p;
	e->ring_len = pages * fz.page;
	e->ring_ro = false;
	if (kind == FZ_NTRACE) {
		up = p;
		up->aux_offset = e->ring_len;
		up->aux_size = aux_pages * fz.page;
		p = mmap(NULL, aux_pages * fz.page,
			 fz_one_in(r, 4) ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_SHARED, e->fd, e->ring_len);
		if (p == MAP_FAILED)
			return -errno;
		e->aux = p;
		e->aux_len = aux_pages * fz.page;
	}
	return ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0) ? -errno : 0;
}

static int op_ioctl(void)
{
	struct fz_rng *r = &fz.rng;
	struct fz_event *e = pick_event(true);
	struct perf_event_attr attr;
	uint64_t u64 = fz_edge_u64(r);
	char filter[512];
	int ret;

	if (!e)
		return -EBADF;
	switch (fz_below(r, 12)) {
	case 0: case 1:
		ret = ioctl(e->fd, PERF_EVENT_IOC_ENABLE,
			    fz_one_in(r, 4) ? PERF_IOC_FLAG_GROUP : 0);
		break;
	case 2:
		ret = ioctl(e->fd, PERF_EVENT_IOC_DISABLE,
			    fz_one_in(r, 4) ? PERF_IOC_FLAG_GROUP : 0);
		break;
	case 3:
		ret = ioctl(e->fd, PERF_EVENT_IOC_RESET, 0);
		break;
	case 4:
		ret = ioctl(e->fd, PERF_EVENT_IOC_REFRESH, fz_below(r, 4));
		break;
	case 5:
		ret = ioctl(e->fd, PERF_EVENT_IOC_PERIOD, &u64);
		break;
	case 6: case 7:
		fz_filter(r, filter, 1 + fz_below(r, sizeof(filter) - 1));
		ret = ioctl(e->fd, PERF_EVENT_IOC_SET_FILTER, filter);
		break;
	case 8:
		ret = ioctl(e->fd, PERF_EVENT_IOC_SET_OUTPUT,
			    fz_one_in(r, 4) ? -1 : any_fd());
		break;
	case 9:
		ret = ioctl(e->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, fz_below(r, 3));
		break;
	case 10:
		ret = ioctl(e->fd, PERF_EVENT_IOC_ID, &u64);
		break;
	default:
		fz_attr(r, &fz.pmus, e->kind, &attr, true);
		ret = ioctl(e->fd, fz_one_in(r, 2) ? PERF_EVENT_IOC_MODIFY_ATTRIBUTES :
			    _IO('$', 12 + fz_below(r, 8)), &attr);
		break;
	}
	return ret < 0 ? -errno : ret;
}

static int op_read(void)
{
	struct fz_event *e = pick_event(true);
	uint64_t buf[512];
	struct pollfd pfd;
	ssize_t n;

	if (!e)
		return -EBADF;
	if (fz_one_in(&fz.rng, 3)) {
		pfd.fd = e->fd;
		pfd.events = POLLIN;
		return poll(&pfd, 1, 0) < 0 ? -errno : 0;
	}
	n = read(e->fd, buf, fz_below(&fz.rng, sizeof(buf) + 1));
	return n < 0 ? -errno : 0;
}

static int op_mmap_ring(void)
{
	struct fz_rng *r = &fz.rng;
	struct fz_event *e = pick_event(true);
	size_t pages = 1 + (1u << fz_below(r, 5));
	off_t off = 0;
	int prot = PROT_READ | PROT_WRITE;
	void *p;

	if (!e)
		return -EBADF;
	if (e->ring)
		return -EEXIST;
	if (fz_one_in(r, 8))
		pages = fz_below(r, 40);
	if (fz_one_in(r, 10))
		off = fz.page * fz_below(r, 4);
	if (fz_one_in(r, 6))		/* overwrite mode */
		prot = PROT_READ;
	if (!pages)
		return -EINVAL;
	p = mmap(NULL, pages * fz.page, prot, MAP_SHARED, e->fd, off);
	if (p == MAP_FAILED)
		return -errno;
	e->ring = p;
	e->ring_len = pages * fz.page;
	e->ring_ro = !(prot & PROT_WRITE);
	return 0;
}

static int op_mmap_aux(void)
{
	struct fz_rng *r = &fz.rng;
	struct fz_event *e = pick_unmapped_aux();
	struct perf_event_mmap_page *up;
	size_t pages = 1u << fz_below(r, 7);
	uint64_t off;
	void *p;

	if (!e || !e->ring)
		return -ENODEV;
	if (e->aux)
		return -EEXIST;
	up = e->ring;
	off = e->ring_len;
	if (fz_one_in(r, 8))
		off = fz_one_in(r, 2) ? fz.page * fz_below(r, 80) : fz_edge_u64(r);
	if (fz_one_in(r, 8))
		pages = 1 + fz_below(r, 70);
	/* an overwrite ring's user page is mapped read-only: as perf does */
	if (e->ring_ro && mprotect(e->ring, fz.page, PROT_READ | PROT_WRITE))
		return -errno;
	up->aux_offset = off;
	up->aux_size = pages * fz.page;
	p = mmap(NULL, pages * fz.page,
		 fz_one_in(r, 3) ? PROT_READ : PROT_READ | PROT_WRITE,
		 MAP_SHARED, e->fd, off);
	if (p == MAP_FAILED)
		return -errno;
	e->aux = p;
	e->aux_len = pages * fz.page;
	return 0;
}

static int op_munmap(void)
{
	struct fz_event *e = pick_event(true);
	void *base;
	size_t len;

	if (!e || !e->ring)
		return -ENODEV;
	base = e->aux && fz_one_in(&fz.rng, 2) ? e->aux : e->ring;
	len = base == e->aux ? e->aux_len : e->ring_len;
	/* a partial unmap first: the rest goes after it */
	if (len > fz.page && fz_one_in(&fz.rng, 3))
		munmap((char *)base + len - fz.page, fz.page);
	if (base == e->aux)
		unmap_aux(e);
	else
		unmap_ring(e);
	return 0;
}

/* The kernel has published aux_head >= end, perhaps a moment later. */
static bool aux_published(struct perf_event_mmap_page *up, uint64_t end)
{
	for (int i = 0; i < 50; i++) {
		if (__atomic_load_n(&up->aux_head, __ATOMIC_ACQUIRE) >= end)
			return true;
		usleep(10000);
	}
	return false;
}

/* Read what the kernel wrote into the ring, checking it as perf would. */
static int op_consume(void)
{
	struct fz_event *e = pick_event(true);
	struct perf_event_mmap_page *up;
	uint64_t head, tail, size;
	const uint8_t *data;

	if (!e || !e->ring || e->ring_len <= fz.page)
		return -ENODEV;
	up = e->ring;
	/* overwrite mode: the kernel does not wait for data_tail */
	if (e->ring_ro)
		return -EACCES;
	if (up->data_offset != fz.page || up->data_size != e->ring_len - fz.page) {
		abi_fail("data pages at %llu, %llu bytes, in a mapping of %zu",
			 (unsigned long long)up->data_offset,
			 (unsigned long long)up->data_size, e->ring_len);
		return -EPROTO;
	}
	size = up->data_size;
	data = (const uint8_t *)e->ring + up->data_offset;
	head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE);
	tail = up->data_tail;
	if (head - tail > size) {
		/* a backward ring runs its head down from 0 */
		if ((int64_t)head < 0)
			return -EACCES;
		abi_fail("data_head %llu is more than the ring (%llu) ahead of data_tail %llu",
			 (unsigned long long)head, (unsigned long long)size,
			 (unsigned long long)tail);
		return -EPROTO;
	}
	while (tail < head) {
		uint8_t rec[64];
		struct perf_event_header h;

		for (size_t i = 0; i < sizeof(rec); i++)
			rec[i] = data[(tail + i) % size];
		memcpy(&h, rec, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail || (h.size & 7)) {
			abi_fail("record of type %u and size %u at %llu of %llu",
				 h.type, h.size, (unsigned long long)tail,
				 (unsigned long long)head);
			break;
		}
		if (h.type == PERF_RECORD_AUX && h.size >= 32) {
			uint64_t off, len, flags;

			memcpy(&off, rec + 8, 8);
			memcpy(&len, rec + 16, 8);
			memcpy(&flags, rec + 24, 8);
			fz.aux_records++;
			fz.aux_bytes += len;
			if (flags & ~0xffffULL)
				abi_fail("AUX record with unknown flags %#llx",
					 (unsigned long long)flags);
			/* overwrite mode reports the head after the data */
			if (!aux_published(up, (flags & PERF_AUX_FLAG_OVERWRITE) ? off : off + len))
				abi_fail("AUX record [%llu, +%llu) past aux_head %llu",
					 (unsigned long long)off, (unsigned long long)len,
					 (unsigned long long)up->aux_head);
		}
		tail += h.size;
	}
	__atomic_store_n(&up->data_tail, tail, __ATOMIC_RELEASE);
	if (e->aux)
		__atomic_store_n(&up->aux_tail,
				 fz_one_in(&fz.rng, 4) ? up->aux_tail + fz_edge_u64(&fz.rng) % e->aux_len :
				 __atomic_load_n(&up->aux_head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	return 0;
}

static int op_close(void)
{
	struct fz_event *e = pick_event(true);

	if (!e)
		return -EBADF;
	close_event(e);
	return 0;
}

static int op_work(void)
{
	struct fz_rng *r = &fz.rng;
	void *p;

	spin(1000 + fz_below(r, 400000));
	if (fz_one_in(r, 3)) {	/* an MMAP record for the side band */
		p = mmap(NULL, fz.page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			munmap(p, fz.page);
	}
	if (fz_one_in(r, 3))
		sched_yield();
	if (fz_one_in(r, 4))
		usleep(fz_below(r, 5000));
	return 0;
}

static int op_fork(void)
{
	unsigned long n = 10000 + fz_below(&fz.rng, 2000000);
	bool do_exec = fz_one_in(&fz.rng, 2);
	char arg[32];
	int slot;
	pid_t pid;

	for (slot = 0; slot < MAX_CHILDREN && fz.child[slot] > 0; slot++)
		;
	if (slot == MAX_CHILDREN)
		return -EAGAIN;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (do_exec) {
			snprintf(arg, sizeof(arg), "%lu", n);
			execl("/proc/self/exe", "ntrace_fuzz_test", "child", arg, (char *)NULL);
		}
		spin(n);
		_exit(0);
	}
	fz.child[slot] = pid;
	return 0;
}

static void *thread_main(void *arg)
{
	spin((unsigned long)arg);
	return NULL;
}

static int op_thread(void)
{
	struct fz_thread *t = &fz.thr[fz_below(&fz.rng, MAX_THREADS)];

	if (t->live) {
		pthread_join(t->id, NULL);
		t->live = false;
		return 0;
	}
	if (pthread_create(&t->id, NULL, thread_main,
			   (void *)(uintptr_t)(10000 + fz_below(&fz.rng, 1000000))))
		return -EAGAIN;
	t->live = true;
	return 0;
}

static int op_reap(void)
{
	int ret = 0;

	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (fz.child[i] <= 0)
			continue;
		if (fz_one_in(&fz.rng, 4))
			kill(fz.child[i], SIGKILL);
		if (waitpid(fz.child[i], NULL, WNOHANG) == fz.child[i]) {
			fz.child[i] = 0;
			ret++;
		}
	}
	return ret;
}

static int op_hotplug(void)
{
	int cpu, online = 0;

	if (fz.pmus.ncpus < 2)
		return -ENODEV;
	cpu = 1 + fz_below(&fz.rng, fz.pmus.ncpus - 1);
	for (int i = 0; i < fz.pmus.ncpus && i < MAX_CPUS; i++)
		online += !fz.offline[i];
	if (!fz.offline[cpu] && online < 2)
		return -EBUSY;
	if (cpu_set_online(cpu, fz.offline[cpu]))
		return -errno ? -errno : -EIO;
	fz.offline[cpu] = !fz.offline[cpu];
	return 0;
}

/*
 * Unbind a component, or bind one back: mostly the latter, so that the
 * events have something to run on most of the time.
 */
static int op_bind(void)
{
	struct fz_component *c;

	if (!fz.ncomp)
		return -ENODEV;
	c = &fz.comp[fz_below(&fz.rng, fz.ncomp)];
	if (!c->unbound && fz_one_in(&fz.rng, 2)) {
		for (int i = 0; i < fz.ncomp; i++)
			if (fz.comp[i].unbound)
				return fz_component_bind(&fz.comp[i], true);
	}
	return fz_component_bind(c, c->unbound);
}

static int op_param(void)
{
	static const char *const values[][6] = {
		{ "0", "1", "100", "4000", "1000000", "4294967295" },
		{ "0", "1", "Y", "N", "2", "x" },
		{ "0", "1", "Y", "N", "", "on" },
		{ "0", "1", "Y", "N", "0x1", "off" },
	};
	_Static_assert(ARRAY_SIZE(values) == ARRAY_SIZE(param_names), "values per parameter");
	unsigned int i = fz_below(&fz.rng, ARRAY_SIZE(param_names));

	if (!kmod_is_loaded("ntrace"))
		return -ENODEV;
	return fz_param_write(param_names[i], values[i][fz_below(&fz.rng, 6)]);
}

static void stop_children(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (fz.child[i] > 0) {
			kill(fz.child[i], SIGKILL);
			waitpid(fz.child[i], NULL, 0);
		}
		fz.child[i] = 0;
	}
	for (int i = 0; i < MAX_THREADS; i++) {
		if (fz.thr[i].live)
			pthread_join(fz.thr[i].id, NULL);
		fz.thr[i].live = false;
	}
}

static void close_all(void)
{
	for (int i = 0; i < MAX_EVENTS; i++)
		if (fz.ev[i].fd >= 0)
			close_event(&fz.ev[i]);
	stop_children();	/* their inherited events go with them */
}

/* Probe again after a reload; the PMU type number may have changed. */
static int reprobe(void)
{
	int err = fz_pmus_probe(&fz.pmus);

	fz.ncomp = fz_components(fz.comp, MAX_COMPONENTS);
	return err;
}

/*
 * Unload with events open (must fail for ntrace while one of its events
 * is open), or close everything first (must then succeed).
 */
static int op_reload(void)
{
	const char *mod = fz.ctr_module && fz_one_in(&fz.rng, 4) ? "riscv_ctr" : "ntrace";
	bool busy = false;
	int err, unload_err;

	if (fz_one_in(&fz.rng, 2)) {
		for (int i = 0; i < MAX_EVENTS; i++)
			busy |= fz.ev[i].fd >= 0 && fz.ev[i].kind == FZ_NTRACE;
		if (!strcmp(mod, "ntrace") && busy) {
			err = kmod_unload(mod);
			if (!err) {
				abi_fail("ntrace unloaded while one of its events was open");
				kmod_load(mod, NULL);
				reprobe();
			}
			return err;
		}
	}
	close_all();
	err = fz_module_reload(mod, &unload_err);
	if (unload_err)
		abi_fail("%s does not unload with every event closed: %s",
			 mod, strerror(-unload_err));
	if (reprobe() && !err)
		err = -ENODEV;
	return err;
}

static int run_op(enum fz_op op)
{
	switch (op) {
	case OP_RECORD: return op_record();
	case OP_OPEN: return op_open();
	case OP_IOCTL: return op_ioctl();
	case OP_READ: return op_read();
	case OP_MMAP_RING: return op_mmap_ring();
	case OP_MMAP_AUX: return op_mmap_aux();
	case OP_MUNMAP: return op_munmap();
	case OP_CONSUME: return op_consume();
	case OP_CLOSE: return op_close();
	case OP_WORK: return op_work();
	case OP_FORK: return op_fork();
	case OP_THREAD: return op_thread();
	case OP_REAP: return op_reap();
	case OP_HOTPLUG: return op_hotplug();
	case OP_BIND: return op_bind();
	case OP_PARAM: return op_param();
	default: return op_reload();
	}
}

/* Some open event satisfies want(): the precondition of an operation. */
static bool any_event(bool (*want)(const struct fz_event *e))
{
	for (int i = 0; i < MAX_EVENTS; i++)
		if (fz.ev[i].fd >= 0 && want(&fz.ev[i]))
			return true;
	return false;
}

static bool is_open(const struct fz_event *e)
{
	return e->fd >= 0;
}

static bool has_no_ring(const struct fz_event *e)
{
	return !e->ring;
}

static bool has_ring(const struct fz_event *e)
{
	return e->ring;
}

static bool wants_aux(const struct fz_event *e)
{
	return e->ring && !e->aux;
}

/*
 * Whether an operation has something to work on now. Drawing only among
 * those that do keeps the run from spending its operations on EBADF and
 * ENODEV; one draw in sixteen ignores it, so those paths stay covered.
 */
static bool op_applies(enum fz_op op)
{
	switch (op) {
	case OP_IOCTL: case OP_READ: case OP_CLOSE: return any_event(is_open);
	case OP_MMAP_RING: return any_event(has_no_ring);
	case OP_MMAP_AUX: return any_event(wants_aux);
	case OP_MUNMAP: case OP_CONSUME: return any_event(has_ring);
	case OP_REAP:
		for (int i = 0; i < MAX_CHILDREN; i++)
			if (fz.child[i] > 0)
				return true;
		return false;
	case OP_PARAM: return kmod_is_loaded("ntrace");
	default: return true;
	}
}

static enum fz_op pick_op(void)
{
	bool any = fz_one_in(&fz.rng, 16);
	unsigned int weight[NR_OPS], total = 0, x;
	int i;

	for (i = 0; i < NR_OPS; i++) {
		weight[i] = any || op_applies(i) ? ops[i].weight : 0;
		total += weight[i];
	}
	x = fz_below(&fz.rng, total);
	for (i = 0; x >= weight[i]; i++)
		x -= weight[i];
	return i;
}

static void print_history(void)
{
	unsigned long first = fz.op >= HISTORY ? fz.op - HISTORY + 1 : 0;

	printf("# the last operations:");
	for (unsigned long i = first; i <= fz.op && i < fz.nr_ops; i++)
		printf(" %lu:%s", i, ops[fz.history[i % HISTORY]].name);
	printf("\n");
}

static bool check_kmsg(void)
{
	int n = kmsg_count_splats(fz.kmsg);

	if (n <= 0)
		return true;
	if (!fz.splats)
		fz.splat_op = fz.op;
	fz.splats += n;
	printf("# kernel report after operation %lu (seed %llu; rerun with ntguest.fuzz=%llu,%lu)\n",
	       fz.op, (unsigned long long)fz.seed, (unsigned long long)fz.seed, fz.op + 1);
	print_history();
	return false;
}

static void restore_system(void)
{
	close_all();
	for (int i = 0; i < MAX_CPUS && i < fz.pmus.ncpus; i++)
		if (fz.offline[i] && !cpu_set_online(i, true))
			fz.offline[i] = false;
	/* sinks and funnels before the encoders that feed them */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < fz.ncomp; i++)
			if (fz.comp[i].unbound &&
			    (pass || strcmp(fz.comp[i].drv, "ntrace-encoder")))
				fz_component_bind(&fz.comp[i], true);
	if (kmod_is_loaded("ntrace"))
		for (size_t i = 0; i < ARRAY_SIZE(param_names); i++)
			fz_param_write(param_names[i], fz.params[i]);
}

static void print_summary(void)
{
	for (int i = 0; i < NR_OPS; i++) {
		printf("# %-9s %5lu, %5lu succeeded", ops[i].name, fz.count[i], fz.ok[i]);
		for (int e = 1; e < MAX_ERRNO; e++)
			if (fz.err[i][e])
				printf(", %s %lu", strerrorname_np(e) ?: "?", fz.err[i][e]);
		printf("\n");
	}
	printf("# AUX records read: %lu (%lu bytes); SIGTRAPs: %lu\n",
	       fz.aux_records, fz.aux_bytes, fz.sigtraps);
}

/* After the run: the driver still records this task's trace. */
static bool records_after(char *why, size_t size)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = fz.pmus.ntrace, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	struct perf_event_mmap_page *up;
	size_t ring = 9 * fz.page, aux = 16 * fz.page;
	void *base, *auxp;
	uint64_t head;
	int fd;

	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		snprintf(why, size, "perf_event_open: %s", strerror(errno));
		return false;
	}
	base = mmap(NULL, ring, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		snprintf(why, size, "mmap: %s", strerror(errno));
		close(fd);
		return false;
	}
	up = base;
	up->aux_offset = ring;
	up->aux_size = aux;
	auxp = mmap(NULL, aux, PROT_READ | PROT_WRITE, MAP_SHARED, fd, ring);
	if (auxp == MAP_FAILED) {
		snprintf(why, size, "mmap AUX: %s", strerror(errno));
		munmap(base, ring);
		close(fd);
		return false;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin(200000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	head = __atomic_load_n(&up->aux_head, __ATOMIC_ACQUIRE);
	snprintf(why, size, "%llu bytes of trace", (unsigned long long)head);
	munmap(auxp, aux);
	munmap(base, ring);
	close(fd);
	return head > 0;
}

static void on_sigtrap(int sig)
{
	fz.sigtraps++;
}

static void parse_run(void)
{
	char buf[64];
	unsigned long long seed = 1;
	unsigned long n = 1500;

	if (!guest_param("fuzz", buf, sizeof(buf)))
		sscanf(buf, "%llu,%lu", &seed, &n);
	fz.seed = seed;
	fz.nr_ops = n;
	fz.rng.s = seed;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigtrap };
	char why[128];
	int unload_err, err, kmemleak, leaks;

	if (argc == 3 && !strcmp(argv[1], "child")) {	/* an exec'd child */
		spin(strtoul(argv[2], NULL, 0));
		return 0;
	}
	ksft_print_header();
	fz.page = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < MAX_EVENTS; i++)
		fz.ev[i].fd = -1;
	if (fz_pmus_probe(&fz.pmus))
		ksft_exit_skip("no ntrace PMU\n");
	ksft_set_plan(6);
	parse_run();
	fz.ctr_module = fz.pmus.ctr;
	fz.ncomp = fz_components(fz.comp, MAX_COMPONENTS);
	for (size_t i = 0; i < ARRAY_SIZE(param_names); i++)
		fz_param_read(param_names[i], fz.params[i], sizeof(fz.params[i]));
	sigaction(SIGTRAP, &sa, NULL);
	signal(SIGIO, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	fz.kmsg = kmsg_open();
	if (fz.kmsg < 0)
		ksft_exit_fail_msg("/dev/kmsg: %s\n", strerror(-fz.kmsg));
	kmemleak = kmemleak_forget();
	printf("# seed %llu, %lu operations, %d CPUs, %d components, CTR %s\n",
	       (unsigned long long)fz.seed, fz.nr_ops, fz.pmus.ncpus, fz.ncomp,
	       fz.ctr_module ? "loaded" : "absent");

	for (fz.op = 0; fz.op < fz.nr_ops; fz.op++) {
		enum fz_op op = pick_op();

		fz.history[fz.op % HISTORY] = op;
		note(op, run_op(op));
		if ((op >= OP_FORK || !(fz.op % 16)) && !check_kmsg()) {
			fz.op++;	/* it ran */
			break;
		}
	}
	restore_system();
	check_kmsg();
	print_summary();
	ksft_test_result(!fz.splats,
			 "fuzz seed %llu: %lu operations, no kernel report (%lu report lines, first after operation %lu)\n",
			 (unsigned long long)fz.seed, fz.op, fz.splats, fz.splat_op);
	ksft_test_result(!fz.abi_bad,
			 "fuzz seed %llu: what the kernel wrote keeps perf's ABI, modules unload once every event is closed (%lu faults%s%s)\n",
			 (unsigned long long)fz.seed, fz.abi_bad,
			 fz.abi_bad ? "; first: " : "", fz.first_abi);
	err = fz_module_reload("ntrace", &unload_err);
	if (!err && fz.ctr_module)
		err = fz_module_reload("riscv_ctr", &unload_err);
	ksft_test_result(!err && !reprobe(),
			 "after the run: ntrace%s unload and load again (%s)\n",
			 fz.ctr_module ? " and riscv_ctr" : "", strerror(-err));
	ksft_test_result(records_after(why, sizeof(why)),
			 "after the run: a new event records this task (%s)\n", why);
	ksft_test_result(check_kmsg(), "after the run: no kernel report from the unload, reload and recording\n");
	/* last: what the reloads and the recording freed counts too */
	if (kmemleak == -ENOENT) {
		ksft_test_result_skip("after the run: no leak (no kmemleak in this kernel)\n");
	} else {
		leaks = kmemleak ?: kmemleak_leaks();
		ksft_test_result(!leaks, "after the run: kmemleak finds no leak (%d%s%s)\n",
				 leaks, leaks < 0 ? ": " : " suspects",
				 leaks < 0 ? strerror(-leaks) : "");
	}
	ksft_finished();
}
