// SPDX-License-Identifier: GPL-2.0-only
/*
 * A perf.data file's trace time for the call views (view.h): whether its
 * AUXTRACE_INFO says the trace has timestamps, and their conversion to
 * perf time with the recording's time_mult/shift/zero (perf's clock, the
 * one perf script prints), as ntrace_auxinfo_perf_time() does it.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "perfdata.h"
#include "view.h"

static uint64_t perf_time(void *ctx, int32_t cpu, uint64_t ts)
{
	const struct ntrace_auxinfo *info = ctx;

	return ntrace_auxinfo_perf_time(info, ntrace_auxinfo_cpu(info, cpu), ts);
}

void view_pd_clock(const char *path, struct view_opts *o)
{
	char err[256];
	struct ntrace_perfdata *pd = ntrace_pd_open(path, err, sizeof(err));
	struct ntrace_auxinfo *info = calloc(1, sizeof(*info));
	struct ntrace_pd_rec r;

	o->have_ts = false;
	o->perf_time = NULL;
	o->clock = NULL;
	while (pd && info && ntrace_pd_next(pd, &r) == 1) {
		if (r.type != NTRACE_PD_AUXTRACE_INFO)
			continue;
		if (!ntrace_pd_info_parse(&r, info, err, sizeof(err)) && info->nr_cpus) {
			o->have_ts = info->cpus[0].cfg.enc.codec.tstamp;
			if (o->have_ts && info->time_mult) {
				o->perf_time = perf_time;
				o->clock = info;
				info = NULL;
			}
		}
		break;
	}
	if (info)
		ntrace_auxinfo_free(info);
	free(info);
	ntrace_pd_close(pd);
}

void view_pd_clock_free(struct view_opts *o)
{
	if (o->clock)
		ntrace_auxinfo_free(o->clock);
	free(o->clock);
	o->clock = NULL;
}
