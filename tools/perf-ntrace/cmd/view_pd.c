// SPDX-License-Identifier: GPL-2.0-only
/* Whether a perf.data file's ntrace recording carries timestamps (view.h). */
#include <stdbool.h>

#include "perfdata.h"
#include "view.h"

bool view_pd_has_ts(const char *path)
{
	char err[256];
	struct ntrace_perfdata *pd = ntrace_pd_open(path, err, sizeof(err));
	struct ntrace_auxinfo info = { 0 };
	struct ntrace_pd_rec r;
	bool ts = false;

	if (!pd)
		return false;
	while (ntrace_pd_next(pd, &r) == 1) {
		if (r.type != NTRACE_PD_AUXTRACE_INFO)
			continue;
		if (!ntrace_pd_info_parse(&r, &info, err, sizeof(err)) && info.nr_cpus)
			ts = info.cpus[0].cfg.enc.codec.tstamp;
		ntrace_auxinfo_free(&info);
		break;
	}
	ntrace_pd_close(pd);
	return ts;
}
