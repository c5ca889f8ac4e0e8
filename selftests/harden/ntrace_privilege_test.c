// SPDX-License-Identifier: GPL-2.0-only
/*
 * The privilege matrix of the ntrace PMU and the CTR branch stacks:
 * perf_event_paranoid from -1 to 3 (Debian's 3: perf_event_open(2) only
 * with CAP_SYS_ADMIN) x root, CAP_PERFMON alone and an unprivileged user
 * x the cells below. Each cell's verdict must be the stock kernel's for
 * the same request: a software event opened with the same privilege
 * relevant attributes, in the same process, right before (perf core makes
 * every PMU's privilege decisions: Intel PT and Arm SPE/TRBE add none for
 * these cells). A cell of an unprivileged identity that asked for user
 * space only must never see a kernel address (trace sync addresses, CTR
 * branch records). Also: sysfs and module parameters read-only where
 * they should be.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "cpu.h"
#include "kmod.h"
#include "kselftest.h"
#include "ntrace_util.h"

#define NOBODY_UID	1000	/* the identities below run as this */
#define VICTIM_UID	2000	/* another user, whose task is traced */

enum who { ROOT, PERFMON, USER, NR_WHO };
static const char *const who_name[NR_WHO] = { "root", "CAP_PERFMON", "user" };
static const int paranoid_levels[] = { -1, 0, 1, 2, 3 };
#define NR_LEVELS ARRAY_SIZE(paranoid_levels)

enum target { SELF, CPU_WIDE, VICTIM };

struct cell {
	const char *name;
	bool ctr;		/* a cycles event with a branch stack */
	enum target target;
	bool kernel;		/* kernel space asked for */
	bool snapshot;		/* AUX area mapped read-only */
	bool kernel_filter;	/* an address filter on kernel text */
};

static const struct cell cells[] = {
	{ "user trace, this task", false, SELF, false, false, false },
	{ "user+kernel trace, this task", false, SELF, true, false, false },
	{ "user trace, CPU-wide", false, CPU_WIDE, false, false, false },
	{ "user+kernel trace, CPU-wide", false, CPU_WIDE, true, false, false },
	{ "user trace, another user's task", false, VICTIM, false, false, false },
	{ "snapshot of a user trace, this task", false, SELF, false, true, false },
	{ "kernel-address filter on a user trace", false, SELF, false, false, true },
	{ "CTR user branches, this task", true, SELF, false, false, false },
	{ "CTR kernel branches, this task", true, SELF, true, false, false },
	{ "CTR user branches, CPU-wide", true, CPU_WIDE, false, false, false },
};

/* What a child reports of one cell. */
struct verdict {
	int err;		/* 0 or errno of ours */
	int ref_err;		/* the stock software event's */
	bool kernel_addr;	/* a kernel address in what was read */
	unsigned long units;	/* trace bytes or branch records read */
};

static struct verdict matrix[NR_LEVELS][NR_WHO][ARRAY_SIZE(cells)];
static int va_bits = 64;
static uint64_t kernel_text;	/* an address in kernel text, for the filter */
static pid_t victim;

static volatile unsigned long spin_sink;

static void spin(unsigned long n)
{
	unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		if ((i * 2654435761u) & 4)
			acc ^= i;
	spin_sink = acc;
}

static int write_paranoid(int level)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "w");
	int err;

	if (!f)
		return -errno;
	err = fprintf(f, "%d\n", level) < 0 ? -EIO : 0;
	return fclose(f) ? -errno : err;
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/* Drop to NOBODY_UID, keeping CAP_PERFMON alone or nothing. */
static int become(enum who who)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (who == ROOT)
		return 0;
	if (prctl(PR_SET_KEEPCAPS, who == PERFMON, 0, 0, 0) ||
	    setgroups(0, NULL) || setgid(NOBODY_UID) || setuid(NOBODY_UID))
		return -errno;
	if (who == PERFMON) {
		data[CAP_TO_INDEX(CAP_PERFMON)].permitted = CAP_TO_MASK(CAP_PERFMON);
		data[CAP_TO_INDEX(CAP_PERFMON)].effective = CAP_TO_MASK(CAP_PERFMON);
		if (syscall(SYS_capset, &hdr, data))
			return -errno;
	}
	return 0;
}

