# SPDX-License-Identifier: GPL-2.0-only
# One row of scripts/perf-bench.sh's table: command n, best time t (s),
# peak RSS r (KiB), instructions i and trace bytes b decoded, and the time
# of the first command (base) for the ratio.
BEGIN {
	if (t < 0.01)
		t = 0.01
	printf "%-44s %7.2f s %8.1f M insn/s %6.2f MB/s %7.1f MB RSS %6.1fx\n",
		n, t, i / t / 1e6, b / t / 1e6, r / 1024, t / base
}
