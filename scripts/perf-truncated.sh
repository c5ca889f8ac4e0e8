#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf on perf.data files cut short (TAP lines; check-perf.sh runs it with
# the host perf):   scripts/perf-truncated.sh PERF
# A file truncated by a full disk or an interrupted copy must give a clear
# warning and the samples that are there, never a crash or a hang. Each
# recording is cut at every record's start and half way into it (the
# layout from perf report -D of the whole file), at and next to every page
# boundary (where perf used to touch the first page past the end), and at
# seeded random offsets. On every cut:
#  - perf script is not killed by a signal, does not hang, and says on
#    stderr that the file is truncated;
#  - its output is the start of the whole file's output, no shorter than
#    for an earlier cut, and where the record layout tells (software-event
#    samples) exactly the samples whose records end before the cut: the
#    independent truth;
#  - on every 16th cut (3rd for N-Trace), perf report --stdio and perf
#    inject are not killed or hung either, and the file perf inject
#    writes reads back as the same samples.
# Recordings: task-clock samples with call chains of a one-threaded
# program, recorded here by PERF (--per-thread: one buffer, so file order
# is sample order); with the project's test tools and ground truth built
# (build/perf-ntrace, build/gt: the host suite), an N-Trace AUX area file
# synthesised by perfdata_test, decoded with --itrace=bcr, in the file and
# the pipe format.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

PERF=${1:?usage: perf-truncated.sh PERF}
scratch W
TAP_PREFIX=${TAP_PREFIX:-"perf: "}
SEED=${NTRACE_TRUNC_SEED:-28}
TMO=30

# run NAME CMD...: CMD's stdout to $W/NAME.out, stderr to $W/NAME.err.
# Returns CMD's status, but 124 for a hang (killed after $TMO s) and 128 + N
# when a signal N killed it (perf's own error exit is 255).
run() {
	local name=$1 st; shift
	# (the braces take bash's own "Bus error" notice)
	{ timeout -s KILL "$TMO" "$@" >"$W/$name.out" 2>"$W/$name.err"; } 2>/dev/null
	st=$?
	[ $st -ne 137 ] || st=124
	return $st
}
# the status of a command killed by a signal or hung (perf's errors exit
# with 256 - errno: 234 for EINVAL, 255)
killed() { [ "$1" -eq 124 ] || { [ "$1" -gt 128 ] && [ "$1" -le 192 ]; }; }

# "START END TYPE" per record of FILE in file order, END being where the
# next record starts (an AUXTRACE record's trace data follows it).
records() {	# FILE
	"$PERF" report -D -i "$1" 2>/dev/null |
		sed -n 's/^\(0x[0-9a-f]*\)@.* \[\(0x[0-9a-f]*\)\]: event: \([0-9]*\)$/\1 \2 \3/p' |
		while read -r o s t; do echo "$((o)) $((s)) $t"; done | sort -n -u -k1,1 |
		awk -v size="$2" 'NR > 1 { print o, $1, t } { o = $1; t = $3 } END { print o, size, t }'
}

# cuts RECORDS SIZE DATA_OFFSET: the offsets to cut at, one a line.
cuts() {
	local size=$2 p i
	{
		awk '{ print $1; print int(($1 + $2) / 2) }' "$1"
		for ((p = 4096; p < size; p += 4096)); do
			echo $((p - 1)) $p $((p + 1)) $((p + 8))
		done | tr ' ' '\n'
		# inside the header and the attributes
		printf '%s\n' 0 8 64 $(($3 - 1))
		RANDOM=$SEED
		for ((i = 0; i < 40; i++)); do
			echo $((((RANDOM << 15) | RANDOM) % size))
		done
	} | awk -v size="$size" '$1 >= 0 && $1 < size' | sort -n -u
}

