# SPDX-License-Identifier: GPL-2.0-only
# A trace with losses against the ground truth: the first file is a
# ground-truth PC list, the second perf script --itrace=i1ie -F ip output,
# its error lines cutting the samples into segments. Every segment must be
# a contiguous run of the ground truth, each after the one before: what was
# decoded is exact, only what was lost is missing. Prints "ok SEGMENTS
# INSTRUCTIONS ERRORS" or where a segment does not fit. Needs flow.awk and
# hex.awk.
NR == FNR {
	gt[++n] = canon($1)
	next
}
/error/ {
	errors++
	if (len)
		place()
	next
}
NF == 1 && $1 ~ /^[0-9a-f]+$/ {
	seg[++len] = canon($1)
}
END {
	if (len)
		place()
	if (!bad)
		printf "ok %d %d %d\n", segs, total, errors
}

# the segment at the first position after the last one where it fits
function place(    p, i) {
	if (bad)
		return
	for (p = at + 1; p + len - 1 <= n; p++) {
		if (gt[p] != seg[1])
			continue
		for (i = 2; i <= len && gt[p + i - 1] == seg[i]; i++)
			;
		if (i > len)
			break
	}
	if (p + len - 1 > n) {
		printf "segment %d (%d instructions from %s) is no run of the ground truth after position %d\n", segs + 1, len, seg[1], at
		bad = 1
		return
	}
	segs++
	total += len
	at = p + len - 1
	len = 0
}
