#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Trace size against NexRv, the N-Trace task group's reference code, in its
# best-compressing configuration (-cs 8 -rpt 2: HTM, an 8-entry return
# stack, repeated history): our encoder with the same settings
# (--mode htm --implicit-return full --return-depth 8 --repeated-history
# --htm-ib-no-hist) must write no more bytes than NexRv on any program with
# NexRv's HIST register (32 bits with the stop bit: --hist-bits 32). With
# narrower registers (31, 30) history that does not repeat needs more
# ResourceFull messages whatever the encoder does (31 history bits a
# message for NexRv, 30 or 29 for us), so there the bound is NexRv's bytes
# times 31/(width-1). Each of our traces must also decode exactly with
# perf-ntrace decode and with NexRv's decoder.
#
# Programs: the riscv-tests benchmarks of NexRv's compression figures
# (examples/all/from_etrace/test_files, recorded on QEMU's spike machine by
# tests/nexrv/record-bench.sh), NexRv's example t1, and the user-mode
# ground-truth programs of $NTRACE_GT_DIR (tests/gt). A table of bytes and
# bits per instruction goes to stdout as TAP comments ("make bench" shows it).
#
# NexRv is found as in tests/nexrv.sh (nexrv_find: scripts/nexrv.sh,
# NTRACE_NEXRV or NTRACE_NEXRV_SRC); without it the test is skipped.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD

nexrv_find || { skip "nexrv-size" "$NEXRV_WHY"; exit 0; }
[ -x "$BUILD/tools/gt-tool" ] || { skip "nexrv-size" "gt-tool not built (make test-tools)"; exit 0; }
TAP_PREFIX="nexrv-size: "
scratch WORK "$BUILD/nexrv-size" || exit 1
T=$PERF_NTRACE GT=$BUILD/tools/gt-tool
CONV=$SRC/tests/nexrv/gt2nexrv.sh
WIDTHS="32 31 30"
OURS="--mode htm --implicit-return full --return-depth 8 --repeated-history --htm-ib-no-hist"

lower() { tr 'A-F' 'a-f' <"$1"; }
size() { stat -c %s "$1"; }

printf '# %-16s %9s %8s' program insns NexRv
for h in $WIDTHS; do printf ' %8s %6s' "h$h" ratio; done
echo
TOT_INSN=0 TOT_NX=0
declare -A TOT

# compare NAME PCS ELF PCSEQ PCINFO TRUTH: the sizes of NAME's traces,
# NexRv's from PCSEQ, ours from PCS; our decoder must give TRUTH back
# and so must NexRv's given PCINFO (unless calls nest 32 deep, past its
# return stack: tests/nexrv.sh).
compare() {
	local n=$1 pcs=$2 elf=$3 pcseq=$4 info=$5 truth=$6 h nx ours insns line bad="" calls depth
	if ! "$NEXRV" -enco "$pcseq" -nex "$WORK/$n.nx" -cs 8 -rpt 2 >"$WORK/$n.log" 2>&1; then
		not_ok "$n: NexRv's encoder failed: $(grep -m1 ERROR "$WORK/$n.log")"
		return
	fi
	nx=$(size "$WORK/$n.nx")
	insns=$(wc -l <"$truth")
	calls=$(awk -f "$SRC/tests/nexrv/calls.awk" "$pcseq")
	depth=$(echo "$calls" | awk '{ print $2 }')
	line=$(printf '%-16s %9s %8s' "$n" "$insns" "$nx")
	TOT_INSN=$((TOT_INSN + insns)) TOT_NX=$((TOT_NX + nx))
	for h in $WIDTHS; do
		# shellcheck disable=SC2086	# the options are words
		if ! "$T" encode --pcs "$pcs" --elf "$elf" $OURS --hist-bits "$h" \
			-o "$WORK/$n.$h" 2>"$WORK/$n.err"; then
			bad="$bad [h$h: encode: $(head -c 200 "$WORK/$n.err")]"
			continue
		fi
		ours=$(size "$WORK/$n.$h")
		TOT[$h]=$((${TOT[$h]:-0} + ours))
		line="$line $(printf ' %8s %6s' "$ours" "$(awk -v a="$ours" -v b="$nx" \
			'BEGIN { printf "%.3f", a / b }')")"
		# the bound: NexRv's bytes, scaled by the register width
		if [ $((ours * (h - 1))) -gt $((nx * 31)) ]; then
			bad="$bad [h$h: $ours bytes > NexRv's $nx * 31/$((h - 1))]"
		fi
		"$T" decode -q --implicit-return full --return-depth 8 --hist-bits "$h" \
			--elf "$elf" "$WORK/$n.$h" >"$WORK/$n.out" 2>&1
		cmp -s "$WORK/$n.out" "$truth" ||
			bad="$bad [h$h: perf-ntrace decode: $(cmp "$WORK/$n.out" "$truth" 2>&1 | head -1)]"
		[ "$depth" -lt 32 ] || continue
		"$NEXRV" -deco "$WORK/$n.$h" -pcinfo "$info" -pcout "$WORK/$n.nxout" \
			>"$WORK/$n.dlog" 2>&1
		lower "$WORK/$n.nxout" | cmp -s - "$truth" ||
			bad="$bad [h$h: NexRv's decoder: $(grep -m1 ERROR "$WORK/$n.dlog")]"
	done
	echo "# $line"
	if [ -z "$bad" ]; then
		ok "$n: no larger than NexRv (times 31/(HIST width-1)) at HIST $WIDTHS, decodes exactly with both decoders"
	else
		not_ok "$n:$bad"
	fi
	rm -f "$WORK/$n".*
}