# check_cuts NAME FILE EXACT EVERY SCRIPT-OPTIONS...: cut FILE everywhere
# and check perf script on each, perf report and inject on every EVERYth.
# EXACT=1: perf script prints one line per sample record (event 9), so a
# cut must print exactly the samples whose records end before it.
check_cuts() {
	local name=$1 file=$2 exact=$3 every=$4 size doff n st cut want got
	local crashed=0 hung=0 silent=0 notprefix=0 inexact=0 bad=() ncuts=0
	local rcrash=0 icrash=0 ibad=0 nrep=0 prev=0 shrank=0 most=0
	shift 4
	size=$(stat -c %s "$file")
	# the data offset; a pipe-format file has a 16-byte header and no more
	doff=16
	[ "$(od -An -tu8 -j 8 -N 8 "$file" | tr -d ' ')" = 16 ] ||
		doff=$(od -An -tu8 -j 40 -N 8 "$file" | tr -d ' ')
	records "$file" "$size" >"$W/rec" || true
	if ! run full "$PERF" script -i "$file" "$@" || [ ! -s "$W/full.out" ] ||
	   [ ! -s "$W/rec" ]; then
		not_ok "$name: the whole file reads: $(head -c 300 "$W/full.err")"
		return
	fi
	cp "$W/full.out" "$W/whole"
	cuts "$W/rec" "$size" "$doff" >"$W/cuts"
	while read -r cut; do
		ncuts=$((ncuts + 1))
		head -c "$cut" "$file" >"$W/cut.data"
		run cut "$PERF" script -i "$W/cut.data" "$@"
		st=$?
		if [ $st -eq 124 ]; then
			hung=$((hung + 1)) bad+=("$cut:hang")
		elif killed $st; then
			crashed=$((crashed + 1)) bad+=("$cut:signal$((st - 128))")
		fi
		# the warning (perf's own for a pipe-format file ending inside
		# a record); a cut inside the file header itself may only be
		# "incompatible file format", the header being incomplete
		if ! grep -qi 'truncated\|cut short\|ends inside\|unexpected end' "$W/cut.err" &&
		   { [ "$cut" -ge 104 ] || [ ! -s "$W/cut.err" ]; }; then
			silent=$((silent + 1)) bad+=("$cut:no-warning")
		fi
		n=$(wc -l <"$W/cut.out")
		# a longer file has at least as much to show
		[ "$n" -ge "$prev" ] || { shrank=$((shrank + 1)) bad+=("$cut:$n-lines-after-$prev"); }
		prev=$n
		[ "$n" -eq "$(wc -l <"$W/whole")" ] || most=$((n > most ? n : most))
		if ! head -n "$n" "$W/whole" | cmp -s - "$W/cut.out"; then
			notprefix=$((notprefix + 1)) bad+=("$cut:not-a-prefix")
		elif [ "$exact" = 1 ] && ! killed $st; then
			want=$(awk -v c="$cut" '$3 == 9 && $2 <= c { n++ } END { print n + 0 }' "$W/rec")
			[ "$cut" -ge "$doff" ] || want=0
			if [ "$n" -ne "$want" ]; then
				inexact=$((inexact + 1)) bad+=("$cut:$n-of-$want-samples")
			fi
		fi
		[ $((ncuts % every)) -eq 1 ] || continue
		nrep=$((nrep + 1))
		run rep "$PERF" report -i "$W/cut.data" --stdio "$@"
		st=$?
		! killed $st || { rcrash=$((rcrash + 1)) bad+=("$cut:report-status$st"); }
		rm -f "$W/inj.data"
		run inj "$PERF" inject -i "$W/cut.data" -o "$W/inj.data"
		st=$?
		if killed $st; then
			icrash=$((icrash + 1)) bad+=("$cut:inject-status$st")
		elif [ $st -eq 0 ]; then
			# what inject wrote is a whole file again: the same samples
			run inj2 "$PERF" script -i "$W/inj.data" "$@"
			cmp -s "$W/inj2.out" "$W/cut.out" || { ibad=$((ibad + 1)) bad+=("$cut:inject-output"); }
		fi
	done <"$W/cuts"
	got="$ncuts cuts of $size bytes ($(wc -l <"$W/rec") records, $(wc -l <"$W/whole") lines of output)"
	check "$name: perf script on $got: killed by a signal $crashed, hung $hung" \
		eval "[ $crashed -eq 0 ] && [ $hung -eq 0 ]"
	check "$name: perf script warns about the truncation (silent on $silent cuts)" \
		eval "[ $silent -eq 0 ]"
	if [ "$exact" = 1 ]; then
		check "$name: perf script prints exactly the samples before the cut (not a prefix $notprefix, other count $inexact)" \
			eval "[ $notprefix -eq 0 ] && [ $inexact -eq 0 ]"
	else
		check "$name: perf script's output is a prefix of the whole file's (not on $notprefix cuts), longer for a longer file (not on $shrank), up to $most lines before the end" \
			eval "[ $notprefix -eq 0 ] && [ $shrank -eq 0 ] && [ $most -gt 0 ]"
	fi
	check "$name: perf report and perf inject on $nrep of the cuts: killed or hung $((rcrash + icrash)), injected file reads differently $ibad" \
		eval "[ $rcrash -eq 0 ] && [ $icrash -eq 0 ] && [ $ibad -eq 0 ]"
	[ ${#bad[@]} -eq 0 ] || echo "# $name: ${bad[*]:0:12}"
}

# ---- software-event samples recorded here ----
# one thread, one buffer: file order is sample order; call chains make the
# records long enough to cross page boundaries
if "$PERF" record -q --per-thread -T -g -e task-clock -c 300000 -o "$W/sw.data" -- \
	awk 'BEGIN { for (i = 0; i < 2000000; i++) s += i }' >/dev/null 2>"$W/rec.err" &&
   [ "$(stat -c %s "$W/sw.data")" -gt 16384 ]; then
	check_cuts "task-clock -g recording" "$W/sw.data" 1 16 -F tid,time,ip,sym,period -G
else
	skip "truncated software-event recordings" "perf record -e task-clock fails here: $(head -c 200 "$W/rec.err")"
fi

# ---- an N-Trace recording, synthesised from a test program's ground truth ----
# BTM: 18 KiB of trace in one AUXTRACE record (perf's decoder wants AUX
# records to start at a message boundary, which perfdata_test's chunks do
# not), so most cuts fall inside its trace data
gt=recursion-Os-g
PDT=$NTRACE_BUILD/tests/perfdata_test RT=$NTRACE_BUILD/tools/rt-tool
if [ -x "$PDT" ] && [ -x "$RT" ] && gt_copy "$gt" "$W/$gt.pcs" "$W/$gt" >/dev/null; then
	mkdir -p "$W/root/bin" && mv "$W/$gt" "$W/root/bin/$gt"
	if "$RT" encode btm "$W/$gt.pcs" "$W/nt.bin" --priv u "$W/root/bin/$gt" &&
	   "$PDT" --write "$W/nt.data" --trace "$W/nt.bin" --chunks 1 \
		--elf "/bin/$gt@0x10000,0x100000" &&
	   "$PDT" --write "$W/ntpipe.data" --trace "$W/nt.bin" --chunks 1 \
		--elf "/bin/$gt@0x10000,0x100000" --pipe; then
		check_cuts "N-Trace recording of $gt" "$W/nt.data" 0 3 --itrace=bcr --symfs "$W/root"
		check_cuts "N-Trace recording of $gt, pipe format" "$W/ntpipe.data" 0 3 \
			--itrace=bcr --symfs "$W/root"
	else
		not_ok "N-Trace recording of $gt is synthesised"
	fi
else
	skip "truncated N-Trace recordings" "no $PDT, $RT or build/gt/$gt (run the host suite first)"
fi
tap_status
