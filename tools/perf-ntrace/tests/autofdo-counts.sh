#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace decode --format=autofdo against QEMU's own count: for every
# user-mode ground-truth program, one run of QEMU user mode
# (-d in_asm,exec,nochain -one-insn-per-tb) gives both the retired PCs,
# encoded into an N-Trace stream in BTM and HTM, and the exact range and
# branch counts (tools/autofdo/count-log.c reads the log, not the trace).
# The trace's AutoFDO counts must equal them: every instruction's count
# (ranges cut differently add up the same, tools/autofdo/profile-insns.awk)
# and every taken transfer's. Where llvm-profgen-19 is installed, both are
# also symbolized and must give the same sample profile. Flat TAP lines.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD GT_DIR=$NTRACE_GT_DIR
TAP_PREFIX="autofdo-counts: "
scratch WORK "$BUILD/autofdo-counts" || exit 1
AF=$NTRACE_TOP/tools/autofdo
haw() { awk -f "$AF/hex.awk" "$@"; }

[ -x "$BUILD/tools/gt-tool" ] || { skip all "gt-tool not built (make test-tools)"; exit 0; }
command -v qemu-riscv64 >/dev/null || { skip all "no qemu-riscv64"; exit 0; }
# the ground-truth programs (cached; tests/gt/README.rst)
[ -f "$GT_DIR/manifest" ] || bash "$SRC/tests/gt/build-suite.sh" >"$WORK/build-suite.log" 2>&1 ||
	{ not_ok "the ground-truth programs build ($WORK/build-suite.log)"; exit 1; }
[ -f "$GT_DIR/manifest" ] || { skip all "no ground truth in $GT_DIR"; exit 0; }
cc -O2 -std=c11 -Wall -Wextra -o "$WORK/count-log" "$AF/count-log.c" ||
	{ not_ok "count-log builds"; exit 1; }
profgen=$(command -v llvm-profgen-19 || :)

while read -r n priv kind; do
	[ "$kind" = user ] || continue
	elf=$WORK/$n.elf
	cp "$GT_DIR/$n" "$elf" 2>/dev/null || continue
	w=$WORK/$n
	env -i qemu-riscv64 -d in_asm,exec,nochain -one-insn-per-tb -D "$w.log" "$elf" >/dev/null 2>&1
	"$BUILD/tools/gt-tool" execlog "$w.log" "$w.pcs" "$elf" >/dev/null ||
		{ not_ok "$n: QEMU's log gives a PC list"; continue; }
	read -r lo hi base < <("${CROSS_COMPILE}readelf" -lW "$elf" | haw -f "$AF/text-range.awk")
	"$WORK/count-log" "$lo" "$hi" "$base" "$w.truth" <"$w.log" ||
		{ not_ok "$n: count-log reads QEMU's log"; continue; }
	rm -f "$w.log"
	"${CROSS_COMPILE}objdump" -d "$elf" >"$w.dis"
	haw -v base=$((base)) -f "$AF/profile-insns.awk" "$w.dis" "$w.truth" | sort >"$w.truth.n"
	for mode in btm htm; do
		"$PERF_NTRACE" encode --pcs "$w.pcs" --elf "$elf" --priv "$priv" --mode $mode \
			-o "$w.$mode.bin" &&
			"$PERF_NTRACE" decode --elf "$elf" --format=autofdo -q -o "$w.$mode.prof" \
				"$w.$mode.bin" || { not_ok "$n $mode: encode and decode"; continue; }
		haw -v base=$((base)) -f "$AF/profile-insns.awk" "$w.dis" "$w.$mode.prof" |
			sort >"$w.$mode.n"
		d=$(diff "$w.truth.n" "$w.$mode.n" | grep -c '^[<>]')
		check "$n $mode: every instruction and branch count equals QEMU's" [ "$d" = 0 ]
		[ "$d" = 0 ] || diff "$w.truth.n" "$w.$mode.n" | head -5 | sed 's/^/# /'
		[ -n "$profgen" ] || continue
		# the truth's profile once per program
		[ -s "$w.truth.txt" ] || "$profgen" --unsymbolized-profile="$w.truth" --binary="$elf" \
			--format=text --output="$w.truth.txt" 2>/dev/null
		"$profgen" --unsymbolized-profile="$w.$mode.prof" --binary="$elf" --format=text \
			--output="$w.$mode.txt" 2>/dev/null
		check "$n $mode: llvm-profgen makes the same profile of both" \
			cmp -s "$w.truth.txt" "$w.$mode.txt"
	done
	# AutoFDO's text format: the same two sections around an empty one
	"$PERF_NTRACE" decode --elf "$elf" --format=autofdo-text -q -o "$w.text" "$w.htm.bin"
	check "$n: --format=autofdo-text holds the same counts with an empty address section" \
		eval 'awk "NR == 1 { n = \$1 } NR == n + 2 && \$0 == \"0\" { next } { print }" \
			"$w.text" | cmp -s - "$w.htm.prof"'
	# --max-count: one divisor, rounded up, the largest count at the limit
	"$PERF_NTRACE" decode --elf "$elf" --format=autofdo --max-count 7 -q -o "$w.max" "$w.htm.bin"
	check "$n: --max-count 7 divides every count by one factor, rounding up" \
		eval 'awk -f "$AF/max-count.awk" "$w.htm.prof" "$w.max"' 
	rm -f "$w".*
done <"$GT_DIR/manifest"

# A file that is not the traced program's: an error, no profile.
first=$(awk '$3 == "user" { print $1; exit }' "$GT_DIR/manifest")
if [ -n "$first" ]; then
	w=$WORK/dso
	"$PERF_NTRACE" encode --pcs "$GT_DIR/$first.pcs" --elf "$GT_DIR/$first" -o "$w.bin" &&
		"$PERF_NTRACE" decode --elf "$GT_DIR/$first" --format=autofdo --dso nosuch \
			-o "$w.prof" "$w.bin" 2>"$w.err"
	check "--dso naming no traced image is an error that says so" \
		eval '[ $? = 2 ] && grep -q "no instruction of the trace is in nosuch" "$w.err"'
	"$PERF_NTRACE" decode --elf "$GT_DIR/$first" --format=pc --dso "$first" "$w.bin" \
		>/dev/null 2>"$w.err"
	check "--dso without --format=autofdo is refused" \
		eval '[ $? = 2 ] && grep -q "need --format=autofdo" "$w.err"'
	rm -f "$w".*
fi
tap_status
