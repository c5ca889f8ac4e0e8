# SPDX-License-Identifier: GPL-2.0-only
# The part of a process's flow before its program's _start: the forked
# launcher (scripts/perf-e2e-cpuwide.sh). The first input has the
# launcher's instruction addresses, each with 1 if it is in __execve; the
# second the flow. Prints "INSTRUCTIONS OUTSIDE-LAUNCHER ENDS-IN-EXECVE"
# (an empty flow counts as ending there).
NR == FNR { ok[$1] = 1; ec[$1] = $2; next }
!ok[$1] { bad++ }
{ last = $1; n++ }
END { print n + 0, bad + 0, (last == "" ? 1 : ec[last]) }
