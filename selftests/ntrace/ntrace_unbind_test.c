// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unbinding and binding the ntrace components through sysfs
 * (/sys/bus/platform/drivers/ntrace-encoder|ntrace-ramsink/{unbind,bind}):
 *  - idle: unbinding an encoder takes its CPU out of the PMU's cpumask
 *    (an event on that CPU is refused; with no path left at all
 *    perf_event_open() fails with ENODEV), binding it again restores the
 *    cpumask and caps, and recording works again; the same for a sink;
 *  - while this task is traced on that CPU: the unbind succeeds, the trace
 *    recorded before it reaches the AUX area and ends flushed (last
 *    message a ProgTraceCorrelation), then the event ends as CoreSight's
 *    do when their path goes: an empty AUX record flagged TRUNCATED (perf
 *    disables the event on it); nothing is traced after it (no sync
 *    address in code that runs only after the unbind), and after binding
 *    again the same kind of recording works; once for the encoder and once
 *    for the sink, whose bounce buffer is freed by the unbind (on funnel
 *    topologies: the shared sink), once for a funnel;
 *  - funnel topologies: events on every CPU behind a funnel (then the
 *    shared sink; a traced task pinned to each CPU) trace at once while
 *    the funnel (sink) is unbound: every event's trace ends flushed (but
 *    one whose end was lost, flagged PARTIAL or TRUNCATED) and then
 *    TRUNCATED, nothing after;
 *  - with two CPUs, the same with a per-CPU event on the component's CPU
 *    while the unbind runs on another CPU (the driver stops the trace on
 *    the traced CPU through a cross-CPU call);
 *  - a sink embedded in a funnel's or an encoder's register block (SiFive
 *    v0: no ntrace-ramsink device; the topology names the component) is
 *    unbound with that component: the sink tests then unbind the
 *    component the topology's last sink line names, and check it is a
 *    bound funnel or encoder;
 *  - the kernel logged no warning, BUG (KASAN, lockdep) or oops meanwhile.
 * Leaves every component bound. Skips without the PMU.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "cpu.h"
#include "kmsg.h"
#include "ntrace_util.h"
#include "sysfs.h"

#define DRV_DIR "/sys/bus/platform/drivers/"
#define ENCODER "ntrace-encoder"
#define SINK "ntrace-ramsink"
#define FUNNEL "ntrace-funnel"
#define MAX_DEVS 8
#define TCODE_CORRELATION 33

extern char __executable_start[], etext[];
/* code that runs only after the unbind, in a section of its own */
extern char __start_ntrace_after_unbind[], __stop_ntrace_after_unbind[];

static volatile unsigned long sink_var;
/*
 * nt_attr()'s events trace the kernel too (no privilege filter): read at
 * the start, while every component is bound (caps/ read 0 without).
 */
static bool kernel_traced;

/* Devices bound to a driver: the entries of its directory with a '.'. */
static int bound_devs(const char *drv, char names[][64])
{
	char path[128];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), DRV_DIR "%s", drv);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) && n < MAX_DEVS)
		if (d->d_name[0] != '.' && strchr(d->d_name, '.'))
			snprintf(names[n++], 64, "%.63s", d->d_name);
	closedir(dir);
	return n;
}

static int drv_write(const char *drv, const char *file, const char *dev)
{
	char path[128];

	snprintf(path, sizeof(path), DRV_DIR "%s/%s", drv, file);
	return sysfs_write(path, dev);
}

/* The PMU's cpumask as a bit set (CPUs < 64); 0 if absent or empty. */
static unsigned long long cpumask_bits(void)
{
	char buf[256], *p;
	unsigned long long m = 0;
	long a, b;

	if (nt_read_sysfs("cpumask", buf, sizeof(buf)))
		return 0;
	for (p = buf; *p;) {
		a = strtol(p, &p, 10);
		b = *p == '-' ? strtol(p + 1, &p, 10) : a;
		for (; a <= b && a < 64; a++)
			m |= 1ull << a;
		if (*p != ',')
			break;
		p++;
	}
	return m;
}

static void spin_before(unsigned long n)
{
	unsigned long i, acc = 0;

	for (i = 0; i < n; i++)
		if ((i * 2654435761u) & 16)
			acc += i ^ (acc >> 3);
	sink_var = acc;
}

