# SPDX-License-Identifier: GPL-2.0-only
# Check perf-ntrace decode --max-count: the exact profile, then the scaled
# one (same lines in the same order). Exits 0 when one divisor d (the
# largest count divided by the limit 7, rounded up) turns every exact count
# c into ceil(c / d), none above 7 and every one above 0.
function count(s) { sub(/.*:/, "", s); return s + 0 }
FNR == NR { line[FNR] = $0; if ($0 ~ /:/ && count($0) > m) m = count($0); n = FNR; next }
{
	if (FNR > n) exit 1
	if ($0 !~ /:/) { if ($0 != line[FNR]) exit 1; next }
	d = m > 7 ? int((m + 6) / 7) : 1
	c = count(line[FNR])
	if (count($0) != int((c + d - 1) / d) || count($0) > 7 || count($0) < 1) exit 1
}
END { if (FNR != n) exit 1 }
