# SPDX-License-Identifier: GPL-2.0-only
# Ground-truth records "addr size itype" -> "FROM TO" of every step between
# retired instructions that is a branch: not a fall-through, and not the
# way back from a trap (an exception or interrupt taken after FROM, itype
# 1 or 2, or one taken at an address TO does not restart). Needs flow.awk
# and hex.awk.
$2 == 0 {
	trap = canon($1)	# taken at $1 before it retired
	next
}
{
	pc = canon($1)
	if (have && !trapped && (trap == "" || trap == pc) && discontinuous(prev, pc))
		print prev, pc
	prev = pc
	have = 1
	trapped = $3 == 1 || $3 == 2
	trap = ""
}
