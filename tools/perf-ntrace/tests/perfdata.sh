#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace decode on perf.data files (TAP). The files are synthesised by
# perfdata_test --write the way perf record lays them out, around N-Trace
# bytes the encoder model made from a program's recorded ground truth
# (build/gt). Checks:
#  - decoding the perf.data gives exactly the PCs the program retired,
#    whether the trace is in one AUXTRACE chunk or split into many
#    (messages cut across chunks, perf's 8-byte padding), in file and pipe
#    layout, with images from MMAP2 (--elf-dir) or from --elf, and as
#    the directory perf record --kcore writes;
#  - a chunk flagged TRUNCATED followed by missing bytes: decoding restarts
#    at the next sync and both sides of the gap are correct flow;
#  - task mode (perf record -a: per-CPU AUX areas, each AUX record one
#    task's run): two processes whose programs' runs alternate on two CPUs
#    decode to exactly each program's retired PCs (--show-task, --pid);
#    the last record of a task reaped before its final switch-out (pid and
#    tid -1) goes to the task switched in last on its CPU (reaped_records),
#    and with no switch-in before it on that CPU it stays an error; the
#    patched host perf script gives the same PCs per process;
#  - corrupt and foreign files get clear errors;
#  - independent truth for the record layer: perf report -D (Debian's perf,
#    and the patched host perf from scripts/perf.sh --host) lists the same
#    records at the same offsets as our reader.
set -uo pipefail
. "$(dirname "$0")/../../../scripts/lib.sh"
BUILD=$NTRACE_BUILD GT_DIR=$NTRACE_GT_DIR
scratch WORK "$BUILD/perfdata" "${NTRACE_KEEP:-}" || exit 1
TAP_PREFIX="perfdata: "

# copies: other builds may rewrite the build directory meanwhile
cp "$PERF_NTRACE" "$WORK/perf-ntrace" && cp "$BUILD/tests/perfdata_test" "$WORK/pdt" &&
	cp "$BUILD/tools/rt-tool" "$WORK/rt-tool" ||
	{ not_ok "perf-ntrace, perfdata_test and rt-tool are built"; exit 1; }
TOOL=$WORK/perf-ntrace
PDT=$WORK/pdt

# ---- the record layer against perf report -D ----

# "OFFSET SIZE TYPE" per record from perf report -D output ("0x198@FILE
# [0x30]: event: 3", printed as each record is read), in file order.
perf_records() {
	sed -n 's/^\(0x[0-9a-f]*\)@.* \[\(0x[0-9a-f]*\)\]: event: \([0-9]*\)$/\1 \2 \3/p' |
		sort -k1,1
}
cmp_perf() {	# NAME PERF FILE
	local name=$1 perf=$2 f=$3
	if ! "$perf" report -D -i "$f" --stdio >"$WORK/d.out" 2>"$WORK/d.err"; then
		not_ok "$name: perf report -D fails: $(head -c 300 "$WORK/d.err")"
		return
	fi
	perf_records <"$WORK/d.out" >"$WORK/perf.list"
	"$PDT" --list "$f" | cut -d' ' -f1-3 | sort -k1,1 >"$WORK/our.list" ||
		{ not_ok "$name: our reader fails"; return; }
	if [ -s "$WORK/perf.list" ] && cmp -s "$WORK/perf.list" "$WORK/our.list"; then
		ok "$name: $(wc -l <"$WORK/our.list") records at the same offsets, sizes and types"
	else
		not_ok "$name: record lists differ"
		diff "$WORK/perf.list" "$WORK/our.list" | head -10 | sed 's/^/# /'
	fi
}

