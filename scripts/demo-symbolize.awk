# SPDX-License-Identifier: GPL-2.0-only
# Counts per function (scripts/demo.sh). The first input is "nm -n" of the
# program, the second has a hex address per line in column f (-v f=N);
# prints "COUNT SHARE% FUNCTION" for each text symbol an address falls in
# ("?" before the first). Load after tools/autofdo/hex.awk.
NR == FNR {
	if ($2 ~ /^[tTwW]$/) {
		a[n] = hex2num($1)
		s[n++] = $3
	}
	next
}
{
	v = hex2num($f)
	lo = 0; hi = n - 1; k = -1	# the last symbol at or below v
	while (lo <= hi) {
		m = int((lo + hi) / 2)
		if (a[m] <= v) { k = m; lo = m + 1 } else hi = m - 1
	}
	c[k < 0 ? "?" : s[k]]++
	t++
}
END { for (x in c) printf "%10d %5.1f%%  %s\n", c[x], 100 * c[x] / t, x }
