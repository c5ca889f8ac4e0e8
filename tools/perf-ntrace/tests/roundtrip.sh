#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# End-to-end round trip: for every ground-truth program (QEMU-recorded
# retired PCs), encode the ingress records with the encoder model in every
# configuration, decode with the flow decoder and require the decoded PC
# sequence to equal the recorded one instruction for instruction; then
# corrupted/truncated variants (rt-tool), and the perf-ntrace decode command
# itself on a few configurations. Prints flat TAP lines.
#
# Ground truth: $NTRACE_GT_DIR (default build/gt) pairs NAME.pcs + NAME.elf;
# without them the test programs of tests/gt/progs are built and recorded
# here with riscv64-linux-gnu-gcc and qemu-riscv64 (cached in the build dir).
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD GT_DIR=$NTRACE_GT_DIR
scratch WORK "$BUILD/roundtrip" || exit 1

skip_all() {
	skip roundtrip "$1"
	exit 0
}

# rt-tool and gt-tool are built by "make all" (make test-tools). They and
# the command are copied: other builds may rewrite the build directory.
[ -x "$BUILD/tools/rt-tool" ] || skip_all "rt-tool not built (make test-tools)"
cp "$PERF_NTRACE" "$WORK/perf-ntrace" || { not_ok "roundtrip: no $PERF_NTRACE"; exit 1; }
TOOL=$WORK/perf-ntrace
cp "$BUILD/tools/rt-tool" "$BUILD/tools/gt-tool" "$WORK/"

