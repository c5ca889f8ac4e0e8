#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace encode from its other ingress inputs, end to end through the
# command line: a ground-truth .pcs + ELF (--pcs/--elf), the same PCs as a
# text list (with trap lines), raw bare-metal images (--bin), and a seed-002
# tandem-verification trace (--tv, traps included). Every trace is decoded
# with perf-ntrace decode and must give exactly the PCs QEMU retired (read
# here from the .pcs with od, not through the library). Then bad input:
# clear messages and exit status 2. Prints flat TAP lines.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD
scratch WORK "$BUILD/cli-encode" || exit 1
TAP_PREFIX="cli encode: "

skip_all() {
	TAP_PREFIX= skip "cli encode inputs" "$1"
	exit 0
}

# gt-tool writes tandem traces from ground truth (and records it if needed)
[ -x "$BUILD/tools/gt-tool" ] || skip_all "gt-tool not built (make test-tools)"
# copies: other builds may rewrite the build directory meanwhile
cp "$PERF_NTRACE" "$WORK/perf-ntrace" || { not_ok "no $PERF_NTRACE"; exit 1; }
TOOL=$WORK/perf-ntrace
cp "$BUILD/tools/gt-tool" "$WORK/gt-tool"

# Ground truth: NAME.pcs + image NAME (or NAME.elf) and privilege, copied
# (it may be re-recorded meanwhile). Without build/gt, record two programs.
declare -A PRIV
progs=()
S=$WORK/gt
mkdir -p "$S"
for n in loop-O2-gc funcptr-O0-g switch-O2-gc traps-notimer-g traps-gc; do
	if pr=$(gt_copy "$n" "$S/$n.pcs" "$S/$n"); then
		progs+=("$n")
		PRIV[$n]=$pr
	fi
