#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace decode --jobs: instructions per second (wall clock) with one
# thread and with two, into branch records and into the PC list (written
# to /dev/null), and the peak RSS on a trace of REPEAT copies and one ten
# times as long. Numbers only, never pass/fail; the machine is shared, so
# the per-process CPU time is printed too: a second thread only gains
# where a second core is free (uptime's load is printed).
# Traces: the decbench programs (scripts/bench.sh records them) encoded
# with periodic sync (rt-tool's htm-ret8-rh-sync: a sync every 2^6
# messages), the way a parallel decode wants them; each copy starts with a
# sync, so the copies concatenated are one valid trace.
# Each figure is the median of JOBS_BENCH_RUNS (default 5) runs, and the
# two-thread gain the median of the run pairs' ratios.
# Usage: scripts/jobs-bench.sh [REPEAT (default 10)]
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/build/perf-ntrace
D=${DECBENCH_DIR:-$TOP/build/decbench}
REPEAT=${1:-10}
RUNS=${JOBS_BENCH_RUNS:-5}
W=$(mktemp -d /tmp/jobs-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
[ -x "$B/perf-ntrace" ] && [ -x "$B/tools/rt-tool" ] || make -s -C "$TOP/tools/perf-ntrace" all

echo "# jobs-bench: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for w in mixed loops; do
	pcs=$D/$w/$w.pcs elf=$D/$w/$w.elf
	[ -s "$pcs" ] || { echo "# jobs-bench: no $pcs (run scripts/bench.sh first)"; continue; }
	"$B/tools/rt-tool" encode htm-ret8-rh-sync "$pcs" "$W/$w.one" --priv m "$elf"
	for _ in $(seq "$REPEAT"); do cat "$W/$w.one"; done >"$W/$w.bin"
	insns=$("$B/perf-ntrace" decode --elf "$elf" --jobs 1 --format=stats "$W/$w.bin" |
		awk '/^instructions:/ { print $2 }')
	echo "decode --jobs on $w x$REPEAT: $(stat -c %s "$W/$w.bin") bytes, $insns instructions"
	for f in branches pc; do
		# RUNS pairs, one thread then two: the ratio is taken pair by
		# pair, so that load from elsewhere moves it less
		: >"$W/runs"
		for _ in $(seq "$RUNS"); do
			for j in 1 2; do
				t0=$EPOCHREALTIME
				/usr/bin/time -f "%U %S %M" -o "$W/t" "$B/perf-ntrace" decode --elf "$elf" \
					--jobs $j --format=$f -o /dev/null "$W/$w.bin"
				t1=$EPOCHREALTIME
				echo "$j $t0 $t1 $(cat "$W/t")" >>"$W/runs"
			done
		done
		awk -v f=$f -v n="$insns" -f - "$W/runs" <<'AWK'
function median(a, k,   i, j, t) {	# sorts a[1..k]
	for (i = 2; i <= k; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{ w = $3 - $2; k = ++c[$1]; wall[$1, k] = w; cpu[$1, k] = $4 + $5; rss[$1, k] = $6
  if ($1 == 2) ratio[k] = wall[1, k] / w }
END {
	for (j = 1; j <= 2; j++) {
		k = c[j]
		for (i = 1; i <= k; i++) { a[i] = wall[j, i]; b[i] = cpu[j, i]; r[i] = rss[j, i] }
		mw = median(a, k); mc = median(b, k); mr = median(r, k)
		printf "  %-8s --jobs %d: %6.0f M instructions/s (median of %d: %.3f s wall, %.2f s CPU), peak RSS %d MB", f, j, n / mw / 1e6, k, mw, mc, mr / 1024
		if (j == 2) {
			for (i = 1; i <= k; i++) a[i] = ratio[i]
			m = median(a, k)
			printf ", %.2fx one thread (pairs %.2f-%.2f)", m, a[1], a[k]
		}
		printf "\n"
	}
}
AWK
	done
done
# memory does not grow with the trace: ten times the copies
w=mixed
if [ -s "$W/$w.bin" ]; then
	for _ in $(seq 10); do cat "$W/$w.bin"; done >"$W/$w.big"
	rm -f "$W/$w.bin"
	for f in branches pc; do
		/usr/bin/time -f "%e %M" -o "$W/t" "$B/perf-ntrace" decode --elf "$D/$w/$w.elf" \
			--jobs 2 --format=$f -o /dev/null "$W/$w.big"
		read -r e m <"$W/t"
		echo "  $w x$((REPEAT * 10)) ($(($(stat -c %s "$W/$w.big") >> 20)) MB) --format=$f --jobs 2: peak RSS $((m / 1024)) MB, $e s"
	done
fi
