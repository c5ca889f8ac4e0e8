# SPDX-License-Identifier: GPL-2.0-only
# "LO HI BASE" of a program's executable code, from "readelf -lW PROG":
# [LO, HI) spans its executable PT_LOAD segments, BASE is the lowest one's
# address page-aligned (where llvm-profgen counts offsets from). Needs
# hex.awk. Exits 1 when there is no executable segment.
$1 == "LOAD" && / E +0x[0-9a-f]+$/ {
	v = hex2num($3)
	e = v + hex2num($5)
	if (!n++ || v < lo)
		lo = v
	if (e > hi)
		hi = e
}
END {
	if (!n)
		exit 1
	printf "0x%x 0x%x 0x%x\n", lo, hi, lo - lo % 4096
}