/* Runs only after the unbind; self-contained (calls nothing). */
static __attribute__((noinline, section("ntrace_after_unbind")))
void spin_after(unsigned long n)
{
	unsigned long i, acc = 0;

	for (i = 0; i < n; i++)
		if ((i * 2654435761u) & 16)
			acc += i ^ (acc >> 3);
	sink_var = acc;
}

struct unbind_work {
	const char *drv, *dev;
	int cpu;
	int err;		/* of the unbind */
};

/* Traced: work on the CPU, unbind its component, work in spin_after(). */
static void unbind_work(void *arg)
{
	struct unbind_work *w = arg;

	cpu_pin(w->cpu);
	spin_before(300000);
	w->err = drv_write(w->drv, "unbind", w->dev);
	spin_after(600000);
}

static void plain_work(void *arg)
{
	spin_before(200000);
}

/* What the records of a recording hold. */
struct rec_check {
	int err;
	unsigned int nr_aux, truncated, partial;
	unsigned long msgs, bad, syncs;
	bool end_lost;		/* loss flagged in or after the last data */
	unsigned int unsynced;	/* unflagged records not starting with a sync */
	unsigned int after;	/* records with a sync address in spin_after() */
	bool in_text;		/* every sync address in this program */
	bool ended;		/* the last record is empty and TRUNCATED */
	int last_tcode;		/* of the last non-empty record */
	char why[128];
	char tail[160];		/* the last records: size/flags/TCODEs */
};

static void check_rec(const struct nt_rec *rec, int err, struct rec_check *c)
{
	uintptr_t a0 = (uintptr_t)__start_ntrace_after_unbind;
	uintptr_t a1 = (uintptr_t)__stop_ntrace_after_unbind;
	struct nt_frame_stats st;
	unsigned int i;
	bool lost;

	memset(c, 0, sizeof(*c));
	c->err = err;
	c->in_text = true;
	c->last_tcode = -1;
	snprintf(c->why, sizeof(c->why), "%s", err ? strerror(-err) : "ok");
	if (err)
		return;
	c->nr_aux = rec->nr_aux;
	for (i = 0; i < rec->nr_aux; i++) {
		bool trunc = rec->aux[i].flags & PERF_AUX_FLAG_TRUNCATED;

		/* the event's end after an unbind: the last, empty record */
		if (i == rec->nr_aux - 1 && trunc && !rec->aux[i].len) {
			c->ended = true;
			continue;
		}
		c->truncated += trunc;
		lost = trunc || (rec->aux[i].flags & PERF_AUX_FLAG_PARTIAL);
		c->partial += !!(rec->aux[i].flags & PERF_AUX_FLAG_PARTIAL);
		/* an empty flagged record: what was staged after the data lost */
		if (lost || rec->aux[i].len)
			c->end_lost = lost;
		if (!rec->aux[i].len)
			continue;
		nt_frame_check(rec->data + rec->aux[i].off, rec->aux[i].len,
			       nt_src_bits(0), &st);
		/* a record flagged for loss may end inside a message */
		if (lost && st.bad == 1 && strstr(st.why, "cut by the end"))
			st.bad = 0;
		if (i + 3 >= rec->nr_aux) {
			size_t t = strlen(c->tail);

			snprintf(c->tail + t, sizeof(c->tail) - t,
				 " #%u %zu B flags %#llx TCODE %d..%d, %lu Correlation;",
				 i, (size_t)rec->aux[i].len,
				 (unsigned long long)rec->aux[i].flags,
				 st.first_tcode, st.last_tcode,
				 st.correlation_msgs);
		}
		/* every record decodes on its own, unless loss is flagged */
		if (!lost && !nt_tcode_is_sync(st.first_tcode)) {
			if (!c->unsynced++ && !c->bad)
				snprintf(c->why, sizeof(c->why),
					 "record %u starts with TCODE %d, no sync",
					 i, st.first_tcode);
		}
		c->msgs += st.msgs;
		c->syncs += st.sync_msgs;
		c->last_tcode = st.last_tcode;
		if (st.bad && !c->bad)
			snprintf(c->why, sizeof(c->why), "record %u: %.100s",
				 i, st.why);
		c->bad += st.bad;
		if (!st.sync_msgs)
			continue;
		/* in this program (or the kernel, where it is traced too) */
		nt_frame_check_in(rec->data + rec->aux[i].off, rec->aux[i].len,
				  nt_src_bits(0), (uintptr_t)__executable_start,
				  (uintptr_t)etext, &st);
		if ((st.other_syncs ||
		     ((st.kernel_syncs + st.fw_syncs) && !kernel_traced)) &&
		    c->in_text) {
			c->in_text = false;
			if (!c->bad && !c->unsynced)
				snprintf(c->why, sizeof(c->why),
					 "record %u: sync address %#llx outside this program (%lu, %lu kernel)",
					 i, (unsigned long long)(st.other_syncs ?
					 st.other_addr : st.addr_max),
					 st.other_syncs, st.kernel_syncs);
		}
		nt_frame_check_in(rec->data + rec->aux[i].off, rec->aux[i].len,
				  nt_src_bits(0), a0, a1, &st);
		if (st.in_syncs)
			c->after++;
	}
}

