// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: where a RAM sink may write straight into a perf AUX area (pure
 * functions, tested by KUnit). The sink writes one physically contiguous
 * range [trRamStart, trRamLimit] in 32-bit words; an AUX area is a ring
 * of pages that perf allocated in chunks of contiguous pages. So the
 * sink's window is the free space from the AUX head up to the end of the
 * chunk it lies in, word aligned.
 */
#include <linux/align.h>
#include <linux/errno.h>
#include <linux/minmax.h>

#include "ntrace_config.h"

bool ntrace_aux_map_add(struct ntrace_aux_map *m, size_t off, u64 phys,
			size_t len)
{
	struct ntrace_aux_run *r = m->nr_runs ? &m->runs[m->nr_runs - 1] : NULL;

	if (r && r->off + r->len == off && r->phys + r->len == phys) {
		r->len += len;
	} else {
		if (m->nr_runs == m->max_runs)
			return false;
		r = &m->runs[m->nr_runs++];
		r->off = off;
		r->phys = phys;
		r->len = len;
	}
	m->size = off + len;
	return true;
}

size_t ntrace_aux_map_longest(const struct ntrace_aux_map *m)
{
	size_t longest = 0;
	unsigned int i;

	for (i = 0; i < m->nr_runs; i++)
		longest = max(longest, m->runs[i].len);
	return longest;
}

/* The run that holds ring offset off (the runs are in ring order). */
static const struct ntrace_aux_run *aux_run(const struct ntrace_aux_map *m,
					    size_t off)
{
	unsigned int lo = 0, hi = m->nr_runs;

	while (hi - lo > 1) {
		unsigned int mid = (lo + hi) / 2;

		if (m->runs[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &m->runs[lo];
}

int ntrace_aux_window(const struct ntrace_aux_map *m, unsigned long head,
		      size_t room, bool snapshot, u64 lo, u64 hi,
		      struct ntrace_window *w)
{
	const struct ntrace_aux_run *r;
	size_t off, end;

	if (!m->nr_runs || !m->size || m->size & 3)
		return -EINVAL;
	off = head % m->size;
	w->pad = ALIGN(off, 4) - off;
	off = (off + w->pad) % m->size;
	if (snapshot) {
		/* the sink wraps in the whole ring: one run or none */
		if (m->nr_runs != 1)
			return -EOPNOTSUPP;
		r = &m->runs[0];
		w->start = r->phys;
		w->len = m->size;
		w->wp = r->phys + off;
		w->to_room = true;
	} else {
		if (room <= w->pad + 4)
			return -ENOSPC;
		r = aux_run(m, off);
		end = min(r->off + r->len, off + room - w->pad);
		w->start = r->phys + (off - r->off);
		w->len = ALIGN_DOWN(end - off, 4);
		w->wp = w->start;
		/* the window ends where the free space does, not a chunk */
		w->to_room = end == off + room - w->pad;
	}
	w->off = off;
	if (w->start < lo || w->start + w->len - 4 > hi)
		return -ERANGE;
	return 0;
}

int ntrace_aux_window_min(const struct ntrace_aux_map *m, unsigned long head,
			  size_t room, bool snapshot, u64 lo, u64 hi,
			  size_t min_len, struct ntrace_window *w)
{
	size_t skip;
	int err;

	err = ntrace_aux_window(m, head, room, snapshot, lo, hi, w);
	if (err || w->to_room || w->len >= min_len)
		return err;
	/*
	 * head + skip: the next run's start (runs are whole pages). Idle
	 * bytes take AUX space that a copy would fill with trace: not more
	 * than an eighth of the free space (a small AUX area in two runs
	 * would lose half of itself).
	 */
	skip = w->pad + w->len;
	if (skip > room / 8)
		return -ENOSPC;
	err = ntrace_aux_window(m, head + skip, room - skip, false, lo, hi, w);
	if (err)
		return err;
	if (!w->to_room && w->len < min_len)
		return -ENOSPC;
	w->pad += skip;
	return 0;
}
