#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The parallel decoder under ThreadSanitizer: perf-ntrace built with
# clang -fsanitize=thread decodes traces with --jobs 3 and tiny pieces (a
# join or a redecode every few hundred bytes: every hand-off between the
# threads, many times), clean and damaged, into the PC list and branch
# records. TSan must report nothing, and the output must be what the
# normal build writes with --jobs 1. Skips without clang's TSan runtime.
# Prints flat TAP lines.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD
scratch WORK || exit 1

[ -x "$BUILD/tools/rt-tool" ] || { skip jobs-tsan "rt-tool not built (make test-tools)"; exit 0; }
command -v clang >/dev/null || { skip jobs-tsan "no clang"; exit 0; }
T=$BUILD/tsan
if ! make -s -C "$SRC" B="$T" CC=clang CFLAGS="-O1 -g -fsanitize=thread" \
	LDFLAGS=-fsanitize=thread "$T/perf-ntrace" >"$WORK/build.log" 2>&1; then
	skip jobs-tsan "clang cannot build with -fsanitize=thread: $(tail -1 "$WORK/build.log")"
	exit 0
fi
RT=$BUILD/tools/rt-tool

n=0 bad=()
for p in deepcall-O2-g funcptr-O0-gc recursion-O2-gc switch-O0-g longjmp-O2-g; do
	pr=$(gt_copy "$p" "$WORK/$p.pcs" "$WORK/$p.elf") || continue
	a=()
	[ -n "$pr" ] && a=(--priv "$pr")
	for cfg in btm-sync htm-ret8-rh-sync; do
		bin=$WORK/$p.$cfg.bin
		"$RT" encode "$cfg" "$WORK/$p.pcs" "$bin" "${a[@]}" "$WORK/$p.elf" || continue
		opt=(--max-warnings=100000)
		[ $cfg = btm-sync ] && opt+=(--implicit-return=off)
		# a damaged copy: errors and resynchronisations across pieces
		cp "$bin" "$bin.dmg"
		size=$(stat -c %s "$bin")
		for o in $(seq 131 509 $((size - 1))); do
			printf '\x55' | dd of="$bin.dmg" bs=1 seek="$o" conv=notrunc status=none
		done
		for t in "$bin" "$bin.dmg"; do
			for f in pc branches; do
				"$PERF_NTRACE" decode --elf "$WORK/$p.elf" "${opt[@]}" --jobs 1 --format=$f \
					-o "$t.1" "$t" 2>/dev/null
				TSAN_OPTIONS="halt_on_error=1 exitcode=66 log_path=$WORK/tsan" \
					"$T/perf-ntrace" decode --elf "$WORK/$p.elf" "${opt[@]}" --jobs 3 \
					--piece-size 300 --format=$f -o "$t.3" "$t" 2>/dev/null
				rc=$?
				n=$((n + 1))
				if [ $rc = 66 ] || compgen -G "$WORK/tsan*" >/dev/null; then
					bad+=("$p $cfg $f: TSan report")
					cat "$WORK"/tsan* | head -40 | sed 's/^/# /'
					rm -f "$WORK"/tsan*
				elif ! cmp -s "$t.1" "$t.3"; then
					bad+=("$p $cfg $f: output differs")
				fi
			done
		done
		rm -f "$bin" "$bin".*
	done
done
if [ $n = 0 ]; then
	skip jobs-tsan "no ground truth in $NTRACE_GT_DIR (run roundtrip.sh)"
elif [ ${#bad[@]} -eq 0 ]; then
	ok "jobs-tsan: $n decodes with --jobs 3 and 300-byte pieces, no data race, output = --jobs 1"
else
	not_ok "jobs-tsan: $n decodes; ${bad[*]:0:3}"
fi