/*
 * The trace ends flushed (its last message a ProgTraceCorrelation), or a
 * flagged loss at its end (a late drain filled the sink) cut it; if not
 * flushed, say how it ends.
 */
static bool end_flushed(const struct rec_check *c)
{
	if (c->last_tcode == TCODE_CORRELATION)
		return true;
	ksft_print_msg("last records:%s\n", c->tail);
	return c->end_lost;
}

static bool rec_good(const struct rec_check *c)
{
	return !c->err && c->msgs && !c->bad && c->in_text && !c->truncated &&
	       !c->unsynced;
}

/* Record plain_work() on any CPU. */
static void record_plain(struct rec_check *c)
{
	static struct nt_rec rec;
	struct perf_event_attr attr;
	int err;

	nt_attr(&attr, nt_pmu_type(), 0);
	err = nt_record(&attr, -1, 1024, plain_work, NULL, &rec);
	check_rec(&rec, err, c);
	nt_rec_free(&rec);
}

/* Index of the single bit of m, or -1. */
static int only_cpu(unsigned long long m)
{
	return m && !(m & (m - 1)) ? __builtin_ctzll(m) : -1;
}

/* The CPUs whose path (PMU file "topology") goes through device dev. */
static unsigned long long path_cpus_of(const char *dev)
{
	FILE *f = fopen(NTRACE_SYSFS "/topology", "r");
	unsigned long long m = 0;
	char line[512];
	int cpu;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu%d ", &cpu) == 1 && cpu < 64 &&
		    strstr(line, dev))
			m |= 1ull << cpu;
	fclose(f);
	return m;
}

/*
 * Unbind one component while idle and bind it again: the CPUs whose path
 * went through it (one, or all behind a shared sink or funnel) lose their
 * path. Returns the lowest of them, or -1.
 */
static int test_idle(const char *drv, const char *dev, unsigned long long all,
		     const char *impl_before)
{
	unsigned long long m;
	char impl[64] = "", what[96];
	struct perf_event_attr attr;
	struct rec_check c;
	int err, fd, cpu;

	unsigned long long want = path_cpus_of(dev);

	snprintf(what, sizeof(what), "%s %s", drv, dev);
	err = drv_write(drv, "unbind", dev);
	m = cpumask_bits();
	cpu = (all & ~m) ? __builtin_ctzll(all & ~m) : -1;
	ksft_test_result(!err && want && (all & ~m) == want && (m & ~all) == 0,
			 "idle unbind of %s: cpumask %#llx -> %#llx, the CPUs of its paths %#llx less (%s)\n",
			 what, all, m, want, err ? strerror(-err) : "ok");

	nt_attr(&attr, nt_pmu_type(), 0);
	fd = nt_open(&attr, -1, cpu >= 0 ? cpu : 0);
	if (fd >= 0)
		close(fd);
	if (m) {
		nt_read_sysfs("caps/te_impl", impl, sizeof(impl));
		ksft_test_result(cpu >= 0 && fd == -ENOENT && !strcmp(impl, impl_before),
				 "%s unbound: event on CPU %d refused (%s), caps/te_impl kept (%s)\n",
				 what, cpu, fd < 0 ? strerror(-fd) : "opened", impl);
	} else {
		int fd2 = nt_open(&attr, 0, -1);

		if (fd2 >= 0)
			close(fd2);
		ksft_test_result(fd == -ENODEV && fd2 == -ENODEV,
				 "%s unbound, no path left: per-CPU and per-task events get ENODEV (%s, %s)\n",
				 what, fd < 0 ? strerror(-fd) : "opened",
				 fd2 < 0 ? strerror(-fd2) : "opened");
	}

	err = drv_write(drv, "bind", dev);
	m = cpumask_bits();
	impl[0] = 0;
	nt_read_sysfs("caps/te_impl", impl, sizeof(impl));
	ksft_test_result(!err && m == all && !strcmp(impl, impl_before),
			 "bind %s again: cpumask %#llx, caps/te_impl %s (%s)\n",
			 what, m, impl, err ? strerror(-err) : "ok");
	record_plain(&c);
	ksft_test_result(rec_good(&c),
			 "after binding %s again a recording frames and lies in this program: %u records, %lu messages (%s)\n",
			 what, c.nr_aux, c.msgs, c.why);
	return cpu;
}