static bool is_kernel_addr(uint64_t a, unsigned int bits)
{
	/* the upper half, sign-extended or cut to the VA width */
	return bits && bits <= 64 && (a >> (bits - 1) & 1);
}

static void cell_attr(const struct cell *c, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->disabled = 1;
	a->exclude_kernel = !c->kernel;
	a->exclude_hv = 1;
	if (c->ctr) {
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_CPU_CYCLES;
		a->sample_period = 20000;
		a->sample_type = PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
			(c->kernel ? PERF_SAMPLE_BRANCH_KERNEL : PERF_SAMPLE_BRANCH_USER);
	} else {
		a->type = nt_pmu_type();
	}
}

/* A software event of attributes a: 0 or the errno. */
static int open_errno(struct perf_event_attr *a, int pid, int cpu)
{
	int fd;

	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	fd = syscall(SYS_perf_event_open, a, pid, cpu, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * The stock kernel's verdict on the same request: a software event with
 * the same privilege bits and target. A branch stack first on its own:
 * perf core checks its privilege before any PMU sees it, and a software
 * event then refuses it (EOPNOTSUPP) before the target is checked.
 */
static int reference(const struct cell *c, int pid, int cpu)
{
	struct perf_event_attr a;
	int err;

	cell_attr(c, &a);
	if (a.sample_type & PERF_SAMPLE_BRANCH_STACK) {
		err = open_errno(&a, pid, cpu);
		if (err == EACCES || err == EPERM)
			return err;
		cell_attr(c, &a);
		a.sample_type = 0;
		a.branch_sample_type = 0;
	}
	return open_errno(&a, pid, cpu);
}

/* Branch records in the samples of a CTR event's ring. */
static void read_branches(struct perf_event_mmap_page *up, size_t data_size,
			  struct verdict *v)
{
	uint64_t head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE);
	const uint8_t *data = (const uint8_t *)up + up->data_offset;
	uint8_t rec[65536];

	for (uint64_t tail = up->data_tail; tail < head;) {
		size_t n = nt_ring_copy(up, data_size, tail, rec, sizeof(rec));
		struct perf_event_header h;
		uint64_t nr, e[3];

		(void)data;
		if (!n)
			break;
		memcpy(&h, rec, sizeof(h));
		tail += n;
		if (h.type != PERF_RECORD_SAMPLE || n < 16)
			continue;
		memcpy(&nr, rec + 8, 8);
		for (uint64_t i = 0; i < nr && 16 + (i + 1) * 24 <= n; i++) {
			memcpy(e, rec + 16 + i * 24, sizeof(e));
			v->units++;
			v->kernel_addr |= is_kernel_addr(e[0], 64) || is_kernel_addr(e[1], 64);
		}
	}
}

/* Open, record a little, look at what came out. In the child. */
static void run_cell(const struct cell *c, struct verdict *v)
{
	size_t pg = sysconf(_SC_PAGESIZE), ring = 17 * pg, aux = 64 * pg;
	int pid = 0, cpu = -1, fd;
	struct perf_event_attr a;
	struct perf_event_mmap_page *up;
	void *base, *auxp = NULL;

	if (c->target == CPU_WIDE) {
		pid = -1;
		cpu = 0;
		cpu_pin(0);
	} else if (c->target == VICTIM) {
		pid = victim;
	}
	v->ref_err = reference(c, pid, cpu);
	cell_attr(c, &a);
	fd = syscall(SYS_perf_event_open, &a, pid, cpu, -1, 0);
	if (fd < 0) {
		v->err = errno;
		return;
	}
	if (c->kernel_filter) {
		char filter[64];

		snprintf(filter, sizeof(filter), "filter 0x%llx/0x10000",
			 (unsigned long long)kernel_text);
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
			v->err = errno;
			close(fd);
			return;
		}
	}
	base = mmap(NULL, ring, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		v->err = errno;
		close(fd);
		return;
	}
	up = base;
	if (!c->ctr) {
		up->aux_offset = ring;
		up->aux_size = aux;
		auxp = mmap(NULL, aux, c->snapshot ? PROT_READ : PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, ring);
		if (auxp == MAP_FAILED) {
			v->err = errno;
			goto out;
		}
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin(c->ctr ? 2000000 : 30000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (c->ctr) {
		read_branches(up, ring - pg, v);
	} else {
		uint64_t head = __atomic_load_n(&up->aux_head, __ATOMIC_ACQUIRE);
		struct nt_frame_stats st;

		v->units = head < aux ? head : aux;
		nt_frame_check(auxp, v->units, nt_src_bits(a.config), &st);
		v->kernel_addr = st.sync_msgs &&
			is_kernel_addr(st.addr_max, va_bits);
		munmap(auxp, aux);
	}
out:
	munmap(base, ring);
	close(fd);
}

static void run_in_child(int level, enum who who, size_t i)
{
	struct verdict *v = &matrix[level][who][i];
	int pipefd[2];
	pid_t pid;

	memset(v, 0, sizeof(*v));
	if (pipe(pipefd)) {
		v->err = v->ref_err = errno;
		return;
	}
	pid = fork();
	if (!pid) {
		struct verdict out = {};
		int err = become(who);

		close(pipefd[0]);
		if (err)
			out.err = out.ref_err = -err;
		else
			run_cell(&cells[i], &out);
		if (write(pipefd[1], &out, sizeof(out)) != sizeof(out))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], v, sizeof(*v)) != sizeof(*v))
		v->err = v->ref_err = EPIPE;
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static const char *verdict_str(int err)
{
	return err ? strerrorname_np(err) : "ok";
}

static void print_matrix(void)
{
	printf("# %-40s", "cell \\ paranoid, identity");
	for (size_t l = 0; l < NR_LEVELS; l++)
		printf(" | %2d: R P U", paranoid_levels[l]);
	printf("\n");
	for (size_t i = 0; i < ARRAY_SIZE(cells); i++) {
		printf("# %-40s", cells[i].name);
		for (size_t l = 0; l < NR_LEVELS; l++) {
			printf(" |");
			for (int w = 0; w < NR_WHO; w++)
				printf(" %s", verdict_str(matrix[l][w][i].err));
		}
		printf("\n");
	}
}

/* A task of another user that runs until killed. */
static pid_t start_victim(void)
{
	pid_t pid = fork();

	if (!pid) {
		if (setgid(VICTIM_UID) || setuid(VICTIM_UID))
			_exit(1);
		for (;;)
			pause();
	}
	return pid;
}

static uint64_t kernel_symbol(const char *name)
{
	char line[256], sym[128], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");
	uint64_t found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			found = addr;
	fclose(f);
	return found;
}

/*
 * Files that must refuse writing: for root too where they have no store
 * (sysfs refuses the open), for the unprivileged user everywhere.
 */
static void check_read_only(void)
{
	static const char *const dirs[] = {
		NTRACE_SYSFS "/caps", NTRACE_SYSFS "/format",
		"/sys/firmware/sbi_pmu", "/sys/module/ntrace/parameters",
		"/sys/module/riscv_ctr/parameters",
	};
	static const char *const root_writable[] = {
		"drain_us", "direct", "switch_drain", "peek",
	};
	unsigned int files = 0, bad = 0;
	char first[600] = "";

	for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *de;

		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			char path[512];
			bool root_may = false;
			int fd;

			if (de->d_type != DT_REG)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[d], de->d_name);
			for (size_t r = 0; r < ARRAY_SIZE(root_writable); r++)
				root_may |= strstr(dirs[d], "ntrace/parameters") &&
					    !strcmp(de->d_name, root_writable[r]);
			files++;
			fd = open(path, O_WRONLY);
			if (fd >= 0)
				close(fd);
			if ((fd >= 0) != root_may) {
				bad++;
				if (!first[0])
					snprintf(first, sizeof(first), "%s: root %s", path,
						 fd >= 0 ? "may write" : "may not write");
			}
		}
		closedir(dir);
	}
	ksft_test_result(files && !bad,
			 "sysfs: %u files of caps/, format/, the SBI PMU and the module parameters; only drain_us, direct, switch_drain and peek writable, by root alone (%u wrong%s%s)\n",
			 files, bad, first[0] ? ": " : "", first);

	/* the unprivileged user may write none of them */
	pid_t pid = fork();
	int status = 1;

	if (!pid) {
		int n = 0;

		if (become(USER))
			_exit(2);
		for (size_t r = 0; r < ARRAY_SIZE(root_writable); r++) {
			char path[128];
			int fd;

			snprintf(path, sizeof(path), "/sys/module/ntrace/parameters/%s",
				 root_writable[r]);
			fd = open(path, O_WRONLY);
			n += fd >= 0 || errno != EACCES;
			if (fd >= 0)
				close(fd);
		}
		_exit(n ? 1 : 0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	ksft_test_result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			 "sysfs: an unprivileged user cannot open the writable module parameters for writing (EACCES)\n");
}

