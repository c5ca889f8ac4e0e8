# SPDX-License-Identifier: GPL-2.0-only
# How closely a sampled profile matches the instruction-exact one.
# Inputs, in order: "nm -n" of the binary, the truth counts ("ADDR COUNT",
# truth.awk), the profile counts ("ADDR COUNT", coverage.awk). Both are
# turned into shares of all instructions executed; the overlap is the sum
# over instructions (and over functions) of the smaller share, 100% when
# the profile puts every instruction's weight where the truth has it.
# Output: "function NAME truth T profile P" for the functions holding at
# least 0.5% of either, then "overlap instructions X functions Y" (percent).
FILENAME == ARGV[1] {
	if ($2 ~ /^[TtWw]$/) { sym_addr[++ns] = hex2num($1); sym_name[ns] = $3 }
	next
}
FILENAME == ARGV[2] { truth[$1 + 0] = $2; ttot += $2; next }
{ prof[$1 + 0] = $2; ptot += $2 }
function func_of(a,    lo, hi, mid) {
	lo = 1; hi = ns
	if (!ns || a < sym_addr[1])
		return "?"
	while (lo < hi) {
		mid = int((lo + hi + 1) / 2)
		if (sym_addr[mid] <= a) lo = mid; else hi = mid - 1
	}
	return sym_name[lo]
}
END {
	if (!ttot || !ptot) {
		print "compare: empty truth or profile" > "/dev/stderr"
		exit 1
	}
	for (a in truth) { all[a] = 1 }
	for (a in prof) { all[a] = 1 }
	for (a in all) {
		t = truth[a] / ttot
		p = prof[a] / ptot
		ov += t < p ? t : p
		f = func_of(a + 0)
		ft[f] += t
		fp[f] += p
	}
	for (f in ft) {
		fov += ft[f] < fp[f] ? ft[f] : fp[f]
		if (ft[f] >= 0.005 || fp[f] >= 0.005)
			printf "function %s truth %.2f profile %.2f\n", f, 100 * ft[f], 100 * fp[f]
	}
	printf "overlap instructions %.1f functions %.1f\n", 100 * ov, 100 * fov
}
