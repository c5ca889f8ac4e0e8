# SPDX-License-Identifier: GPL-2.0-only
# Trace time of the samples (scripts/perf-e2e-itrace.sh). The first input
# has "TIME TYPE" of the side-band records (perf report -D), the second the
# samples' times in ns. Prints "SAMPLES BACK DISTINCT OUTSIDE AUX LO HI":
# samples going back in time, distinct times, samples outside [first
# ITRACE_START, last AUX record], the AUX record count and those bounds.
NR == FNR {
	if ($2 ~ /ITRACE_START/ && (!lo || $1 < lo)) lo = $1
	if ($2 ~ /AUX$/) { aux++; hi = $1 }
	next
}
{
	n++; t = $1 + 0; if (t < prev) back++; if (t != prev) distinct++; prev = t
	if (t < lo || t > hi) out++
}
END { printf "%d %d %d %d %d %s %s\n", n, back, distinct, out, aux, lo, hi }
