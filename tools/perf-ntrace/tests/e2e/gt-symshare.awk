# SPDX-License-Identifier: GPL-2.0-only
# Each function's share of a ground-truth PC list, as perf report --sort
# sym prints it: the first file is "nm -S -n --defined-only" of the
# program, the second the PC list. Prints "PERCENT ADDRESS" for every
# function with at least 1%, two decimals (by address: aliases such as
# read and __libc_read share one). Needs flow.awk and hex.awk.
NR == FNR {
	if (NF == 4 && $3 ~ /^[TtWw]$/) {
		n++
		lo[n] = hex2num($1)
		hi[n] = lo[n] + hex2num($2)
		name[n] = canon($1)
	}
	next
}
{
	a = hex2num(substr(canon($1), 3))
	l = 1; h = n
	while (l < h) {		# last symbol starting at or below a
		m = int((l + h + 1) / 2)
		if (lo[m] <= a) l = m; else h = m - 1
	}
	total++
	if (n && lo[l] <= a && a < hi[l])
		cnt[name[l]]++
}
END {
	for (f in cnt)
		if (cnt[f] * 100 >= total)
			printf "%.2f %s\n", 100 * cnt[f] / total, f
}
