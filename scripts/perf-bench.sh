#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark (numbers only): perf decoding N-Trace itself against the
# baseline perf-ntrace decode, on a large recording made once in the guest
# (fdo_bench, 262144 iterations, about 26 M instructions, traced with
# htm=1,iret=1,ts=1; kept in build/perf-bench/) and on the demo's small one
# (scripts/demo.sh, 1.6 M instructions). For each command: wall time (best
# of 3), retired instructions decoded per second, trace MB/s, peak RSS, and
# the ratio to perf-ntrace's branch records, the library's own decode.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$NTRACE_TOP/build/perf-bench
root=$out/root
if [ ! -s "$out/export/big.data" ]; then
	echo "# recording fdo_bench 262144 in the guest once (build/perf-bench/)"
	rm -rf "$out" && mkdir -p "$root/usr/bin"
	make -s -C "$NTRACE_TOP" guest-progs || die "cannot build fdo_bench"
	cp "$NTRACE_TOP/build/guest-progs/fdo_bench" "$root/usr/bin/fdo_bench"
	st=0
	guest_run "$out" ntrace --add "$root/usr/bin/fdo_bench=/usr/bin/fdo_bench" \
		--export "$out/export" --timeout 900 >"$out/guest.log" 2>&1 <<EOF || st=$?
# scripts/perf-bench.sh
/usr/bin/perf record -m 1024,4096 -e ntrace/htm=1,iret=1,ts=1/u -o /tmp/export/big.data -- /usr/bin/fdo_bench 262144 >/tmp/export/big.out
EOF
	[ $st != 2 ] || die "initramfs (log: $out/initramfs.log)"
	[ $st = 0 ] || die "guest run (log: $out/guest.log)"
fi
if [ ! -s "$NTRACE_TOP/build/demo/export/ntrace.data" ]; then
	echo "# recording the demo's trace first (scripts/demo.sh)"
	bash "$NTRACE_TOP/scripts/demo.sh" >/dev/null 2>&1 || die "scripts/demo.sh failed"
fi
perf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host)
make -s -C "$NTRACE_TOP/tools/perf-ntrace" all
pn=$NTRACE_TOP/build/perf-ntrace/perf-ntrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME COMMAND...: best wall time of 3 and the peak RSS
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
		-f "$NTRACE_TOP/scripts/perf-bench-row.awk"
}

bench() {	# DATA ROOT: every command on one recording
	local data=$1 root=$2 st
	st=$("$pn" decode --root "$root" --format=stats "$data")
	insns=$(sed -n 's/^instructions: //p' <<<"$st")
	bytes=$(sed -n 's/^bytes: //p' <<<"$st")
	base=
	echo "# $data: $insns instructions, $bytes trace bytes"
	echo "# command                                      time     decoded            trace     peak         vs branch records"
	run "perf-ntrace decode --format=branches" "$pn" decode --root "$root" --format=branches "$data"
	run "perf-ntrace decode --format=stats" "$pn" decode --root "$root" --format=stats "$data"
	run "perf script --itrace=b" "$perf" script -i "$data" --symfs "$root" --itrace=b -F ip,addr,flags
	run "perf script --itrace=b (with symbols)" "$perf" script -i "$data" --symfs "$root" --itrace=b
	run "perf script --itrace=i1i -F ip" "$perf" script -i "$data" --symfs "$root" --itrace=i1i -F ip
	run "perf report --itrace=i1000i --sort sym" "$perf" report -i "$data" --symfs "$root" --itrace=i1000i --stdio --sort sym
	run "perf report --itrace=i1000ig (call chains)" "$perf" report -i "$data" --symfs "$root" --itrace=i1000ig --stdio
	run "perf inject --itrace=il64" "$perf" inject --symfs "$root" --itrace=il64 -i "$data" -o "$tmp/inj.data"
	run "perf inject --itrace=i100il64" "$perf" inject --symfs "$root" --itrace=i100il64 -i "$data" -o "$tmp/inj.data"
}
echo "# perf decoding N-Trace (host perf with libntrace) against perf-ntrace"
bench "$out/export/big.data" "$root"
bench "$NTRACE_TOP/build/demo/export/ntrace.data" "$NTRACE_TOP/build/demo/root"
