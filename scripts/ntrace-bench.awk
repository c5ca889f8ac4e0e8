# SPDX-License-Identifier: GPL-2.0-only
# The table of scripts/ntrace-bench.sh from the guest's "bench" lines
# (tools/ntrace-bench/ntrace_bench.c): "throughput", "tp" rows, "reload",
# "switch", each with KEY=VALUE fields; "boot RUN CONFIG" (ntrace-bench.sh)
# starts each boot's lines. With both switch boots (sw, swf) a last table
# sets baseline, sink per hart and shared sink side by side.
function v(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
function summary() {
	if (!rows) return
	if (best) printf "  highest rate without loss: %.2f MB/s of trace at %.2f MIPS traced; %s\n", best, bestm, knee ? "loss from " knee " insn/branch on" : "no loss at any load"
	else printf "  loss at every load\n"
	rows = 0
}
$1 == "boot" { summary(); sink = ""; boot = $2 }
$1 == "reload" { sink = $2 }
$1 == "throughput" { summary()
	harts = v("harts") ? v("harts") : 1
	shared = ""
	if (v("sink") == "shared") shared = ", shared by " harts " harts tracing at once, one event each"
	ic = boot == "ic"
	printf "trace throughput (%s%s): %s instructions per run, AUX area %s KiB (perf record default)%s:\n", (sink ? sink : "driver defaults: direct mode where possible"), shared, v("insns"), v("aux_kib"), ic ? ", QEMU -icount (MB/s in virtual time)" : ""
	printf "  %-12s %9s %9s %8s %12s %11s %8s %9s %-23s%s\n", "insn/branch", "trace MB", "B/insn", "MB/s", "MIPS traced", "MIPS plain", "records", "records/s", "trunc/partial/coll/lost", ic ? " driver insns/MB  kernel insns/MB peeks   copied KB" : ""
	best = 0; knee = ""; insns = v("insns") }
$1 == "tp" { loss = v("truncated") + v("partial") + v("collision") + v("lost"); rows++
	printf "  %-12s %9.2f %9.3f %8.2f %12.2f %11.1f %8d %9.0f %-23s", v("insn_per_branch"), v("bytes") / 1e6, v("bytes") / insns, v("mbps"), v("mips"), v("plain_mips"), v("records"), v("records") / v("secs"),
		loss ? v("truncated") "/" v("partial") "/" v("collision") "/" v("lost") : "none"
	# the driver's own time (-icount shift=4: 16 ns per instruction);
	# the child's kernel instructions less the untraced one's, which
	# also hold the scheduler's work and vary by tens of thousands
	if (ic && v("bytes") > 0) printf " %14.0f %14.0f %5d %11.0f", v("driver_ns") / 16 / (v("bytes") / 1e6), (v("kinsns") - v("plain_kinsns")) / (v("bytes") / 1e6), v("peeks"), v("copy_bytes") / 1024
	printf "\n"
	if (!loss && v("mbps") + 0 > best) { best = v("mbps") + 0; bestm = v("mips") + 0 }
	if (loss && knee == "") knee = v("insn_per_branch") }
$1 == "switch" { summary()
	kind = (v("sink") == "shared" ? "shared sink through a funnel" : "sink per hart") (sink ? ", " sink : "")
	printf "driver time per context switch (pipe ping-pong on CPU 0, %s round trips, QEMU -icount, best of 3; %s, %s CPUs):\n", v("rounds"), kind, (v("cpus") ? v("cpus") : 1)
	printf "  %-36s %9s guest insns/switch (%s switches)\n", "no ntrace event (baseline)", v("insn_per_switch_plain"), v("switches_plain")
	printf "  %-36s %9s guest insns/switch (%s switches, %s AUX records, %s lost/truncated)\n", "ntrace//u event on one of the two", v("insn_per_switch_traced"), v("switches_traced"), v("aux_records"), v("aux_lost_or_truncated")
	printf "  %-36s %9s guest insns per switch, %s per stop+start of the traced task\n", "driver", v("driver_insn_per_switch"), v("driver_insn_per_stop_start")
	k = v("sink") (sink ? " " sink : ""); base[k] = v("insn_per_switch_plain"); traced[k] = v("insn_per_switch_traced"); drv[k] = v("driver_insn_per_switch") }
# both switch boots: the three figures side by side
function switch_summary(   b) {
	if (!("per-hart" in drv) || !("shared" in drv)) return
	b = base["per-hart"]
	printf "cost per context switch, guest instructions (QEMU -icount, one hart, pipe ping-pong):\n"
	printf "  %-36s %9s\n", "baseline (no ntrace event)", b
	printf "  %-36s %9s (driver %+d)\n", "ntrace//u, sink per hart", traced["per-hart"], drv["per-hart"]
	if ("per-hart direct=0" in drv)
		printf "  %-36s %9s (driver %+d)\n", "ntrace//u, sink per hart, copy mode", traced["per-hart direct=0"], drv["per-hart direct=0"]
	printf "  %-36s %9s (driver %+d; %+d = %+.0f%% against a sink per hart)\n", "ntrace//u, shared sink (funnel)", traced["shared"], drv["shared"],
		drv["shared"] - drv["per-hart"], 100 * (drv["shared"] - drv["per-hart"]) / drv["per-hart"]
}
END { summary(); switch_summary() }
