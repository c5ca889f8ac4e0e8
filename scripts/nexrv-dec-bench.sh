#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Decoder speed against NexRv, the N-Trace task group's reference code, on
# one stream: a decbench program (scripts/bench.sh records them; default
# mixed, the largest trace) encoded in the configuration both decoders
# know (nexrv-size.sh's: HTM, 8-entry return stack, repeated history).
# NexRv decodes it into its PC list (/dev/null), perf-ntrace's library into
# branch records in memory and into PC text (bench/dec_bench.c TRACE ELF).
# NexRv's instruction count must equal ours: the same work. Rates per CPU
# second (user+sys), best of three: the machine is shared, wall time is
# noise. Numbers only, never pass/fail.
# Usage: scripts/nexrv-dec-bench.sh [mixed|loops]
set -eu
. "$(dirname "$0")/lib.sh"
B=$NTRACE_TOP/build/perf-ntrace
D=${DECBENCH_DIR:-$NTRACE_TOP/build/decbench}
w=${1:-mixed}
pcs=$D/$w/$w.pcs elf=$D/$w/$w.elf info=$D/$w/$w.pcinfo
OURS="--mode htm --implicit-return full --return-depth 8 --repeated-history --htm-ib-no-hist"

[ -s "$pcs" ] || { echo "# nexrv-dec-bench: no $pcs (run scripts/bench.sh)"; exit 0; }
if ! nexrv_find; then
	echo "# nexrv-dec-bench: skipped, $NEXRV_WHY"
	exit 0
fi
scratch W
# NexRv's decoder reads the program as a PC info list (gt2nexrv.sh), kept
# next to the ground truth; the conversion's other, large files are not
if [ ! -s "$info" ] || [ "$pcs" -nt "$info" ]; then
	bash "$NTRACE_SRC/tests/nexrv/gt2nexrv.sh" "$NTRACE_TOP/build/gt/bin/gt-tool" "$pcs" \
		"$elf" "$W/$w"
	mv "$W/$w.pcinfo" "$info"
	rm -f "$W/$w".*
fi
# shellcheck disable=SC2086	# the options are words
"$B/perf-ntrace" encode --pcs "$pcs" --elf "$elf" --priv m $OURS -o "$W/$w.nx"

best=0 n=0
for _ in 1 2 3; do
	/usr/bin/time -f "%U %S" -o "$W/t" "$NEXRV" -deco "$W/$w.nx" -pcinfo "$info" \
		-pcout /dev/null -none >"$W/log" 2>&1 || true
	n=$(sed -n 's/^Decoded OK (\([0-9]*\) instructions).*/\1/p' "$W/log")
	read -r u s <"$W/t"
	best=$(awk -v b="$best" -v u="$u" -v s="$s" -v n="${n:-0}" \
		'BEGIN { r = n / (u + s + 1e-9); print (r > b ? r : b) }')
done
"$B/bench/dec_bench" "$W/$w.nx" "$elf" >"$W/ours"
ours=$(awk '/^decode / { print $3 }' "$W/ours")
brec=$(awk '/branch records:/ { print $(NF - 2) }' "$W/ours")
pc=$(awk '/PC text/ { print $(NF - 2) }' "$W/ours")
echo "decoder against NexRv on $w ($(stat -c %s "$W/$w.nx") bytes, $ours instructions; NexRv decoded ${n:-none})"
if [ "${n:-0}" != "$ours" ]; then
	echo "  NexRv's decoder does not decode this stream as ours does: no ratio"
	exit 0
fi
awk -v nx="$best" -v b="$brec" -v p="$pc" 'BEGIN {
	printf "  NexRv -deco (PC list to /dev/null): %6.1f M instructions/s\n", nx / 1e6
	printf "  ours -> branch records:             %6.0f M instructions/s, %.1fx NexRv\n", b, b * 1e6 / nx
	printf "  ours -> PC text to /dev/null:       %6.0f M instructions/s, %.1fx NexRv\n", p, p * 1e6 / nx
}'
