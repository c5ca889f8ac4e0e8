# SPDX-License-Identifier: GPL-2.0-only
# Exit status 0 when every message of a "perf-ntrace dump" carries SRC=s
# (-v s=N) and there is one at least (tests/run.sh). dump prints src= only
# when it is not 0.
{
	v = match($0, / src=[0-9]+ /) ? substr($0, RSTART + 5, RLENGTH - 6) : 0
	if (v != s)
		bad++
}
END { exit bad > 0 || NR == 0 }
