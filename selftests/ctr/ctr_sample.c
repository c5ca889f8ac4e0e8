// SPDX-License-Identifier: GPL-2.0-only
/* Sampling helpers for the CTR tests (see ctr_sample.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ctr_sample.h"
#include "kmod.h"

#define DATA_PAGES	256

void ctr_cycles_attr(struct perf_event_attr *attr, uint64_t bst,
		     uint64_t period)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = PERF_COUNT_HW_CPU_CYCLES;
	attr->sample_period = period;
	attr->sample_type = PERF_SAMPLE_IP;
	if (bst) {
		attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		attr->branch_sample_type = bst;
	}
	attr->disabled = 1;
	attr->exclude_hv = 1;
	attr->exclude_kernel = !(bst & PERF_SAMPLE_BRANCH_KERNEL);
}

int ctr_ring_open(struct ctr_ring *r, struct perf_event_attr *attr)
{
	return ctr_ring_open_cpu(r, attr, -1);
}

int ctr_ring_open_cpu(struct ctr_ring *r, struct perf_event_attr *attr,
		      int cpu)
{
	long page = sysconf(_SC_PAGESIZE);
	void *m;

	r->fd = syscall(__NR_perf_event_open, attr, 0, cpu, -1, 0);
	if (r->fd < 0)
		return -errno;
	r->branches = attr->sample_type & PERF_SAMPLE_BRANCH_STACK;
	r->tid = attr->sample_type & PERF_SAMPLE_TID;
	r->hw_index = r->branches &&
		      (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	r->size = DATA_PAGES * page;
	m = mmap(NULL, r->size + page, PROT_READ | PROT_WRITE, MAP_SHARED,
		 r->fd, 0);
	if (m == MAP_FAILED) {
		int err = -errno;

		close(r->fd);
		return err;
	}
	r->meta = m;
	r->data = (uint8_t *)m + page;
	return 0;
}

void ctr_ring_close(struct ctr_ring *r)
{
	munmap(r->meta, r->size + sysconf(_SC_PAGESIZE));
	close(r->fd);
}

static void ring_copy(struct ctr_ring *r, uint64_t off, void *dst, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)dst)[i] = r->data[(off + i) % r->size];
}

/* Parse one PERF_RECORD_SAMPLE (IP [+ TID] [+ BRANCH_STACK]) at @off. */
static int parse_sample(struct ctr_ring *r, uint64_t off, struct ctr_sample *s)
{
	ring_copy(r, off, &s->ip, 8);
	off += 8;
	s->pid = s->tid = 0;
	if (r->tid) {
		ring_copy(r, off, &s->pid, 4);
		ring_copy(r, off + 4, &s->tid, 4);
		off += 8;
	}
	s->nr = 0;
	if (!r->branches)
		return 0;
	ring_copy(r, off, &s->nr, 8);
	off += 8;
	s->hw_idx = 0;
	if (r->hw_index) {
		ring_copy(r, off, &s->hw_idx, 8);
		off += 8;
	}
	if (s->nr > CTR_MAX_ENTRIES) {
		printf("# sample with %llu branches\n", (unsigned long long)s->nr);
		return -1;
	}
	ring_copy(r, off, s->e, s->nr * sizeof(s->e[0]));
	return 0;
}

int ctr_drain(struct ctr_ring *r, ctr_check_fn check, void *ctx)
{
	static struct ctr_sample s;
	uint64_t head, tail;
	int got = 0, ret = 0;

	head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	tail = r->meta->data_tail;
	while (!ret && tail < head) {
		struct perf_event_header h;

		ring_copy(r, tail, &h, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			got++;
			if (parse_sample(r, tail + sizeof(h), &s) ||
			    (check && !check(&s, ctx)))
				ret = -1;
		}
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret ? ret : got;
}

int ctr_collect(struct ctr_ring *r, const struct ctr_workload *w,
		uint64_t iters, int want, int max_rounds,
		ctr_check_fn check, void *ctx)
{
	int got = 0, round, n = 0;

	ioctl(r->fd, PERF_EVENT_IOC_ENABLE, 0);
	for (round = 0; n >= 0 && round < max_rounds && got < want; round++) {
		w->run(iters);
		n = ctr_drain(r, check, ctx);
		if (n > 0)
			got += n;
	}
	ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0);
	return n < 0 ? n : got;
}

void ctr_dump(const struct ctr_sample *s, unsigned int first,
	      unsigned int last)
{
	unsigned int i;

	printf("# ip %#llx, %llu branches\n", (unsigned long long)s->ip,
	       (unsigned long long)s->nr);
	for (i = first; i < s->nr && i <= last; i++)
		printf("#   [%u] %#llx -> %#llx type %u\n", i,
		       (unsigned long long)s->e[i].from,
		       (unsigned long long)s->e[i].to, (unsigned int)s->e[i].type);
}

bool ctr_follows(const struct perf_branch_entry *older,
		 const struct perf_branch_entry *newer, uint64_t max_block)
{
	if (ctr_is_kernel(newer->from))
		return true;
	return newer->from >= older->to &&
	       newer->from - older->to <= max_block;
}

bool ctr_have_ssctr(void)
{
	char buf[4096];
	FILE *f = fopen("/proc/device-tree/cpus/cpu@0/riscv,isa-extensions", "r");
	size_t n, i;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* a list of NUL-terminated strings */
	for (i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strcmp(buf + i, "ssctr"))
			return true;
	return false;
}

uint64_t ctr_max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long long rate = 100;

	if (f) {
		if (fscanf(f, "%llu", &rate) != 1)
			rate = 100;
		fclose(f);
	}
	return rate;
}

int ctr_load_module(void)
{
	if (kmod_is_loaded("riscv_ctr"))
		return 0;
	return kmod_load("riscv_ctr", NULL);
}
