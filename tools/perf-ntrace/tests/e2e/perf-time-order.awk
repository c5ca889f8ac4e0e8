# SPDX-License-Identifier: GPL-2.0-only
# "perf script -F cpu,pid,time,ip --ns" lines without brackets and colons
# ("PID CPU SECONDS.NS IP") -> "BACK CPUS": how many samples go back in
# time, and on how many CPUs they are (scripts/perf-e2e-cpuwide.sh).
{ t = $3; sub(/\./, "", t); t += 0 }
NR > 1 && t < last { b++ }
{ last = t; c[$2] = 1 }
END { print b + 0, length(c) }