done
if [ ${#progs[@]} -eq 0 ]; then
	command -v riscv64-linux-gnu-gcc >/dev/null || skip_all "no ground truth and no riscv64-linux-gnu-gcc"
	command -v qemu-riscv64 >/dev/null || skip_all "no ground truth and no qemu-riscv64"
	for n in loop funcptr; do
		record_user_gt "$WORK/gt-tool" "$SRC/tests/gt/progs/$n.c" "$S/$n" "$S/$n.pcs" ||
			{ not_ok "$n: ground truth recording failed"; continue; }
		progs+=("$n")
	done
	echo "# ground truth recorded here: ${progs[*]}"
fi
[ ${#progs[@]} -gt 0 ] || { not_ok "no ground truth"; exit 1; }

# The .pcs words (od, little-endian hosts) as pcs-words.awk's OUT: "0xPC"
# per retired instruction (pcs), a text PC list (text), or the traps (traps).
pcs_words() {	# OUT FILE
	tail -c +9 "$2" | od -An -v -tx8 -w8 | awk -v out="$1" -f "$SRC/tests/pcs-words.awk"
}

# decode TRACE into PCs and compare; name, then decode options
check_decode() {
	local name=$1 p=$2 bin=$3
	shift 3
	"$TOOL" decode --elf "$S/$p" "$@" -o "$WORK/out.pc" "$bin" 2>"$WORK/dec.err"
	local st=$?
	if [ $st -eq 0 ] && [ ! -s "$WORK/dec.err" ] && cmp -s "$WORK/out.pc" "$WORK/$p.expect"; then
		ok "$name: decode gives the $(wc -l <"$WORK/$p.expect") recorded PCs"
	else
		not_ok "$name: decode exit $st, $(wc -l <"$WORK/out.pc") PCs vs $(wc -l <"$WORK/$p.expect") recorded; $(head -c 300 "$WORK/dec.err")"
	fi
}

# encoder configurations: "encode options|decode options"
CFGS=(
	"--implicit-return=off|--implicit-return=off"
	"--mode=htm --implicit-return=full --return-depth=8|--mode=htm"
	"--mode=htm --ts --src-bits=3 --src-id=5 --repeated-history|--mode=htm --ts --src-bits=3 --src=5"
	"--itype-bits=3 --icnt-bits=8|--itype-bits=3"
	"--all-jumps --sync-mode=msgs --sync-max=0 --ext-addr|--all-jumps --implicit-return=off --ext-addr"
	# decoder settings from register words typed from the TCI tables: trTeControl
	# HTM; trTeInstFeatures EnImplicitReturn, mode 2, EnRepeatedHistory, SrcID 5,
	# SrcBits 3; trTsControl Active Count External Enable
	"--mode=htm --implicit-return=partial --repeated-history --ts --src-bits=3 --src-id=5|--regs 0x01000061,0x30050188,0x8013 --src=5"
)

for p in "${progs[@]}"; do
	pcs_words pcs "$S/$p.pcs" >"$WORK/$p.expect"
	pr=${PRIV[$p]:-u}
	for c in "${CFGS[@]}"; do
		enc=${c%%|*}
		dec=${c#*|}
		# shellcheck disable=SC2086
		if "$TOOL" encode $enc --priv "$pr" --pcs "$S/$p.pcs" --elf "$S/$p" \
			-o "$WORK/$p.bin" 2>"$WORK/enc.err" && [ ! -s "$WORK/enc.err" ]; then
			# shellcheck disable=SC2086
			check_decode "$p --pcs $enc" "$p" "$WORK/$p.bin" $dec
		else
			not_ok "$p --pcs $enc: encode failed: $(head -c 300 "$WORK/enc.err")"
		fi
	done

	# the text PC list gives the very same bytes as the .pcs
	pcs_words text "$S/$p.pcs" >"$WORK/$p.txt"
	"$TOOL" encode --mode=htm --priv "$pr" --pcs "$S/$p.pcs" --elf "$S/$p" -o "$WORK/a.bin"
	if "$TOOL" encode --mode=htm --priv "$pr" --pcs "$WORK/$p.txt" --elf "$S/$p" \
		-o "$WORK/b.bin" 2>"$WORK/enc.err" && cmp -s "$WORK/a.bin" "$WORK/b.bin"; then
		ok "$p text PC list ($(grep -c '^trap' "$WORK/$p.txt") trap lines) encodes like the .pcs"
		check_decode "$p text PC list" "$p" "$WORK/b.bin" --mode=htm
	else
		not_ok "$p text PC list: $(head -c 300 "$WORK/enc.err")"
	fi

	# seed-002 tandem trace written from the ground truth, with its traps
	if "$WORK/gt-tool" tv-roundtrip "$S/$p.pcs" --priv "$pr" "$WORK/$p.tv" "$S/$p" >/dev/null &&
	   "$TOOL" encode --mode=htm --implicit-return=full --tv "$WORK/$p.tv" -o "$WORK/$p.tvbin" \
		2>"$WORK/enc.err"; then
		check_decode "$p --tv" "$p" "$WORK/$p.tvbin" --mode=htm
		want=$(pcs_words traps "$S/$p.pcs")
		got=$("$TOOL" decode --elf "$S/$p" --mode=htm --format=stats "$WORK/$p.tvbin" |
			sed -n 's/^traps: //p')
		if [ -n "$want" ] && [ "$want" = "$got" ]; then
			ok "$p --tv: the $want recorded traps are in the trace"
		else
			not_ok "$p --tv: $got traps decoded, $want recorded"
		fi
	else
		not_ok "$p --tv: encode failed: $(head -c 300 "$WORK/enc.err")"
	fi
done

# a bare-metal program as a raw image
if command -v riscv64-linux-gnu-objcopy >/dev/null; then
	for p in "${progs[@]}"; do
		[ "${PRIV[$p]:-u}" = m ] || continue
		base=$(riscv64-linux-gnu-readelf -lW "$S/$p" | awk '$1 == "LOAD" { print $3; exit }')
		riscv64-linux-gnu-objcopy -O binary "$S/$p" "$WORK/$p.raw"
		if "$TOOL" encode --mode=htm --priv m --pcs "$S/$p.pcs" --bin "$WORK/$p.raw@$base" \
			-o "$WORK/$p.rawbin" 2>"$WORK/enc.err"; then
			check_decode "$p --bin raw image at $base" "$p" "$WORK/$p.rawbin" --mode=htm
		else
			not_ok "$p --bin: $(head -c 300 "$WORK/enc.err")"
		fi
		break
	done
fi

# bad input: exit status 2, a message naming the cause, no output file
p=${progs[0]}
check_err() {	# name pattern args...
	local name=$1 pat=$2
	shift 2
	rm -f "$WORK/err.bin"
	local msg st
	msg=$("$TOOL" encode -o "$WORK/err.bin" "$@" 2>&1 >/dev/null)
	st=$?
	if [ $st -eq 2 ] && grep -q -- "$pat" <<<"$msg" && [ ! -e "$WORK/err.bin" ]; then
		ok "error: $name"
	else
		not_ok "error: $name (exit $st, wanted 2 and /$pat/): $msg"
	fi
}
first=$(head -1 "$WORK/$p.expect")
printf '%s\n0x10\n' "$first" >"$WORK/outside.txt"
printf '# comment\n%s\n0xzz\n' "$first" >"$WORK/malformed.txt"
printf '%s\n0x1001\n' "$first" >"$WORK/odd.txt"
printf 'NTGTPCS1\001\002\003' >"$WORK/short.pcs"
head -c 8 "$S/$p.pcs" >"$WORK/trapend.pcs"
printf '\x01\x00\x01\x00\x00\x00\x00\x00' >>"$WORK/trapend.pcs"
printf '\x01\x00\x00\x00' >"$WORK/cut.tv"
printf '# nothing\n' >"$WORK/empty.txt"
check_err "missing ELF" "cannot open" --pcs "$S/$p.pcs" --elf "$WORK/no-such.elf"
check_err "non-RISC-V ELF" "not RISC-V" --pcs "$S/$p.pcs" --elf /bin/sh
check_err "--pcs without an image" "needs the program images" --pcs "$S/$p.pcs"
check_err "missing .pcs" "cannot open '$WORK/no.pcs'" --pcs "$WORK/no.pcs" --elf "$S/$p"
check_err "PC outside the images, with its line" "outside.txt:2: address 0x10 is outside every loaded image" \
	--pcs "$WORK/outside.txt" --elf "$S/$p"
check_err "malformed PC line" "malformed.txt:3: expected a hex PC" --pcs "$WORK/malformed.txt" --elf "$S/$p"
check_err "odd PC" "odd.txt:2: odd address 0x1001" --pcs "$WORK/odd.txt" --elf "$S/$p"
check_err "truncated .pcs" "size is not 8 + a multiple of 8" --pcs "$WORK/short.pcs" --elf "$S/$p"
check_err ".pcs ending in a trap mark" "trap mark without a cause" --pcs "$WORK/trapend.pcs" --elf "$S/$p"
check_err "empty PC list" "no retired instruction" --pcs "$WORK/empty.txt" --elf "$S/$p"
check_err "truncated tandem trace" "bad tandem-verification trace" --tv "$WORK/cut.tv"
check_err "missing tandem trace" "cannot open" --tv "$WORK/no.tv"
check_err "two inputs" "only one of" --pcs "$S/$p.pcs" --tv "$WORK/cut.tv" --elf "$S/$p"
check_err "--elf without --pcs" "only apply to --pcs" --tv "$WORK/cut.tv" --elf "$S/$p"
check_err "bad --priv" "bad value for --priv" --priv x --pcs "$S/$p.pcs" --elf "$S/$p"
check_err "--bin without address" "needs FILE@ADDR" --pcs "$S/$p.pcs" --bin "$S/$p"
# a jump the instructions do not explain: a warning by default, --strict fails
printf '%s\n%s\n' "$first" "$first" >"$WORK/jump.txt"
if "$TOOL" encode --pcs "$WORK/jump.txt" --elf "$S/$p" -o "$WORK/j.bin" 2>"$WORK/j.err" &&
   grep -q "1 successor(s) that no instruction explains" "$WORK/j.err"; then
	ok "unexplained successor is a warning"
else
	not_ok "unexplained successor: $(cat "$WORK/j.err")"
fi
check_err "--strict rejects an unexplained successor" "unmarked discontinuit" \
	--strict --pcs "$WORK/jump.txt" --elf "$S/$p"
tap_status