static void test_tracing(const char *drv, const char *dev, int cpu,
			 unsigned long long all)
{
	static struct nt_rec rec;
	struct unbind_work w = { .drv = drv, .dev = dev, .cpu = cpu };
	struct perf_event_attr attr;
	struct rec_check c;
	unsigned long long m;
	int err;

	nt_attr(&attr, nt_pmu_type(), 0);
	err = nt_record(&attr, -1, 1024, unbind_work, &w, &rec);
	check_rec(&rec, err, &c);
	nt_rec_free(&rec);
	cpu_pin(0);
	ksft_test_result(!err && !w.err && (cpumask_bits() & (1ull << cpu)) == 0,
			 "unbind %s %s while this task is traced on CPU %d succeeds (%s)\n",
			 drv, dev, cpu, err ? strerror(-err) :
			 w.err ? strerror(-w.err) : "ok");
	ksft_test_result(end_flushed(&c) && rec_good(&c) && c.ended,
			 "%s unbound while tracing: the trace before it is in the AUX area, frames and ends flushed, then the event ends (empty TRUNCATED record: %s): %u records, %lu messages, last TCODE %d%s (%s)\n",
			 drv, c.ended ? "yes" : "no", c.nr_aux, c.msgs,
			 c.last_tcode, c.end_lost ? ", end lost (flagged)" : "",
			 c.why);
	ksft_test_result(!c.err && !c.after,
			 "%s unbound while tracing: nothing traced after the unbind (%u records in the code after it)\n",
			 drv, c.after);

	err = drv_write(drv, "bind", dev);
	m = cpumask_bits();
	record_plain(&c);
	ksft_test_result(!err && m == all && rec_good(&c),
			 "bind %s again after unbinding it while tracing: cpumask %#llx, recording works: %lu messages (%s)\n",
			 drv, m, c.msgs, err ? strerror(-err) : c.why);
}

struct remote_work {
	const char *drv, *dev;
	int cpu, other;
	int err;
	volatile int *phase;	/* shared with the child: 1 = unbound */
};

/*
 * A child on the traced CPU spins (for a bounded time, then keeps polling)
 * until the parent, on another CPU, has unbound the component, then spins
 * in spin_after().
 */
