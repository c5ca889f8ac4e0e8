# SPDX-License-Identifier: GPL-2.0-only
# Benchmark figures from the console of scripts/autofdo.sh's guest run
# (guest/runlist.h markers): the wall time of the plain program, of
# "perf record" with a period so long it takes almost no samples (perf's
# own start-up and write-out), and of "perf record" without and with branch
# stacks (-b) at the same period, with their sample counts. The best of the
# repeated runs counts (least disturbed by other work on the host). A
# second input file, perf stat's CSV, gives the instruction count.
FILENAME != ARGV[1] {
	split($0, f, ",")
	if (f[3] ~ /^instructions/)
		insns = f[1]
	next
}
/^ntrace\| run begin / {
	kind = ""
	if ($0 ~ /: \/usr\/bin\/fdo_bench\.clang /) kind = "plain"
	else if ($0 ~ /perf record -e .*\/tmp\/fix\.data/) kind = "fix"
	else if ($0 ~ /perf record -e .*\/tmp\/nob\.data/) kind = "nob"
	else if ($0 ~ /perf record -b .*\/tmp\/b\.data/) kind = "b"
	samples = 0
	next
}
kind != "" && /^out\| \[ perf record: Captured and wrote .*samples\)/ {
	s = $0
	sub(/.*\(/, "", s)
	samples = s + 0
}
kind != "" && /^ntrace\| run end .* exit=0 seconds=/ {
	s = $0
	sub(/.*seconds=/, "", s)
	s += 0
	if (!(kind in best) || s < best[kind]) { best[kind] = s; nsamp[kind] = samples }
	kind = ""
}
function line(name, k) {
	printf "%-30s %7.3f s  %6d samples", name, best[k], nsamp[k]
	if (k != "fix")
		printf "  %6.0f samples/s  %5.1f us/sample over perf alone",
		       nsamp[k] / best[k], 1e6 * (best[k] - best["fix"]) / nsamp[k]
	printf "\n"
}
END {
	if (!("plain" in best) || !("fix" in best) || !("nob" in best) || !("b" in best) ||
	    !nsamp["nob"] || !nsamp["b"]) {
		print "bench: the guest console lacks some runs or samples" > "/dev/stderr"
		exit 1
	}
	printf "%-30s %7.3f s", "program alone", best["plain"]
	if (insns)
		printf "  (%.0f user instructions, perf stat)", insns
	printf "\n"
	line("perf record, ~no samples", "fix")
	line("perf record -e cycles:u", "nob")
	line("perf record -b -e cycles:u", "b")
	printf "%-30s %+.1f%% wall time at the same period; %.1f us more per sample\n",
	       "branch stacks cost", 100 * (best["b"] / best["nob"] - 1),
	       1e6 * ((best["b"] - best["fix"]) / nsamp["b"] - (best["nob"] - best["fix"]) / nsamp["nob"])
}
