# SPDX-License-Identifier: GPL-2.0-only
# Checks what a compiler took from a sample profile against the truth.
# Input: ir.awk's output ("entry FUNC COUNT", "branch FUNC W..."); -v
# iters=N hot=H warm=W cold=C: the call counts the program printed.
# Each callee's entry count is taken relative to dispatch()'s, which runs
# once per iteration, so the profile's scale (samples, not calls) cancels.
# Prints "report TEXT" lines and "result OK|FAIL NAME" lines.
# Tolerances: hot_mix and warm_scale within 10%; cold_fixup within a factor
# of 3, because a 64-entry branch stack is filled by cold_fixup's own
# 40-iteration loop, so the call into it is seen less often than its share
# (the LBR window bias; see Documentation/admin-guide/perf/riscv-ctr.rst).
/^entry / { entry[$2] = $3 }
/^branch dispatch / && !nb++ { bw1 = $3; bw2 = $4 }
function rel(f, truth, tol, factor,    got, dev, ok) {
	if (!entry["dispatch"] || !(f in entry)) {
		print "result FAIL " f " has an entry count"
		return
	}
	got = entry[f] / entry["dispatch"]
	dev = 100 * (got - truth) / truth
	if (factor)
		ok = got >= truth / factor && got <= truth * factor
	else
		ok = dev <= tol && dev >= -tol
	printf "report %-10s entry count %8d  per dispatch %.4f  truth %.4f  (%+.1f%%)\n", f, entry[f], got, truth, dev
	printf "result %s %s entry count per dispatch call within %s of the truth\n", ok ? "OK" : "FAIL", f, factor ? "a factor of " factor : tol "%"
}
END {
	printf "report dispatch   entry count %8d  (one call per iteration, the reference)\n", entry["dispatch"]
	rel("hot_mix", hot / iters, 10, 0)
	rel("warm_scale", warm / iters, 10, 0)
	rel("cold_fixup", cold / iters, 0, 3)
	if (bw1 + bw2 > 0) {
		t = bw1 / (bw1 + bw2)
		printf "report dispatch's first branch weights %d:%d, cold path taken %.4f, truth %.4f\n", bw1, bw2, t, cold / iters
		ok = t > 0 && t <= 3 * cold / iters && t >= cold / iters / 3
	} else {
		print "report dispatch's first branch has no branch weights"
		ok = 0
	}
	printf "result %s dispatch's cold branch weight within a factor of 3 of the truth\n", ok ? "OK" : "FAIL"
}
