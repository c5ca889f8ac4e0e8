#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build everything (kernel, modules, perf, initramfs), boot the riscv64
# guest in QEMU in demo mode, load the modules and print what they found:
# the SBI PMU information under /sys/firmware/sbi_pmu ("path: value") and
# the registered perf PMUs with their type and format fields.
# Usage: scripts/demo.sh [smp1|smp2|ctr]    (default ctr: every extension on)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bash "$NTRACE_TOP/scripts/deps.sh" >&2 || die "dependency installation failed"
exec bash "$NTRACE_TOP/scripts/guest.sh" --mode demo --config "${1:-ctr}" --timeout 300