# NexRv's benchmarks (bare metal, RV64)
TF=${NXSRC:+$NXSRC/examples/all/from_etrace/test_files}
if [ -z "$TF" ] || [ ! -d "$TF" ]; then
	skip "benchmarks" "NexRv's examples/all not found (NTRACE_NEXRV_SRC)"
elif ! command -v qemu-system-riscv64 >/dev/null || [ ! -f "$BUILD/tools/gt-plugin.so" ]; then
	skip "benchmarks" "qemu-system-riscv64 or gt-plugin.so missing"
else
	for p in median multiply qsort rsort spmv towers vvadd; do
		b=$WORK/bench-$p
		if ! bash "$SRC/tests/nexrv/record-bench.sh" "$BUILD/tools/gt-plugin.so" "$GT" \
			"$TF/$p.riscv" "$b" 2>"$b.rec" ||
			! "$CONV" "$GT" "$b.pcs" "$b.elf" "$b" 2>"$b.conv"; then
			not_ok "$p: not recorded: $(cat "$b.rec" "$b.conv" | head -c 200)"
			continue
		fi
		compare "$p" "$b.pcs" "$b.elf" "$b.pcseq" "$b.pcinfo" "$b.retired"
		rm -f "$b".*
	done
fi

# NexRv's example t1 (RV32; its PC list, its PC info from its objdump)
t1=${NXSRC:+$NXSRC/examples/t1}
if [ -n "$t1" ] && [ -f "$t1/test.elf" ] && [ -f "$t1/test-PCONLY.txt" ] &&
	[ -f "$t1/test-OBJD.txt" ]; then
	b=$WORK/ex-t1
	lower "$t1/test-PCONLY.txt" | tr -d '\r' >"$b.truth"
	"$NEXRV" -conv -objd "$t1/test-OBJD.txt" -pcinfo "$b.pcinfo" >/dev/null 2>&1 &&
		"$NEXRV" -conv -pcinfo "$b.pcinfo" -pconly "$t1/test-PCONLY.txt" \
			-pcseq "$b.pcseq" >/dev/null 2>&1
	if [ -s "$b.pcseq" ]; then
		compare t1 "$b.truth" "$t1/test.elf" "$b.pcseq" "$b.pcinfo" "$b.truth"
	else
		not_ok "t1: NexRv does not read its example"
	fi
	rm -f "$b".*
else
	skip "t1" "NexRv's examples/t1 not found (NTRACE_NEXRV_SRC)"
fi

# our user-mode ground truth (RV64, QEMU user mode)
progs=$(awk '$3 == "user" { print $1 }' "$NTRACE_GT_DIR/manifest" 2>/dev/null)
[ -n "$progs" ] || skip "ground truth" "none in $NTRACE_GT_DIR (run tests/gt/build-suite.sh)"
for n in $progs; do
	b=$WORK/gt-$n
	if ! gt_copy "$n" "$b.pcs" "$b.elf" >/dev/null ||
		! "$CONV" "$GT" "$b.pcs" "$b.elf" "$b" 2>"$b.conv"; then
		not_ok "$n: no ground truth or conversion: $(head -c 200 "$b.conv" 2>/dev/null)"
		continue
	fi
	compare "$n" "$b.pcs" "$b.elf" "$b.pcseq" "$b.pcinfo" "$b.retired"
	rm -f "$b".*
done

if [ "$TOT_INSN" -gt 0 ]; then
	line=$(printf '%-16s %9s %8s' total "$TOT_INSN" "$TOT_NX")
	for h in $WIDTHS; do
		line="$line $(printf ' %8s %6s' "${TOT[$h]:-0}" "$(awk -v a="${TOT[$h]:-0}" \
			-v b="$TOT_NX" 'BEGIN { printf "%.3f", a / b }')")"
	done
	echo "# $line"
	printf '# bits/instruction: NexRv %s' "$(awk -v a="$TOT_NX" -v n="$TOT_INSN" \
		'BEGIN { printf "%.4f", 8 * a / n }')"
	for h in $WIDTHS; do
		printf ', h%s %s' "$h" "$(awk -v a="${TOT[$h]:-0}" -v n="$TOT_INSN" \
			'BEGIN { printf "%.4f", 8 * a / n }')"
	done
	echo
fi
tap_status
