# SPDX-License-Identifier: GPL-2.0-only
# Checks perf script --itrace=iNil8 -F ip,brstack output (second file)
# against ground-truth records (first file, as gt-discontinuities.awk
# reads them): sample k is retired instruction k * period, and the newest
# entry of its branch stack that leaves the fall-through path is the
# ground truth's last branch before it.
# Prints "ok N samples" or what differs. Needs flow.awk and hex.awk.
NR == FNR && $2 == 0 {
	trap = canon($1)
	next
}
NR == FNR {
	pc = canon($1)
	if (have && !trapped && (trap == "" || trap == pc) && discontinuous(prev, pc))
		last = prev " " pc
	prev = pc
	have = 1
	trapped = $3 == 1 || $3 == 2
	trap = ""
	if (++n % period == 0) {
		want_ip[n / period] = pc
		want_br[n / period] = last
	}
	next
}
{
	k++
	ip = canon($1)
	got = ""
	for (i = 2; i <= NF; i++) {
		split($i, e, "/")
		if (e[1] != "" && canon(e[1]) != "0x0" && canon(e[2]) != "0x0" &&
		    discontinuous(e[1], e[2])) {
			got = canon(e[1]) " " canon(e[2])
			break
		}
	}
	if (ip != want_ip[k] || (got != "" && got != want_br[k])) {
		bad++
		if (!msg)
			msg = sprintf("sample %d: ip %s last branch %s; ground truth %s, %s",
				      k, ip, got, want_ip[k], want_br[k])
	}
	if (got != "")
		checked++
}
END {
	if (!k)
		print "no samples"
	else if (k != length(want_ip))
		printf "%d samples, ground truth has %d instructions for %d\n", k, period * length(want_ip), length(want_ip)
	else if (bad)
		printf "%d of %d samples differ; first: %s\n", bad, k, msg
	else
		printf "ok %d samples at the ground truth's instruction, %d with a branch in the stack, each the ground truth's last branch\n", k, checked
}
