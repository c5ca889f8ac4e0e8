#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Interoperability with NexRv, the N-Trace task group's reference code
# (refcode/c of riscv-non-isa/tg-nexus-trace), both ways, against QEMU's
# ground truth (tests/gt) and NexRv's own example (examples/t1):
#  - every configuration of NexRv's encoder (-nobhm, -norbm, -cs, -rpt)
#    decodes exactly with perf-ntrace decode, given only what the stream
#    cannot tell (--implicit-return for -cs);
#  - the encoder configurations NexRv's decoder knows (BTM, HTM, implicit
#    return, repeated history, RepeatBranch, I-CNT and HIST full, syncs,
#    timestamps) decode exactly with NexRv's decoder.
# tests/nexrv/gt2nexrv.sh turns a ground truth into NexRv's input files; a
# system call is an ECALL that NexRv counts as retired (pcseq.awk). The
# combinations that cannot decode are left out, each for a reason read
# from the program or the stream (Documentation/trace/ntrace-spec-notes.rst):
#  - -cs with a negative depth (a return counter) on a program whose
#    returns do not all go back to their call (setjmp/longjmp);
#  - -rpt 1/3 streams with a RepeatBranch after a message with a non-zero
#    U-ADDR (NexRv repeats the target, the decoders repeat the fields);
#  - NexRv's decoder on an implicit-return trace of a program that calls
#    deeper than its 32-entry return stack, whose wrap-around is off by one.
# NexRv comes from scripts/nexrv.sh (the public repository at a pinned
# commit, built once), or NTRACE_NEXRV names an executable, or
# NTRACE_NEXRV_SRC a refcode/c directory with NexRv.exe built (it also
# gives the t1 example). Without one (offline) the test is skipped.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD
CC=${CROSS_COMPILE}gcc

nexrv_find || { skip "nexrv" "$NEXRV_WHY"; exit 0; }
[ -x "$BUILD/tools/gt-tool" ] || { skip "nexrv" "gt-tool not built (make test-tools)"; exit 0; }
TAP_PREFIX="nexrv: "
scratch WORK "$BUILD/nexrv" || exit 1
cp "$PERF_NTRACE" "$BUILD/tools/gt-tool" "$WORK/"
T=$WORK/perf-ntrace GT=$WORK/gt-tool
CONV=$SRC/tests/nexrv/gt2nexrv.sh

# NexRv's -enco configurations: BTM (-nobhm), HTM without repeats
# (-norbm), HTM with return stack (-cs N, N<0 a counter) and repeats
# (-rpt 1 RepeatBranch, 2 repeated history, 3 both)
NX_CFGS=("-nobhm" "-nobhm -cs 8" "-nobhm -cs -8" "-norbm" "-norbm -cs 8" "-norbm -cs -8")
for cs in 0 8 -8; do
	for r in 0 1 2 3; do NX_CFGS+=("-cs $cs -rpt $r"); done
done
NX_CFGS+=("-cs 32 -rpt 2")

# our encoder configurations that NexRv's decoder knows
OUR_CFGS=("--mode btm" "--mode htm" "--mode htm --htm-ib-no-hist"
	"--mode btm --implicit-return full --return-depth 8"
	"--mode htm --implicit-return full --return-depth 8 --repeated-history --htm-ib-no-hist"
	"--mode htm --implicit-return count" "--mode htm --implicit-return partial"
	"--mode htm --repeated-history --hist-bits 31" "--mode btm --repeat-branch"
	"--mode htm --repeat-branch --implicit-return full"
	"--mode htm --icnt-bits 8" "--mode btm --icnt-bits 8 --icnt-full-sync"
	"--mode htm --hist-bits 8 --trap-btype1" "--mode htm --sync-mode msgs --sync-max 1"
	"--mode btm --sync-mode hwords --sync-max 2" "--mode htm --ts")

# A hex PC list as "0xpc" lines in lower case (NexRv writes upper case).
lower() { tr 'A-F' 'a-f' <"$1"; }

# repeat_after_uaddr TRACE: does a RepeatBranch follow a message whose
# U-ADDR is not 0?
repeat_after_uaddr() {
	"$T" dump "$1" | awk '
		/RepeatBranch/ { if (prev ~ /uaddr=/ && prev !~ /uaddr=0x0( |$)/) n++; next }
		{ prev = $0 }
		END { exit !n }'
}

