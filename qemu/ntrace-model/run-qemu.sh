#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run qemu-system-riscv64 (virt) with guest RAM in a shared file and the
# ntrace model plugin loaded; -x 32 runs qemu-system-riscv32 (virt, -cpu
# rv32) instead, an RV32 hart with the same model.
# usage: run-qemu.sh [-x 64|32] [-m MiB] [-s SMP] [-r RAMFILE] [-p PLUGINARGS] [-n] -- QEMU-ARGS...
#   -x XLEN       64 (default) or 32: which QEMU system emulator
#   -r RAMFILE    shared RAM file to use/keep (default: a temporary one in
#                 /dev/shm, removed at exit)
#   -p ARGS       extra plugin arguments, comma separated (gt=..., stats=on)
#   -n            no plugin (plain QEMU with the same RAM setup)
# Environment: NTRACE_MODEL_SO (plugin path), QEMU (binary, overrides -x).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
so=${NTRACE_MODEL_SO:-$top/build/ntrace-model/ntrace-model.so}
mem=512 smp=1 ram= pargs= plugin=1 xlen=64
while getopts "x:m:s:r:p:n" o; do
	case $o in
	x) xlen=$OPTARG ;;
	m) mem=$OPTARG ;;
	s) smp=$OPTARG ;;
	r) ram=$OPTARG ;;
	p) pargs=,$OPTARG ;;
	n) plugin= ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
case $xlen in
64) qemu=${QEMU:-qemu-system-riscv64} cpu=() ;;
32) qemu=${QEMU:-qemu-system-riscv32} cpu=(-cpu rv32) ;;
*) echo "run-qemu.sh: -x must be 64 or 32" >&2; exit 2 ;;
esac
if [ -z "$ram" ]; then
	ram=$(mktemp /dev/shm/ntrace-ram.XXXXXX)
	trap 'rm -f "$ram"' EXIT
fi
# a fresh, zeroed file of the right size
rm -f "$ram" && truncate -s "${mem}M" "$ram"
set -- -machine virt,memory-backend=ram -m "${mem}M" -smp "$smp" \
	-object "memory-backend-file,id=ram,size=${mem}M,mem-path=$ram,share=on" \
	"${cpu[@]}" -nographic -no-reboot "$@"
if [ -n "$plugin" ]; then
	[ -f "$so" ] || { echo "run-qemu.sh: no plugin at $so (make -C qemu/ntrace-model)" >&2; exit 1; }
	set -- -plugin "$so,ram=$ram$pargs" "$@"
fi
"$qemu" "$@"