int main(void)
{
	int old = read_paranoid();
	char buf[32];
	bool ctr;

	ksft_print_header();
	if (nt_pmu_type() < 0)
		ksft_exit_skip("no ntrace PMU\n");
	if (getuid())
		ksft_exit_skip("needs root to switch identities\n");
	ctr = kmod_is_loaded("riscv_ctr");
	ksft_set_plan(ARRAY_SIZE(cells) + 4);
	if (!nt_read_sysfs("caps/va_bits", buf, sizeof(buf)))
		va_bits = atoi(buf);
	kernel_text = kernel_symbol("_stext");
	victim = start_victim();
	usleep(100000);

	for (size_t l = 0; l < NR_LEVELS; l++) {
		if (write_paranoid(paranoid_levels[l]))
			ksft_exit_fail_msg("cannot set perf_event_paranoid to %d\n",
					   paranoid_levels[l]);
		for (int w = 0; w < NR_WHO; w++)
			for (size_t i = 0; i < ARRAY_SIZE(cells); i++)
				if (!cells[i].ctr || ctr)
					run_in_child(l, w, i);
	}
	write_paranoid(old);
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	print_matrix();

	unsigned int leaks = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cells); i++) {
		unsigned int differ = 0;
		char first[160] = "";

		if (cells[i].ctr && !ctr) {
			ksft_test_result_skip("%s: riscv_ctr is not loaded\n", cells[i].name);
			continue;
		}
		for (size_t l = 0; l < NR_LEVELS; l++)
			for (int w = 0; w < NR_WHO; w++) {
				const struct verdict *v = &matrix[l][w][i];
				/*
				 * Ours may refuse what perf core let through for
				 * the PMU's own reasons, never for privilege; and
				 * root may do everything.
				 */
				bool same = w == ROOT ? !v->err && !v->ref_err :
					    v->err == v->ref_err ||
					    (!v->ref_err && v->err != EACCES && v->err != EPERM);

				if (!same && !differ++)
					snprintf(first, sizeof(first), "paranoid %d, %s: %s, stock %s",
						 paranoid_levels[l], who_name[w],
						 verdict_str(v->err), verdict_str(v->ref_err));
				if (w != ROOT && !cells[i].kernel && v->kernel_addr) {
					leaks++;
					printf("# kernel address seen: %s, paranoid %d, %s\n",
					       cells[i].name, paranoid_levels[l], who_name[w]);
				}
			}
		ksft_test_result(!differ, "%s: the stock kernel's verdict in all %zu cells, root allowed (%u differ%s%s)\n",
				 cells[i].name, NR_LEVELS * NR_WHO, differ,
				 first[0] ? "; first: " : "", first);
	}
	ksft_test_result(!leaks,
			 "no cell of CAP_PERFMON or the unprivileged user that asked for user space only saw a kernel address (%u did)\n",
			 leaks);
	/* the control: the same check sees them where they were asked for */
	const struct verdict *k = &matrix[0][ROOT][1];

	ksft_test_result(k->kernel_addr,
			 "the check sees kernel addresses where they were asked for (root's user+kernel trace: %lu bytes, %s)\n",
			 k->units, k->kernel_addr ? "kernel addresses" : "none");
	check_read_only();
	ksft_finished();
}
