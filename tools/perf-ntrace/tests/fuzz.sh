#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# libFuzzer smoke runs (TAP) of the targets in tests/fuzz/, built by "make
# fuzzers": dec_fuzz (codec + flow decoder) and msg_parse_fuzz (message
# parser and codec round trips). Each replays its regression inputs
# (tests/fuzz/regressions/<target>/), then fuzzes for FUZZ_SECONDS (default
# 15) from a seed corpus of encoded random executions (written by dec_fuzz;
# the parser reads their first byte as its codec configuration). "make
# fuzz" runs each for ten minutes. A crash is saved under the build
# directory; add it to the target's regressions once fixed.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"

SRC=${NTRACE_SRC:-$NTRACE_TOP/tools/perf-ntrace}
BUILD=${NTRACE_BUILD:-$NTRACE_TOP/build/perf-ntrace}
SECS=${FUZZ_SECONDS:-15}
W=$BUILD/fuzz
CLANG=${FUZZ_CC:-clang-14}
mkdir -p "$W"
# per-run directories: several test runs may share the build tree
RUN=$(mktemp -d "$W/run.XXXXXX") || exit 1
trap 'rm -rf "$RUN"' EXIT

declare -A what=([dec_fuzz]="fuzz decoder" [msg_parse_fuzz]="fuzz message parser")
if ! command -v "$CLANG" >/dev/null; then
	for t in "${!what[@]}"; do skip "${what[$t]}" "$CLANG not installed"; done
	exit 0
fi
if ! make -s -C "$SRC" B="$BUILD" FUZZ_CC="$CLANG" fuzzers >"$RUN/build.log" 2>&1; then
	not_ok "fuzz: the targets do not build (make fuzzers): $(head -c 400 "$RUN/build.log")"
	exit 1
fi

mkdir -p "$RUN/seeds"
FUZZ_WRITE_SEEDS="$RUN/seeds" "$W/dec_fuzz" >/dev/null 2>&1
for t in dec_fuzz msg_parse_fuzz; do
	TAP_PREFIX="${what[$t]}: "
	mkdir -p "$W/corpus/$t" "$W/crashes/$t" "$RUN/$t"
	# a copy: a concurrent build may replace the binary
	cp "$W/$t" "$RUN/$t/$t"
	bin=$RUN/$t/$t
	regs=("$SRC/tests/fuzz/regressions/$t"/*)
	if [ -e "${regs[0]}" ]; then
		if "$bin" -runs=1 "${regs[@]}" >"$RUN/$t/regress.log" 2>&1; then
			ok "${#regs[@]} regression inputs replay cleanly"
		else
			not_ok "a regression input fails:" \
				"$(grep -m1 -E 'ERROR|runtime error' "$RUN/$t/regress.log")"
		fi
	fi
	mkdir -p "$RUN/$t/crash"
	(cd "$RUN/$t/crash" && "$bin" -max_total_time="$SECS" -max_len=4096 -timeout=10 \
		-rss_limit_mb=1536 -print_final_stats=1 "$W/corpus/$t" "$RUN/seeds") \
		>"$RUN/$t/fuzz.log" 2>&1
	st=$?
	runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$RUN/$t/fuzz.log" | grep -o '[0-9]*$')
	if [ $st -eq 0 ]; then
		ok "${runs:-?} inputs in ${SECS}s without a crash, leak or UB"
	else
		cp "$RUN/$t"/crash/* "$RUN/$t/fuzz.log" "$W/crashes/$t/" 2>/dev/null
		not_ok "crash after ${runs:-?} inputs; input saved in $W/crashes/$t" \
			"($(grep -m1 -E 'ERROR|runtime error' "$RUN/$t/fuzz.log"))"
	fi
done
tap_status
