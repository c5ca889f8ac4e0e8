# SPDX-License-Identifier: GPL-2.0-only
# The call tree a program executed, from its objdump -d --no-show-raw-insn
# (first file) and a ground-truth PC list (second file); calls and returns
# as call_kind in flow.awk tells them.
#   mode "trace": "c DEPTH FROM TO" per call, DEPTH counting the new frame,
#     and "r DEPTH FROM TO" per return, DEPTH the frame left;
#   mode "chain": every period-th instruction, "PC RET..." with the return
#     addresses of the open frames, innermost first.
# A return pops the frames up to the one it returns to. One that returns
# where no open frame does, but where an earlier call returned to, is a
# longjmp back into that call's caller: the stack goes back to that call's
# depth. Any other (a signal handler's return into the vDSO) leaves the
# stack alone. Needs flow.awk and hex.awk.
NR == FNR {
	if ($1 !~ /^[0-9a-f]+:$/)
		next
	a = canon(substr($1, 1, length($1) - 1))
	if (last != "")
		next_pc[last] = a
	kind[a] = call_kind($2, $3)
	last = kind[a] == "c" ? a : ""
	next
}
{
	pc = canon($1)
	if (k == "c") {
		stack[++n] = next_pc[prev]
		slot[next_pc[prev]] = n
		if (mode == "trace")
			print "c", n, prev, pc
	} else if (k == "r") {
		for (i = n; i > 0 && stack[i] != pc; i--)
			;
		if (i > 0)
			n = i - 1
		else if ((pc in slot) && slot[pc] <= n)
			n = slot[pc] - 1
		if (mode == "trace")
			print "r", n + 1, prev, pc
	}
	k = kind[pc]
	prev = pc
	if (mode == "chain" && ++count % period == 0) {
		line = pc
		for (i = n; i > 0; i--)
			line = line " " stack[i]
		print line
	}
}
