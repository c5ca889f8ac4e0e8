# SPDX-License-Identifier: GPL-2.0-only
# Flow helpers for the perf --itrace checks (scripts/perf-e2e-itrace.sh);
# load after tools/autofdo/hex.awk. Addresses are compared as text, steps
# on their low 32 bits (a double holds no 64-bit kernel address exactly).

# "0x" and lowercase hex without leading zeros, from any spelling
function canon(s) {
	s = tolower(s)
	sub(/^0x/, "", s)
	sub(/^0+/, "", s)
	return "0x" (s == "" ? "0" : s)
}

function low32(s) {
	s = canon(s)
	s = substr(s, 3)
	if (length(s) > 8)
		s = substr(s, length(s) - 7)
	return hex2num(s)
}

# a + n for a small n, in the low 32 bits (a carry out of them is not
# expected between two instructions)
function plus(a, n,    hi, lo) {
	a = substr(canon(a), 3)
	hi = length(a) > 8 ? substr(a, 1, length(a) - 8) : ""
	lo = hex2num(length(a) > 8 ? substr(a, length(a) - 7) : a) + n
	return canon(hi sprintf(hi == "" ? "%x" : "%08x", lo))
}

# b does not follow a by fall-through (RVC or 32-bit instruction)
function discontinuous(a, b,    d) {
	d = (low32(b) - low32(a) + 4294967296) % 4294967296
	return d != 2 && d != 4
}

# What an objdump instruction (mnemonic, operands) is to a call stack: "c"
# a call (links through ra or t0: jal, jalr), "r" a return (jumps through
# one of them without linking: the RISC-V return-address stack hints), ""
# neither.
function call_kind(op, args,    r) {
	split(args, r, ",")
	if (op == "ret" || (op == "jr" && (r[1] == "ra" || r[1] == "t0")))
		return "r"
	if ((op == "jal" || op == "jalr") && (index(args, ",") == 0 || r[1] == "ra" || r[1] == "t0"))
		return "c"
	return ""
}
