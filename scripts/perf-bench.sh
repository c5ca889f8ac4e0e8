#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark (numbers only): perf decoding N-Trace itself against the
# baseline perf-ntrace decode, on the demo's recording (scripts/demo.sh:
# fdo_bench traced with htm=1,iret=1,ts=1; recorded first if missing).
# For each command: wall time (best of 3), retired instructions decoded per
# second, trace MB/s, peak RSS, and the ratio to perf-ntrace's stats run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

x=$NTRACE_TOP/build/demo/export
root=$NTRACE_TOP/build/demo/root
if [ ! -s "$x/ntrace.data" ]; then
	echo "# recording the demo's trace first (scripts/demo.sh)"
	bash "$NTRACE_TOP/scripts/demo.sh" >/dev/null 2>&1 || die "scripts/demo.sh failed"
fi
perf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host)
make -s -C "$NTRACE_TOP/tools/perf-ntrace" all
pn=$NTRACE_TOP/build/perf-ntrace/perf-ntrace
data=$x/ntrace.data
st=$("$pn" decode --root "$root" --format=stats "$data")
insns=$(sed -n 's/^instructions: //p' <<<"$st")
bytes=$(sed -n 's/^bytes: //p' <<<"$st")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME COMMAND...: best wall time of 3 and the peak RSS
base=
run() {
	local name=$1 best= rss= i t m
	shift
	for i in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >/dev/null 2>&1 || true
		read -r t m <"$tmp/t"
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t rss=$m
		fi
	done
	[ -n "$base" ] || base=$best
	awk -v n="$name" -v t="$best" -v r="$rss" -v i="$insns" -v b="$bytes" -v base="$base" \
		'BEGIN { if (t < 0.01) t = 0.01
			 printf "%-44s %7.2f s %8.1f M insn/s %6.2f MB/s %7.1f MB RSS %6.1fx\n",
				n, t, i / t / 1e6, b / t / 1e6, r / 1024, t / base }'
}
echo "# perf decoding N-Trace: fdo_bench, $insns instructions, $bytes trace bytes ($(basename "$data"))"
echo "# command                                      time     decoded            trace     peak         vs perf-ntrace"
run "perf-ntrace decode --format=stats (baseline)" "$pn" decode --root "$root" --format=stats "$data"
run "perf-ntrace decode --format=branches" "$pn" decode --root "$root" --format=branches "$data"
run "perf script --itrace=b" "$perf" script -i "$data" --symfs "$root" --itrace=b -F ip,addr,flags
run "perf script --itrace=b (with symbols)" "$perf" script -i "$data" --symfs "$root" --itrace=b
run "perf script --itrace=i1i -F ip" "$perf" script -i "$data" --symfs "$root" --itrace=i1i -F ip
run "perf report --itrace=i1000i --sort sym" "$perf" report -i "$data" --symfs "$root" --itrace=i1000i --stdio --sort sym
run "perf report --itrace=i1000ig (call chains)" "$perf" report -i "$data" --symfs "$root" --itrace=i1000ig --stdio
run "perf inject --itrace=i100il64" "$perf" inject --symfs "$root" --itrace=i100il64 -i "$data" -o "$tmp/inj.data"
