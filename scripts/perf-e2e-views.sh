#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The call views of a recording made in the guest, against the model's
# ground truth (TAP): a program with recursion deeper than the encoder's
# return stack, setjmp/longjmp and signal handlers returning through the
# vDSO (callsys ... signals), recorded by perf-e2e.sh.
#  - perf-ntrace decode --format=timeline: every call slice (name, depth,
#    first and last instruction) and no other;
#  - --format=folded: every stack and its exact instruction count;
#  - perf's own export-to-sqlite.py with its call/return tables (perf
#    script --itrace=cr -s export-to-sqlite.py DB branches calls): the call
#    tree in the database, every call and return at its depth, in order.
# The truth comes from the retired PCs and the disassembly alone
# (tools/perf-ntrace/tests/e2e/gt-callviews.awk and gt-calltree.awk), as
# tools/perf-ntrace/tests/timeline.sh computes it for QEMU user mode.
# Usage: perf-e2e-views.sh PERF-NTRACE PERF ROOT VDSO DATA PROG GT-PC WORK
#   DATA: the recording of /usr/bin/PROG (under ROOT); GT-PC: its
#   ground-truth PCs, one a line; VDSO: the guest kernel's vdso.so; PERF:
#   the host perf (empty: nothing is checked).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 8 ] || die "usage: ${0##*/} PERF-NTRACE PERF ROOT VDSO DATA PROG GT-PC WORK"
pn=$1 perf=$2 root=$3 vdso=$4 data=$5 prog=$6 gtpc=$7 w=$8/views
name=${data##*/}
name=${name%.data}
TAP_PREFIX="perf-e2e views: $name: "
e2e=$NTRACE_TOP/tools/perf-ntrace/tests/e2e
flow() { local f=$1; shift; awk -f "$NTRACE_TOP/tools/autofdo/hex.awk" -f "$e2e/flow.awk" -f "$e2e/$f.awk" "$@"; }
mkdir -p "$w"
elf=$root/usr/bin/$prog

[ -n "$perf" ] || { skip "call views" "no host perf (it reads where the vDSO was)"; exit 0; }
# Where the process had the vDSO: its MMAP record in the recording.
vbase=$("$perf" report -D -i "$data" 2>/dev/null |
	sed -n 's/.*PERF_RECORD_MMAP2* .*\[\(0x[0-9a-f]*\)(0x[0-9a-f]*) .*\[vdso\]$/\1/p' | head -1)
[ -n "$vbase" ] || { not_ok "the recording maps a [vdso] (perf report -D)"; exit 0; }

# The symbols, the disassembly and the retired PCs as gt-tool dump gives
# them.
{ elf_code_syms "$elf"; elf_code_syms "$vdso" "$vbase"; } | sort >"$w/syms"
{ "${CROSS_COMPILE}objdump" -d --no-show-raw-insn "$elf"
  "${CROSS_COMPILE}objdump" -d --no-show-raw-insn --adjust-vma="$vbase" "$vdso"; } >"$w/dis"
awk '{ print "pc", $1 }' "$gtpc" >"$w/pcl"
views() { flow gt-callviews -v maxdepth=100000 "$@" "$w/syms" "$w/dis" "$w/pcl"; }
views -v mode=slices | sort -k1,1n -k3,3n >"$w/slices.gt"
views -v mode=folded | sort >"$w/folded.gt"

"$pn" decode --root "$root" --vdso "$vdso" --format=timeline --min-slice 0 --max-depth 100000 -q \
	-o "$w/timeline.json" "$data" 2>"$w/timeline.err"
python3 "$e2e/trace-events.py" slices "$w/timeline.json" 2>>"$w/timeline.err" |
	awk -v f=4 -f "$e2e/sym-canon.awk" "$w/syms" - | sort -k1,1n -k3,3n >"$w/slices"
if [ -s "$w/slices.gt" ] && cmp -s "$w/slices" "$w/slices.gt"; then
	ok "perf-ntrace --format=timeline: the $(wc -l <"$w/slices") call slices are the executed calls (names, depths up to $(sort -k3n "$w/slices" | tail -1 | cut -d' ' -f3), first and last instruction)"
else
	not_ok "perf-ntrace --format=timeline: $(wc -l <"$w/slices") slices, the ground truth $(wc -l <"$w/slices.gt"); first differences: $(diff "$w/slices" "$w/slices.gt" | grep -m4 '^[<>]' | tr '\n' ' ') $(head -c 200 "$w/timeline.err")"
fi

"$pn" decode --root "$root" --vdso "$vdso" --format=folded --max-depth 100000 -q -o "$w/folded.raw" \
	"$data" 2>"$w/folded.err"
# (from perf.data, each stack starts with its thread: "[PID/TID];")
sed 's,^\[[0-9]*/[0-9]*\];,,' "$w/folded.raw" | awk -v stack=1 -f "$e2e/sym-canon.awk" "$w/syms" - |
	sort >"$w/folded"
if [ -s "$w/folded.gt" ] && cmp -s "$w/folded" "$w/folded.gt"; then
	ok "perf-ntrace --format=folded: the $(wc -l <"$w/folded") stacks have the ground truth's instruction counts ($(awk '{ s += $NF } END { print s }' "$w/folded") instructions)"
else
	not_ok "perf-ntrace --format=folded differs from the ground truth: $(diff "$w/folded" "$w/folded.gt" | grep -m4 '^[<>]' | cut -c1-150 | tr '\n' ' ') $(head -c 200 "$w/folded.err")"
fi

script=$("$perf" --exec-path)/scripts/python/export-to-sqlite.py
# (perf runs it in the python it was built with: scripts/perf.sh --host)
if [ ! -f "$script" ] || ! /usr/bin/python3 -c 'import PySide2.QtSql' 2>/dev/null; then
	skip "export-to-sqlite.py call tree" "no export-to-sqlite.py or PySide2's QtSql"
	exit 0
fi
flow gt-calltree -v mode=trace "$w/dis" "$gtpc" >"$w/tree.gt"
rm -f "$w/calls.db"
"$perf" script -i "$data" --symfs "$root" --itrace=cr -s "$script" "$w/calls.db" branches calls \
	>"$w/sql.out" 2>&1
python3 "$e2e/sql-calltree.py" "$w/calls.db" >"$w/tree" 2>>"$w/sql.out"
rows=$(sqlite3 "$w/calls.db" 'select count(*) from calls' 2>/dev/null)
if [ -s "$w/tree.gt" ] && cmp -s "$w/tree" "$w/tree.gt"; then
	ok "perf's export-to-sqlite.py: the call tree of its calls table ($rows rows) is the executed one: $(grep -c '^c' "$w/tree") calls and $(grep -c '^r' "$w/tree") returns at their depths (deepest $(sort -k2n "$w/tree" | tail -1 | cut -d' ' -f2)), in order"
else
	not_ok "perf's export-to-sqlite.py call tree ($rows rows): $(grep -c . "$w/tree") calls and returns, the ground truth $(grep -c . "$w/tree.gt"); first differences: $(diff "$w/tree" "$w/tree.gt" | grep -m4 '^[<>]' | tr '\n' ' ') $(tail -2 "$w/sql.out" | tr '\n' ' ')"
fi
exit 0
