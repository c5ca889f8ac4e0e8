#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace decode as a user runs it (the whole process, its defaults)
# against NexRv, the N-Trace task group's reference decoder, on real
# programs with one sync at the start, where splitting cannot help:
#   coremark  NexRv's own "tst4" stream: riscv-tests' coremark.riscv (of
#             NexRv's examples/all) recorded on QEMU's spike machine by the
#             ground-truth plugin, encoded by NexRv -enco -cs 8 -rpt 2
#             (HTM, 8-deep return stack, repeated history; its makefile's
#             default), cached in $NTRACE_CACHE/coremark/KEY
#   mixed     the decbench mixed workload (scripts/bench.sh records it),
#             encoded by our encoder in the same configuration
# Each: decode into branch records (-o /dev/null) with the default --jobs,
# -j 1 and -j 2, and NexRv -deco -pcout /dev/null; the median wall time
# of DECODE_BENCH_RUNS (default 5) runs, alternating, the ratios as medians
# of each round's own (paired), and the peak RSS;
# -j 1 --format=stats in instructions per second. NexRv must decode the
# same number of instructions. Numbers only, never pass/fail.
set -eu
. "$(dirname "$0")/lib.sh"
B=$NTRACE_TOP/build/perf-ntrace
P=$B/perf-ntrace
D=${DECBENCH_DIR:-$NTRACE_TOP/build/decbench}
RUNS=${DECODE_BENCH_RUNS:-5}
OURS_ENC="--mode htm --implicit-return full --return-depth 8 --repeated-history --htm-ib-no-hist"
OURS_DEC="--implicit-return full --return-depth 8 --hist-bits 32"

if ! nexrv_find || [ -z "${NXSRC:-}" ]; then
	echo "# decode-bench: skipped, ${NEXRV_WHY:-no NexRv examples (NTRACE_NEXRV_SRC)}"
	exit 0
fi
[ -x "$P" ] && [ -x "$B/tools/gt-tool" ] || make -s -C "$NTRACE_TOP/tools/perf-ntrace" all
scratch W

# coremark tst4: recorded and encoded once per plugin, program and NexRv
cm=$NXSRC/examples/all/from_etrace/test_files/coremark.riscv
rec=$NTRACE_SRC/tests/nexrv/record-bench.sh conv=$NTRACE_SRC/tests/nexrv/gt2nexrv.sh
C=$NTRACE_CACHE/coremark/$(cache_key "$cm" "$NTRACE_SRC/tests/gt/gt-plugin.c" "$rec" "$conv" \
	"$NEXRV" "$(qemu-system-riscv64 --version | head -1)")
make_tst4() {
	[ -s "$C/tst4.nx" ] && return 0
	mkdir -p "$C"
	log "recording coremark on QEMU (a few minutes, once)"
	RECORD_TIMEOUT=1800 bash "$rec" "$B/tools/gt-plugin.so" "$B/tools/gt-tool" "$cm" "$W/cm"
	bash "$conv" "$B/tools/gt-tool" "$W/cm.pcs" "$W/cm.elf" "$W/cm"
	"$NEXRV" -enco "$W/cm.pcseq" -nex "$W/cm.nx" -cs 8 -rpt 2 >/dev/null
	cp "$W/cm.elf" "$C/tst4.elf"
	cp "$W/cm.pcinfo" "$C/tst4.pcinfo"
	mv "$W/cm.nx" "$C/tst4.nx"
	rm -f "$W"/cm.*
}
with_lock "$C.lock" make_tst4 || { echo "# decode-bench: coremark could not be recorded"; exit 0; }

# the decbench mixed workload, one sync, the same configuration
if [ -s "$D/mixed/mixed.pcs" ]; then
	# shellcheck disable=SC2086	# the options are words
	"$P" encode --pcs "$D/mixed/mixed.pcs" --elf "$D/mixed/mixed.elf" --priv m $OURS_ENC \
		-o "$W/mixed.nx"
	[ -s "$D/mixed/mixed.pcinfo" ] && [ "$D/mixed/mixed.pcs" -ot "$D/mixed/mixed.pcinfo" ] ||
		{ bash "$conv" "$B/tools/gt-tool" "$D/mixed/mixed.pcs" "$D/mixed/mixed.elf" "$W/m" &&
		  mv "$W/m.pcinfo" "$D/mixed/mixed.pcinfo" && rm -f "$W"/m.*; }
