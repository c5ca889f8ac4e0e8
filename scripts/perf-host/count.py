# SPDX-License-Identifier: GPL-2.0-only
# perf script -s count.py: the number of samples and the symbol with the
# most samples (scripts/check-perf-host.sh).
from collections import Counter

samples = 0
syms = Counter()


def process_event(param_dict):
	global samples
	samples += 1
	syms[param_dict.get("symbol", "[unknown]")] += 1


def trace_end():
	top = syms.most_common(1)[0] if syms else ("none", 0)
	print("count.py: %d samples, top %s (%d)" % (samples, top[0], top[1]))
