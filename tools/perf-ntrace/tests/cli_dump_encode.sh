#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace dump/encode from the command line: the spec's message example
# dumps with offsets, encode -> dump round trip of the BTM I-CNT example,
# and clear errors for bad input. Prints TAP lines.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
T=$PERF_NTRACE
scratch tmp
TAP_PREFIX="cli: "

# "N-Trace Message Example" bytes
printf '\xff\x70\xd0\x1d\x1d\xf8\xff\xff' >"$tmp/ex.bin"
out=$("$T" dump "$tmp/ex.bin")
check "dump of the spec example" \
	test "$out" = "00000001  IndirectBranchHist btype=0 icnt=125 uaddr=0x7 hist=0xffe"

cat >"$tmp/in.txt" <<'IN'
# BTM I-CNT example, run 2 (branch at 0x10A taken)
0x100 2 0
0x102 4 4
0x106 4 0
0x10A 4 5
0x300 4 0 0 0 0 stop
IN
"$T" encode --start-sync 3 --stop-evcode 0 -o "$tmp/o.bin" "$tmp/in.txt"
check "encode writes 9 bytes (4 + 2 + 3)" test "$(stat -c %s "$tmp/o.bin")" = 9
want='00000000  ProgTraceSync sync=3(debug-exit) icnt=0 faddr=0x80  -> 0x100
00000004  DirectBranch icnt=7
00000006  ProgTraceCorrelation evcode=0 cdf=0 icnt=2'
check "encode | dump gives the spec's messages" test "$("$T" dump --addr "$tmp/o.bin")" = "$want"
check "encode --text matches dump" \
	test "$("$T" encode --text --start-sync 3 --stop-evcode 0 "$tmp/in.txt")" = \
	"$("$T" dump "$tmp/o.bin")"

# errors: exit status and a message naming the cause
"$T" dump "$tmp/missing.bin" 2>"$tmp/err"
check "dump of a missing file fails with status 2" test $? = 2
check "dump names the missing file" grep -q "cannot open '$tmp/missing.bin'" "$tmp/err"
printf '0x100 3 0\n' | "$T" encode - 2>"$tmp/err" >/dev/null
check "encode rejects a bad size with the line number" grep -q -- '-:1: bad size' "$tmp/err"
"$T" encode --mode nope "$tmp/in.txt" 2>"$tmp/err" >/dev/null
check "encode rejects a bad --mode" grep -q "bad value for --mode" "$tmp/err"
printf '\x0c\x02\x07\x0c\x17' >"$tmp/bad.bin"
"$T" dump "$tmp/bad.bin" >"$tmp/out"
check "dump of a corrupt trace exits 1" test $? = 1
check "dump reports the error with its offset and resumes" test "$(cat "$tmp/out")" = \
"00000000  ERROR size=3 tcode=3 (reserved MSEO=10 inside a message)
00000003  DirectBranch icnt=5"
check "--help works for every command" \
	bash -c "{ '$T' --help && '$T' dump --help && '$T' encode --help; } >/dev/null"
"$T" bogus 2>/dev/null
check "unknown command fails with status 2" test $? = 2
tap_status
