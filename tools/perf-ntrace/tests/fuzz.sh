#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# libFuzzer smoke run of the codec + flow decoder (tests/fuzz/dec_fuzz.c):
# replay the regression inputs, then fuzz for FUZZ_SECONDS (default 15)
# from a seed corpus of encoded random executions. "make fuzz" runs it for
# ten minutes. A crash is saved under the build directory; add it to
# tests/fuzz/regressions/ once fixed. Prints flat TAP lines.
set -u

SRC=${NTRACE_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${NTRACE_BUILD:-$SRC/../../build/perf-ntrace}
SECS=${FUZZ_SECONDS:-15}
W=$BUILD/fuzz
BIN=$W/dec_fuzz
CLANG=${FUZZ_CC:-clang-14}
mkdir -p "$W/corpus" "$W/crashes"
# per-run directories: several test runs may share the build tree
RUN=$(mktemp -d "$W/run.XXXXXX") || exit 1
trap 'rm -rf "$RUN"' EXIT

command -v "$CLANG" >/dev/null || { echo "ok - fuzz decoder # SKIP $CLANG not installed"; exit 0; }

srcs=("$SRC"/lib/*.c)
if [ ! -x "$BIN" ] || [ -n "$(find "$SRC/lib" "$SRC/include" "$SRC/tests/fuzz" \
		"$SRC/tests/roundtrip" -newer "$BIN" -type f 2>/dev/null | head -1)" ]; then
	if ! "$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-std=c11 -D_GNU_SOURCE -I"$SRC/include" "$SRC/tests/fuzz/dec_fuzz.c" \
		"${srcs[@]}" -o "$RUN/dec_fuzz" 2>"$RUN/build.log"; then
		echo "not ok - fuzz decoder: the target does not build: $(head -c 400 "$RUN/build.log")"
		exit 1
	fi
	mv -f "$RUN/dec_fuzz" "$BIN"	# atomic: a concurrent run keeps its copy
fi

cp "$BIN" "$RUN/dec_fuzz"
BIN=$RUN/dec_fuzz
mkdir -p "$RUN/seeds" "$RUN/crash"
FUZZ_WRITE_SEEDS="$RUN/seeds" "$BIN" >/dev/null 2>&1
rc=0
regs=("$SRC"/tests/fuzz/regressions/*)
if [ -e "${regs[0]}" ]; then
	if "$BIN" -runs=1 "${regs[@]}" >"$RUN/regress.log" 2>&1; then
		echo "ok - fuzz decoder: ${#regs[@]} regression inputs replay cleanly"
	else
		echo "not ok - fuzz decoder: a regression input fails:" \
			"$(grep -m1 -E 'ERROR|runtime error' "$RUN/regress.log")"
		rc=1
	fi
fi

cd "$RUN/crash" || exit 1
"$BIN" -max_total_time="$SECS" -max_len=4096 -timeout=10 -rss_limit_mb=1536 \
	-print_final_stats=1 "$W/corpus" "$RUN/seeds" >"$RUN/fuzz.log" 2>&1
st=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$RUN/fuzz.log" | grep -o '[0-9]*$')
if [ $st -eq 0 ]; then
	echo "ok - fuzz decoder: ${runs:-?} inputs in ${SECS}s without a crash, leak or UB"
else
	cp "$RUN"/crash/* "$RUN/fuzz.log" "$W/crashes/" 2>/dev/null
	echo "not ok - fuzz decoder: crash after ${runs:-?} inputs; input saved in $W/crashes" \
		"($(grep -m1 -E 'ERROR|runtime error' "$RUN/fuzz.log"))"
	rc=1
fi
exit $rc
