#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmarks (numbers only, never pass/fail): the perf-ntrace benchmarks
# (tools/perf-ntrace/bench/*.c: codec, encoder model, flow decoder), CTR
# branch-stack sampling overhead in the guest, and the N-Trace QEMU model's
# guest MIPS with tracing off and on, the ntrace driver in the guest
# (throughput without loss, instructions per context switch), and perf
# decoding N-Trace itself against perf-ntrace (scripts/perf-bench.sh). The
# decoder benchmark needs recorded ground truth; the round-trip test
# records it when build/gt has none, so run it first if it is missing.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
make -s -C tools/perf-ntrace all
if ! ls build/gt/*.pcs >/dev/null 2>&1 && ! ls build/perf-ntrace/roundtrip/gt/*.pcs >/dev/null 2>&1; then
	echo "# recording ground truth for the decoder benchmark (tests/roundtrip.sh)"
	NTRACE_SRC=$TOP/tools/perf-ntrace NTRACE_BUILD=$TOP/build/perf-ntrace \
		PERF_NTRACE=$TOP/build/perf-ntrace/perf-ntrace \
		bash tools/perf-ntrace/tests/roundtrip.sh >/dev/null || true
fi
make -s -C tools/perf-ntrace bench
# The same on compiled programs of about 20 M instructions (the model's two
# bench workloads, untraced, recorded by the ground-truth plugin): a mix with
# an indirect jump or return about every 10 instructions, and loop nests.
echo "# decoder on ~20 M-instruction programs (qemu/ntrace-model/baremetal decbench)"
bash tools/perf-ntrace/tests/gt/build-suite.sh --tools >/dev/null
make -s -C qemu/ntrace-model/baremetal OUT="$TOP/build/decbench" decbench
for w in mixed loops; do
	d=$TOP/build/decbench/$w
	mkdir -p "$d"
	if [ ! -s "$d/$w.pcs" ] || [ "$TOP/build/decbench/decbench-$w.elf" -nt "$d/$w.pcs" ]; then
		cp "$TOP/build/decbench/decbench-$w.elf" "$d/$w.elf"
		timeout 300 qemu-system-riscv64 -M virt -bios none -display none -serial null \
			-monitor none -kernel "$d/$w.elf" \
			-plugin "$TOP/build/gt/bin/gt-plugin.so,out=$d/$w.pcs,start=0x80000000" \
			</dev/null >/dev/null 2>&1 || { echo "# $w: recording failed"; continue; }
	fi
	NTRACE_GT_DIR=$d "$TOP/build/perf-ntrace/bench/dec_bench" | sed -n 1,4p
done
# The same decoder against NexRv's (the task group's reference code) on
# one stream, the largest trace, in a configuration both know.
echo "# decoder against NexRv (scripts/nexrv-dec-bench.sh)"
bash scripts/nexrv-dec-bench.sh mixed
# The whole decode process as a user runs it (default --jobs, -j 1, -j 2)
# against NexRv's on its own coremark stream and on mixed, one sync each.
echo "# decode as a user runs it, against NexRv (scripts/decode-bench.sh)"
bash scripts/decode-bench.sh
# Trace size against NexRv, the task group's reference code, on its
# riscv-tests benchmarks and our ground truth: bytes per program and bits
# per instruction (NexRv from scripts/nexrv.sh; skipped when offline).
echo "# trace size: ours against NexRv -cs 8 -rpt 2 (tools/perf-ntrace/tests/nexrv-size.sh)"
bash tools/perf-ntrace/tests/nexrv-size.sh | grep -E '^#|SKIP' || true
# The same programs decoded by two threads against one (perf-ntrace decode
# --jobs, periodic-sync traces), and peak memory on a long trace.
echo "# decode --jobs 1 vs 2 (scripts/jobs-bench.sh)"
bash scripts/jobs-bench.sh
# CTR branch-stack sampling in the guest and the AutoFDO profile's match
# with QEMU's instruction-exact count (scripts/autofdo.sh --bench).
echo "# CTR branch stacks (scripts/autofdo.sh --bench)"
bash scripts/autofdo.sh --bench

echo "# N-Trace QEMU hardware model: guest MIPS plain, model loaded, tracing on (qemu/ntrace-model/bench.sh)"
bash qemu/ntrace-model/bench.sh

# The ntrace driver in the guest on the model: trace throughput without
# loss (perf's default AUX area), and guest instructions per context
# switch with an ntrace event against the baseline without one.
echo "# ntrace driver: throughput without loss, cost per context switch (scripts/ntrace-bench.sh)"
bash scripts/ntrace-bench.sh

# perf decoding N-Trace itself (perf script/report/inject --itrace) against
# perf-ntrace on the demo's recording.
echo "# perf decodes N-Trace: time, instructions/s, MB/s, peak RSS (scripts/perf-bench.sh)"
bash scripts/perf-bench.sh
