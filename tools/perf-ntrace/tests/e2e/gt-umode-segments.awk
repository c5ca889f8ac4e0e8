# SPDX-License-Identifier: GPL-2.0-only
# The model's ground-truth log (gt=PREFIX: "addr size itype priv context
# ... flags" per record) cut into the U-mode runs of one context each, in
# order (scripts/perf-e2e.sh): segment i is DIR/i.flow ("addr size itype"),
# DIR/i.pc (the addresses of its instructions; size 0 is a trap record)
# and DIR/i.recs (its record count). Also DIR/summary ("TOTAL NOT-U
# SEGMENTS CONTEXT..."), DIR/reused (contexts that come back after
# another) and DIR/last-but-one (the line of the last record before the
# last segment). Exit status 1 on a malformed line.
/^#/ { next }
NF < 7 { bad = 1; exit }
{ total++ }
$4 != 0 { other++; next }	# not U-mode
$5 != ctx { n++; ctx = $5; seen[ctx]++; list = list " " ctx }
{ recs[n]++; last[n] = NR; print $1, $2, $3 >(dir "/" n ".flow") }
$2 != 0 { print $1 >(dir "/" n ".pc") }
END {
	if (bad)
		exit 1
	for (c in seen)
		if (seen[c] > 1)
			reused = reused " " c
	printf "%d %d %d%s\n", total, other + 0, n + 0, list >(dir "/summary")
	printf "%s\n", reused >(dir "/reused")
	print last[n - 1] + 0 >(dir "/last-but-one")
	for (i = 1; i <= n; i++)
		print recs[i] >(dir "/" i ".recs")
}