static void remote_work(void *arg)
{
	struct remote_work *w = arg;
	unsigned int n = 0;
	pid_t pid;

	*w->phase = 0;
	pid = fork();
	if (pid == 0) {
		cpu_pin(w->cpu);
		/*
		 * Enough trace to check, then only the loop itself: the unbind
		 * may come late on a loaded host, and an AUX area filled
		 * before it could not show the trace's flushed end.
		 */
		while (!*w->phase) {
			if (n++ < 25)
				spin_before(20000);
			else
				usleep(1000);
		}
		spin_after(600000);
		_exit(0);
	}
	cpu_pin(w->other);
	usleep(200000);
	w->err = pid < 0 ? -errno : drv_write(w->drv, "unbind", w->dev);
	*w->phase = 1;
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void test_remote(const char *drv, const char *dev, int cpu,
			unsigned long long all)
{
	static struct nt_rec rec;
	struct remote_work w = { .drv = drv, .dev = dev, .cpu = cpu };
	struct perf_event_attr attr;
	struct rec_check c;
	int err;

	w.other = only_cpu(all & ~(1ull << cpu) & -(all & ~(1ull << cpu)));
	w.phase = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w.phase == MAP_FAILED) {
		err = -errno;
		memset(&rec, 0, sizeof(rec));
	} else {
		nt_attr(&attr, nt_pmu_type(), 0);
		err = nt_record(&attr, cpu, 1024, remote_work, &w, &rec);
		munmap((void *)w.phase, 4096);
	}
	check_rec(&rec, err, &c);
	nt_rec_free(&rec);
	cpu_pin(0);
	ksft_test_result(!err && !w.err && (cpumask_bits() & (1ull << cpu)) == 0,
			 "unbind %s %s from CPU %d while a per-CPU event traces CPU %d succeeds (%s)\n",
			 drv, dev, w.other, cpu, err ? strerror(-err) :
			 w.err ? strerror(-w.err) : "ok");
	ksft_test_result(end_flushed(&c) && rec_good(&c) && c.ended,
			 "%s unbound from another CPU: the trace before it frames and ends flushed, then the event ends (empty TRUNCATED record: %s): %u records, %lu messages, last TCODE %d%s (%s)\n",
			 drv, c.ended ? "yes" : "no", c.nr_aux, c.msgs,
			 c.last_tcode, c.end_lost ? ", end lost (flagged)" : "",
			 c.why);
	ksft_test_result(!c.err && !c.after,
			 "%s unbound from another CPU: nothing traced after the unbind (%u records in the code after it)\n",
			 drv, c.after);
	drv_write(drv, "bind", dev);
}

/* Shared between the parent and the children of test_all_cpus(). */
struct all_shared {
	volatile int phase;		/* 1: unbound */
	volatile int ready[64];		/* the child's event traces */
	struct rec_check c[64];
};

struct all_child {
	struct all_shared *sh;
	int cpu;
};

/*
 * Child of test_all_cpus() on its CPU, its event enabled: busy (never
 * asleep, so its event is most likely running at the unbind) until then.
 * No libc call: sched_getcpu() and usleep() may run in the vDSO.
 */
static void all_work(void *arg)
{
	struct all_child *ch = arg;

	ch->sh->ready[ch->cpu] = 1;
	while (!ch->sh->phase)
		spin_before(20000);
	spin_after(600000);
}

/*
 * An event on every CPU whose path goes through dev at once (a task
 * pinned to each CPU, traced), while dev is unbound from CPU 0: every
 * event gets its trace up to the unbind, flushed, then ends; none traces
 * after it.
 */