# nexrv_to_ours NAME ELF IRET-OPTION...: NexRv's encoder on $WORK/NAME.pcseq,
# every configuration, decoded by perf-ntrace; one line for them all.
nexrv_to_ours() {
	local n=$1 elf=$2 cfg opt bad="" skipped="" good=0 calls wild
	calls=$(awk -f "$SRC/tests/nexrv/calls.awk" "$WORK/$n.pcseq")
	wild=${calls##* }
	for cfg in "${NX_CFGS[@]}"; do
		opt=()
		case "$cfg" in
		*"-cs -"*)
			if [ "$wild" -gt 0 ]; then
				skipped="$skipped [$cfg: $wild returns not to their call]"
				continue
			fi
			opt=(--implicit-return count) ;;
		*"-cs 0"*) ;;
		*"-cs "*) opt=(--implicit-return full) ;;
		esac
		# shellcheck disable=SC2086	# the configuration is words
		if ! "$NEXRV" -enco "$WORK/$n.pcseq" -nex "$WORK/$n.nx" $cfg >"$WORK/$n.enc" 2>&1; then
			bad="$bad [$cfg: NexRv: $(grep -m1 ERROR "$WORK/$n.enc")]"
			continue
		fi
		case "$cfg" in
		*"-rpt 1"* | *"-rpt 3"*)
			if repeat_after_uaddr "$WORK/$n.nx"; then
				skipped="$skipped [$cfg: RepeatBranch after a non-zero U-ADDR]"
				continue
			fi ;;
		esac
		"$T" decode -q "${opt[@]}" --elf "$elf" "$WORK/$n.nx" >"$WORK/$n.out" 2>&1
		if cmp -s "$WORK/$n.out" "$WORK/$n.truth"; then
			good=$((good + 1))
		else
			bad="$bad [$cfg: $(cmp "$WORK/$n.out" "$WORK/$n.truth" 2>&1 | head -1)]"
		fi
	done
	if [ -z "$bad" ]; then
		ok "$n: NexRv's encoder, $good configurations, decode exactly${skipped:+ (left out:$skipped)}"
	else
		not_ok "$n: NexRv's encoder: decoded wrong:$bad"
	fi
}

# ours_to_nexrv NAME PCS ELF INFO TRUTH: our encoder, every configuration
# in OUR_CFGS, decoded by NexRv with INFO; compared with TRUTH.
ours_to_nexrv() {
	local n=$1 pcs=$2 elf=$3 info=$4 truth=$5 cfg bad="" skipped="" good=0 calls depth wild
	calls=$(awk -f "$SRC/tests/nexrv/calls.awk" "$WORK/$n.pcseq" 2>/dev/null || echo "depth 0 wild 0")
	depth=$(echo "$calls" | awk '{ print $2 }') wild=${calls##* }
	for cfg in "${OUR_CFGS[@]}"; do
		case "$cfg" in
		*implicit-return*)
			if [ "$depth" -ge 32 ]; then
				skipped="$skipped [$cfg: calls $depth deep]"
				continue
			fi
			if [ "$wild" -gt 0 ] && [[ "$cfg" = *count* ]]; then
				skipped="$skipped [$cfg: $wild returns not to their call]"
				continue
			fi ;;
		esac
		# shellcheck disable=SC2086
		if ! "$T" encode --pcs "$pcs" --elf "$elf" $cfg -o "$WORK/$n.ours" 2>"$WORK/$n.err"; then
			bad="$bad [$cfg: encode: $(head -c 200 "$WORK/$n.err")]"
			continue
		fi
		"$NEXRV" -deco "$WORK/$n.ours" -pcinfo "$info" -pcout "$WORK/$n.nxout" >"$WORK/$n.dlog" 2>&1
		if lower "$WORK/$n.nxout" | cmp -s - "$truth"; then
			good=$((good + 1))
		else
			bad="$bad [$cfg: $(lower "$WORK/$n.nxout" | cmp - "$truth" 2>&1 | head -1); $(grep -m1 ERROR "$WORK/$n.dlog")]"
		fi
	done
	if [ -z "$bad" ]; then
		ok "$n: our encoder, $good configurations, decode exactly with NexRv${skipped:+ (left out:$skipped)}"
	else
		not_ok "$n: NexRv's decoder on our encoder's output is wrong:$bad"
	fi
}

