# SPDX-License-Identifier: GPL-2.0-only
# Reads a text sample profile (llvm-profgen, create_llvm_prof --format=text):
# top-level lines "NAME:TOTAL:HEAD", body lines "OFFSET[.DISC]: COUNT
# [CALLEE:CALLS]...". Prints "head NAME HEAD" for every function and
# "call CALLER CALLEE CALLS" summed over the caller's call sites (only
# top-level bodies, not inlined ones, which are indented deeper).
/^[^ \t]/ {
	n = split($0, f, ":")
	fn = f[1]
	print "head", fn, f[n] + 0
	next
}
/^ [0-9]+(\.[0-9]+)?: [0-9]+/ {
	for (i = 3; i <= NF; i++) {
		n = split($i, c, ":")
		if (n == 2)
			calls[fn " " c[1]] += c[2]
	}
}
END {
	for (k in calls)
		print "call", k, calls[k]
}
