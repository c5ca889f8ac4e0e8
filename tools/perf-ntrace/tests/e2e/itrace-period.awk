# SPDX-License-Identifier: GPL-2.0-only
# Samples of --itrace=i10us ("SECONDS.NS PERIOD" per line) against the n
# instructions of the recording (-v n=N; scripts/perf-e2e-itrace.sh).
# Prints "SAMPLES BAD SUMOK": samples not in a later 10 us than the one
# before, and 1 if their periods add up to the instructions (within 10%).
{
	t = $1; sub(/\./, "", t); b = int(t / 10000)
	if (NR > 1 && b <= last) bad++
	last = b; sum += $2
}
END { printf "%d %d %d\n", NR, bad + 0, (sum <= n && sum > n * 0.9) }
