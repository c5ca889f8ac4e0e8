# SPDX-License-Identifier: GPL-2.0-only
# How well a sample profile agrees with the truth on entry counts. Input:
# functions.awk's lines of the truth, then of the profile (file names
# given twice is fine: FNR resets). Prints
#   hottest NAME truth_head T profile_head P scaled S error_pct E
#   entry_overlap O
# NAME is the truth's function with the most samples; S is P scaled by the
# ratio of the two profiles' total samples (a sampled profile counts
# samples, not executions; -v noscale=1: the profile holds counts, S = P);
# E = |S - T| / T in percent. O is the overlap of
# the entry-count distributions over all functions (sum of the smaller
# shares, in percent), the measure llvm-profdata overlap uses for blocks.
FNR == NR {
	th[$1] = $3
	ttot += $2
	thsum += $3
	if ($2 > best) {
		best = $2
		hot = $1
	}
	next
}
{
	ph[$1] = $3
	ptot += $2
	phsum += $3
}
END {
	s = noscale ? ph[hot] : ptot ? ph[hot] * ttot / ptot : 0
	e = th[hot] ? (s > th[hot] ? s - th[hot] : th[hot] - s) * 100 / th[hot] : 100
	printf "hottest %s truth_head %d profile_head %d scaled %.0f error_pct %.3f\n", \
		hot, th[hot], ph[hot], s, e
	o = 0
	for (f in th) {
		if (!thsum || !phsum || !(f in ph))
			continue
		a = th[f] / thsum
		b = ph[f] / phsum
		o += a < b ? a : b
	}
	printf "entry_overlap %.3f\n", o * 100
}
