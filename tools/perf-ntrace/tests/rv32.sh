#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RV32: the ground-truth programs (tests/gt/progs) built for RV32 with the
# riscv64 cross compiler (-march=rv32imac or rv32ima, -mabi=ilp32, no libc:
# rv32-start.S calls main and leaves through the exit system call), run in
# qemu-riscv32 user mode, whose exec log is the truth. From their ELF32
# images, every encoder configuration of rt-tool round-trips exactly, and
# the command encodes a PC list and decodes it back with no XLEN and no
# BTM/HTM option. longjmp.c needs libc's setjmp and is left out.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD
TAP_PREFIX="rv32: "
CC=${CROSS_COMPILE}gcc

for t in "$CC" qemu-riscv32; do
	command -v "$t" >/dev/null || { skip "rv32" "$t not installed"; exit 0; }
done
[ -x "$BUILD/tools/rt-tool" ] || { skip "rv32" "rt-tool not built (make test-tools)"; exit 0; }
scratch WORK "$BUILD/rv32" || exit 1
cp "$PERF_NTRACE" "$BUILD/tools/rt-tool" "$BUILD/tools/gt-tool" "$WORK/"
T=$WORK/perf-ntrace

for c in "$SRC"/tests/gt/progs/*.c; do
	p=$(basename "$c" .c)
	[ "$p" = longjmp ] && continue
	for v in O2-rv32imac O0-rv32ima; do
		n=$p-$v elf=$WORK/$p-$v.elf
		if ! "$CC" "-${v%%-*}" -march="${v#*-}" -mabi=ilp32 -ffreestanding -nostdlib \
			-static -fno-pic -no-pie -Wl,--build-id=none -o "$elf" \
			"$SRC/tests/rv32-start.S" "$c" 2>"$WORK/$n.cc"; then
			not_ok "$n: does not build: $(head -c 200 "$WORK/$n.cc")"
			continue
		fi
		qemu-riscv32 -one-insn-per-tb -d exec,nochain -D "$WORK/$n.log" "$elf" \
			>/dev/null 2>&1
		st=$?
		if [ $st -gt 1 ] || ! "$WORK/gt-tool" execlog "$WORK/$n.log" "$WORK/$n.pcs" \
			"$elf" >"$WORK/$n.gt" 2>&1; then
			not_ok "$n: no ground truth (exit $st): $(head -c 200 "$WORK/$n.gt")"
			continue
		fi
		rm -f "$WORK/$n.log"
		check "$n: the program is ELF32 (RV32)" \
			eval "${CROSS_COMPILE}readelf -h '$elf' | grep -q 'Class:.*ELF32'"

		# every encoder configuration, in-process
		"$WORK/rt-tool" all "$WORK/$n.pcs" "$elf" >"$WORK/$n.rt" 2>&1
		total=$(grep -c '^ok' "$WORK/$n.rt")
		bad=$(grep -c '^not ok' "$WORK/$n.rt")
		if [ "$bad" -eq 0 ] && [ "$total" -gt 0 ]; then
			ok "$n: $total encoder configurations and corruptions round-trip (rt-tool all)"
		else
			not_ok "$n: rt-tool all: $bad of $((total + bad)) fail:" \
				"$(grep -m3 '^not ok' "$WORK/$n.rt")"
		fi

		# the command: XLEN from the ELF class, BTM/HTM from the messages
		"$WORK/rt-tool" expect "$WORK/$n.pcs" "$WORK/$n.expect" "$elf"
		for m in btm htm; do
			"$T" encode --pcs "$WORK/$n.pcs" --elf "$elf" --mode $m \
				--implicit-return full -o "$WORK/$n.$m.bin" &&
				"$T" decode --elf "$elf" -o "$WORK/$n.$m.pc" "$WORK/$n.$m.bin" \
					2>"$WORK/$n.$m.err"
			st=$?
			if [ $st -eq 0 ] && cmp -s "$WORK/$n.$m.pc" "$WORK/$n.expect" &&
				[ ! -s "$WORK/$n.$m.err" ]; then
				ok "$n: perf-ntrace encode --mode $m, decode with no option:" \
					"$(wc -l <"$WORK/$n.expect") PCs as QEMU retired them"
			else
				not_ok "$n $m: exit $st, $(wc -l <"$WORK/$n.$m.pc" 2>/dev/null)" \
					"vs $(wc -l <"$WORK/$n.expect") lines; $(head -c 200 "$WORK/$n.$m.err")"
			fi
		done
	done
done

# one image set decodes one XLEN: an RV64 image among RV32 ones is refused
if "$CC" -O2 -march=rv64imac -mabi=lp64 -ffreestanding -nostdlib -static -fno-pic -no-pie \
	-o "$WORK/loop64.elf" "$SRC/tests/rv32-start.S" "$SRC/tests/gt/progs/loop.c" 2>/dev/null; then
	msg=$("$T" decode --elf "$WORK/loop-O2-rv32imac.elf" --elf "$WORK/loop64.elf@0x40000000" \
		"$WORK/loop-O2-rv32imac.btm.bin" 2>&1 >/dev/null)
	check "an RV64 image among RV32 ones is refused, naming both: $msg" \
		eval '[ $? = 2 ] && [[ $msg == *"RV64 image among RV32"* ]]'
fi
tap_status
