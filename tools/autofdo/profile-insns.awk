# SPDX-License-Identifier: GPL-2.0-only
# Per-instruction counts of an llvm-profgen unsymbolized profile (ranges
# "START-END:COUNT", offsets in hex from BASE), so that two profiles that
# cut the same execution into different ranges compare equal. Input: the
# program's "objdump -d" (its instruction addresses, in order), then the
# profile. Output: "ADDR COUNT" (decimal) per counted instruction, and
# "branch FROM TO COUNT" per branch line. Needs hex.awk; -v base=N.
FNR == NR {
	if ($0 ~ /^ *[0-9a-f]+:\t/) {
		a = hex2num(substr($1, 1, length($1) - 1))
		if (!(a in idx)) {
			idx[a] = n
			addr[n++] = a
		}
	}
	next
}
/^[0-9a-f]+-[0-9a-f]+:[0-9]+$/ {
	split($0, f, /[-:]/)
	s = hex2num(f[1]) + base
	e = hex2num(f[2]) + base
	if (!(s in idx) || !(e in idx) || e < s) {
		print "bad range " $0
		next
	}
	for (i = idx[s]; i <= idx[e]; i++)
		count[addr[i]] += f[3]
	next
}
/^[0-9a-f]+->[0-9a-f]+:[0-9]+$/ {
	split($0, f, /->|:/)
	print "branch", hex2num(f[1]) + base, hex2num(f[2]) + base, f[3]
}
END {
	for (a in count)
		print a, count[a]
}