printf '\377\377\377\377' >"$WORK/idle.bin"
"$PDT" --write "$WORK/noaux.data" --elf /bin/app@0x10000,0x1000 --no-auxtrace
if command -v perf >/dev/null && perf version >/dev/null 2>&1; then
	cmp_perf "Debian perf $(perf version | cut -d' ' -f3) reads the non-AUX records as we do" \
		"$(command -v perf)" "$WORK/noaux.data"
	# perf's own reading of the loss records we wrote (1 LOST, 1 TRUNCATED AUX)
	if grep -q 'lost 1 chunks' "$WORK/d.err" && grep -q 'AUX data lost 1 times out of 1' "$WORK/d.err"; then
		ok "Debian perf counts our LOST and TRUNCATED AUX records"
	else
		not_ok "Debian perf counts our LOST and TRUNCATED AUX records: $(tr '\n' ' ' <"$WORK/d.err" | head -c 300)"
	fi
else
	skip "Debian perf cross-check" "no working perf in PATH"
fi
if hostperf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host 2>"$WORK/hp.err"); then
	"$PDT" --write "$WORK/aux.data" --trace "$WORK/idle.bin" --chunks 1 \
		--elf /bin/app@0x10000,0x1000 --htm --iret
	cmp_perf "patched perf reads the non-AUX file as we do" "$hostperf" "$WORK/noaux.data"
	cmp_perf "patched perf accepts the ntrace AUXTRACE_INFO and reads every record as we do" \
		"$hostperf" "$WORK/aux.data"
	if grep -q 'RISC-V N-Trace version 1, PMU type 12' "$WORK/d.out" &&
	   grep -q 'CPU 0: hart 0' "$WORK/d.out" && grep -q 'mode 6 iret_mode 3' "$WORK/d.out"; then
		ok "patched perf report -D dumps the AUXTRACE_INFO fields"
	else
		not_ok "patched perf report -D dumps the AUXTRACE_INFO fields"
	fi
	if "$hostperf" script -i "$WORK/aux.data" >/dev/null 2>"$WORK/ps.err"; then
		ok "patched perf script accepts the file"
	else
		not_ok "patched perf script refuses the file: $(head -c 200 "$WORK/ps.err")"
	fi
else
	not_ok "patched host perf builds (scripts/perf.sh --host): $(tail -3 "$WORK/hp.err" | tr '\n' ' ')"
fi

# ---- decoding ----

