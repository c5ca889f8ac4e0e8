#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Soak (TAP, issue 28 item 5): one boot of the 2-hart N-Trace QEMU model
# (or --config a funnel topology) with CPU-wide recordings
# "perf record -a -e ntrace//u" over minutes of guest time while two
# worker processes (tools/perf-ntrace/tests/cpuwide/ntsoak.c: bursts of a
# loop of random length, sleeps, a forked and exec'd child every 20 bursts)
# keep both harts busy, in four phases, one perf session each:
#   1 steady: nothing else;
#   2 hotplug: CPU 1 taken offline and brought back several times;
#   3 unbind: CPU 1's encoder (NTRACE_SOAK_UNBIND=sink: its sink) unbound
#     and bound again while perf record -a runs;
#   4 overflow: ntrace.ko reloaded with a 16 KiB sink in copy mode
#     (buf_kb=16 direct=0), drain_us 1000000 for half the phase with larger
#     bursts, then 4000 and the usual load.
# A session per phase, because perf stops the event of a CPU for good, for
# the rest of its session, when the CPU goes offline (Linux 6.12 does not
# restart it) or when the driver ends it with an empty TRUNCATED record
# (unbind): from then on the session records CPU 1 no more, and nor does
# the model log anything for it (its encoder is off), which is expected and
# checked. The model's ground-truth log (gt=PREFIX: every instruction each
# hart's encoder received, the whole boot) is one file per hart.
# On the host, per CPU, the four sessions' AUX records in order (perf
# report -D: size and flags of each, empty ones included) with what
# perf-ntrace decodes from each (--show-task: every instruction carries
# its record's time) are checked against the hart's log by
# scripts/soak-align.awk: a record not flagged decodes to exactly the next
# run of the log; instructions of the log are skipped only right after a
# record flagged TRUNCATED, PARTIAL or COLLISION (the loss reported); a
# flagged record decodes to an ordered part of the log; the log's end is
# reached. So every instruction the encoder received is either decoded
# from a record, in order, or in a loss that a flag reported: decoded +
# lost = the log, printed per CPU. Also per session: every AUX byte went to
# the decoder (the records' sizes add up to its chunk_bytes, no byte
# unattributed or missing), no decode error in a process none of whose
# records was flagged, errors at most one per flagged record; phase 2 and 3
# end CPU 1's recording (no record of CPU 1 after the first offline, an
# empty TRUNCATED record at the unbind); phase 4 flagged loss, and no
# flagged record after drain_us is back at 4000; the kernel log clean.
# perf loses CPU 1's sideband with its event at the first offline: a
# process forked there afterwards has no FORK, COMM or MMAP record and does
# not decode when it runs on CPU 0. Those decode errors are allowed in
# phase 2 only, in the processes perf saw no fork of, and their records are
# checked as flagged ones, their loss counted apart. An AUX record perf
# wrote twice is counted once.
# Measured figures: Documentation/admin-guide/perf/ntrace.rst, "Tests".
# Usage: scripts/soak.sh [--config CONFIG]   [ntrace-smp2]
# NTRACE_SOAK_SECS: guest seconds of work in all (default 150), split
# 30/25/20/25 % between the phases; NTRACE_SOAK_HOTPLUG: offline/online
# cycles (default 4); NTRACE_SOAK_UNBIND=encoder|sink; NTRACE_SOAK_LOAD=
# ITERS,SLEEP_US: each worker's bursts (default 1000,50000: about 80 k
# instructions a second each, as the ground-truth log takes about 22 bytes
# an instruction);
# NTRACE_KVARIANT=debug: the KASAN + lockdep kernel; NTRACE_SOAK_OUT=DIR:
# check the guest output of an earlier run (p1..p4.data, gt.hart*.txt,
# console.log) again; NTRACE_KEEP=1 keeps the work directory.
variant=${NTRACE_KVARIANT:-guest}
set -uo pipefail
. "$(dirname "$0")/lib.sh"