# RV64: every user-mode ground-truth program (bare-metal ones take traps
# that NexRv has no way to express)
progs=$(awk '$3 == "user" { print $1 }' "$NTRACE_GT_DIR/manifest" 2>/dev/null)
if [ -z "$progs" ]; then
	skip "ground truth" "none in $NTRACE_GT_DIR (run tests/gt/build-suite.sh)"
fi
for n in $progs; do
	if ! gt_copy "$n" "$WORK/$n.pcs" "$WORK/$n.elf" >/dev/null; then
		not_ok "$n: no ground truth in $NTRACE_GT_DIR"
		continue
	fi
	if ! "$CONV" "$GT" "$WORK/$n.pcs" "$WORK/$n.elf" "$WORK/$n" 2>"$WORK/$n.conv"; then
		not_ok "$n: gt2nexrv.sh: $(head -c 200 "$WORK/$n.conv")"
		continue
	fi
	nexrv_to_ours "$n" "$WORK/$n.elf"
	ours_to_nexrv "$n" "$WORK/$n.pcs" "$WORK/$n.elf" "$WORK/$n.pcinfo" "$WORK/$n.retired"
	rm -f "$WORK/$n".*nx* "$WORK/$n.out" "$WORK/$n.ours"
done

# RV32 (as tests/rv32.sh builds and records them): NexRv's addresses are
# 64-bit wide, the ELF class tells perf-ntrace the XLEN
if command -v "$CC" >/dev/null && command -v qemu-riscv32 >/dev/null; then
	for p in switch recursion; do
		n=$p-O2-rv32imac elf=$WORK/$n.elf32
		if ! "$CC" -O2 -march=rv32imac -mabi=ilp32 -ffreestanding -nostdlib -static -fno-pic \
			-no-pie -Wl,--build-id=none -o "$elf" "$SRC/tests/rv32-start.S" \
			"$SRC/tests/gt/progs/$p.c" 2>"$WORK/$n.cc"; then
			not_ok "$n: does not build: $(head -c 200 "$WORK/$n.cc")"
			continue
		fi
		qemu-riscv32 -one-insn-per-tb -d exec,nochain -D "$WORK/$n.log" "$elf" >/dev/null 2>&1
		if [ $? -gt 1 ] || ! "$GT" execlog "$WORK/$n.log" "$WORK/$n.pcs" "$elf" >/dev/null 2>&1 ||
			! "$CONV" "$GT" "$WORK/$n.pcs" "$elf" "$WORK/$n" 2>"$WORK/$n.conv"; then
			not_ok "$n: no ground truth or conversion: $(head -c 200 "$WORK/$n.conv")"
			continue
		fi
		rm -f "$WORK/$n.log"
		nexrv_to_ours "$n" "$elf"
		ours_to_nexrv "$n" "$WORK/$n.pcs" "$elf" "$WORK/$n.pcinfo" "$WORK/$n.retired"
	done
else
	skip "rv32" "$CC or qemu-riscv32 not installed"
fi

# NexRv's own example (RV32, a PC list recorded by another simulator): its
# PC info from its objdump listing, our PC list from its PC-only list
t1=${NXSRC:+$NXSRC/examples/t1}
if [ -n "$t1" ] && [ -f "$t1/test.elf" ] && [ -f "$t1/test-PCONLY.txt" ] &&
	[ -f "$t1/test-OBJD.txt" ]; then
	n=t1
	lower "$t1/test-PCONLY.txt" | tr -d '\r' >"$WORK/$n.truth"
	"$NEXRV" -conv -objd "$t1/test-OBJD.txt" -pcinfo "$WORK/$n.pcinfo" >/dev/null 2>&1 &&
		"$NEXRV" -conv -pcinfo "$WORK/$n.pcinfo" -pconly "$t1/test-PCONLY.txt" \
			-pcseq "$WORK/$n.pcseq" >/dev/null 2>&1
	check "t1: NexRv reads its example" test -s "$WORK/$n.pcseq"
	nexrv_to_ours "$n" "$t1/test.elf"
	ours_to_nexrv "$n" "$WORK/$n.truth" "$t1/test.elf" "$WORK/$n.pcinfo" "$WORK/$n.truth"
else
	skip "t1" "NexRv's examples/t1 not found (NTRACE_NEXRV_SRC)"
fi

tap_status
