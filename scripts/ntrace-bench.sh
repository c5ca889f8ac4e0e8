#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmarks of the ntrace driver in the guest on the N-Trace QEMU model
# (tools/ntrace-bench/ntrace_bench.c), one boot of the "ntrace"
# configuration in run mode (about a minute):
#  - trace throughput without loss: a loop with one taken branch every
#    N instructions (N = 18 ... 2: more trace per instruction), recorded
#    per task like "perf record -e ntrace//u" with perf's default AUX area
#    for root (4 MiB) and the driver's defaults (direct mode where the AUX
#    memory allows, else a 256 KiB bounce buffer; 4 ms drain per 256 KiB);
#    MB/s of trace, instructions/s of the traced program (and untraced), and
#    whether any AUX record was TRUNCATED/PARTIAL/COLLISION or lost: the
#    knee is the first K with loss;
#  - the driver's cost per context switch: kernel instructions per switch of
#    a pipe ping-pong on one CPU, with no ntrace event (baseline) and with
#    an ntrace//u event on both processes.
#  - the driver's instructions per MB of trace drained, at 6 and 2
#    instructions per branch, direct mode (default), direct without
#    peeks (peek=0: every drain stops the encoder) and copy mode (QEMU
#    -icount shift=4, 62.5 MIPS virtual: the time the driver spends in its
#    start, stop and drain paths, from its drains file, at 16 ns per
#    instruction; and the traced child's kernel instructions less the
#    untraced one's, which also count the scheduler's work), with the
#    bytes a direct event still copied (a stretch at the end of a run of
#    memory too short for a window, when the next run is short too): each
#    boot's AUX areas lie where the page allocator puts them, so a reload
#    may give more runs. Trace MB count the AUX records' bytes less the
#    idle bytes (0xff) they start with: the driver's fill before a window;
#  - the throughput again in copy mode (direct=0; 256 and 64 KiB bounce
#    buffers) and with longer drain periods (drain_us 16 and 64 ms; a
#    direct window drains in proportion to its length, see ntrace.rst);
#  - the same on a sink shared through funnels: throughput with 1, 2 and 4
#    harts tracing at once (ntrace-funnel, ntrace-funnel-smp2,
#    ntrace-funnel-smp4; one loop per hart, each with its own event), with
#    the driver's double buffer (default) and without it (double_buffer=0: the
#    sink stays off while a drain copies it, as before 2 December), and the cost per context
#    switch of the shared-sink path against a sink per hart, on one hart
#    (ntrace-funnel against ntrace: the model refuses QEMU's -icount,
#    needed to count instructions, with more than one vCPU; see
#    qemu/ntrace-model/plugin/main.c). The table ends with baseline,
#    sink per hart and shared sink side by side.
# Usage: scripts/ntrace-bench.sh [--kernel guest|debug] [--insns N] [--rounds N]
#                               [--ipb "18 10 6 4 3 2"]  (instructions per branch)
# NTRACE_BENCH_RUNS="tp ic sw tpf1 tpf2 tpf4 swf" selects the boots (tp:
# throughput, ic: driver instructions per MB, sw: switches; f: shared
# sink, 1, 2 and 4: harts).
# Prints a table; the raw lines stay in build/ntrace-bench/RUN.console.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=guest insns=24000000 rounds=4000 ipb="18 10 6 4 3 2"
while [ $# -gt 0 ]; do
	case $1 in
	# each option sets the variable of its name
	--kernel | --insns | --rounds | --ipb) printf -v "${1#--}" '%s' "${2:?$1 wants a value}"; shift 2 ;;
	*) die "unknown argument '$1' (see the header of $0)" ;;
	esac