cpuwide_config soak "$@"
secs=${NTRACE_SOAK_SECS:-150}
cycles=${NTRACE_SOAK_HOTPLUG:-4}
unb=${NTRACE_SOAK_UNBIND:-encoder}
load=${NTRACE_SOAK_LOAD:-1000,50000}
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -ge 8 ] || die "NTRACE_SOAK_SECS wants seconds (8 or more), got '$secs'"
case $unb in encoder | sink) ;; *) die "NTRACE_SOAK_UNBIND is encoder or sink, not '$unb'" ;; esac
s1=$((secs * 30 / 100)) s2=$((secs * 25 / 100)) s3=$((secs * 20 / 100))
s4=$((secs - s1 - s2 - s3))
phases="p1 p2 p3 p4"

pn=$NTRACE_TOP/tools/perf-ntrace
B=$NTRACE_BUILD
scratch tmp "$NTRACE_TOP/build/soak" "${NTRACE_KEEP:-}" || exit 1
make -s -C "$pn" all >"$tmp/make.log" 2>&1 || { not_ok "perf-ntrace builds"; exit 0; }
cp "$B/perf-ntrace" "$tmp/" || { not_ok "perf-ntrace builds"; exit 0; }
make -s -C "$NTRACE_TOP" guest-progs >"$tmp/cc.log" 2>&1 ||
	{ not_ok "ntsoak builds: $(head -3 "$tmp/cc.log")"; exit 0; }
