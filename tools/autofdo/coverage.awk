# SPDX-License-Identifier: GPL-2.0-only
# Execution counts per instruction from CTR branch stacks, the way
# llvm-profgen reads them: between two consecutive records (older target,
# newer source) the program ran straight-line, and so it did from the
# newest record's target to the sampled instruction.
# Inputs: first the instruction list, "ADDR ..." sorted by ADDR (decimal;
# truth.awk's output sorted), then the "perf script -F ip,brstack" text.
# Output: "ADDR COUNT" per instruction the ranges cover; on stderr the
# number of samples and of ranges used and dropped.
FNR == NR { addr[++n] = $1 + 0; idx[$1 + 0] = n; next }
{
	nb = 0
	ip = -1
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^0x[0-9a-f]+\/0x[0-9a-f]+\//) {
			split($i, p, "/")
			from[nb] = hex2num(p[1])
			to[nb] = hex2num(p[2])
			nb++
		} else if (ip < 0 && $i ~ /^[0-9a-f]+$/) {
			ip = hex2num($i)
		}
	}
	if (!nb)
		next
	samples++
	# newest record first: record k-1 is newer than record k
	for (k = 0; k < nb; k++) {
		lo = to[k]
		hi = k ? from[k - 1] : ip
		if (hi < 0 || !(lo in idx) || hi < lo || hi - lo > 4096) {
			dropped++
			continue
		}
		used++
		for (j = idx[lo]; j <= n && addr[j] <= hi; j++)
			count[addr[j]]++
	}
}
END {
	for (a in count)
		print a, count[a]
	printf "coverage: %d samples, %d ranges used, %d dropped\n", samples, used, dropped > "/dev/stderr"
}
