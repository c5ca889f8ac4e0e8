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

# b does not follow a by fall-through (RVC or 32-bit instruction)
function discontinuous(a, b,    d) {
	d = (low32(b) - low32(a) + 4294967296) % 4294967296
	return d != 2 && d != 4
}
