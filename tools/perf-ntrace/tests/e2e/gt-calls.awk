# SPDX-License-Identifier: GPL-2.0-only
# Counts the calls and returns a program executed: the first file is its
# objdump -d --no-show-raw-insn, the second a ground-truth PC list (see
# call_kind in flow.awk). Prints "N calls M returns". Needs flow.awk and
# hex.awk.
NR == FNR {
	if ($1 ~ /^[0-9a-f]+:$/)
		kind[canon(substr($1, 1, length($1) - 1))] = call_kind($2, $3)
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