done
out=$NTRACE_TOP/build/ntrace-bench
mkdir -p "$out"
make -s -C "$NTRACE_TOP" guest-progs || die "cannot build ntrace_bench"
# One boot for throughput (guest time = host time, as on hardware the
# trace rate is per second), then a smaller sink (buf_kb=64, 16 MB/s) to
# show where loss starts; one boot with -icount for instruction counts.
commands() {
	local d
	case $1 in
	tp) echo "/usr/bin/ntrace_bench throughput -n $insns $ipb"
	    echo "/usr/bin/ntrace_bench reload direct=0"
	    echo "/usr/bin/ntrace_bench throughput -n $insns $ipb"
	    echo "/usr/bin/ntrace_bench reload direct=0 buf_kb=64"
	    echo "/usr/bin/ntrace_bench throughput -n $insns $ipb"
	    # longer drain periods at the highest rates, direct and copy
	    for d in 16000 64000; do
		echo "/usr/bin/ntrace_bench reload drain_us=$d"
		echo "/usr/bin/ntrace_bench throughput -n $insns 3 2"
		echo "/usr/bin/ntrace_bench reload direct=0 drain_us=$d"
		echo "/usr/bin/ntrace_bench throughput -n $insns 3 2"
	    done ;;
	ic) echo "/usr/bin/ntrace_bench throughput -n $((insns / 4)) 6 2"
	    echo "/usr/bin/ntrace_bench reload peek=0"
	    echo "/usr/bin/ntrace_bench throughput -n $((insns / 4)) 6 2"
	    echo "/usr/bin/ntrace_bench reload direct=0"
	    echo "/usr/bin/ntrace_bench throughput -n $((insns / 4)) 6 2" ;;
	sw) echo "/usr/bin/ntrace_bench switch -n $rounds -r 3"
	    echo "/usr/bin/ntrace_bench reload direct=0"
	    echo "/usr/bin/ntrace_bench switch -n $rounds -r 3" ;;
	swf) echo "/usr/bin/ntrace_bench switch -n $rounds -r 3" ;;
	tpf[124]) echo "/usr/bin/ntrace_bench throughput -n $((insns / ${1#tpf})) -j ${1#tpf} $ipb"
	    echo "/usr/bin/ntrace_bench reload double_buffer=0"
	    echo "/usr/bin/ntrace_bench throughput -n $((insns / ${1#tpf})) -j ${1#tpf} $ipb" ;;
	esac
}
# the boot configuration of a run
config_of() {
	case $1 in
	tp | ic | sw) echo ntrace ;;
	swf | tpf1) echo ntrace-funnel ;;
	tpf2) echo ntrace-funnel-smp2 ;;
	tpf4) echo ntrace-funnel-smp4 ;;
	esac
}
rm -f "$out/all.console"
for run in ${NTRACE_BENCH_RUNS:-tp ic sw tpf1 tpf2 tpf4 swf}; do
	# -icount: shift=0 (1 GHz) for switches; shift=4 (62.5 MIPS, a
	# hart's rate on the model) so that both modes drain without loss
	qemu=()
	[[ $run == tp* ]] || qemu=(-- -icount shift=0)
	[ "$run" != ic ] || qemu=(-- -icount shift=4)
	st=0
	guest_run "$out/$run" "$(config_of $run)" --kernel "$kernel" \
		--add "$NTRACE_TOP/build/guest-progs/ntrace_bench=/usr/bin/ntrace_bench" \
		--timeout 600 --console "$out/$run.console" "${qemu[@]}" >"$out/$run.log" \
		< <(commands $run) || st=$?
	[ $st != 2 ] || die "initramfs build failed"
	[ $st = 0 ] || { cat "$out/$run.log" >&2; die "the guest run failed (console: $out/$run.console)"; }
	# a boot's lines start with its name (the table's reload label ends)
	{ echo "out| bench boot $run $(config_of $run)"; cat "$out/$run.console"; } >>"$out/all.console"
done

sed -n 's/^out| bench //p' "$out/all.console" | tr -d '\r' | awk -f "$NTRACE_TOP/scripts/ntrace-bench.awk"