fi

# run LABEL CMD...: one run, appended to $W/times: its wall time (the
# shell's clock, to the microsecond: time(1) gives hundredths) and peak RSS
run() {
	local l=$1 t0 t1
	shift
	t0=$EPOCHREALTIME
	/usr/bin/time -f "%M" -o "$W/rss" "$@" >"$W/out" 2>&1 || true
	t1=$EPOCHREALTIME
	echo "$l $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }') $(cat "$W/rss")" \
		>>"$W/times"
}

bench() {	# NAME TRACE ELF PCINFO
	local n=$1 t=$2 elf=$3 info=$4 insns nx
	: >"$W/times"
	# shellcheck disable=SC2086
	insns=$("$P" decode $OURS_DEC --elf "$elf" -j 1 --format=stats "$t" |
		awk '$1 == "instructions:" { print $2 }')
	# each round in another order: a run right after NexRv's (2 s of
	# other memory) is slower, which must not always be the same one
	for r in $(seq "$RUNS"); do
		for k in 0 1 2 3 4; do
			# shellcheck disable=SC2086	# the options are words
			case $(((k + r) % 5)) in
			0) run default "$P" decode $OURS_DEC --elf "$elf" --format=branches -o /dev/null "$t" ;;
			1) run j1 "$P" decode $OURS_DEC --elf "$elf" -j 1 --format=branches -o /dev/null "$t" ;;
			2) run j2 "$P" decode $OURS_DEC --elf "$elf" -j 2 --format=branches -o /dev/null "$t" ;;
			3) run stats "$P" decode $OURS_DEC --elf "$elf" -j 1 --format=stats -o /dev/null "$t" ;;
			4) run nexrv "$NEXRV" -deco "$t" -pcinfo "$info" -pcout /dev/null
			   nx=$(sed -n 's/^Decoded OK (\([0-9]*\) instructions).*/\1/p' "$W/out") ;;
			esac
		done
	done
	echo "$n: $(stat -c %s "$t") bytes of trace, $insns instructions (NexRv decoded ${nx:-none}); median of $RUNS runs:"
	# The ratios are medians of each round's own ratio (the runs of a
	# round are seconds apart), as farm-bench pairs them: the host's speed
	# drifts by half between rounds, which a ratio of medians would carry.
	awk -v n="$insns" '
	{ k[$1]++; w[$1, k[$1]] = $2; if ($3 > rss[$1]) rss[$1] = $3 }
	function med(a, c,   i, j, t) {
		for (i = 2; i <= c; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
	}
	function median(l,   c, i, a) {
		c = k[l]
		for (i = 1; i <= c; i++) a[i] = w[l, i]
		return med(a, c)
	}
	function ratio(x, y,   c, i, a) {	# median over rounds of x/y
		c = k[x]
		for (i = 1; i <= c; i++) a[i] = w[x, i] / w[y, i]
		return med(a, c)
	}
	END {
		nxw = median("nexrv")
		split("default j1 j2", ls, " ")
		for (i = 1; i <= 3; i++) {
			l = ls[i]; m = median(l)
			printf "  %-30s %7.4f s  %6.1f MB peak  %5.2fx the -j 1 time  %5.1fx faster than NexRv\n",
				"decode --format=branches " (l == "default" ? "" : "-" substr(l, 1, 1) " " substr(l, 2)),
				m, rss[l] / 1024, ratio(l, "j1"), ratio("nexrv", l)
		}
		m = median("stats")
		printf "  %-30s %7.4f s  %6.1f MB peak  %6.0f M instructions/s\n",
			"decode --format=stats -j 1", m, rss["stats"] / 1024, n / m / 1e6
		printf "  %-30s %7.3f s  %6.1f MB peak\n", "NexRv -deco -pcout /dev/null", nxw,
			rss["nexrv"] / 1024
	}' "$W/times"
}

echo "# decode-bench: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
bench "coremark tst4" "$C/tst4.nx" "$C/tst4.elf" "$C/tst4.pcinfo"
[ ! -s "$W/mixed.nx" ] || bench "mixed (one sync)" "$W/mixed.nx" "$D/mixed/mixed.elf" \
	"$D/mixed/mixed.pcinfo"
