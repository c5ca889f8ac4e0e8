#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Measure the ground-truth recorders' speed: a bare-metal loop of about
# 6 * ITERS instructions, run plain, with gt-plugin.so, and with QEMU's own
# per-instruction exec log (the user-mode recorder; log to /dev/null).
# MIPS = instructions / (best wall time of 3 runs - the same for a
# one-iteration run), so QEMU start-up is not counted.
# A benchmark, not a test: run it by hand on an idle machine.
# Usage: measure-plugin.sh [ITERS]   (default 4000000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../../../scripts/lib.sh"
iters=${1:-4000000}
bash "$here/build-suite.sh" >/dev/null
bin=$NTRACE_TOP/build/gt/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
b=$here/baremetal
for n in 1 "$iters"; do
	"${CROSS_COMPILE}gcc" -march=rv64imac_zicsr -mabi=lp64 -mcmodel=medany -O2 \
		-ffreestanding -nostdlib -nostartfiles -static -fno-pic -no-pie \
		-Wl,--no-relax -Wl,--build-id=none -Wl,--no-warn-rwx-segments \
		-DBENCH_ITERS="$n" -T "$b/link.ld" "$b/start.S" "$b/traps.c" -o "$tmp/bench$n"
done
qemu() {
	qemu-system-riscv64 -M virt -bios none -display none -serial null \
		-monitor none "$@" </dev/null
}
best() {	# best ELF ARGS...: best wall time of 3 runs, seconds
	local elf=$1 b=999999 s e; shift
	for _ in 1 2 3; do
		s=$(date +%s.%N)
		qemu -kernel "$elf" "$@"
		e=$(date +%s.%N)
		b=$(echo "t = $e - $s; if (t < $b) t else $b" | bc)
	done
	echo "$b"
}
plugin=(-plugin "$bin/gt-plugin.so,out=$tmp/b.pcs,start=0x80000000")
qemu -kernel "$tmp/bench$iters" "${plugin[@]}"
n=$("$bin/gt-tool" stats "$tmp/b.pcs" | awk '{ print $2 }')
echo "instructions per run: $n"
for mode in plain plugin plugin-null execlog; do
	case $mode in
	plain) args=() label="plain QEMU" ;;
	plugin) args=("${plugin[@]}") label="gt-plugin.so (writes .pcs)" ;;
	plugin-null) args=(-plugin "$bin/gt-plugin.so,out=/dev/null,start=0x80000000")
		label="gt-plugin.so (out=/dev/null)" ;;
	execlog) args=(-accel tcg,one-insn-per-tb=on -d exec,nochain -D /dev/null)
		label="exec log, one insn per TB" ;;
	esac
	t0=$(best "$tmp/bench1" "${args[@]}")
	t=$(best "$tmp/bench$iters" "${args[@]}")
	printf '%-30s %7.3f s (start-up %5.3f s) %8.1f MIPS\n' "$label" "$t" "$t0" \
		"$(echo "$n / ($t - $t0) / 1000000" | bc -l)"
done
