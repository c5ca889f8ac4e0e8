# SPDX-License-Identifier: GPL-2.0-only
# The call tree of a ground-truth run as perf-ntrace decode's call views
# draw it (tests/timeline.sh), from three files: the program's symbols
# ("ADDR NAME" sorted by address, the ones a decoder names code by), its
# objdump -d --no-show-raw-insn, and the retired PCs ("pc ADDR" lines of
# gt-tool dump; other lines are ignored). Calls and returns as
# gt-calltree.awk takes them (call_kind in flow.awk, the same longjmp
# rule). POS counts the instructions retired before a point.
#   mode "slices": "BEGIN END DEPTH NAME" per call, BEGIN the position of
#     its first instruction, END the one after its return (or the end of
#     the run), NAME the function called;
#   mode "folded": "F1;F2;...;FN COUNT": instructions retired with this
#     stack: the functions of the open calls' call sites, outermost first
#     (at most maxdepth of them), then the function of the instruction.
# A name is the lowest one (as text) of the symbols at its address.
# Needs flow.awk and hex.awk.
FNR == 1 {
	file++
}
file == 1 {
	a = hex2num($1)
	if (nsym && sa[nsym] == a) {
		if ($2 < sn[nsym])
			sn[nsym] = $2
	} else {
		sa[++nsym] = a
		sn[nsym] = $2
	}
	next
}
file == 2 {
	if ($1 !~ /^[0-9a-f]+:$/)
		next
	a = canon(substr($1, 1, length($1) - 1))
	if (last != "")
		next_pc[last] = a
	kind[a] = call_kind($2, $3)
	last = kind[a] == "c" ? a : ""
	next
}
function sym(pc,    x, lo, hi, mid) {
	if (pc in memo)
		return memo[pc]
	x = hex2num(pc)
	lo = 1
	hi = nsym
	if (!nsym || sa[1] > x)
		return memo[pc] = "[unknown]"
	while (lo < hi) {	# last symbol at or below x
		mid = int((lo + hi + 1) / 2)
		if (sa[mid] <= x)
			lo = mid
		else
			hi = mid - 1
	}
	return memo[pc] = sn[lo]
}
function pop_to(d) {
	while (n > d) {
		if (mode == "slices")
			print begin[n], pos, n, name[n]
		n--
	}
}
$1 == "pc" {
	pc = canon($2)
	if (k == "c") {
		stack[++n] = next_pc[prev]
		slot[next_pc[prev]] = n
		begin[n] = pos
		name[n] = sym(pc)
		pre[n] = n <= maxdepth ? pre[n - 1] sym(prev) ";" : pre[n - 1]
	} else if (k == "r") {
		for (i = n; i > 0 && stack[i] != pc; i--)
			;
		if (i > 0)
			pop_to(i - 1)
		else if ((pc in slot) && slot[pc] <= n)
			pop_to(slot[pc] - 1)
	}
	if (mode == "folded")
		count[pre[n] sym(pc)]++
	k = kind[pc]
	prev = pc
	pos++
}
END {
	pop_to(0)
	if (mode == "folded")
		for (s in count)
			print s, count[s]
}