static void test_all_cpus(const char *drv, const char *dev,
			  unsigned long long all)
{
	unsigned long long want = path_cpus_of(dev), m;
	struct perf_event_attr attr;
	struct all_shared *sh;
	pid_t pids[64] = { 0 };
	int cpu, err = 0, n = 0, good = 0, flushed = 0, cut = 0, ended = 0;
	int after = 0;
	int waited;
	bool framed;
	struct rec_check c;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		for (int i = 0; i < 5; i++)
			ksft_test_result_fail("%s %s: no shared memory\n", drv, dev);
		return;
	}
	memset(sh, 0, sizeof(*sh));
	nt_attr(&attr, nt_pmu_type(), 0);
	for (cpu = 0; cpu < 64; cpu++) {
		if (!(want & (1ull << cpu)))
			continue;
		pids[cpu] = fork();
		if (pids[cpu] == 0) {
			static struct nt_rec rec;
			struct all_child ch = { .sh = sh, .cpu = cpu };
			int e;

			cpu_pin(cpu);
			/* per task: a per-CPU event would see other processes */
			e = nt_record(&attr, -1, 256, all_work, &ch, &rec);
			check_rec(&rec, e, &sh->c[cpu]);
			_exit(0);
		}
		n++;
	}
	cpu_pin(0);
	/* every event traces (10 s at most), then some more trace */
	for (waited = 0; waited < 10000; waited += 10) {
		int r = 0;

		for (cpu = 0; cpu < 64; cpu++)
			r += (want & (1ull << cpu)) && sh->ready[cpu];
		if (r == n)
			break;
		usleep(10000);
	}
	usleep(100000);
	err = drv_write(drv, "unbind", dev);
	sh->phase = 1;
	for (cpu = 0; cpu < 64; cpu++)
		if (pids[cpu] > 0)
			waitpid(pids[cpu], NULL, 0);
	for (cpu = 0; cpu < 64; cpu++) {
		if (!(want & (1ull << cpu)))
			continue;
		c = sh->c[cpu];
		ksft_print_msg("CPU %d: %u records, %lu messages, %u truncated, %u partial (end lost: %s), %u not starting with a sync, %lu bad, %s text, last TCODE %d, %u after (%s)\n",
			       cpu, c.nr_aux, c.msgs, c.truncated, c.partial,
			       c.end_lost ? "yes" : "no", c.unsynced, c.bad,
			       c.in_text ? "in" : "not in", c.last_tcode,
			       c.after, c.why);
		if (c.last_tcode != TCODE_CORRELATION)
			ksft_print_msg("CPU %d: last records:%s\n", cpu, c.tail);
		/* four busy harts on one sink may lose trace: flagged, allowed */
		framed = !c.err && c.msgs && !c.bad && c.in_text && !c.unsynced;
		good += framed;
		cut += c.end_lost;
		flushed += framed && !c.end_lost &&
			   c.last_tcode == TCODE_CORRELATION;
		ended += sh->c[cpu].ended;
		after += sh->c[cpu].after;
	}
	ksft_test_result(!err && n >= 2 && (cpumask_bits() & want) == 0,
			 "unbind %s %s while events trace its %d CPUs (%#llx) at once succeeds (%s)\n",
			 drv, dev, n, want, err ? strerror(-err) : "ok");
	/*
	 * Only an event running at the unbind is ended (empty TRUNCATED
	 * record); one whose task was not running then stays open but is
	 * never scheduled again (->add() fails, ENOENT): "nothing after".
	 */
	ksft_test_result(good == n,
			 "%s unbound under %d events: %d traces frame, in this program (loss only where flagged); %d events (those running then) end with an empty TRUNCATED record\n",
			 drv, n, good, ended);
	/*
	 * A trace whose end was lost (its last data record, or an empty one
	 * after it, flagged PARTIAL or TRUNCATED: a full AUX area, a full
	 * staging buffer or a dropped message, with four busy harts on one
	 * sink) may lack its end, the closing message included; every other
	 * one ends flushed. (Before the flags were checked here, this looked
	 * like an unflagged loss.)
	 */
	ksft_test_result(flushed == n - cut,
			 "%s unbound under %d events: every trace whose end was not lost (flagged) ends flushed (Correlation): %d of %d (%d lost their end)\n",
			 drv, n, flushed, n - cut, cut);
	ksft_test_result(after == 0,
			 "%s unbound under %d events: nothing traced after the unbind (%d records in the code after it)\n",
			 drv, n, after);
	err = drv_write(drv, "bind", dev);
	m = cpumask_bits();
	record_plain(&c);
	ksft_test_result(!err && m == all && rec_good(&c),
			 "bind %s again: cpumask %#llx, recording works: %lu messages (%s)\n",
			 drv, m, c.msgs, err ? strerror(-err) : c.why);
	munmap(sh, sizeof(*sh));
}

/*
 * The sinks the topology lists ("sink NAME mode=..."), up to MAX_DEVS;
 * returns how many.
 */
static int topology_sinks(char names[][64])
{
	FILE *f = fopen(NTRACE_SYSFS "/topology", "r");
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f) && n < MAX_DEVS)
		if (sscanf(line, "sink %63s mode=", names[n]) == 1)
			n++;
	if (f)
		fclose(f);
	return n;
}

/* Whether dev is among the n names. */
static bool in_list(char names[][64], int n, const char *dev)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], dev))
			return true;
	return false;
}

/* Bind every device that was bound at the start and is not any more. */
static void rebind_all(const char *drv, char names[][64], int n)
{
	int i;

	for (i = 0; i < n; i++)
		drv_write(drv, "bind", names[i]);
}

