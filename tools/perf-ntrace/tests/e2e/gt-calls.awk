# SPDX-License-Identifier: GPL-2.0-only
# Counts the calls and returns a program executed: the first file is its
# objdump -d --no-show-raw-insn, the second a ground-truth PC list. A call
# links through ra or t0 (jal, jalr), a return jumps through one of them
# without linking (the RISC-V return-address stack hints). Prints
# "N calls M returns". Needs flow.awk and hex.awk.
NR == FNR {
	if ($1 !~ /^[0-9a-f]+:$/)
		next
	a = canon(substr($1, 1, length($1) - 1))
	op = $2
	split($3, r, ",")
	if (op == "ret" || (op == "jr" && (r[1] == "ra" || r[1] == "t0")))
		kind[a] = "r"
	else if (op == "jal" && (index($3, ",") == 0 || r[1] == "ra" || r[1] == "t0"))
		kind[a] = "c"
	else if (op == "jalr") {
		if (index($3, ",") == 0 || r[1] == "ra" || r[1] == "t0")
			kind[a] = "c"
	}
	next
}
{
	k = kind[canon($1)]
	if (k == "c")
		c++
	else if (k == "r")
		ret++
}
END { printf "%d calls %d returns\n", c, ret }
