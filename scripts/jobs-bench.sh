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
# Usage: scripts/jobs-bench.sh [REPEAT (default 10)]
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/build/perf-ntrace
D=${DECBENCH_DIR:-$TOP/build/decbench}
REPEAT=${1:-10}
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
		for j in 1 2; do
			/usr/bin/time -f "%e %U %S %M" -o "$W/t" "$B/perf-ntrace" decode --elf "$elf" \
				--jobs $j --format=$f -o /dev/null "$W/$w.bin"
			read -r e u s m <"$W/t"
			[ $j = 1 ] && e1=$e
			awk -v f=$f -v j=$j -v e="$e" -v u="$u" -v s="$s" -v m="$m" -v n="$insns" -v e1="$e1" \
				'BEGIN { printf "  %-8s --jobs %d: %6.0f M instructions/s (%.2f s wall, %.2f s CPU), peak RSS %d MB", f, j, n / e / 1e6, e, u + s, m / 1024
					 if (j > 1) printf ", %.2fx one thread", e1 / e
					 printf "\n" }'
		done
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
