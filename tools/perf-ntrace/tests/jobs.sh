#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace decode --jobs: the parallel decode must write what one decoder
# writes, byte for byte. For every ground-truth program and every encoder
# configuration of the round trip (rt-tool configs), the trace is decoded
# with --jobs 1 (one decoder: the reference) and with --jobs 2 and small
# pieces (many cuts, most of them joined at a proven state, the others
# decoded again), as a PC list, branch records and counts; output, stderr
# and exit status must be equal. The configurations with periodic sync are
# also checked against the recorded PCs (an independent truth) and must
# really be split. Damaged traces (bytes flipped, a cut-out hole, cut short)
# put errors and resynchronisations across piece boundaries.
# In CI (CI=true) part 1 decodes a third of the program x configuration
# pairs (every program and every configuration, the pairs picked by a hash
# of their names: about 13 000 decodes are 15 minutes of a loaded 2-core
# CI machine); NTRACE_JOBS_ALL=1 or a run outside CI decodes them all.
# Prints flat TAP lines.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD
scratch WORK || exit 1

[ -x "$BUILD/tools/rt-tool" ] || { skip jobs "rt-tool not built (make test-tools)"; exit 0; }
cp "$PERF_NTRACE" "$BUILD/tools/rt-tool" "$WORK/" || { not_ok "jobs: no $PERF_NTRACE"; exit 1; }
TOOL=$WORK/perf-ntrace RT=$WORK/rt-tool

