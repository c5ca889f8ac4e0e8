# SPDX-License-Identifier: GPL-2.0-only
#
# Calls and returns of a NexRv PC sequence (pcseq.awk's output): prints
# "depth D wild W": the deepest call nesting, and how many returns do not
# go to the instruction after their call (or have no call: setjmp/longjmp
# and the like), which a return stack that only counts cannot follow. An
# ECALL (CI, as NexRv models it, whose next instruction is the one after
# it) is not a call here.
#   awk -f calls.awk OUT.pcseq

function hex(s,    i, c, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}

{
	split($0, f, ",")
	pc = hex(f[1])
	if (call != "") {
		if (pc != call) {
			stack[++n] = call
			if (n > depth)
				depth = n
		}
		call = ""
	}
	if (want != "") {
		if (pc != want)
			wild++
		want = ""
	}
	ty = f[2]
	size = substr(ty, length(ty)) + 0
	ty = substr(ty, 1, length(ty) - 1)
	if (ty == "C" || ty == "CI") {
		call = pc + size	# pushed unless the next pc is this
	} else if (ty == "R") {
		if (n > 0)
			want = stack[n--]
		else
			wild++
	}
}

END {
	printf "depth %d wild %d\n", depth, wild + 0
}
