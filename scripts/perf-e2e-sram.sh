#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# End to end (TAP) through an SRAM sink: scripts/perf-e2e.sh on the
# ntrace-sram guest config (the model's sink with 64 KiB of SRAM, the
# driver in SRAM mode reading it through trRamRP/trRamData), with the
# recordings a 64 KiB sink holds and the same exact checks against the
# model's ground truth and QEMU user mode.
NTRACE_E2E_CONFIG=ntrace-sram exec bash "$(dirname "$0")/perf-e2e.sh" "$@"