out=${NTRACE_SOAK_OUT:-$tmp/out}
# root: the guest's programs as the host sees them (for the MMAP records),
# kept with the guest's output
root=$out/root
if [ -z "${NTRACE_SOAK_OUT:-}" ]; then
	mkdir -p "$root/usr/bin"
	cp "$NTRACE_TOP/build/guest-progs/ntsoak" "$NTRACE_TOP/build/guest-progs/ntrace_bench" \
		"$root/usr/bin/"
	perf=$(bash "$NTRACE_TOP/scripts/perf.sh" 2>"$tmp/perf.log") ||
		{ not_ok "guest perf builds: $(tail -2 "$tmp/perf.log")"; exit 0; }
	cp "$perf" "$root/usr/bin/perf"
	start=$SECONDS
	rec="/usr/bin/perf record -m 1024 -a -e ntrace//u"
	adds=()
	for f in ntsoak ntrace_bench perf; do
		adds+=(--add "$root/usr/bin/$f=/usr/bin/$f")
	done
	# the boot's wall-clock limit: the work, perf's start and end, and a
	# loaded host (TCG runs at wall-clock time)
	guest_run "$tmp/boot" "$config" --kernel "$variant" "${adds[@]}" \
		--model-args "gt=$tmp/gt" --export "$tmp/export" \
		--timeout $((secs * 4 + 600)) --test-timeout $((secs * 2 + 300)) \
		--console "$out/console.log" >"$tmp/guest.log" 2>&1 < <(printf '%s\n' \
		"# scripts/soak.sh: $secs s of work in four perf sessions" \
		"$rec -o /tmp/export/p1.data -- /usr/bin/ntsoak -w $load steady $s1 >/tmp/export/p1.txt" \
		"$rec -o /tmp/export/p2.data -- /usr/bin/ntsoak -w $load hotplug $s2 $cycles 1 >/tmp/export/p2.txt" \
		"$rec -o /tmp/export/p3.data -- /usr/bin/ntsoak -w $load unbind $s3 1 $unb >/tmp/export/p3.txt" \
		"/usr/bin/ntrace_bench reload buf_kb=16" \
		"write /sys/module/ntrace/parameters/direct 0" \
		"$rec -o /tmp/export/p4.data -- /usr/bin/ntsoak -w $load overflow $s4 10000 100000 >/tmp/export/p4.txt")
	st=$?
	wall=$((SECONDS - start))
	# the guest's /init, built with its image
	cp "$NTRACE_TOP/build/guest/init" "$root/init" 2>/dev/null
	for f in "$tmp"/gt.hart*.txt "$tmp/export"/*; do
		[ -f "$f" ] && mv "$f" "$out/"
	done
	if [ $st = 2 ]; then
		not_ok "initramfs with perf, the driver and ntsoak: $(tail -3 "$tmp/boot/initramfs.log")"
		exit 0
	fi
	missing=
	for p in $phases; do [ -s "$out/$p.data" ] || missing+=" $p.data"; done
	if [ $st = 0 ] && [ -z "$missing" ]; then
		ok "guest ($nh harts, $variant kernel) recorded four CPU-wide sessions of $secs s of work in all ($s1 + $s2 + $s3 + $s4 s) in one boot ($wall s)"
	else
		not_ok "guest run (exit $st, $wall s):${missing:+ no$missing;} $(grep -E 'run end|error|No such' "$tmp/guest.log" | grep -v 'exit=0' | head -5 | tr '\n' ' ')"
		[ -z "$missing" ] || exit 0
	fi
fi
for p in $phases; do sed "s/^/# $p: /" "$out/$p.txt" 2>/dev/null | grep -v 'soak burst'; done

clean=$(awk -v cfg=ntrace -f "$NTRACE_TOP/guest/console-to-tap.awk" "$out/console.log" 2>/dev/null |
	grep 'kernel log clean')
case $clean in
"ok "*) ok "$variant kernel log clean over the soak" ;;
*) not_ok "$variant kernel log: ${clean#*: }" ;;
esac

vdso=$(ls "$(bash "$NTRACE_TOP/scripts/kernel.sh" "$variant" 2>/dev/null)"/arch/riscv/kernel/vdso/vdso.so 2>/dev/null)
[ -f "$vdso" ] || { not_ok "guest kernel's vdso.so"; exit 0; }
hostperf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host 2>"$tmp/hostperf.log") ||
	{ not_ok "host perf builds (perf report -D for the AUX records): $(tail -2 "$tmp/hostperf.log")"; exit 0; }
dec() { "$tmp/perf-ntrace" decode --root "$root" --vdso "$vdso" "$@"; }

# Per session: the AUX records (CPU TIME SIZE FLAGS OFFSET PID, in file order,
# which is each CPU's order; perf may write a record twice, as it did
# once in a short run: the same CPU, time, offset and size, decoded once,
# so counted once), the pids perf saw forked (FORK records, synthesised
# ones of the processes that existed at its start included), the decoder's
# stats and instructions.
for p in $phases; do
	"$hostperf" report -D -i "$out/$p.data" 2>/dev/null >"$tmp/$p.D"
	awk -v dup="$tmp/$p.dup" -v forks="$tmp/$p.forks" '
		function hex(s,   v, i) { v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		# the raw event before each record: its pid is the first field
		# of its sample_id, right after the AUX record body (0x20)
		/^\. \.\.\. raw event/ { pid = "" }
		/^\.  0020:  / { pid = hex($6 $5 $4 $3) }
		/PERF_RECORD_AUX / { for (i = 1; i <= NF; i++) { if ($i == "flags:") f = hex($(i + 1))
				if ($i == "size:") s = hex($(i + 1)); if ($i == "offset:") o = hex($(i + 1)) }
			k = $1 " " $2 " " s " " f " " o " " pid
			if (k in seen) { print k >dup; next }
			seen[k] = 1; print k }
		/PERF_RECORD_FORK\(/ { split($0, a, /FORK\(/); split(a[2], b, ":"); print b[1] >forks }' \
		"$tmp/$p.D" >"$tmp/$p.aux"
	touch "$tmp/$p.dup" "$tmp/$p.forks"
	dec --format=stats -o "$tmp/$p.st" "$out/$p.data" 2>"$tmp/$p.st.err"
	echo $? >"$tmp/$p.st.rc"
	dec -q --show-task -o "$tmp/$p.tpc" "$out/$p.data" 2>/dev/null
	# processes perf saw no fork of: forked on a CPU whose recording had
	# ended (CPU 1 after its first offline in p2): perf lost their FORK,
	# COMM and MMAP records with that CPU's event, so their code, when
	# they run on the other CPU, has no image to decode with
	awk -v forks="$tmp/$p.forks" 'BEGIN { while ((getline l < forks) > 0) f[l] = 1 }
		$1 == "process" && !($2 in f) { print $2 }' "$tmp/$p.st" >"$tmp/$p.nofork"
done
# flagged: TRUNCATED 1, PARTIAL 4, COLLISION 8 (not OVERWRITE 2)
flagged() { awk -v c="${2:-}" 'c == "" || $1 == c { n += ($4 % 2) || (int($4 / 4) % 4) } END { print n + 0 }' "$1"; }

# Every AUX byte went to the decoder, and decode errors only where flagged.
for p in $phases; do
	auxb=$(awk '{ s += $3 } END { print s + 0 }' "$tmp/$p.aux")
	nrec=$(wc -l <"$tmp/$p.aux")
	nfl=$(flagged "$tmp/$p.aux")
	v() { sed -n "s/^$1: //p" "$tmp/$p.st"; }
	errs=$(v errors)
	nof=$(tr '\n' ' ' <"$tmp/$p.nofork")
	nof=${nof% }
	# p2: a process perf saw no fork of may fail to decode (above)
	ue=$(awk -v p=$p -v nof=" $nof " '$1 == "process" { e = f = 0
		for (i = 4; i < NF; i++) { if ($i == "errors") e = $(i + 1); if ($i == "flagged") f = $(i + 1) }
		if (p == "p2" && index(nof, " " $2 " ")) next
		if (e > 0 && f == 0) printf " pid %s (%s) %s errors,", $2, $3, e }' "$tmp/$p.st")
	nfe=$(awk -v nof=" $nof " '$1 == "process" && index(nof, " " $2 " ") { for (i = 4; i < NF; i++) if ($i == "errors") e += $(i + 1) } END { print e + 0 }' "$tmp/$p.st")
	ndup=$(wc -l <"$tmp/$p.dup")
	[ $p = p2 ] || nfe=0
	if [ "$(cat "$tmp/$p.st.rc")" = 0 ] && [ "$(v chunk_bytes)" = "$auxb" ] &&
	   [ "$(v unattributed_bytes)" = 0 ] && [ "$(v missing_bytes)" = 0 ] &&
	   [ "$(v images_missing)" = 0 ] && [ -n "$errs" ] && [ "$errs" -le $((nfl + nfe)) ] && [ -z "$ue" ]; then
		ok "$p: all $auxb AUX bytes of $nrec records ($nfl flagged$([ "$ndup" = 0 ] || echo ", $ndup more written twice by perf")) decoded: $(v instructions) instructions, $errs decode errors, none in a process without a flagged record$([ "$nfe" = 0 ] || echo " except $nfe in the processes forked on CPU 1 after its first offline (pids $nof: perf recorded no fork, exec or mmap of them)")"
	else
		not_ok "$p: AUX bytes $auxb vs decoded $(v chunk_bytes), unattributed $(v unattributed_bytes), missing $(v missing_bytes), images missing $(v images_missing), $nrec records ($nfl flagged, $ndup written twice), errors ${errs:-?}:${ue} $(head -c 300 "$tmp/$p.st.err")"
	fi
done

# What each phase did to CPU 1.
aux1() { awk -v c="$1" '$1 == c' "$tmp/$2.aux"; }
n1=$(aux1 1 p1 | wc -l)
[ "$n1" -gt 0 ] && [ "$(flagged "$tmp/p1.aux")" = 0 ] &&
	ok "p1 steady: no record flagged ($(wc -l <"$tmp/p1.aux") records, $n1 of CPU 1)" ||
	not_ok "p1 steady: $(flagged "$tmp/p1.aux") records flagged, $n1 of CPU 1"
off=$(grep -c 'offline at .*: ok' "$out/p2.txt" 2>/dev/null) on=$(grep -c 'online at .*: ok' "$out/p2.txt" 2>/dev/null)
# perf time and CLOCK_MONOTONIC both count from boot on this guest (within
# a fraction of a second): CPU 1's last record no later than its first
# offline (+0.5 s)
t_off=$(sed -n 's/.*offline at .*(monotonic \([0-9.]*\)).*/\1/p' "$out/p2.txt" 2>/dev/null | head -1)
t_last=$(aux1 1 p2 | awk 'END { printf "%.6f", $2 / 1e9 }')
if [ "$off" = "$cycles" ] && [ "$on" = "$cycles" ] && [ -n "$t_off" ] &&
   awk -v a="$t_last" -v b="$t_off" 'BEGIN { exit !(a > 0 && a <= b + 0.5) }'; then
	ok "p2 hotplug: CPU 1 offline and online $cycles times while perf record -a ran; CPU 1 recorded until its first offline ($(aux1 1 p2 | wc -l) records, the last at $t_last s, offline at $t_off s), not after (perf does not restart a CPU's event)"
