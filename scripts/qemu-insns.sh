#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Count the instructions a static riscv64 program retires in one run, under
# QEMU user mode: "qemu-riscv64 -d in_asm,exec,nochain" logs each
# translation block's listing once and each of its executions, and
# tools/autofdo/insn-total.awk adds them up. The log is large (about 13
# bytes an instruction: 2 GB for 150 million), written to a scratch file
# under $TMPDIR and removed; a run takes about 15 s per 100 million.
# Usage: scripts/qemu-insns.sh EXE [ARG...]   (the program's stdout goes
# to /dev/null) prints "instructions N blocks N".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "usage: ${0##*/} EXE [ARG...]"
scratch w
qemu-riscv64 -d in_asm,exec,nochain -D "$w/log" "$@" >/dev/null ||
	die "$1 failed under qemu-riscv64"
awk -f "$NTRACE_TOP/tools/autofdo/insn-total.awk" "$w/log"
