#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest MIPS of two bare-metal workloads (baremetal/bench.c): "loops"
# (loop nests, conditional branches only) and "mixed" (a jump table, calls
# and returns about every 10 instructions), each under plain QEMU, with an
# empty per-block callback plugin (bench/tbcall.c: the floor of any per-block
# plugin design), with the ntrace model loaded but tracing off, and tracing
# in BTM and HTM. The instruction count comes from the model's own counter
# (stats=on); time is the QEMU process's CPU time (user+sys), so other load
# on the machine does not distort the figures. Each case runs REPS times
# (default 3) and the best is kept. XLEN=32 runs the RV32 builds of the
# programs on qemu-system-riscv32 (run-qemu.sh -x 32).
# usage: [XLEN=32] bench.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
B=$top/build/ntrace-model
reps=${REPS:-3}
case ${XLEN:-64} in
64) BMD=$B/baremetal ;;
32) BMD=$B/baremetal-rv32 ;;
*) echo "bench.sh: XLEN must be 64 or 32" >&2; exit 2 ;;
esac
make -s -C "$here" plugin baremetal >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cpu_seconds ELF RUN-QEMU-OPTS... : best CPU time over $reps runs
cpu_seconds() {
	local elf=$1 best= t i; shift
	for ((i = 0; i < reps; i++)); do
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$here/run-qemu.sh" -x "${XLEN:-64}" "$@" -- \
			-bios none -kernel "$elf" "${qextra[@]}" >"$tmp/out" 2>"$tmp/err"
		grep -q 'bench done' "$tmp/out" || { cat "$tmp/out" "$tmp/err" >&2; exit 1; }
		t=$(awk '{ print $1 + $2 }' "$tmp/time")
		if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
	done
	echo "$best"
}

# stats PROGRAM: "records bytes" of a traced run
stats() {
	"$here/run-qemu.sh" -x "${XLEN:-64}" -p stats=on -- -bios none -kernel "$BMD/$1.elf" \
		>/dev/null 2>"$tmp/stats"
	sed -nE 's/.*hart 0: ([0-9]+) instructions executed, ([0-9]+) records traced, ([0-9]+) trace bytes.*/\1 \2 \3/p' \
		"$tmp/stats"
}

for w in loops mixed; do
	p=bench; [ $w = loops ] && p=bench-loops
	read -r insns _ _ < <(stats $p)
	[ -n "$insns" ] || { cat "$tmp/stats" >&2; exit 1; }
	qextra=()
	plain=$(cpu_seconds "$BMD/$p.elf" -n)
	qextra=(-plugin "$B/tbcall.so")
	tbcall=$(cpu_seconds "$BMD/$p.elf" -n)
	blocks=$(sed -nE 's/^tbcall: [0-9]+ instructions in ([0-9]+) blocks.*/\1/p' "$tmp/err")
	qextra=()
	off=$(cpu_seconds "$BMD/$p.elf")
	btm=$(cpu_seconds "$BMD/$p-btm.elf")
	htm=$(cpu_seconds "$BMD/$p-htm.elf")
	btmts=$(cpu_seconds "$BMD/$p-btm-ts.elf")
	htmts=$(cpu_seconds "$BMD/$p-htm-ts.elf")
	read -r _ brec bbytes < <(stats $p-btm)
	read -r _ hrec hbytes < <(stats $p-htm)
	read -r _ btrec btbytes < <(stats $p-btm-ts)
	read -r _ htrec htbytes < <(stats $p-htm-ts)
	echo "workload $w: $insns guest instructions in $blocks blocks (best of $reps runs, CPU time)"
	awk -v n="$insns" -v k="$blocks" -v p="$plain" -v c="$tbcall" -v o="$off" -v b="$btm" \
	    -v h="$htm" -v br="$brec" -v bb="$bbytes" -v hr="$hrec" -v hb="$hbytes" \
	    -v bt="$btmts" -v ht="$htmts" -v btr="$btrec" -v btb="$btbytes" -v htr="$htrec" \
	    -v htb="$htbytes" -f "$here/bench-table.awk"
done
