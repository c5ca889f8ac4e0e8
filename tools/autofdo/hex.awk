# SPDX-License-Identifier: GPL-2.0-only
# Hex helpers shared by the AutoFDO analysis scripts (mawk has no strtonum).
# User addresses of the static benchmark fit a double exactly.
function hex2num(s,    i, c, v) {
	s = tolower(s)
	sub(/^0x/, "", s)
	v = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c)
			return -1
		v = v * 16 + c - 1
	}
	return v
}