if ! ls "$GT_DIR"/*.pcs >/dev/null 2>&1; then
	skip "decode tests" "no ground truth in $GT_DIR (run tests/ground-truth.sh)"
	tap_status
	exit
fi

mkdir -p "$WORK/bin"
progs=()
for n in loop-O2-g switch-O2-gc funcptr-O2-g deepcall-O2-g; do
	[ -f "$GT_DIR/$n.pcs" ] && [ -f "$GT_DIR/$n" ] || continue
	cp -L "$GT_DIR/$n.pcs" "$WORK/$n.pcs" && cp -L "$GT_DIR/$n" "$WORK/bin/$n" && progs+=("$n")
done
[ ${#progs[@]} -gt 0 ] || { not_ok "ground-truth programs present"; exit 1; }

# CONFIG -> perfdata_test options describing the same encoder settings
declare -A INFO=([btm]="" [htm-ret8-rh]="--htm --iret" [btm-sync]="")
for n in "${progs[@]}"; do
	a=(--priv u "$WORK/bin/$n")
	"$WORK/rt-tool" expect "$WORK/$n.pcs" "$WORK/$n.expect" "${a[@]}" ||
		{ not_ok "$n: expected PCs"; continue; }
	for cfg in btm htm-ret8-rh; do
		"$WORK/rt-tool" encode $cfg "$WORK/$n.pcs" "$WORK/$n.bin" "${a[@]}" ||
			{ not_ok "$n $cfg: encode"; continue; }
		size=$(stat -c %s "$WORK/$n.bin")
		for chunks in 1 7; do
			for layout in file pipe; do
				[ $layout = pipe ] && [ $chunks = 1 ] && continue
				f=$WORK/$n.$cfg.$chunks.data
				extra=()
				[ $layout = pipe ] && extra=(--pipe)
				# shellcheck disable=SC2086
				"$PDT" --write "$f" --trace "$WORK/$n.bin" --chunks $chunks \
					--elf "/usr/bin/$n@0x10000,0x100000" ${INFO[$cfg]} "${extra[@]}"
				"$TOOL" decode --elf-dir "$WORK/bin" -o "$WORK/out.pc" "$f" 2>"$WORK/err"
				st=$?
				if [ $st -eq 0 ] && cmp -s "$WORK/out.pc" "$WORK/$n.expect" &&
				   [ ! -s "$WORK/err" ]; then
					ok "$n $cfg, $size bytes in $chunks AUXTRACE chunks ($layout layout): decoded PCs = retired PCs ($(wc -l <"$WORK/out.pc"))"
				else
					not_ok "$n $cfg, $chunks chunks, $layout: exit $st, $(wc -l <"$WORK/out.pc") PCs vs $(wc -l <"$WORK/$n.expect"): $(head -c 300 "$WORK/err")"
				fi
			done
		done
		# --elf instead of the MMAP2 records; --root for a guest tree.
		f=$WORK/$n.$cfg.7.data
		"$PDT" --write "$f" --trace "$WORK/$n.bin" --chunks 7 \
			--elf "/bin/$n@0x10000,0x100000" ${INFO[$cfg]}
		if "$TOOL" decode --elf "$WORK/bin/$n" -o "$WORK/o1" "$f" 2>/dev/null &&
		   "$TOOL" decode --root "$WORK" -o "$WORK/o2" "$f" 2>/dev/null &&
		   cmp -s "$WORK/o1" "$WORK/$n.expect" && cmp -s "$WORK/o2" "$WORK/$n.expect"; then
			ok "$n $cfg: --elf and --root find the same program"
		else
			not_ok "$n $cfg: --elf / --root"
		fi
		# the directory perf record --kcore writes: DIR/data
		mkdir -p "$WORK/dir.data" && cp "$f" "$WORK/dir.data/data"
		if "$TOOL" decode --elf "$WORK/bin/$n" -o "$WORK/o3" "$WORK/dir.data" 2>"$WORK/err" &&
		   cmp -s "$WORK/o3" "$WORK/$n.expect"; then
			ok "$n $cfg: a perf.data directory (DIR/data) decodes like the file"
		else
			not_ok "$n $cfg: perf.data directory: $(head -c 200 "$WORK/err")"
		fi
	done

	# Loss: an AUX region flagged TRUNCATED, then bytes are missing, at a
	# chunk boundary (lose) or inside one chunk (lose-mid).
	"$WORK/rt-tool" encode btm-sync "$WORK/$n.pcs" "$WORK/$n.bin" "${a[@]}" || continue
	size=$(stat -c %s "$WORK/$n.bin")
	for how in lose lose-mid; do
		f=$WORK/$n.$how.data
		"$PDT" --write "$f" --trace "$WORK/$n.bin" --chunks 3 --$how $((size / 5)) \
			--elf "/bin/$n@0x10000,0x100000"
		"$TOOL" decode --elf-dir "$WORK/bin" -o "$WORK/lose.pc" "$f" 2>"$WORK/err"
		st=$?
		"$TOOL" decode --elf-dir "$WORK/bin" --format=stats -o "$WORK/lose.st" "$f" 2>/dev/null
		total=$(wc -l <"$WORK/lose.pc")
		head -n 50 "$WORK/lose.pc" >"$WORK/lose.head"
		tail -n 50 "$WORK/lose.pc" >"$WORK/lose.tail"
		if [ $st -eq 0 ] && grep -q '^resyncs: 1$' "$WORK/lose.st" &&
		   grep -q '^aux_truncated: 1$' "$WORK/lose.st" &&
		   grep -q 'resynchronising' "$WORK/err" &&
		   [ "$total" -lt "$(wc -l <"$WORK/$n.expect")" ] && [ "$total" -gt 100 ] &&
		   "$WORK/rt-tool" check-sub "$WORK/lose.head" "$WORK/$n.pcs" "${a[@]}" >/dev/null &&
		   cmp -s "$WORK/lose.head" <(head -n 50 "$WORK/$n.expect") &&
		   "$WORK/rt-tool" check-sub "$WORK/lose.tail" "$WORK/$n.pcs" "${a[@]}" >/dev/null &&
		   cmp -s "$WORK/lose.tail" <(tail -n 50 "$WORK/$n.expect"); then
			ok "$n $how: TRUNCATED region + $((size / 5)) lost bytes: one resync, flow correct on both sides ($total PCs)"
		else
			not_ok "$n $how: exit $st, $total PCs, $(grep -o 'resyncs: [0-9]*' "$WORK/lose.st") $(head -c 200 "$WORK/err")"
		fi
	done
done

# ---- task mode ----

# Two processes, 42 and 43 (two programs if there are two), each run
# three times: its ground truth cut into three runs, each encoded on its
# own (the driver starts every AUX record with a sync at a switch-in).
# 42 runs on CPU 0, 1, 0 and 43 on 1, 0, 1, the CPUs' runs overlapping.
tprog=([42]=${progs[0]} [43]=${progs[1]:-${progs[0]}})
targs=()
for pid in 42 43; do
	n=${tprog[$pid]}
	targs+=(--task "$pid" "$n" "/bin/$n@0x10000,0x100000")
	"$PDT" --split-pcs "$WORK/$n.pcs" 3 "$WORK/task$pid" ||
		{ not_ok "task mode: split $n's ground truth"; exit 1; }
	for k in 0 1 2; do
		"$WORK/rt-tool" encode btm "$WORK/task$pid.$k.pcs" "$WORK/task$pid.$k.bin" \
			--priv u "$WORK/bin/$n" &&
		"$WORK/rt-tool" expect "$WORK/task$pid.$k.pcs" "$WORK/task$pid.$k.expect" \
			--priv u "$WORK/bin/$n" ||
			{ not_ok "task mode: encode run $k of $n"; exit 1; }
	done
	# the first two runs: what is left when the last record is lost
	cat "$WORK/task$pid.0.expect" "$WORK/task$pid.1.expect" >"$WORK/task$pid.head"
done
targs+=(--run 0 42 "$WORK/task42.0.bin" --run 1 43 "$WORK/task43.0.bin"
	--run 1 42 "$WORK/task42.1.bin" --run 0 43 "$WORK/task43.1.bin"
	--run 0 42 "$WORK/task42.2.bin" --run 1 43 "$WORK/task43.2.bin")
ta=${tprog[42]} tb=${tprog[43]}
"$PDT" --write "$WORK/task.data" "${targs[@]}" &&
"$PDT" --write "$WORK/reaped.data" "${targs[@]}" --reaped 42 &&
"$PDT" --write "$WORK/noswitch.data" "${targs[@]}" --reaped 42 --no-switch-in 0 ||
	{ not_ok "task mode: perfdata_test writes the files"; exit 1; }

# task_decode FILE: $WORK/t.pc ("CPU PID TID TIME PC"), t.42 and t.43 (the
# PCs of each), t.st (stats), t.err; the exit status of the decode
task_decode() {
	local f=$1 st
	"$TOOL" decode --root "$WORK" --format=stats -o "$WORK/t.st" "$f" 2>/dev/null
	"$TOOL" decode --root "$WORK" --show-task -o "$WORK/t.pc" "$f" 2>"$WORK/t.err"
	st=$?
	awk '$2 == 42 { print $5 }' "$WORK/t.pc" >"$WORK/t.42"
	awk '$2 == 43 { print $5 }' "$WORK/t.pc" >"$WORK/t.43"
	return $st
}
# CPU and pid of each stretch of lines, in output order
task_runs() { awk '{ print $1 ":" $2 }' "$WORK/t.pc" | uniq | tr '\n' ' '; }

task_decode "$WORK/task.data"
st=$?
runs=$(task_runs)
if [ $st -eq 0 ] && [ ! -s "$WORK/t.err" ] && cmp -s "$WORK/t.42" "$WORK/$ta.expect" &&
   cmp -s "$WORK/t.43" "$WORK/$tb.expect" && [ "$runs" = "0:42 1:43 1:42 0:43 0:42 1:43 " ] &&
   grep -q '^task_mode: 1$' "$WORK/t.st" && grep -q '^errors: 0$' "$WORK/t.st" &&
   grep -q '^reaped_records: 0$' "$WORK/t.st"; then
	ok "task mode: 6 AUX records on 2 CPUs, decoded in time order: process 42 ($ta) and 43 ($tb) have their programs' retired PCs ($(wc -l <"$WORK/t.42") + $(wc -l <"$WORK/t.43"))"
else
	not_ok "task mode: exit $st, runs $runs, 42: $(wc -l <"$WORK/t.42")/$(wc -l <"$WORK/$ta.expect") PCs, 43: $(wc -l <"$WORK/t.43")/$(wc -l <"$WORK/$tb.expect"), $(grep -E '^(errors|task_mode):' "$WORK/t.st" | tr '\n' ' ') $(head -c 300 "$WORK/t.err")"
fi
"$TOOL" decode --root "$WORK" --pid 42 -o "$WORK/p42" "$WORK/task.data" 2>/dev/null
"$TOOL" decode --root "$WORK" --pid 43 -o "$WORK/p43" "$WORK/task.data" 2>/dev/null
if cmp -s "$WORK/p42" "$WORK/$ta.expect" && cmp -s "$WORK/p43" "$WORK/$tb.expect"; then
	ok "task mode: --pid 42 and --pid 43 give each process's retired PCs alone"
else
	not_ok "task mode: --pid: $(wc -l <"$WORK/p42") and $(wc -l <"$WORK/p43") PCs"
fi

# 42's last record after its EXIT, with pid and tid -1 (the kernel's for a
# task its parent reaped before its final switch-out)
task_decode "$WORK/reaped.data"
st=$?
runs=$(task_runs)
if [ $st -eq 0 ] && [ ! -s "$WORK/t.err" ] && cmp -s "$WORK/t.42" "$WORK/$ta.expect" &&
   cmp -s "$WORK/t.43" "$WORK/$tb.expect" && [ "$runs" = "0:42 1:43 1:42 0:43 0:42 1:43 " ] &&
   grep -q '^reaped_records: 1$' "$WORK/t.st" && grep -q '^errors: 0$' "$WORK/t.st" &&
   ! grep -q '^process 4294967295' "$WORK/t.st"; then
	ok "task mode: 42's last AUX record with pid -1 goes to 42, switched in last on its CPU: the same PCs, reaped_records: 1, errors: 0"
else
	not_ok "task mode, pid -1 record: exit $st, runs $runs, 42: $(wc -l <"$WORK/t.42")/$(wc -l <"$WORK/$ta.expect") PCs, $(grep -E '^(errors|reaped_records):|^process' "$WORK/t.st" | tr '\n' ' ') $(head -c 300 "$WORK/t.err")"
fi

# Control: no switch-in on CPU 0 (42 was switched in on CPU 1 before):
# the record has no task, its run is lost from 42 and is an error.
task_decode "$WORK/noswitch.data"
st=$?
if [ $st -eq 0 ] && cmp -s "$WORK/t.42" "$WORK/task42.head" &&
   cmp -s "$WORK/t.43" "$WORK/$tb.expect" && grep -q '^reaped_records: 0$' "$WORK/t.st" &&
   grep -q '^errors: 1$' "$WORK/t.st" &&
   grep -q '^process 4294967295 .* records 1 .* instructions 0 errors 1 ' "$WORK/t.st" &&
   grep -q 'outside every loaded image' "$WORK/t.err"; then
	ok "task mode: a pid -1 record with no switch-in before it on its CPU stays unattributed: 1 error, 42 has its first two runs only"
else
	not_ok "task mode, pid -1 record without switch-in: exit $st, 42: $(wc -l <"$WORK/t.42")/$(wc -l <"$WORK/task42.head") PCs, $(grep -E '^(errors|reaped_records):|^process' "$WORK/t.st" | tr '\n' ' ') $(head -c 300 "$WORK/t.err")"
fi

# A drain that left the sink running (a peek) cut 42's second run in two
# AUX records inside a message, the second flagged NTRACE_AUX_FLAG_CONT,
# with a new executable mapping of 42 between them: the message's tail
# goes to the decoder that has its start, though the images changed.
"$PDT" --write "$WORK/cont.data" "${targs[@]:0:8}" --run 0 42 "$WORK/task42.0.bin" \
	--run 1 43 "$WORK/task43.0.bin" --run 1 42 "$WORK/task42.1.bin" --cont-mid \
	--mmap-between "/bin/$ta@0x10000,0x80000" --run 0 43 "$WORK/task43.1.bin" \
	--run 0 42 "$WORK/task42.2.bin" --run 1 43 "$WORK/task43.2.bin" ||
	{ not_ok "task mode: perfdata_test writes a continued record"; exit 1; }
task_decode "$WORK/cont.data"
st=$?
if [ $st -eq 0 ] && [ ! -s "$WORK/t.err" ] && cmp -s "$WORK/t.42" "$WORK/$ta.expect" &&
   cmp -s "$WORK/t.43" "$WORK/$tb.expect" && grep -q '^errors: 0$' "$WORK/t.st" &&
   grep -q '^parse_errors: 0$' "$WORK/t.st"; then
	ok "task mode: a continued AUX record starting inside a message, a new mapping before it: the same PCs, no error"
else
	not_ok "task mode, continued record: exit $st, 42: $(wc -l <"$WORK/t.42")/$(wc -l <"$WORK/$ta.expect") PCs, $(grep -E '^(errors|parse_errors):' "$WORK/t.st" | tr '\n' ' ') $(head -c 300 "$WORK/t.err")"
fi

# A drain that left the sink running across a switch the event did not
# cut at (switch_drain=0): 42's first run ends in 43's next record on its
# CPU, whose first byte ends 42's last message. That byte is 42's with
# --pid 42 too, and --pid 43 passes over it.
"$PDT" --write "$WORK/tail.data" "${targs[@]:0:8}" --run 0 42 "$WORK/task42.0.bin" \
	--cont-tail --run 0 43 "$WORK/task43.0.bin" --run 1 43 "$WORK/task43.1.bin" \
	--run 1 42 "$WORK/task42.1.bin" --run 0 42 "$WORK/task42.2.bin" \
	--run 1 43 "$WORK/task43.2.bin" ||
	{ not_ok "task mode: perfdata_test writes records that end in the next"; exit 1; }
task_decode "$WORK/tail.data"
st=$?
"$TOOL" decode --root "$WORK" --pid 42 -o "$WORK/p42" "$WORK/tail.data" 2>"$WORK/p.err"
"$TOOL" decode --root "$WORK" --pid 43 -o "$WORK/p43" "$WORK/tail.data" 2>>"$WORK/p.err"
if [ $st -eq 0 ] && [ ! -s "$WORK/t.err" ] && [ ! -s "$WORK/p.err" ] &&
   cmp -s "$WORK/t.42" "$WORK/$ta.expect" && cmp -s "$WORK/t.43" "$WORK/$tb.expect" &&
   cmp -s "$WORK/p42" "$WORK/$ta.expect" && cmp -s "$WORK/p43" "$WORK/$tb.expect"; then
	ok "task mode: 42's last message ending in 43's continued record: the same PCs, with --pid 42 and --pid 43 too"
else
	not_ok "task mode, message ending in another's record: exit $st, 42: $(wc -l <"$WORK/t.42"), --pid 42: $(wc -l <"$WORK/p42"), 43: $(wc -l <"$WORK/t.43"), --pid 43: $(wc -l <"$WORK/p43") of $(wc -l <"$WORK/$ta.expect")/$(wc -l <"$WORK/$tb.expect") PCs: $(head -c 300 "$WORK/t.err" "$WORK/p.err")"
fi

# 42 execs another program at the same address, and a drain that left the
# sink running (a peek) publishes a record of its run that holds only the
# old program's trace, its last message unfinished: the next record's
# first byte ends that message and is decoded with the old program's code
# (its last instructions are of other lengths in the new one), the rest
# with the new one's. 42 runs the middle of $tb, then execs $ta; 43 runs $ta.
cat "$WORK/task43.1.bin" "$WORK/task42.0.bin" >"$WORK/exec42.bin"
cat "$WORK/task43.1.expect" "$WORK/$ta.expect" >"$WORK/exec42.expect"
"$PDT" --write "$WORK/exec.data" --task 42 "$tb" "/bin/$tb@0x10000,0x100000" \
	--task 43 "$ta" "/bin/$ta@0x10000,0x100000" --run 0 42 "$WORK/exec42.bin" \
	--cont-at $(($(stat -c %s "$WORK/task43.1.bin") - 1)) \
	--exec-in "$ta" "/bin/$ta@0x10000,0x100000" --run 1 43 "$WORK/task42.0.bin" \
	--run 1 42 "$WORK/task42.1.bin" --run 0 43 "$WORK/task42.1.bin" \
	--run 0 42 "$WORK/task42.2.bin" --run 1 43 "$WORK/task42.2.bin" ||
	{ not_ok "task mode: perfdata_test writes an exec inside a run"; exit 1; }
task_decode "$WORK/exec.data"
st=$?
if [ $st -eq 0 ] && [ ! -s "$WORK/t.err" ] && cmp -s "$WORK/t.42" "$WORK/exec42.expect" &&
   cmp -s "$WORK/t.43" "$WORK/$ta.expect" && grep -q '^errors: 0$' "$WORK/t.st"; then
	ok "task mode: 42's last message before its exec ending in its next record: the old program's PCs, then the new one's"
else
	not_ok "task mode, exec inside a run: exit $st, 42: $(wc -l <"$WORK/t.42")/$(wc -l <"$WORK/exec42.expect"), 43: $(wc -l <"$WORK/t.43")/$(wc -l <"$WORK/$ta.expect") PCs: $(head -c 300 "$WORK/t.err")"
fi

# The patched perf: the same records, and perf script's PCs per process.
# perf_pcs FILE: $WORK/ps.42, ps.43 ("0x..." per line), ps.out (with the
# decode errors, e), ps.err (-v: perf's debug lines); exit status of perf script
perf_pcs() {
	local st
	"$hostperf" script -v -i "$1" --symfs "$WORK" --itrace=i1ie -F pid,ip \
		>"$WORK/ps.out" 2>"$WORK/ps.err"
	st=$?
	for pid in 42 43; do
		awk -v p=$pid '$1 == p { print "0x" $2 }' "$WORK/ps.out" | sed 's/^0x0*/0x/' \
			>"$WORK/ps.$pid"
	done
	return $st
}
# perf_exact FILE WHAT [EXPECT42 EXPECT43]: perf script gives 42 and 43
# exactly their PCs ($ta's and $tb's unless given), no error
perf_exact() {
	local st
	perf_pcs "$1"
	st=$?
	if [ $st -eq 0 ] && cmp -s "$WORK/ps.42" "${3:-$WORK/$ta.expect}" &&
	   cmp -s "$WORK/ps.43" "${4:-$WORK/$tb.expect}" && ! grep -q 'trace error' "$WORK/ps.out"; then
		ok "task mode: patched perf script$2"
	else
		not_ok "task mode: perf script on ${1##*/}: exit $st, 42: $(wc -l <"$WORK/ps.42"), 43: $(wc -l <"$WORK/ps.43") PCs: $(grep -E 'ntrace|error' "$WORK/ps.err" "$WORK/ps.out" | head -c 300)"
	fi
}
if [ -n "${hostperf:-}" ] && [ -x "$hostperf" ]; then
	cmp_perf "task mode: patched perf reads the records as we do" "$hostperf" "$WORK/reaped.data"
	perf_exact "$WORK/task.data" " --itrace=i1ie -F pid,ip gives each process its retired PCs"
	perf_pcs "$WORK/reaped.data"
	st=$?
	if [ $st -eq 0 ] && cmp -s "$WORK/ps.42" "$WORK/$ta.expect" &&
	   cmp -s "$WORK/ps.43" "$WORK/$tb.expect" &&
	   grep -q 'ntrace: 1 AUX records of pid -1 given to a task' "$WORK/ps.err" &&
	   ! grep -q 'trace error' "$WORK/ps.out"; then
		ok "task mode: patched perf script gives the pid -1 record to 42 as well (ntrace_scan__reaped)"
	else
		not_ok "task mode: perf script, pid -1 record: exit $st, 42: $(wc -l <"$WORK/ps.42") PCs: $(grep -E 'ntrace|error' "$WORK/ps.err" "$WORK/ps.out" | head -c 300)"
	fi
	perf_exact "$WORK/cont.data" \
		", a continued record starting inside a message: each process its retired PCs"
	perf_exact "$WORK/tail.data" \
		", 42's last message ending in 43's continued record: each process its retired PCs"
	perf_exact "$WORK/exec.data" \
		", 42's last message before its exec ending in its next record: the old program's PCs, then the new one's" \
		"$WORK/exec42.expect" "$WORK/$ta.expect"
	perf_pcs "$WORK/noswitch.data"
	if cmp -s "$WORK/ps.42" "$WORK/task42.head" && cmp -s "$WORK/ps.43" "$WORK/$tb.expect" &&
	   ! grep -q 'pid -1 given' "$WORK/ps.err" &&
	   [ "$(grep -c 'trace error' "$WORK/ps.out")" = 1 ] &&
	   grep -q 'trace error .* pid -1 tid -1 .*cannot decode at pc .* is outside' "$WORK/ps.out"; then
		ok "task mode: patched perf script, no switch-in on the pid -1 record's CPU: an error, 42 has its first two runs"
	else
		not_ok "task mode: perf script, pid -1 record without switch-in: 42: $(wc -l <"$WORK/ps.42") PCs: $(grep -E 'ntrace|error' "$WORK/ps.err" "$WORK/ps.out" | head -c 300)"
	fi
