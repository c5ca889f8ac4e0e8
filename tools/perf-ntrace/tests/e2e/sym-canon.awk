# SPDX-License-Identifier: GPL-2.0-only
# Names of functions in a second file replaced by the lowest name (as
# text) of the symbols at the same address, so that aliases compare equal
# (a decoder may name code by any of them). First file: "ADDR NAME" per
# symbol. Second file: field f (default 1) holds the name, or with
# -v stack=1 the first field is "a;b;c". A name at several addresses is
# left as it is.
FNR == NR {
	if (($2 in addr) && addr[$2] != $1)
		many[$2] = 1
	addr[$2] = $1
	if (!($1 in low) || $2 < low[$1])
		low[$1] = $2
	next
}
function canon_name(s) {
	return (s in addr) && !(s in many) ? low[addr[s]] : s
}
{
	if (stack) {
		k = split($1, part, ";")
		s = canon_name(part[1])
		for (i = 2; i <= k; i++)
			s = s ";" canon_name(part[i])
		$1 = s
	} else {
		$(f ? f : 1) = canon_name($(f ? f : 1))
	}
	print
}
