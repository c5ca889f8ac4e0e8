#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmarks of the ntrace driver in the guest on the N-Trace QEMU model
# (tools/ntrace-bench/ntrace_bench.c), one boot of the "ntrace"
# configuration in run mode (about a minute):
#  - trace throughput without loss: a loop with one taken branch every
#    N instructions (N = 18 ... 2: more trace per instruction), recorded
#    per task like "perf record -e ntrace//u" with perf's default AUX area
#    for root (4 MiB) and the driver's defaults (256 KiB sink, 4 ms drain);
#    MB/s of trace, instructions/s of the traced program (and untraced), and
#    whether any AUX record was TRUNCATED/PARTIAL/COLLISION or lost: the
#    knee is the first K with loss;
#  - the driver's cost per context switch: kernel instructions per switch of
#    a pipe ping-pong on one CPU, with no ntrace event (baseline) and with
#    an ntrace//u event on both processes.
# Usage: scripts/ntrace-bench.sh [--kernel guest|debug] [--insns N] [--rounds N]
#                               [--ipb "18 10 6 4 3 2"]  (instructions per branch)
# NTRACE_BENCH_RUNS="tp sw" selects the boots (tp: throughput, sw: switches).
# Prints a table; the raw lines stay in build/ntrace-bench/{tp,sw}.console.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=guest insns=24000000 rounds=4000 ks="18 10 6 4 3 2"
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) variant=$2; shift 2 ;;
	--insns) insns=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--ipb) ks=$2; shift 2 ;;
	*) die "unknown argument '$1' (see the header of $0)" ;;
	esac
done
out=$NTRACE_TOP/build/ntrace-bench
mkdir -p "$out"
"${CROSS_COMPILE}gcc" -static -O2 -Wall -Wextra -I"$NTRACE_TOP/selftests/ntrace" \
	-o "$out/ntrace_bench" "$NTRACE_TOP/tools/ntrace-bench/ntrace_bench.c" \
	"$NTRACE_TOP/selftests/ntrace/ntrace_util.c"
# One boot for throughput (guest time = host time, as on hardware the
# trace rate is per second), then a smaller sink (buf_kb=64, 16 MB/s) to
# show where loss starts; one boot with -icount for instruction counts.
{
	echo "/usr/bin/ntrace_bench throughput -n $insns $ks"
	echo "/usr/bin/ntrace_bench reload buf_kb=64"
	echo "/usr/bin/ntrace_bench throughput -n $insns $ks"
} >"$out/tp.list"
echo "/usr/bin/ntrace_bench switch -n $rounds -r 3" >"$out/sw.list"
rm -f "$out/all.console"
for run in ${NTRACE_BENCH_RUNS:-tp sw}; do
	qemu=()
	[ $run = tp ] || qemu=(-- -icount shift=0)
	initrd=$(bash "$NTRACE_TOP/scripts/initramfs.sh" --kernel "$variant" -o "$out/initramfs-$run.cpio.gz" \
		--add "$out/ntrace_bench=/usr/bin/ntrace_bench" \
		--add "$out/$run.list=/etc/ntrace/run.list") || die "initramfs build failed"
	bash "$NTRACE_TOP/scripts/guest.sh" --kernel "$variant" --config ntrace --mode run \
		--initrd "$initrd" --timeout 600 --console "$out/$run.console" "${qemu[@]}" >"$out/$run.log" ||
		{ cat "$out/$run.log" >&2; die "the guest run failed (console: $out/$run.console)"; }
	cat "$out/$run.console" >>"$out/all.console"
done

sed -n 's/^out| bench //p' "$out/all.console" | awk '
function v(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
function summary() {
	if (!rows) return
	if (best) printf "  highest rate without loss: %.2f MB/s of trace at %.2f MIPS traced; %s\n", best, bestm, knee ? "loss from " knee " insn/branch on" : "no loss at any load"
	else printf "  loss at every load\n"
	rows = 0
}
$1 == "reload" { sink = $2 }
$1 == "throughput" { summary()
	printf "trace throughput (%s): %s instructions per run, AUX area %s KiB (perf record default), 4 ms drain:\n", sink ? sink : "default sink, 256 KiB", v("insns"), v("aux_kib")
	printf "  %-12s %9s %9s %8s %12s %11s %8s %s\n", "insn/branch", "trace MB", "B/insn", "MB/s", "MIPS traced", "MIPS plain", "records", "trunc/partial/coll/lost"
	best = 0; knee = ""; insns = v("insns") }
$1 == "tp" { loss = v("truncated") + v("partial") + v("collision") + v("lost"); rows++
	printf "  %-12s %9.2f %9.3f %8.2f %12.2f %11.1f %8d %s\n", v("insn_per_branch"), v("bytes") / 1e6, v("bytes") / insns, v("mbps"), v("mips"), v("plain_mips"), v("records"),
		loss ? v("truncated") "/" v("partial") "/" v("collision") "/" v("lost") : "none"
	if (!loss && v("mbps") + 0 > best) { best = v("mbps") + 0; bestm = v("mips") + 0 }
	if (loss && knee == "") knee = v("insn_per_branch") }
$1 == "switch" { summary()
	printf "driver time per context switch (pipe ping-pong on CPU 0, %s round trips, QEMU -icount, best of 3):\n", v("rounds")
	printf "  %-36s %9s guest insns/switch (%s switches)\n", "no ntrace event (baseline)", v("insn_per_switch_plain"), v("switches_plain")
	printf "  %-36s %9s guest insns/switch (%s switches, %s AUX records, %s lost/truncated)\n", "ntrace//u event on one of the two", v("insn_per_switch_traced"), v("switches_traced"), v("aux_records"), v("aux_lost_or_truncated")
	printf "  %-36s %9s guest insns per switch, %s per stop+start of the traced task\n", "driver", v("driver_insn_per_switch"), v("driver_insn_per_stop_start") }
END { summary() }'