else
	skip "task mode: perf script cross-check" "no patched host perf"
fi

# ---- bad input ----
n=${progs[0]}
f=$WORK/$n.btm.1.data
check_err() {	# NAME EXIT PATTERN FILE [OPTIONS...]
	local name=$1 want=$2 pat=$3 file=$4 st; shift 4
	"$TOOL" decode "$@" "$file" >/dev/null 2>"$WORK/err"
	st=$?
	if [ $st -eq "$want" ] && grep -q -- "$pat" "$WORK/err"; then
		ok "$name: exit $st, $(head -1 "$WORK/err")"
	else
		not_ok "$name: exit $st (want $want), $(head -c 300 "$WORK/err")"
	fi
}
"$PDT" --write "$f" --trace "$WORK/idle.bin" --elf /bin/app@0x10000,0x1000
head -c 3000 "$WORK/$n.htm-ret8-rh.7.data" >"$WORK/cut.data"
check_err "truncated perf.data" 2 "outside the" "$WORK/cut.data" --elf-dir "$WORK/bin"
check_err "perf.data without ntrace AUXTRACE_INFO" 2 "no ntrace AUXTRACE_INFO" \
	"$WORK/noaux.data" --elf-dir "$WORK/bin"
check_err "mapped program not found" 1 "no ELF file for mapping of /bin/$n" \
	"$WORK/$n.htm-ret8-rh.7.data" --elf-dir "$WORK/nowhere"
cp "$WORK/$n.htm-ret8-rh.7.data" "$WORK/bad.data"
printf '\0\0' | dd of="$WORK/bad.data" bs=1 seek=$((104 + 288 + 16 + 6)) conv=notrunc 2>/dev/null
check_err "record with size 0" 2 "bad size 0" "$WORK/bad.data" --elf-dir "$WORK/bin"
tap_status