# Collect NAME.pcs + image (NAME.elf or NAME) pairs; the privilege of the
# records comes from GT_DIR/manifest ("NAME PRIV KIND") when there is one.
# The files are copied first: ground truth may be re-recorded meanwhile.
progs=()
declare -A IMG PRIV
if ls "$GT_DIR"/*.pcs >/dev/null 2>&1; then
	S=$WORK/snapshot
	rm -rf "$S"
	mkdir -p "$S"
	for p in "$GT_DIR"/*.pcs; do
		n=$(basename "$p" .pcs)
		if pr=$(gt_copy "$n" "$S/$n.pcs" "$S/$n.elf"); then
			progs+=("$S/$n")
			IMG[$S/$n]=$S/$n.elf
			PRIV[$S/$n]=$pr
		fi
	done
fi
if [ ${#progs[@]} -eq 0 ]; then
	command -v riscv64-linux-gnu-gcc >/dev/null || skip_all "no ground truth and no riscv64-linux-gnu-gcc"
	command -v qemu-riscv64 >/dev/null || skip_all "no ground truth and no qemu-riscv64"
	G=$BUILD/roundtrip/gt	# recorded once, reused by later runs
	mkdir -p "$G"
	for c in "$SRC"/tests/gt/progs/*.c; do
		n=$(basename "$c" .c)
		if [ ! -s "$G/$n.pcs" ] || [ "$c" -nt "$G/$n.pcs" ]; then
			record_user_gt "$WORK/gt-tool" "$c" "$G/$n.elf" "$G/$n.pcs" ||
				{ not_ok "roundtrip $n: ground truth recording failed"; continue; }
		fi
		progs+=("$G/$n")
		IMG[$G/$n]=$G/$n.elf
	done
	echo "# ground truth recorded here: ${progs[*]}"
fi

rc=0	# rt-tool's own result lines do not count in TAP_FAILED
rtargs() {	# PROG -> options and image for rt-tool
	local pr=${PRIV[$1]:-}
	[ -n "$pr" ] && printf -- '--priv\n%s\n' "$pr"
	printf '%s\n' "${IMG[$1]}"
}
for p in "${progs[@]}"; do
	mapfile -t a < <(rtargs "$p")
	"$WORK/rt-tool" all "$p.pcs" "${a[@]}" || rc=1
done

# The command line, on its defaults and with explicit settings. BTM or HTM
# is never given: the decoder tells it from the messages (a wrong --mode
# for htm-src shows the stream wins).
declare -A CLI=(
	[htm-ret8-rh]=""
	[btm]="--implicit-return=off"
	[btm-sync]="--implicit-return=off"
	[htm-retcount]="--implicit-return=count"
	[htm-src]="--mode=btm --src-bits=5 --src=19"
	[htm-tstamp-ctx-src]="--ts --src-bits=2 --src=1"
	[htm-v0-tstamp-src]="--variant=sifive-v0 --ts --src-bits=2 --src=1"
	[btm-alljumps]="--all-jumps --implicit-return=off"
	[htm-btype1-msb]="--ext-addr"
	[btm-3bit]="--itype-bits=3"
)
for p in "${progs[@]}"; do
	n=$(basename "$p")
	mapfile -t a < <(rtargs "$p")
	"$WORK/rt-tool" expect "$p.pcs" "$WORK/$n.expect" "${a[@]}" || { rc=1; continue; }
	for cfg in "${!CLI[@]}"; do
		if ! "$WORK/rt-tool" count-ok "$cfg" "$p.pcs" "${a[@]}"; then
			skip "cli $n $cfg" "returns elsewhere than to the call site (spec limitation of counting)"
			continue
		fi
		bin=$WORK/$n.$cfg.bin
		out=$WORK/$n.$cfg.pc
		if ! "$WORK/rt-tool" encode "$cfg" "$p.pcs" "$bin" "${a[@]}"; then
			not_ok "cli $n $cfg: encoding failed"; continue
		fi
		# shellcheck disable=SC2086
		"$TOOL" decode --elf "${IMG[$p]}" ${CLI[$cfg]} --format=pc -o "$out" "$bin" 2>"$out.err"
		st=$?
		if [ $st -eq 0 ] && cmp -s "$out" "$WORK/$n.expect" && [ ! -s "$out.err" ]; then
			ok "cli $n $cfg: perf-ntrace decode ${CLI[$cfg]:-with no option} matches the recorded PCs"
		else
			not_ok "cli $n $cfg: exit $st, $(wc -l <"$out") lines vs" \
				"$(wc -l <"$WORK/$n.expect") recorded; $(head -c 300 "$out.err")"
		fi
		rm -f "$bin" "$out" "$out.err"
	done
	# the other output formats, checked against the recorded flow
	bin=$WORK/$n.fmt.bin
	"$WORK/rt-tool" encode htm-ret8-rh "$p.pcs" "$bin" "${a[@]}"
	for f in tv branches; do
		"$TOOL" decode --elf "${IMG[$p]}" --mode=htm --format=$f -o "$WORK/$n.$f" "$bin" \
			2>"$WORK/$n.$f.err"
		st=$?
		if [ $f = tv ]; then
			res=$("$WORK/rt-tool" check-tv "$WORK/$n.$f" "$p.pcs" "${a[@]}")
		else
			res=$("$WORK/rt-tool" check-branches "$WORK/$n.$f" "$p.pcs" "${a[@]}")
		fi
		if [ $? -eq 0 ] && [ $st -eq 0 ]; then
			ok "cli $n --format=$f: $res"
		else
			not_ok "cli $n --format=$f: exit $st: $res $(head -c 200 "$WORK/$n.$f.err")"
		fi
		rm -f "$WORK/$n.$f.err"
	done
	# --format=stats only counts (and leaps over branches, dec_leap.c):
	# its taken branches and jumps must be those of the branch records,
	# which were checked against the ground truth above
	"$TOOL" decode --elf "${IMG[$p]}" --mode=htm --format=stats -o "$WORK/$n.stats" "$bin"
	want=$(awk '$3 == "taken" || $3 == "jump" || $3 == "call" { t++ }
		END { printf "taken: %d", t }' "$WORK/$n.branches")
	got=$(grep '^taken:' "$WORK/$n.stats")
	if grep -q "^instructions: $(wc -l <"$WORK/$n.expect")\$" "$WORK/$n.stats" &&
	   grep -q "^errors: 0\$" "$WORK/$n.stats" && [ "$got" = "$want" ]; then
		ok "cli $n --format=stats counts every instruction, and the branch records' transfers ($want)"
	else
		not_ok "cli $n --format=stats: $(tr '\n' ' ' <"$WORK/$n.stats" | head -c 300); branch records' $want"
	fi
	rm -f "$bin" "$WORK/$n.stats" "$WORK/$n.tv" "$WORK/$n.branches"
done

# A setting the stream cannot show, given wrong: the error names the option.
declare -A WRONG=(
	[htm-ret8-rh]="--implicit-return=off|--implicit-return"
	[htm-alljumps]="--implicit-return=off|--all-jumps"
)
for p in "${progs[@]}"; do
	n=$(basename "$p")
	case $n in deepcall-O2-g|funcptr-O2-gc|switch-O0-g) ;; *) continue ;; esac
	mapfile -t a < <(rtargs "$p")
	for cfg in "${!WRONG[@]}"; do
		opt=${WRONG[$cfg]%|*} want=${WRONG[$cfg]#*|}
		"$WORK/rt-tool" encode "$cfg" "$p.pcs" "$WORK/$n.bin" "${a[@]}" || { rc=1; continue; }
		msg=$("$TOOL" decode --elf "${IMG[$p]}" "$opt" -o /dev/null "$WORK/$n.bin" 2>&1 |
			grep -m1 'error')
		if [ -z "$msg" ]; then
			skip "cli $n $cfg decoded with $opt" "no error (the program never needs $want)"
		elif [[ $msg == *"$want"* ]]; then
			ok "cli $n $cfg decoded with $opt: the error names $want"
		else
			not_ok "cli $n $cfg decoded with $opt: the error does not name $want: $msg"
		fi
		rm -f "$WORK/$n.bin"
	done
done

# A wrapped circular buffer: the trace starts mid-message; --wrapped skips to
# the first end of message and decoding starts at the next sync.
for p in "${progs[@]}"; do
	n=$(basename "$p")
	case $n in loop-O2-g|switch-O2-gc|recursion-O0-g|loop|switch) ;; *) continue ;; esac
	mapfile -t a < <(rtargs "$p")
	"$WORK/rt-tool" encode btm-sync "$p.pcs" "$WORK/$n.bin" "${a[@]}" || { rc=1; continue; }
	size=$(stat -c %s "$WORK/$n.bin")
	tail -c +$((size / 3 + 1)) "$WORK/$n.bin" >"$WORK/$n.cut"
	"$TOOL" decode --elf "${IMG[$p]}" --wrapped --implicit-return=off -o "$WORK/$n.pc" \
		"$WORK/$n.cut" 2>"$WORK/$n.err"
	st=$?
	res=$("$WORK/rt-tool" check-sub "$WORK/$n.pc" "$p.pcs" "${a[@]}")
	if [ $? -eq 0 ] && [ $st -eq 0 ] && [ -s "$WORK/$n.pc" ] && [ ! -s "$WORK/$n.err" ]; then
		ok "cli $n --wrapped from byte $((size / 3)) of $size: $res"
	else
		not_ok "cli $n --wrapped: exit $st: $res $(head -c 200 "$WORK/$n.err")"
	fi
	rm -f "$WORK/$n.bin" "$WORK/$n.cut" "$WORK/$n.pc" "$WORK/$n.err"
done

# An encoder quirk: a stray end-of-message byte (0x03) after every 50th
# message. By default the branch records are those of the clean trace,
# with one warning and the bytes counted; --strict makes each an error.
for p in "${progs[@]}"; do
	n=$(basename "$p")
	case $n in loop-O2-g|switch-O2-gc|recursion-O0-g) ;; *) continue ;; esac
	mapfile -t a < <(rtargs "$p")
	"$WORK/rt-tool" encode htm-ret8-rh "$p.pcs" "$WORK/$n.bin" "${a[@]}" &&
		nst=$("$WORK/rt-tool" encode-stray htm-ret8-rh 50 "$p.pcs" "$WORK/$n.st" "${a[@]}") ||
		{ not_ok "cli $n stray bytes: encoding failed"; continue; }
	nst=${nst%% *}
	for f in bin st; do
		"$TOOL" decode --elf "${IMG[$p]}" --mode=htm --format=branches -o "$WORK/$n.$f.br" \
			"$WORK/$n.$f" 2>"$WORK/$n.$f.err"
	done
	"$TOOL" decode --elf "${IMG[$p]}" --mode=htm --format=stats -o "$WORK/$n.st.stats" \
		"$WORK/$n.st" 2>/dev/null
	"$TOOL" decode --elf "${IMG[$p]}" --mode=htm --strict --format=stats \
		-o "$WORK/$n.strict" "$WORK/$n.st" 2>/dev/null
	errs=$(sed -n 's/^errors: //p' "$WORK/$n.strict")
	if [ "$nst" -gt 0 ] && cmp -s "$WORK/$n.bin.br" "$WORK/$n.st.br" &&
	   [ "$(grep -c 'stray_eom\|end-of-message' "$WORK/$n.st.err")" = 1 ] &&
	   grep -q "^quirk.stray_eom: $nst\$" "$WORK/$n.st.stats" && [ "${errs:-0}" -ge "$nst" ]; then
		ok "cli $n with $nst stray end-of-message bytes: the clean trace's branch records, one warning; --strict: $errs errors"
	else
		not_ok "cli $n with ${nst:-?} stray end-of-message bytes: $(cmp "$WORK/$n.bin.br" "$WORK/$n.st.br" 2>&1 | head -1); $(head -c 300 "$WORK/$n.st.err"); quirks: $(grep quirk "$WORK/$n.st.stats"); strict errors: ${errs:-?}"
	fi
	rm -f "$WORK/$n".{bin,st,bin.br,st.br,bin.err,st.err,st.stats,strict}
done

# Bare-metal code as a raw binary (--bin FILE@ADDR) instead of the ELF.
if command -v riscv64-linux-gnu-objcopy >/dev/null; then
	for p in "${progs[@]}"; do
		[ "${PRIV[$p]:-u}" = m ] || continue
		n=$(basename "$p")
		base=$(riscv64-linux-gnu-readelf -lW "${IMG[$p]}" | awk '$1 == "LOAD" { print $3; exit }')
		mapfile -t a < <(rtargs "$p")
		if riscv64-linux-gnu-objcopy -O binary "${IMG[$p]}" "$WORK/$n.raw" &&
		   "$WORK/rt-tool" encode htm-ret8-rh "$p.pcs" "$WORK/$n.bin" "${a[@]}" &&
		   "$TOOL" decode --bin "$WORK/$n.raw@$base" --mode=htm -o "$WORK/$n.pc" "$WORK/$n.bin" &&
		   cmp -s "$WORK/$n.pc" "$WORK/$n.expect"; then
			ok "cli $n --bin raw image at $base decodes like the ELF"
		else
			not_ok "cli $n --bin raw image at $base"
		fi
		rm -f "$WORK/$n.raw" "$WORK/$n.bin" "$WORK/$n.pc"
	done
fi

# Command-line errors must be clear and non-zero.
p=${progs[0]}
mapfile -t a < <(rtargs "$p")
"$WORK/rt-tool" encode htm-ret8-rh "$p.pcs" "$WORK/err.bin" "${a[@]}"
check_err() {	# name expected-status pattern args...
	local name=$1 want=$2 pat=$3
	shift 3
	local msg st
	msg=$("$TOOL" decode "$@" 2>&1 >/dev/null)
	st=$?
	if [ $st -eq "$want" ] && grep -q -- "$pat" <<<"$msg"; then
		ok "cli error: $name"
	else
		not_ok "cli error: $name (exit $st, wanted $want /$pat/): $msg"
	fi
}
check_err "missing ELF" 2 "cannot open" --elf "$WORK/no-such.elf" "$WORK/err.bin"
check_err "non-RISC-V ELF" 2 "not RISC-V" --elf /bin/sh "$WORK/err.bin"
check_err "unreadable trace" 2 "cannot open" --elf "${IMG[$p]}" "$WORK/no-such.bin"
check_err "no image" 2 "no program image" "$WORK/err.bin"
head -c 4096 /dev/zero | tr '\0' '\377' >"$WORK/idle.bin"
check_err "trace without messages" 1 "nothing decoded" --elf "${IMG[$p]}" "$WORK/idle.bin"
printf '\x24\x15\x00\x00\x00\x00\x00\x07\x10\x21\x03' >"$WORK/far.bin"	# sync at 0x80000000, a jump
check_err "PC outside every image" 1 "outside every loaded image" --elf "${IMG[$p]}" "$WORK/far.bin"
rm -f "$WORK/err.bin" "$WORK/idle.bin" "$WORK/far.bin"
[ $rc = 0 ] && tap_status
