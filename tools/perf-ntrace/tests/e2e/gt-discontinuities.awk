# SPDX-License-Identifier: GPL-2.0-only
# Ground-truth records "addr size itype" -> "FROM TO" of every step between
# retired instructions that is a branch: not a fall-through, and not the
# way back from a trap (an exception or interrupt taken after FROM, itype
# 1 or 2, or one taken at an address TO does not restart). With kernel=1
# the trace holds the handlers: a trap is a branch too, from where it was
# taken (the address of a size-0 record, else the instruction after the
# one with itype 1 or 2) to the handler, and a branch to where a trap was
# then taken is one. Needs flow.awk and hex.awk.
$2 == 0 {
	trap = canon($1)	# taken at $1 before it retired
	# kernel=1: a branch to $1 was taken first
	if (kernel && have && !trapped && discontinuous(prev, trap))
		print prev, trap
	next
}
{
	pc = canon($1)
	if (kernel && have && (trapped || trap != "")) {
		if (pc != (trap != "" ? trap : after))
			print (trap != "" ? trap : after), pc
	} else if (have && !trapped && (trap == "" || trap == pc) && discontinuous(prev, pc))
		print prev, pc
	prev = pc
	after = plus(pc, $2)
	have = 1
	trapped = $3 == 1 || $3 == 2
	trap = ""
}