else
	not_ok "p2 hotplug: $off offline, $on online of $cycles, CPU 1's last record at ${t_last:-?} s, first offline at ${t_off:-?} s: $(grep -v burst "$out/p2.txt" 2>/dev/null | head -4 | tr '\n' ' ')"
fi
last=$(aux1 1 p3 | tail -1)
if grep -q "unbind .*: ok" "$out/p3.txt" 2>/dev/null && grep -q " bind .*: ok" "$out/p3.txt" 2>/dev/null &&
   [ "$(echo "$last" | awk '{ print $3, $4 % 2 }')" = "0 1" ]; then
	ok "p3 unbind: CPU 1's $unb unbound and bound again while perf record -a ran; CPU 1's event ended with an empty TRUNCATED record (its last of $(aux1 1 p3 | wc -l)), CPU 0 recorded on ($(aux1 0 p3 | wc -l) records)"
else
	not_ok "p3 unbind: $(grep -v burst "$out/p3.txt" 2>/dev/null | head -3 | tr '\n' ' ') CPU 1's last record (cpu time size flags): '$last'"
fi
nfl4=$(flagged "$tmp/p4.aux")
# after drain_us is back at 4000 (and the big bursts stopped): no loss
t_back=$(sed -n 's/.*drain_us 4000 (monotonic \([0-9.]*\)).*/\1/p' "$out/p4.txt" 2>/dev/null)
late=$(awk -v t="${t_back:-0}" '(($4 % 2) || (int($4 / 4) % 4)) && $2 / 1e9 > t + 0.5' "$tmp/p4.aux" | wc -l)
after=$(awk -v t="${t_back:-0}" '$2 / 1e9 > t + 0.5' "$tmp/p4.aux" | wc -l)
if [ "$nfl4" -gt 0 ] && [ -n "$t_back" ] && [ "$late" = 0 ] && [ "$after" -gt 0 ]; then
	ok "p4 overflow: $nfl4 of $(wc -l <"$tmp/p4.aux") records flagged while drain_us was 1000000 (a 16 KiB sink in copy mode drained at most every 62.5 ms, bursts of 20 to 60 k instructions), none of the $after records after drain_us was 4000 again"