progs=()
declare -A PRIV
for p in "$NTRACE_GT_DIR"/*.pcs; do
	[ -e "$p" ] || break
	n=$(basename "$p" .pcs)
	if pr=$(gt_copy "$n" "$WORK/$n.pcs" "$WORK/$n.elf"); then
		progs+=("$n")
		PRIV[$n]=$pr
	fi
done
[ ${#progs[@]} -gt 0 ] || { skip jobs "no ground truth in $NTRACE_GT_DIR (run roundtrip.sh)"; exit 0; }
echo "# ${#progs[@]} programs"

privargs() {	# NAME -> rt-tool's --priv option, if any
	[ -n "${PRIV[$1]}" ] && printf -- '--priv\n%s\n' "${PRIV[$1]}"
}

# same TRACE ELF OPTS...: --jobs 1 against --jobs 2 with tiny pieces (split
# whatever the trace holds) and against the default (no --jobs: the
# decoder decides whether to split), in every format; prints what differs
# (nothing when all is equal)
same() {
	local bin=$1 elf=$2 f j st
	shift 2
	for f in pc branches stats; do
		for j in 1 2 d; do
			local extra=(--jobs $j)
			[ $j = 2 ] && extra+=(--piece-size "${PIECE:-512}")
			[ $j = d ] && extra=()
			"$TOOL" decode --elf "$elf" "${extra[@]}" "$@" --format=$f \
				-o "$bin.$f.$j" "$bin" 2>"$bin.$f.$j.err"
			echo "exit $?" >>"$bin.$f.$j.err"
		done
		for j in 2 d; do
			cmp -s "$bin.$f.1" "$bin.$f.$j" || echo "--format=$f output differs ($j)"
			cmp -s "$bin.$f.1.err" "$bin.$f.$j.err" ||
				echo "--format=$f stderr/status differs ($j)"
		done
	done
}

# 1. every program x every configuration (in CI a third of the pairs)
mapfile -t configs < <("$RT" configs)
total=0 left_out=0
every=1
[ "${CI:-}" != true ] || [ -n "${NTRACE_JOBS_ALL:-}" ] || every=3
for cfg in "${configs[@]}"; do
	bad=() n=0
	for p in "${progs[@]}"; do
		if [ $(( $(printf '%s' "$cfg/$p" | cksum | cut -d' ' -f1) % every )) != 0 ]; then
			left_out=$((left_out + 1))
			continue
		fi
		mapfile -t a < <(privargs "$p")
		bin=$WORK/$p.$cfg.bin
		"$RT" encode "$cfg" "$WORK/$p.pcs" "$bin" "${a[@]}" "$WORK/$p.elf" 2>/dev/null ||
			{ bad+=("$p(encode)"); continue; }
		# the settings the stream cannot tell, as roundtrip.sh gives them
		opts=()
		case $cfg in
		*src*) opts=(--src-bits=5) ;;
		esac
		[[ $cfg == *tstamp* ]] && opts=(--ts --src-bits=2)
		[[ $cfg == *msb* ]] && opts=(--ext-addr)
		[[ $cfg == *alljumps* ]] && opts+=(--all-jumps)
		[[ $cfg == *3bit* ]] && opts+=(--itype-bits=3)
		[[ $cfg == *seq* ]] && opts+=(--seq-jump)
		[[ $cfg == *v0* ]] && opts+=(--variant=sifive-v0)
		d=$(same "$bin" "$WORK/$p.elf" "${opts[@]}")
		[ -n "$d" ] && bad+=("$p: $d")
		n=$((n + 1))
		rm -f "$bin" "$bin".*
	done
	total=$((total + n))
	if [ ${#bad[@]} -eq 0 ] && [ $n -gt 0 ]; then
		ok "jobs $cfg: --jobs 2 (512-byte pieces) and the default = --jobs 1 for $n traces (pc, branches, stats, stderr)"
	else
		not_ok "jobs $cfg: ${bad[*]:0:3} ($n traces)"
	fi
done
echo "# $total traces compared, $left_out program x configuration pairs left out (every=$every)"

# 2. sync configurations: split for real, and the flow is the recorded one
for cfg in btm-sync htm-ret8-rh-sync; do
	joined=0 bad=()
	for p in "${progs[@]}"; do
		mapfile -t a < <(privargs "$p")
		bin=$WORK/$p.$cfg.bin
		"$RT" encode "$cfg" "$WORK/$p.pcs" "$bin" "${a[@]}" "$WORK/$p.elf" &&
			"$RT" expect "$WORK/$p.pcs" "$WORK/$p.expect" "${a[@]}" "$WORK/$p.elf" ||
			{ bad+=("$p(encode)"); continue; }
		opt=()
		[ $cfg = btm-sync ] && opt=(--implicit-return=off)
		NTRACE_JOBS_INFO=1 "$TOOL" decode --elf "$WORK/$p.elf" "${opt[@]}" --jobs 2 \
			--piece-size 256 -o "$bin.pc" "$bin" 2>"$bin.err"
		cmp -s "$bin.pc" "$WORK/$p.expect" || bad+=("$p")
		j=$(awk '/^jobs:/ { print $5 }' "$bin.err")
		joined=$((joined + ${j:-0}))
		rm -f "$bin" "$bin".*
	done
	if [ ${#bad[@]} -eq 0 ] && [ "$joined" -gt 0 ]; then
		ok "jobs $cfg: --jobs 2 gives the recorded PCs of ${#progs[@]} programs ($joined pieces joined)"
	else
		not_ok "jobs $cfg: ${#bad[@]} differ from the recorded PCs (${bad[*]:0:5}); $joined joined"
	fi
done

# 3. damaged traces: flipped bytes, a hole, cut short; errors across pieces
flip() {	# FILE OFFSET BYTE
	printf "\\x$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
nd=0 bad=() errs=0
for p in "${progs[@]}"; do
	case $p in deepcall-O2-g|funcptr-O0-gc|loop-Os-g|recursion-O2-gc|switch-O0-g|longjmp-O2-g) ;;
	*) continue ;; esac
	mapfile -t a < <(privargs "$p")
	for cfg in btm-sync htm-ret8-rh-sync; do
		bin=$WORK/$p.$cfg.bin
		"$RT" encode "$cfg" "$WORK/$p.pcs" "$bin" "${a[@]}" "$WORK/$p.elf" || continue
		size=$(stat -c %s "$bin")
		for v in flip hole short; do
			cp "$bin" "$bin.$v"
			case $v in
			flip) for o in $(seq 97 211 $((size - 1))); do flip "$bin.$v" "$o" "$(printf %02x $((o % 256)))"; done ;;
			hole) { head -c $((size / 3)) "$bin"; tail -c +$((size / 2)) "$bin"; } >"$bin.$v" ;;
			short) head -c $((size * 2 / 3 + 7)) "$bin" >"$bin.$v" ;;
			esac
			for ps in 97 1024; do
				d=$(PIECE=$ps same "$bin.$v" "$WORK/$p.elf" --max-warnings=100000)
				[ -n "$d" ] && bad+=("$p $cfg $v $ps: $d")
				e=$(grep -c 'error\|warning' "$bin.$v.pc.1.err")
				errs=$((errs + e))
				nd=$((nd + 1))
			done
			rm -f "$bin.$v" "$bin.$v".*
		done
		rm -f "$bin"
	done
done
if [ ${#bad[@]} -eq 0 ] && [ $nd -gt 0 ] && [ $errs -gt 0 ]; then
	ok "jobs damaged: $nd decodes of flipped, holed and cut traces equal to --jobs 1 ($errs problems reported)"
else
	not_ok "jobs damaged: $nd decodes, $errs problems; ${bad[*]:0:3}"
fi

# 4. the default decides from the trace: a trace with one sync is decoded
# by one decoder and no thread (the output is checked in 1.); a long
# trace with periodic sync is split, and writes what one decoder writes
info() {	# TRACE ELF OPTS...: the threads the default --jobs 2 started
	NTRACE_JOBS_INFO=1 "$TOOL" decode --elf "$2" --jobs 2 "${@:3}" -o /dev/null "$1" 2>&1 |
		awk '/^jobs:/ { print $11 }'
}
one=0 bad=()
for p in "${progs[@]}"; do
	mapfile -t a < <(privargs "$p")
	bin=$WORK/$p.one.bin
	"$RT" encode htm-ret8-rh "$WORK/$p.pcs" "$bin" "${a[@]}" "$WORK/$p.elf" || continue
	[ "$("$TOOL" decode --format=stats --elf "$WORK/$p.elf" "$bin" |
		awk '$1 == "syncs:" { print $2 }')" = 1 ] || continue
	t=$(info "$bin" "$WORK/$p.elf")
	[ "$t" = 0 ] || bad+=("$p: ${t:-no} threads")
	one=$((one + 1))
	rm -f "$bin"
done
if [ ${#bad[@]} -eq 0 ] && [ $one -gt 0 ]; then
	ok "jobs decide: $one traces with one sync are decoded by one decoder (no thread)"
else
	not_ok "jobs decide: one-sync traces got threads: ${bad[*]:0:3} (of $one)"
fi
p=${progs[0]}
mapfile -t a < <(privargs "$p")
"$RT" encode htm-ret8-rh-sync "$WORK/$p.pcs" "$WORK/s.bin" "${a[@]}" "$WORK/$p.elf"
# copies that each start with a sync are one valid trace, past the 256 KiB held
for _ in $(seq $((300000 / $(stat -c %s "$WORK/s.bin") + 2))); do cat "$WORK/s.bin"; done >"$WORK/long.bin"
t=$(info "$WORK/long.bin" "$WORK/$p.elf")
"$TOOL" decode --elf "$WORK/$p.elf" --jobs 1 --format=branches -o "$WORK/long.1" "$WORK/long.bin"
"$TOOL" decode --elf "$WORK/$p.elf" --format=branches -o "$WORK/long.d" "$WORK/long.bin"
if [ "${t:-0}" -ge 2 ] && [ -s "$WORK/long.1" ] && cmp -s "$WORK/long.1" "$WORK/long.d"; then
	ok "jobs decide: a $(stat -c %s "$WORK/long.bin")-byte trace with periodic sync is split ($t threads), output = --jobs 1"
else
	not_ok "jobs decide: the periodic-sync trace got ${t:-no} threads or differs from --jobs 1"
fi
rm -f "$WORK/s.bin" "$WORK/long".*

# 5. the options: a bad --jobs is refused; stdin works
if ! "$TOOL" decode --elf "$WORK/${progs[0]}.elf" --jobs 0 /dev/null 2>/dev/null &&
   ! "$TOOL" decode --elf "$WORK/${progs[0]}.elf" --piece-size 3 /dev/null 2>/dev/null; then
	ok "jobs options: --jobs 0 and --piece-size 3 are refused"
else
	not_ok "jobs options: a bad --jobs or --piece-size was taken"
fi
p=${progs[0]}
mapfile -t a < <(privargs "$p")
"$RT" encode htm-ret8-rh-sync "$WORK/$p.pcs" "$WORK/in.bin" "${a[@]}" "$WORK/$p.elf"
"$TOOL" decode --elf "$WORK/$p.elf" --jobs 1 -o "$WORK/in.1" "$WORK/in.bin" 2>/dev/null
"$TOOL" decode --elf "$WORK/$p.elf" --jobs 3 --piece-size 300 - <"$WORK/in.bin" >"$WORK/in.3" 2>/dev/null
if [ -s "$WORK/in.1" ] && cmp -s "$WORK/in.1" "$WORK/in.3"; then
	ok "jobs stdin: --jobs 3 reading - writes what --jobs 1 writes"
else
	not_ok "jobs stdin: --jobs 3 from stdin differs"
fi
