#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest MIPS of a loop-heavy bare-metal program (baremetal/bench.c) under
# plain QEMU, with the ntrace model loaded but tracing off, and tracing in
# BTM and HTM. The instruction count comes from the model's own counter
# (stats=on); time is the QEMU process's CPU time (user+sys), so other load
# on the machine does not distort the figures. Each case runs REPS times
# (default 3) and the best is kept.
# usage: bench.sh [ITERS]   (rebuilds the programs when ITERS is given)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
B=$top/build/ntrace-model
reps=${REPS:-3}
make -s -C "$here" plugin >/dev/null
if [ -n "${1:-}" ]; then
	make -s -C "$here/baremetal" OUT="$B/baremetal" \
		CFLAGS_EXTRA="-DBENCH_ITERS=$1" -B "$B/baremetal/bench.elf" \
		"$B/baremetal/bench-btm.elf" "$B/baremetal/bench-htm.elf" >/dev/null
else
	make -s -C "$here" baremetal >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cpu_seconds ELF RUN-QEMU-OPTS... : best CPU time over $reps runs
cpu_seconds() {
	local elf=$1 best= t i; shift
	for ((i = 0; i < reps; i++)); do
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$here/run-qemu.sh" "$@" -- \
			-bios none -kernel "$elf" >"$tmp/out" 2>"$tmp/err"
		grep -q 'bench done' "$tmp/out" || { cat "$tmp/out" "$tmp/err" >&2; exit 1; }
		t=$(awk '{ print $1 + $2 }' "$tmp/time")
		if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
	done
	echo "$best"
}

"$here/run-qemu.sh" -p stats=on -- -bios none -kernel "$B/baremetal/bench.elf" \
	>/dev/null 2>"$tmp/stats"
insns=$(sed -nE 's/.*hart 0: ([0-9]+) instructions executed.*/\1/p' "$tmp/stats")
[ -n "$insns" ] || { cat "$tmp/stats" >&2; exit 1; }

plain=$(cpu_seconds "$B/baremetal/bench.elf" -n)
off=$(cpu_seconds "$B/baremetal/bench.elf")
btm=$(cpu_seconds "$B/baremetal/bench-btm.elf")
htm=$(cpu_seconds "$B/baremetal/bench-htm.elf")
"$here/run-qemu.sh" -p stats=on -- -bios none -kernel "$B/baremetal/bench-btm.elf" \
	>/dev/null 2>"$tmp/btm"
"$here/run-qemu.sh" -p stats=on -- -bios none -kernel "$B/baremetal/bench-htm.elf" \
	>/dev/null 2>"$tmp/htm"

echo "guest instructions: $insns (best of $reps runs, CPU time)"
awk -v n="$insns" -v p="$plain" -v o="$off" -v b="$btm" -v h="$htm" 'BEGIN {
	printf "%-28s %8s %9s %9s\n", "case", "cpu s", "MIPS", "slowdown"
	printf "%-28s %8.2f %9.1f %9.2fx\n", "plain QEMU", p, n / p / 1e6, 1
	printf "%-28s %8.2f %9.1f %9.2fx\n", "model loaded, tracing off", o, n / o / 1e6, o / p
	printf "%-28s %8.2f %9.1f %9.2fx\n", "tracing on, BTM", b, n / b / 1e6, b / p
	printf "%-28s %8.2f %9.1f %9.2fx\n", "tracing on, HTM", h, n / h / 1e6, h / p
}'
for m in btm htm; do
	sed -nE "s/.*hart 0: .* ([0-9]+) records traced, ([0-9]+) trace bytes/$m: \1 records, \2 trace bytes/p" "$tmp/$m" |
		awk '{ printf "%s %s records, %s bytes (%.3f bits/instruction)\n", $1, $2, $4, $4 * 8 / $2 }'
done
