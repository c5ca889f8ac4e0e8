# SPDX-License-Identifier: GPL-2.0-only
# "VALUE NAME" lines (second file) -> "VALUE ADDRESS", the address of NAME
# in an "nm -S -n" listing (first file). Needs flow.awk and hex.awk.
NR == FNR {
	if (NF == 4 && !($4 in addr))
		addr[$4] = canon($1)
	next
}
{ print $1, ($2 in addr ? addr[$2] : $2) }