int main(void)
{
	char encs[MAX_DEVS][64], sinks[MAX_DEVS][64], funs[MAX_DEVS][64];
	char impl[64] = "";
	unsigned long long all;
	char tsinks[MAX_DEVS][64];
	int kmsg, ne, ns, nf, nt, splats, cpu_e, cpu_s, cpu_f;
	const char *sink_drv = SINK;
	bool embedded = false, embedded_ok = true;

	ksft_print_header();
	if (nt_pmu_type() < 0)
		ksft_exit_skip("no ntrace PMU (no N-Trace components in this machine)\n");
	ne = bound_devs(ENCODER, encs);
	ns = bound_devs(SINK, sinks);
	nf = bound_devs(FUNNEL, funs);
	all = cpumask_bits();
	nt = topology_sinks(tsinks);
	if (ns < 1 && nt > 0) {
		/*
		 * Sinks embedded in funnels or encoders (SiFive v0): the sink
		 * tests unbind the component the last one belongs to.
		 */
		ns = nt;
		embedded = true;
		memcpy(sinks, tsinks, sizeof(sinks));
		if (nf > 0 && in_list(funs, nf, sinks[ns - 1]))
			sink_drv = FUNNEL;
		else if (in_list(encs, ne, sinks[ns - 1]))
			sink_drv = ENCODER;
		else
			embedded_ok = false;
	}
	if (ne < 1 || ns < 1 || !all)
		ksft_exit_skip("no bound encoder and sink (%d, %d), cpumask %#llx\n",
			       ne, ns, all);
	nt_read_sysfs("caps/te_impl", impl, sizeof(impl));
	kernel_traced = nt_traces_kernel();
	kmsg = kmsg_open();
	ksft_set_plan(41 + embedded);
	if (embedded)
		ksft_test_result(embedded_ok,
				 "no sink device: the topology's sink %s is the bound %s of that name (embedded sink)\n",
				 sinks[ns - 1], embedded_ok ? sink_drv : "(none)");

	/* the last ones: on two harts, CPU 1's (the test runs on CPU 0) */
	cpu_e = test_idle(ENCODER, encs[ne - 1], all, impl);
	cpu_s = test_idle(sink_drv, sinks[ns - 1], all, impl);
	rebind_all(ENCODER, encs, ne);
	rebind_all(sink_drv, sinks, ns);

	if (cpu_e >= 0)
		test_tracing(ENCODER, encs[ne - 1], cpu_e, all);
	else
		for (int i = 0; i < 4; i++)
			ksft_test_result_skip("encoder unbind while tracing: its CPU is unknown\n");
	rebind_all(ENCODER, encs, ne);
	if (cpu_s >= 0)
		test_tracing(sink_drv, sinks[ns - 1], cpu_s, all);
	else
		for (int i = 0; i < 4; i++)
			ksft_test_result_skip("sink unbind while tracing: its CPU is unknown\n");
	rebind_all(sink_drv, sinks, ns);

	/* a funnel (the last: on funnel2 a cluster funnel) */
	if (nf > 0) {
		cpu_f = test_idle(FUNNEL, funs[nf - 1], all, impl);
		rebind_all(FUNNEL, funs, nf);
		if (cpu_f >= 0)
			test_tracing(FUNNEL, funs[nf - 1], cpu_f, all);
		else
			for (int i = 0; i < 4; i++)
				ksft_test_result_skip("funnel unbind while tracing: its CPU is unknown\n");
		rebind_all(FUNNEL, funs, nf);
	} else {
		for (int i = 0; i < 8; i++)
			ksft_test_result_skip("funnel unbind: no funnel\n");
	}

	/* several events at once on a funnel and on the shared sink */
	if (nf > 0 && (path_cpus_of(funs[nf - 1]) & (path_cpus_of(funs[nf - 1]) - 1))) {
		test_all_cpus(FUNNEL, funs[nf - 1], all);
		rebind_all(FUNNEL, funs, nf);
		test_all_cpus(sink_drv, sinks[ns - 1], all);
		rebind_all(sink_drv, sinks, ns);
	} else {
		for (int i = 0; i < 10; i++)
			ksft_test_result_skip("unbind under events on every CPU: needs a funnel with two CPUs\n");
	}

	if (cpu_e >= 0 && cpu_s >= 0 && (all & (all - 1))) {
		test_remote(ENCODER, encs[ne - 1], cpu_e, all);
		rebind_all(ENCODER, encs, ne);
		test_remote(sink_drv, sinks[ns - 1], cpu_s, all);
		rebind_all(sink_drv, sinks, ns);
	} else {
		for (int i = 0; i < 6; i++)
			ksft_test_result_skip("unbind from another CPU: needs two traced CPUs\n");
	}

	splats = kmsg < 0 ? kmsg : kmsg_count_splats(kmsg);
	ksft_test_result(splats == 0 && cpumask_bits() == all,
			 "kernel log clean (%d splat lines), every component bound again (cpumask %#llx)\n",
			 splats, cpumask_bits());
	ksft_finished();
}
