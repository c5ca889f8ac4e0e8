# SPDX-License-Identifier: GPL-2.0-only
# "objdump -d" lines (read with -F'\t') -> "ADDR SIZE MNEMONIC OPERANDS" per
# instruction, directives such as .word left out (tests/ground-truth.sh).
/^ *[0-9a-f]+:\t[0-9a-f]+ / && $3 != "" && $3 !~ /^\./ {
	a = $1; sub(/^ */, "", a); sub(/:$/, "", a)
	raw = $2; gsub(/ /, "", raw)
	print a, length(raw) / 2, $3, $4
}