else
	not_ok "p4 overflow: $nfl4 records flagged, $late of the $after after drain_us was 4000 again (at ${t_back:-?} s)"
fi

# Per CPU, the four sessions against its hart's log (soak-align.awk).
for ((h = 0; h < nh; h++)); do
	awk '!/^#/ && $4 == 0 && $2 != 0 { print $1 }' "$out/gt.hart$h.txt" >"$tmp/hart$h" 2>/dev/null
done
# recs C: CPU C's records of every session, in order, each "R KEY
# FLAGGED BYTES" and its decoded instructions "P PC"; FLAGGED is 1 for a
# record flagged TRUNCATED, PARTIAL or COLLISION, 2 for a p2 record of a
# process perf saw no fork of (its decode errors are reported, its loss
# counted apart), else 0
recs() {
	local p
	for p in $phases; do
		awk -v c="$1" -v p=$p -v tpc="$tmp/$p.tpc" -v nofork="$tmp/$p.nofork" '
			function next_insn() { if ((getline l < tpc) <= 0) { ic = ""; return }
				split(l, a, " "); ic = a[1]; ipid = a[2]; it = a[4]; ipc = a[5] }
			BEGIN { next_insn(); while (p == "p2" && (getline l < nofork) > 0) nf[l] = 1 }
			$1 != c { next }
			{ fl = ($4 % 2) || (int($4 / 4) % 4); n = 0
			  if (!fl && ($6 in nf)) fl = 2
			  while (ic != "" && (ic != c || it == $2)) {
				if (ic == c) { P[++n] = ipc; if (!fl && (ipid in nf)) fl = 2 }
				next_insn() }
			  print "R", p ":" $2, fl, $3
			  for (i = 1; i <= n; i++) print "P", P[i] }
			END { while (ic != "") { if (ic == c) { print "X", ipc; exit } next_insn() } }' "$tmp/$p.aux"
	done
}
tot_dec=0 tot_log=0 tot_lost=0 tot_b=0 tot_r=0 tot_f=0 used=" "
for ((c = 0; c < nh; c++)); do
	recs $c >"$tmp/cpu$c.recs"
	if grep -q '^X' "$tmp/cpu$c.recs"; then
		not_ok "cpu$c: instructions decoded outside its AUX records (time $(grep -m1 '^X' "$tmp/cpu$c.recs"))"
		continue
	fi
	res= hh=
	for ((h = 0; h < nh; h++)); do
		[[ $used == *" $h "* ]] && continue
		res=$(awk -v gtlog="$tmp/hart$h" -f "$NTRACE_TOP/scripts/soak-align.awk" "$tmp/cpu$c.recs")
		[ "${res%% *}" = ok ] && { hh=$h; used+="$h "; break; }
	done
	set -- $res
	if [ -n "$hh" ] && [ $((${9} + ${13})) = "${15}" ]; then
		ok "cpu$c=hart$hh: every instruction the encoder received decoded or reported lost: ${9} decoded (${11} from records not flagged, each the next run of the log) + ${13} lost in or after flagged records = ${15} in the log; ${3} AUX records (${5} flagged), ${7} bytes, ${17} gaps after flagged records$([ "${19}" = 0 ] || echo "; of the lost, ${21} in or after ${19} records of processes forked on CPU 1 after its first offline (p2), decoded in part")"
		tot_dec=$((tot_dec + ${9})) tot_log=$((tot_log + ${15})) tot_lost=$((tot_lost + ${13}))
		tot_b=$((tot_b + ${7})) tot_r=$((tot_r + ${3})) tot_f=$((tot_f + ${5}))
	else
		not_ok "cpu$c against each free hart's log: ${res:-no result} (last tried)"
	fi
done
gsecs=$(cat "$out"/p?.txt 2>/dev/null | awk '/^soak [a-z]+ done in/ { s += $5 } END { printf "%.1f", s }')
echo "# soak figures: $gsecs guest seconds of work measured in the guest ($secs asked: $s1 steady, $s2 hotplug x$cycles, $s3 unbind $unb, $s4 overflow), AUX $tot_b bytes in $tot_r records ($tot_f flagged), instructions decoded $tot_dec + lost $tot_lost = log $tot_log"

if [ "$TAP_FAILED" != 0 ] && [ -z "${NTRACE_SOAK_OUT:-}" ]; then
	rm -rf "$NTRACE_TOP/build/soak/failed"
	cp -a "$tmp" "$NTRACE_TOP/build/soak/failed" &&
		echo "# files of this run: build/soak/failed"
fi
exit 0
