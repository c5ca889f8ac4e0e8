#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# End to end (TAP), CPU-wide: "perf record -a -e ntrace//u" and
# "perf record -C 0 -e ntrace//u" (and -a with HTM, implicit returns and
# Ownership messages) on the 2-hart N-Trace QEMU model while
# two different programs run at the same time (free, and both pinned to
# CPU 0 so that one CPU's trace interleaves processes), the perf.data files
# carried out on the export disk and decoded on the host by perf-ntrace,
# each process with its own program images.
#
# Truth 1: each program's flow recorded by QEMU user mode
# (tools/perf-ntrace/tests/gt). The flow decoded for the process (selected
# by pid) must start at _start, end in _exit, and from main to exit be
# instruction for instruction QEMU's; the whole file (perf itself, the
# launcher, both programs) must decode with 0 errors given the guest's
# binaries; output lines carry cpu/pid/tid/time and are in time order.
# (C library start-up may differ between runs: a failed LR/SC is retried
# after a page fault, so flows are compared with each run's own truth.)
# The host perf decodes the same files itself (perf script --itrace=i1i):
# samples in time order (merged by trace time for "h", recorded with
# ts=1), each program's main..exit equal to QEMU's.
# Also measures the cost of draining the trace at every context switch
# (a pipe ping-pong with the driver's switch_drain on and off).
# Truth 2, exact: the model's ground-truth log (gt=PREFIX, one file per
# hart, every record its encoder received): for each CPU, the instructions
# decoded from that CPU's AUX records, all processes together in time
# order, must be the log of that CPU's hart, instruction for instruction.
# Which hart a CPU is comes from the guest's /proc/cpuinfo (each boot ends
# with "ntcpuwide harts"), not from the driver: on ntrace-funnel-smp4-hartmap
# Linux CPU N is hart 2, 0, 3, 1, and a CPU's trace from another hart's
# encoder fails.
# On a topology where the harts share one sink through funnels
# (--config ntrace-funnel-smp2, ntrace-funnel-smp4, ntrace-funnel2-smp4,
# ntrace-funnel-smp4-hartmap, ntrace-upstream-dt-funnel-smp2 (the upstream
# binding's DT form), ntrace-p550 and ntrace-p550-hartmap (SiFive's v0
# blocks: user and kernel, below))
# the same truths hold for "perf record -a" and a per-task recording
# ("perf record -- CMD"): the driver demultiplexes the sink by SRC, so each
# CPU's AUX records must decode, with perf-ntrace and with perf, to exactly
# its hart's log. A loaded host can stall a hart's vCPU past what the
# funnels buffer while another drains: then, as in boot o below, a CPU
# with flagged AUX records need only decode to an ordered part of its
# hart's log (the TAP line says how much was lost), the others exactly,
# and a program with flagged records of its own is not compared with
# QEMU's flow. A third boot (o) forces the shared sink to overflow (a
# 16 KiB sink, drained once a second by the timer; busy harts, one quiet
# hart): the AUX records of a CPU are flagged PARTIAL/TRUNCATED exactly
# when its decoded flow lost instructions against its hart's log (so not
# on the quiet CPU), and what was not lost decodes as runs of that log
# without errors beyond the loss points and none in a process whose
# records were not flagged.
# Usage: scripts/perf-e2e-cpuwide.sh [--config CONFIG]   [ntrace-smp2]
# NTRACE_KVARIANT=debug boots the KASAN + lockdep kernel.
# NTRACE_CPUWIDE_NODRAIN=1 records a and c0 with the driver's switch_drain
# off: the checks must then fail.
# Set NTRACE_CPUWIDE_OUT=DIR to reuse the guest output of an earlier run
# (NAME.data, NAME.gt.hart*.txt, NAME.console.log for NAME = a, c0, h, pp;
# NTRACE_KEEP=1 keeps a run's files under build/perf-e2e/cpuwide/run.*).
variant=${NTRACE_KVARIANT:-guest}
set -uo pipefail
. "$(dirname "$0")/lib.sh"

cpuwide_config perf-e2e-cpuwide "$@"
# SiFive's v0 encoders (the P550) cannot filter by privilege: there the
# event traces user and kernel and is recorded with --kcore, the truths
# take every record of a hart's log but firmware's (M mode: no image of
# it, so decoding resumes where it returns), and the host perf is the
# decoder (perf-ntrace decodes user images only, so its checks are
# skipped). The per-task recording (t) runs one program: a v0 funnel drops
# what comes while a drain has it off, so the driver flags every other
# source's records then (see the admin guide); with one task traced at a
# time (but for the fork, where launcher and child overlap) the CPUs with
# no flagged record must be exact. NTRACE_CPUWIDE_ONLY=t records t alone.
ev=ntrace//u kcore=
case $config in
ntrace-p550*) ev=ntrace/htm=1,sync_period=1,ts=1/ kcore=--kcore ;;
esac
only=${NTRACE_CPUWIDE_ONLY:-}

progs=(loop-O2-g switch-O2-g)
names=(ntloop ntswitch)
gt=$NTRACE_TOP/build/gt
pn=$NTRACE_TOP/tools/perf-ntrace
e2e=$pn/tests/e2e
B=$NTRACE_BUILD
scratch tmp "$NTRACE_TOP/build/perf-e2e/cpuwide-$config" "${NTRACE_KEEP:-}" || exit 1

for p in "${progs[@]}"; do
	[ -f "$gt/$p.pcs" ] && continue
	bash "$pn/tests/gt/build-suite.sh" >"$tmp/gt.log" 2>&1 ||
		{ not_ok "ground truth (tests/gt/build-suite.sh): $(tail -3 "$tmp/gt.log")"; exit 0; }
	break
done
make -s -C "$pn" all >"$tmp/make.log" 2>&1 || { not_ok "perf-ntrace builds"; exit 0; }
cp "$B/perf-ntrace" "$B/tools/rt-tool" "$tmp/" || { not_ok "test tools build"; exit 0; }
# root: the guest's programs as the host sees them (for the MMAP records)
mkdir -p "$tmp/root/usr/bin"
for i in "${!progs[@]}"; do
	cp "$gt/${progs[$i]}" "$tmp/root/usr/bin/${names[$i]}"
done
make -s -C "$NTRACE_TOP" guest-progs >"$tmp/cc.log" 2>&1 ||
	{ not_ok "ntcpuwide builds: $(head -3 "$tmp/cc.log")"; exit 0; }
cp "$NTRACE_TOP/build/guest-progs/ntcpuwide" "$NTRACE_TOP/build/guest-progs/ntrace_bench" \
	"$tmp/root/usr/bin/"
perf=$(bash "$NTRACE_TOP/scripts/perf.sh" 2>"$tmp/perf.log") ||
	{ not_ok "guest perf builds: $(tail -2 "$tmp/perf.log")"; exit 0; }
cp "$perf" "$tmp/root/usr/bin/perf"

out=${NTRACE_CPUWIDE_OUT:-$tmp/out}
spawn="/usr/bin/ntcpuwide spawn"
both="/usr/bin/ntloop /usr/bin/ntswitch"
# boot NAME GT COMMAND...: one guest boot running the commands (one per
# argument); GT=1 keeps the model's ground-truth logs as $out/NAME.gt.hart*.txt
boot() {
	local name=$1 gtlog=$2 f st adds=() margs=()
	shift 2
	# the truth of which hart each CPU is, for Truth 2
	set -- "$@" "/usr/bin/ntcpuwide harts >/tmp/export/$name.harts.txt"
	for f in ntloop ntswitch ntcpuwide ntrace_bench; do
		adds+=(--add "$tmp/root/usr/bin/$f=/usr/bin/$f")
	done
	[ "$gtlog" = 1 ] && margs=(--model-args "gt=$tmp/$name.gt")
	guest_run "$tmp/$name" "$config" --kernel "$variant" "${adds[@]}" "${margs[@]}" \
		--export "$tmp/$name.out" --timeout 900 --console "$out/$name.console.log" \
		>"$tmp/$name.guest.log" 2>&1 < <(printf '%s\n' "# scripts/perf-e2e-cpuwide.sh: $name" "$@")
	st=$?
	if [ $st = 2 ]; then
		not_ok "initramfs with perf, the driver and the programs: $(tail -3 "$tmp/$name/initramfs.log")"
		return 1
	fi
	# files, and the directories perf record --kcore writes
	for f in "$tmp/$name".gt.hart*.txt "$tmp/$name.out"/*; do
		[ -e "$f" ] && mv "$f" "$out/"
	done
	[ $st = 0 ] || not_ok "guest run $name (exit $st): $(grep -E 'run end|error|No such' "$tmp/$name.guest.log" | grep -v 'exit=0' | head -5 | tr '\n' ' ')"
	return $st
}
if [ -z "${NTRACE_CPUWIDE_OUT:-}" ]; then
	mkdir -p "$out"
	start=$SECONDS
	# round trips of the ping-pong (the debug kernel is about 30 times slower)
	n=3000
	[ "$variant" = guest ] || n=100
	# NTRACE_CPUWIDE_NODRAIN=1: the driver does not drain at context switches
	# (switch_drain=0), to see the checks fail without it
	pre="# drain at every switch"
	[ -z "${NTRACE_CPUWIDE_NODRAIN:-}" ] || pre="write /sys/module/ntrace/parameters/switch_drain 0"
	# A sideband ring of 4 MiB per CPU (-m 1024): every context switch adds
	# a switch and an AUX record, and perf on the debug kernel reads them
	# too slowly for the default 512 KiB (PERF_RECORD_LOST, then AUX bytes
	# no record describes, which the decoder reports and skips).
	rec="/usr/bin/perf record -m 1024"
	if [ $config != ntrace-smp2 ]; then
		# Shared sink: CPU-wide and per task, then the forced overflow:
		# busy harts (bursts of 120 k instructions, about 70 KB of trace
		# each) and a quiet last hart (short bursts, each started by a
		# context switch, whose drain empties the sink).
		busy=/usr/bin/ntcpuwide,burst,10,30000,1000 quiet=/usr/bin/ntcpuwide,burst,30,300,10000
		load=
		for ((c = 0; c < nh - 1; c++)); do load+=" $busy@$c"; done
		load+=" $quiet@$((nh - 1))"
		if [ -n "$kcore" ]; then
			# the P550's sink is the funnel's, in memory the firmware
			# gave it: no overflow boot
			[ "$only" = t ] ||
				boot a 1 "$rec $kcore -a -e $ev -o /tmp/export/a.data -- $spawn $both" || exit 0
			boot t 1 "$rec $kcore -e $ev -o /tmp/export/t.data -- $spawn /usr/bin/ntloop" || exit 0
		else
			boot a 1 "$rec -a -e $ev -o /tmp/export/a.data -- $spawn $both" &&
			boot t 1 "$rec -e $ev -o /tmp/export/t.data -- $spawn $both" &&
			boot o 1 "/usr/bin/ntrace_bench reload buf_kb=16 drain_us=1000000" \
				"$rec -a -e ntrace//u -o /tmp/export/o.data -- $spawn$load" || exit 0
		fi
		if [ -n "$kcore" ] && { [ "$only" = t ] || [ -e "$out/a.data" ]; } && [ -e "$out/t.data" ]; then
			what="per task of one program"
			[ "$only" = t ] || what="-a of two programs at once and $what"
			ok "guest ($nh harts, one shared sink, $variant kernel) recorded perf record $kcore -e $ev, $what ($((SECONDS - start)) s)"
		elif [ -s "$out/a.data" ] && [ -s "$out/t.data" ] && [ -s "$out/o.data" ]; then
			ok "guest ($nh harts, one shared sink, $variant kernel) recorded perf record -a and per task of two programs at once, and -a with the sink overflowing (3 boots, $((SECONDS - start)) s)"
		else
			not_ok "guest runs left no a.data / t.data / o.data"
			exit 0
		fi
	else
	boot a 1 "$pre" "$rec -a -e ntrace//u -o /tmp/export/a.data -- $spawn $both" &&
	boot c0 1 "$pre" "$rec -C 0 -e ntrace//u -o /tmp/export/c0.data -- $spawn -p 0 $both" &&
	boot h 1 "$pre" "$rec -a -e ntrace/htm=1,iret=1,ctx=1,ts=1/u -o /tmp/export/h.data -- $spawn $both" ||
		exit 0
	[ -n "${NTRACE_CPUWIDE_NODRAIN:-}" ] ||
	# each ping-pong twice, alternating; the faster of the two counts
	pp() { echo "/usr/bin/perf record -a -e ntrace//u -o /tmp/export/pp-$1.data -- /usr/bin/ntcpuwide pingpong $n >/tmp/export/pp-$1.txt"; }
	sd="write /sys/module/ntrace/parameters/switch_drain"
	boot pp 0 "/usr/bin/ntcpuwide pingpong $n >/tmp/export/pp-none.txt" \
		"$(pp drain)" "$sd 0" "$(pp nodrain)" "$sd 1" "$(pp drain2)" "$sd 0" "$(pp nodrain2)" \
		"/usr/bin/ntcpuwide pingpong $n >/tmp/export/pp-none2.txt" \
		"/usr/bin/perf record -a -e ntrace//u -o /tmp/export/a-nodrain.data -- $spawn -p 0 $both" \
		"$sd 1"
	if [ -s "$out/a.data" ] && [ -s "$out/c0.data" ] && [ -s "$out/h.data" ]; then
		ok "guest (2 harts, $variant kernel) recorded perf record -a, -C 0 and -a with HTM of two programs at once (4 boots, $((SECONDS - start)) s)"
	else
		not_ok "guest runs left no a.data / c0.data"
		exit 0
	fi
	fi
fi

# no kernel warnings, KASAN or lockdep reports while recording
boots="a c0 h pp" datas="a c0 h"
[ $config = ntrace-smp2 ] || boots="a t o" datas="a t"
[ -z "$kcore" ] || boots="a t"
[ "$only" != t ] || boots=t datas=t
for name in $boots; do
	[ "$name" != pp ] || [ -z "${NTRACE_CPUWIDE_NODRAIN:-}" ] || continue
	clean=$(awk -v cfg=ntrace -f "$NTRACE_TOP/guest/console-to-tap.awk" "$out/$name.console.log" 2>/dev/null |
		grep 'kernel log clean')
	case $clean in
	"ok "*) ok "$variant kernel log clean while recording CPU-wide (boot $name)" ;;
	*) not_ok "$variant kernel log (boot $name): ${clean#*: }" ;;
	esac
done

vdso=$(ls "$(bash "$NTRACE_TOP/scripts/kernel.sh" "$variant" 2>/dev/null)"/arch/riscv/kernel/vdso/vdso.so 2>/dev/null)
[ -f "$vdso" ] || { not_ok "guest kernel's vdso.so"; exit 0; }
cp "$NTRACE_TOP/build/guest/init" "$tmp/root/init" 2>/dev/null
dec() { "$tmp/perf-ntrace" decode --root "$tmp/root" --vdso "$vdso" "$@"; }
hostperf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host 2>"$tmp/hostperf.log") ||
	not_ok "host perf builds: $(tail -2 "$tmp/hostperf.log")"
# the host perf finds the guest's [vdso] in --symfs's build-id cache
perf_vdso_cache "$tmp/root" "$vdso" || not_ok "guest vdso.so into the build-id cache"

# Ground truth (QEMU user mode) and symbols of each program.
for i in "${!progs[@]}"; do
	"$tmp/rt-tool" expect "$gt/${progs[$i]}.pcs" "$tmp/truth.${names[$i]}" --priv u \
		"$tmp/root/usr/bin/${names[$i]}" || { not_ok "ground-truth PC list of ${progs[$i]}"; exit 0; }
done
sym() { riscv64-linux-gnu-nm "$tmp/root/usr/bin/$1" |
	awk -v s="$2" '$3 == s { print "0x" substr($1, match($1, /[1-9a-f]/)) }'; }
# instruction addresses of the launcher; 1: in __execve (li a7; ecall: the
# ecall itself traps to the kernel and so does not retire in user mode)
${CROSS_COMPILE}objdump -d "$tmp/root/usr/bin/ntcpuwide" |
	awk '/^[0-9a-f]+ <.*>:$/ { f = $2 } /^ *[0-9a-f]+:\t/ { a = $1; sub(":", "", a); print "0x" a, (f == "<__execve>:") }' \
	>"$tmp/launcher.insns"
seg() {	# main .. exit of program $1 in PC list $2
	awk -v a="$(sym "$1" main)" -v b="$(sym "$1" exit)" \
		'$1 == a { on = 1 } on { print } on && $1 == b { exit }' "$2"
}

# cpus_ok DATA N: N CPUs with user code in recording DATA is right: one
# for -C 0; both harts for -a on two per-hart sinks; on a shared sink at
# least two for -a (four harts need not all run user code), one per task.
cpus_ok() {
	case $1 in
	c0) [ "$2" = 1 ] ;;
	t) [ "$2" -ge 1 ] ;;
	*) if [ $config = ntrace-smp2 ]; then [ "$2" = 2 ]; else [ "$2" -ge 2 ]; fi ;;
	esac
}
# hart_match PREFIX: Truth 2 for PREFIX.cpuC (instructions decoded for CPU
# C, all processes in time order) against $tmp/$data.hartH: each CPU must
# equal the log of its hart, ${hmap[C]} (Linux CPU numbers need not be
# hart ids). Prints "cpu0=hartH ..." on success.
hart_match() {
	local c h used=" " m=
	for ((c = 0; c < nh; c++)); do
		for ((h = 0; h < nh; h++)); do
			[[ $used == *" $h "* ]] && continue
			[ "$h" = "${hmap[$c]:-}" ] || continue
			if cmp -s "$1.cpu$c" "$tmp/$data.hart$h"; then
				used+="$h " m+=" cpu$c=hart$h"
				continue 2
			fi
		done
		return 1
	done
	echo "${m# }"
}
# gt_harts DATA: the U-mode records (all but M mode's, with --kcore) of each hart's log as PC lists
# $tmp/DATA.hartH (size 0: a trap, no instruction), and the hart of each
# CPU in hmap[CPU] from the boot's /proc/cpuinfo (none: nothing matches)
gt_harts() {
	local h c
	for ((h = 0; h < nh; h++)); do
		awk -v all="$kcore" '!/^#/ && (all != "" ? $4 != 3 : $4 == 0) && $2 != 0 { print $1 }' \
			"$out/$1.gt.hart$h.txt" >"$tmp/$1.hart$h" 2>/dev/null
	done
	hmap=()
	[ ! -f "$out/$1.harts.txt" ] || while read -r c h; do hmap[c]=$h; done <"$out/$1.harts.txt"
	[ ${#hmap[@]} = "$nh" ] ||
		echo "# $1: the guest's /proc/cpuinfo gave ${#hmap[@]} hart(s) for $nh CPUs ($out/$1.harts.txt)"
	local m=
	for ((c = 0; c < nh; c++)); do m+=" cpu$c=hart${hmap[$c]:-?}"; done
	echo "# $1: CPUs are harts (guest /proc/cpuinfo):$m"
}
# perf_cpus FILE PREFIX: perf script -F cpu,pid,time,ip lines of FILE as
# PC lists PREFIX.cpuC, one per CPU
perf_cpus() {
	local c
	for ((c = 0; c < nh; c++)); do
		tr -d '[]:' <"$1" | awk -v c=$c '$2 == c { sub(/^0+/, "", $4); print "0x" $4 }' >"$2.cpu$c"
	done
}
# subseq A B: A's lines are an ordered subsequence of B's
subseq() { awk 'BEGIN { j = 0 } NR == FNR { a[n++] = $0; next } j < n && $0 == a[j] { j++ } END { exit j != n }' "$1" "$2"; }
# counts PREFIX: line counts of PREFIX.cpu0 .. PREFIX.cpuN-1 ("A + B ...")
counts() {
	local c n=
	for ((c = 0; c < nh; c++)); do n+="${n:+ + }$(wc -l <"$1$c" 2>/dev/null)"; done
	echo "$n"
}

# aux_flags DATA: per CPU, its AUX records and how many are flagged
# TRUNCATED, PARTIAL or COLLISION (perf report -D), as lines "CPU RECORDS
# FLAGGED" in $tmp/DATA.flags; prints the flagged records in all
aux_flags() {
	"$hostperf" report -D -i "$out/$1.data" 2>/dev/null |
		awk 'function hex(s,   v, i) { v = 0; s = tolower(s); sub(/^0x/, "", s)
				for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v }
			# flags: TRUNCATED 1, PARTIAL 4, COLLISION 8 (not OVERWRITE 2)
			/PERF_RECORD_AUX / { for (i = 1; i <= NF; i++) if ($i == "flags:") f = hex($(i + 1))
			n[$1]++; l[$1] += (f % 2) || (int(f / 4) % 4) } END { for (c in n) print c, n[c], l[c] + 0 }' |
		sort -n >"$tmp/$1.flags"
	awk '{ s += $3 } END { print s + 0 }' "$tmp/$1.flags"
}
# unflagged_errs ST: processes of perf-ntrace's stats ST with decode errors
# and no flagged AUX record (loss where none was reported, or a record
# decoded for the wrong task). A record of pid -1 (a task reaped before
# its final switch-out) must have been given to its task.
unflagged_errs() {
	awk '$1 == "process" { e = f = 0
		for (i = 4; i < NF; i++) { if ($i == "errors") e = $(i + 1); if ($i == "flagged") f = $(i + 1) }
		if (e > 0 && f == 0) printf " pid %s (%s) %s errors,", $2, $3, e }' "$1"
}
# loss_check PREFIX DATA: PC lists PREFIX.cpuC against the harts'
# logs $tmp/DATA.hartH, with the flags of $tmp/DATA.flags. A CPU with no
# flagged record must be exactly one hart's log; a flagged one an ordered
# part of another's (instructions lost, none invented). Sets loss_bad (what is wrong), loss_lossy ("cpuC=hartH:
# decoded/truth (F flagged)" each), loss_n (instructions lost in all),
# loss_quiet (the exact CPUs that ran user code) and loss_exact (their
# number).
loss_check() {
	local p=$1 d=$2 c h used=" " f
	loss_bad= loss_lossy= loss_quiet= loss_exact=0 loss_n=0
	for ((c = 0; c < nh; c++)); do
		f=$(awk -v c=$c '$1 == c { print $3 }' "$tmp/$d.flags")
		if [ "${f:-0}" = 0 ]; then
			for ((h = 0; h < nh; h++)); do
				[[ $used == *" $h "* ]] && continue
				[ "$h" = "${hmap[$c]:-}" ] || continue
				cmp -s "$p.cpu$c" "$tmp/$d.hart$h" || continue
				used+="$h "
				[ -s "$p.cpu$c" ] && loss_exact=$((loss_exact + 1)) loss_quiet+=" cpu$c=hart$h:$(wc -l <"$p.cpu$c")"
				continue 2
			done
			loss_bad+=" cpu$c unflagged but != its hart ${hmap[$c]:-?}'s log ($(wc -l <"$p.cpu$c") insns);"
		fi
	done
	for ((c = 0; c < nh; c++)); do
		f=$(awk -v c=$c '$1 == c { print $3 }' "$tmp/$d.flags")
		[ "${f:-0}" != 0 ] || continue
		for ((h = 0; h < nh; h++)); do
			[[ $used == *" $h "* ]] && continue
			[ "$h" = "${hmap[$c]:-}" ] || continue
			subseq "$p.cpu$c" "$tmp/$d.hart$h" || continue
			used+="$h "
			local n m
			n=$(wc -l <"$p.cpu$c") m=$(wc -l <"$tmp/$d.hart$h")
			loss_lossy+=" cpu$c=hart$h:$n/$m($f flagged)" loss_n=$((loss_n + m - n))
			continue 2
		done
		loss_bad+=" cpu$c flagged in $f records but its hart ${hmap[$c]:-?}'s log does not hold its $(wc -l <"$p.cpu$c") insns in order;"
	done
	loss_quiet=${loss_quiet# }
}

# truth_match PREFIX DATA: set gtok to how PREFIX.cpuC match the harts'
# logs (hart_match), or to "loss" where records were flagged ($nflag) and
# each is an ordered part of its hart's log (loss_check); empty if not.
truth_match() {
	gtok=
	if [ "$nflag" -gt 0 ]; then
		loss_check "$1" "$2"
		[ -n "$loss_bad" ] || gtok=loss
	else
		gtok=$(hart_match "$1")
	fi
}

# pn_checks: perf-ntrace's checks of recording $data (with $what, $nflag,
# the harts' logs of gt_harts): every process decodes with its own images,
# in time order across CPUs, and each CPU's instructions are its hart's log
pn_checks() {
	dec --format=stats -o "$tmp/$data.st" "$out/$data.data" 2>"$tmp/$data.st.err"
	dst=$?
	errs=$(sed -n 's/^errors: //p' "$tmp/$data.st")
	if [ $dst -eq 0 ] && grep -q '^task_mode: 1$' "$tmp/$data.st" && [ "$errs" = 0 ] &&
	   grep -q '^lost: 0$' "$tmp/$data.st" && grep -q '^images_missing: 0$' "$tmp/$data.st" &&
	   grep -q '^unattributed_bytes: 0$' "$tmp/$data.st" && [ ! -s "$tmp/$data.st.err" ]; then
		ok "$what: every process decodes with its own images, 0 errors: $(grep -E '^(instructions|tasks|exec_splits):' "$tmp/$data.st" | tr '\n' ' ')"
	elif [ "$nflag" -gt 0 ] && [ $dst -eq 0 ] && grep -q '^task_mode: 1$' "$tmp/$data.st" &&
	   [ -n "$errs" ] && [ "$errs" -le "$nflag" ] && [ -z "$(unflagged_errs "$tmp/$data.st")" ] &&
	   grep -q '^images_missing: 0$' "$tmp/$data.st" &&
	   grep -q '^unattributed_bytes: 0$' "$tmp/$data.st" && grep -q '^missing_bytes: 0$' "$tmp/$data.st"; then
		ok "$what: every process decodes with its own images, $errs decode errors for $nflag flagged AUX records (at most one per loss point, none in a process without): $(grep -E '^(instructions|tasks|exec_splits|reaped_records|aux_partial|aux_truncated|lost):' "$tmp/$data.st" | tr '\n' ' ')"
	else
		not_ok "$what: exit $dst, errors ${errs:-?},$(unflagged_errs "$tmp/$data.st") $(grep -E '^(aux_partial|aux_truncated|resyncs|unattributed_bytes|images_missing):' "$tmp/$data.st" | tr '\n' ' ')driver: $(grep -o 'ntrace: CPU.*' "$out/$data.console.log" | head -2 | tr '\n' ' '): $(head -c 300 "$tmp/$data.st.err")"
	fi
	grep '^process' "$tmp/$data.st" | sed "s/^/# $data: /"
	# time order across CPUs; on -C 0 one CPU's trace holds both programs
	dec --show-task -o "$tmp/$data.tpc" "$out/$data.data" 2>/dev/null
	order=$(awk 'NR > 1 && $4 < t { bad++ } { t = $4; cpu[$1] = 1 } END { print bad + 0, length(cpu) }' "$tmp/$data.tpc")
	runs=$(awk '{ k = $1 " " $2 } k != last { n[$1]++; last = k } END { for (c in n) s = s " cpu" c ":" n[c]; print s }' "$tmp/$data.tpc")
	if [ -s "$tmp/$data.tpc" ] && [ "${order% *}" = 0 ] && cpus_ok $data "${order#* }"; then
		ok "$what: $(wc -l <"$tmp/$data.tpc") instructions from ${order#* } CPU(s) in time order (task runs per CPU:$runs)"
	else
		not_ok "$what: time order / CPUs: '$order' (samples back in time, CPUs)"
	fi
	# Truth 2: per CPU, every process's decoded instructions in time order =
	# the hart's ground-truth log (U-mode records), by hart_match.
	for ((c = 0; c < nh; c++)); do
		awk -v c=$c '$1 == c { print $5 }' "$tmp/$data.tpc" >"$tmp/$data.cpu$c"
	done
	truth_match "$tmp/$data" $data
	if [ -n "$gtok" ] && [ -s "$tmp/$data.tpc" ] && [ "$nflag" -gt 0 ]; then
		ok "$what: per CPU, all processes' decoded instructions = the model's ground truth where no AUX record was flagged (${loss_quiet:-none}), an ordered part of it where $nflag were: $loss_n instructions lost (decoded/truth:$loss_lossy)"
	elif [ -n "$gtok" ] && [ -s "$tmp/$data.tpc" ]; then
		ok "$what: per CPU, all processes' decoded instructions = the model's ground truth ($gtok: $(counts "$tmp/$data.cpu") instructions)"
	elif [ "$nflag" -gt 0 ]; then
		not_ok "$what: decoded per CPU ($(counts "$tmp/$data.cpu")) against ground truth per hart ($(counts "$tmp/$data.hart")), $nflag AUX records flagged:${loss_bad:- nothing decoded}"
	else
		not_ok "$what: decoded per CPU ($(counts "$tmp/$data.cpu")) != ground truth per hart ($(counts "$tmp/$data.hart")); first difference cpu0/hart${hmap[0]:-?}: $(cmp "$tmp/$data.cpu0" "$tmp/$data.hart${hmap[0]:-0}" 2>&1 | head -1)"
	fi
}

for data in $datas; do
	case $data in
	a) what="perf record -a" ;;
	t) what="perf record (per task)" ;;
	c0) what="perf record -C 0 (both programs on CPU 0)" ;;
	h) what="perf record -a -e ntrace/htm=1,iret=1,ctx=1,ts=1/u" ;;
	esac
	# shared sink: AUX records flagged for loss (a stalled vCPU), if any
	nflag=0 loss_bad=
	[ $config = ntrace-smp2 ] || [ -z "$hostperf" ] || nflag=$(aux_flags $data)
	[ "$nflag" = 0 ] || echo "# $data: AUX records per CPU (CPU RECORDS FLAGGED): $(tr '\n' ';' <"$tmp/$data.flags")"
	gt_harts $data
	if [ -n "$kcore" ]; then
		skip "$what: perf-ntrace decodes every process with its images, in time order, per CPU = the harts' logs" \
			"user and kernel trace: perf-ntrace has no kernel images (perf decodes it below)"
	else
		pn_checks
	fi
	# the driver's hart of each CPU AUXTRACE_INFO lists (perf report -D),
	# against the guest's /proc/cpuinfo
	if [ -n "$hostperf" ]; then
		ai=$("$hostperf" report -D -i "$out/$data.data" 2>/dev/null |
			awk '/^  CPU [0-9]+: hart [0-9]+ / { sub(/:/, "", $2); printf " cpu%s=hart%s", $2, $4 }')
		want=
		for c in $(grep -o 'cpu[0-9]*=' <<<"$ai" | tr -dc '0-9\n'); do
			want+=" cpu$c=hart${hmap[$c]:-?}"
		done
		if [ -n "$ai" ] && [ "$ai" = "$want" ]; then
			ok "$what: AUXTRACE_INFO gives each CPU the hart the guest's /proc/cpuinfo does:$ai"
		else
			not_ok "$what: AUXTRACE_INFO's CPUs and harts '${ai# }' != the guest's /proc/cpuinfo '${want# }'"
		fi
	fi
	# perf decodes the file itself: all CPUs' samples, in time order
	# (with ts=1 merged by trace time), the programs' flows as QEMU's
	if [ -n "$hostperf" ]; then
		"$hostperf" script -i "$out/$data.data" --symfs "$tmp/root" --itrace=i1i --ns \
			-F cpu,pid,time,ip >"$tmp/$data.perf" 2>"$tmp/$data.perf.err"
		back=$(tr -d '[]:' <"$tmp/$data.perf" | awk -f "$e2e/perf-time-order.awk")
		if [ "${back% *}" = 0 ] && cpus_ok $data "${back#* }"; then
			ok "$what: perf script --itrace=i1i: $(wc -l <"$tmp/$data.perf") instruction samples from ${back#* } CPU(s) in time order$([ $data = h ] && echo ', merged by trace time')"
		else
			not_ok "$what: perf script --itrace=i1i: '$back' (samples going back in time, CPUs)"
		fi
		# Truth 2 for perf's own decoder: each CPU's samples. A record
		# whose run holds an exec (a child not switched out between fork
		# and exec, or preempted between the exec and its first user
		# instruction) perf cuts at the new program's entry, as
		# perf-ntrace does (admin guide, Limits).
		perf_cpus "$tmp/$data.perf" "$tmp/$data.perf"
		truth_match "$tmp/$data.perf" $data
		if [ -n "$gtok" ] && [ -s "$tmp/$data.perf" ] && [ "$nflag" -gt 0 ]; then
			ok "$what: perf script, per CPU, all processes' instruction samples = the model's ground truth where no AUX record was flagged (${loss_quiet:-none}), an ordered part of it where $nflag were: $loss_n instructions lost (samples/truth:$loss_lossy)"
		elif [ -n "$gtok" ] && [ -s "$tmp/$data.perf" ]; then
			ok "$what: perf script, per CPU, all processes' instruction samples = the model's ground truth ($gtok: $(counts "$tmp/$data.perf.cpu"))"
		else
			not_ok "$what: perf script per CPU ($(counts "$tmp/$data.perf.cpu")) != ground truth per hart ($(counts "$tmp/$data.hart"))${loss_bad:+, $nflag AUX records flagged:$loss_bad}: $(head -c 200 "$tmp/$data.perf.err")"
		fi
	fi
	# with --kcore, the programs' pids from perf's exec COMM records
	comms=
	[ -z "$kcore" ] || comms=$("$hostperf" report -D -i "$out/$data.data" 2>/dev/null |
		grep 'PERF_RECORD_COMM exec: ')
	for i in "${!names[@]}"; do
		n=${names[$i]}
		[ -z "$kcore" ] || [ $data != t ] || [ "$n" = ntloop ] || continue
		if [ -n "$kcore" ]; then
			pid=$(awk -v n="$n" '{ c = p = $NF; sub(/:[^:]*$/, "", c)
				sub(/^.*:/, "", p); sub(/\/.*/, "", p); if (c == n) { print p; exit } }' <<<"$comms")
			pfl=$nflag
		else
			pid=$(awk -v n="$n" '$1 == "process" && $3 == n { print $2 }' "$tmp/$data.st")
			# its own AUX records flagged: its flow has holes, nothing to compare
			pfl=$(awk -v p="$pid" '$1 == "process" && $2 == p { for (i = 4; i < NF; i++) if ($i == "flagged") print $(i + 1) }' "$tmp/$data.st")
		fi
		if [ "$nflag" -gt 0 ] && [ -n "$pid" ] && [ "${pfl:-0}" -gt 0 ]; then
			skip "$what: pid $pid ($n): launcher part and main..exit against QEMU's flow (perf-ntrace and perf script)" \
				"$pfl of its AUX records flagged: trace lost (instructions lost on its CPUs above)"
			continue
		fi
		if [ -n "$hostperf" ] && [ -n "$pid" ]; then
			tr -d '[]:' <"$tmp/$data.perf" |
				awk -v p="$pid" '$1 == p && $4 !~ /^ffff/ { sub(/^0+/, "", $4); print "0x" $4 }' >"$tmp/$data.$n.perf"
			seg "$n" "$tmp/$data.$n.perf" >"$tmp/$data.$n.perfseg"
			seg "$n" "$tmp/truth.$n" >"$tmp/truth.$n.seg"
			if [ -s "$tmp/$data.$n.perfseg" ] && cmp -s "$tmp/$data.$n.perfseg" "$tmp/truth.$n.seg"; then
				ok "$what: perf script, pid $pid ($n): main..exit ($(wc -l <"$tmp/$data.$n.perfseg") instructions) = QEMU's ground truth"
			else
				not_ok "$what: perf script, pid $pid ($n): main..exit $(wc -l <"$tmp/$data.$n.perfseg") instructions vs $(wc -l <"$tmp/truth.$n.seg") of QEMU's: $(head -c 200 "$tmp/$data.perf.err")"
			fi
		fi
		if [ -z "$pid" ]; then
			not_ok "$what: no process $n in the trace"
			continue
		fi
		[ -z "$kcore" ] || continue
		dec --pid "$pid" -o "$tmp/$data.$n.all" "$out/$data.data" 2>"$tmp/$data.$n.err"
		dst=$?
		# the forked launcher up to its execve, then the program from _start
		st0=$(sym "$n" _start)
		awk -v s="$st0" '$1 == s { on = 1 } !on' "$tmp/$data.$n.all" >"$tmp/$data.$n.pre"
		awk -v s="$st0" '$1 == s { on = 1 } on' "$tmp/$data.$n.all" >"$tmp/$data.$n.pc"
		pre=$(awk -f "$e2e/launcher-part.awk" "$tmp/launcher.insns" "$tmp/$data.$n.pre")
		seg "$n" "$tmp/$data.$n.pc" >"$tmp/$data.$n.seg"
		seg "$n" "$tmp/truth.$n" >"$tmp/truth.$n.seg"
		# on its own CPU streams the process is interleaved with others
		recs=$(awk -v p="$pid" '$2 == p { print $1 " " $4 }' "$tmp/$data.tpc" | sort -u | wc -l)
		cnt=$(wc -l <"$tmp/$data.$n.pc")
		if [ $dst -eq 0 ] && [ ! -s "$tmp/$data.$n.err" ] && [ -s "$tmp/truth.$n.seg" ] &&
		   [ "$(echo "$pre" | cut -d' ' -f2,3)" = "0 1" ] &&
		   [ "$(grep -c -x "$st0" "$tmp/$data.$n.all")" = 1 ] &&
		   cmp -s "$tmp/$data.$n.seg" "$tmp/truth.$n.seg" &&
		   [ "$(head -1 "$tmp/$data.$n.pc")" = "$(sym "$n" _start)" ] &&
		   grep -qx "$(sym "$n" _exit)" <(tail -5 "$tmp/$data.$n.pc"); then
			ok "$what: pid $pid ($n, ${progs[$i]}): ${pre%% *} instructions of the forked launcher ending in __execve, then $cnt of the program from _start to _exit in $recs AUX records; main..exit ($(wc -l <"$tmp/$data.$n.seg")) = QEMU's ground truth"
		else
			not_ok "$what: pid $pid ($n): exit $dst, launcher part '$pre' (instructions, outside the launcher, ends in __execve), $cnt instructions, main..exit $(wc -l <"$tmp/$data.$n.seg") vs $(wc -l <"$tmp/truth.$n.seg"), first $(head -1 "$tmp/$data.$n.pc") (_start $(sym "$n" _start)): $(head -c 200 "$tmp/$data.$n.err")"
		fi
	done
done

# The forced overflow of the shared sink (boot o): per CPU, its AUX records
# flagged TRUNCATED, PARTIAL or COLLISION (perf report -D) against what
# its decoded flow lost from its hart's log. A CPU with no flagged record
# must decode to exactly one hart's log; a flagged one to an ordered part
# of another's (instructions lost, none invented), so loss is reported
# where it happened and nowhere else, and the rest still decodes.
# overflow_check KIND PREFIX: KIND's (perf-ntrace or perf) PC lists
# PREFIX.cpuC of boot o, by loss_check, with some loss required in all.
# Not on every flagged CPU: the sink is shared, so every hart's records
# drained across a loss are flagged, though the bytes lost may have held
# only other harts' messages.
overflow_check() {
	local kind=$1
	loss_check "$2" o
	if [ -n "${nooverflow:-}" ] && [ -z "$loss_bad" ] && [ -z "$loss_lossy" ]; then
		skip "$what, $kind: the CPUs with flagged AUX records lost instructions" "no overflow in this run"
	elif [ -z "$loss_bad" ] && [ -n "$loss_lossy" ] && [ "$loss_n" -gt 0 ]; then
		ok "$what, $kind: the CPUs with flagged AUX records lost instructions ($loss_n; decoded/truth:$loss_lossy)${loss_quiet:+, the others decode exactly (${loss_quiet# })}"
	else
		not_ok "$what, $kind:${loss_bad:- no CPU lost trace}"
	fi
	if [ "$loss_exact" -gt 0 ]; then
		ok "$what, $kind: loss not reported on the $loss_exact CPU(s) that lost nothing and ran user code"
	else
		skip "$what, $kind: loss not reported on CPUs that lost nothing" "every CPU with user code lost trace in this run (a loaded host can stall the quiet hart)"
	fi
}
if [ $config != ntrace-smp2 ] && [ -z "$kcore" ]; then
	what="perf record -a, shared sink overflowing"
	gt_harts o
	dec --format=stats -o "$tmp/o.st" "$out/o.data" 2>"$tmp/o.st.err"
	dec -q --show-task -o "$tmp/o.tpc" "$out/o.data" 2>/dev/null
	for ((c = 0; c < nh; c++)); do
		awk -v c=$c '$1 == c { print $5 }' "$tmp/o.tpc" >"$tmp/o.cpu$c"
	done
	nflag=$(aux_flags o)
	echo "# o: AUX records per CPU (CPU RECORDS FLAGGED): $(tr '\n' ';' <"$tmp/o.flags")"
	errs=$(sed -n 's/^errors: //p' "$tmp/o.st")
	ue=$(unflagged_errs "$tmp/o.st")
	if [ "$nflag" = 0 ] && [ "$errs" = 0 ]; then
		# nothing lost, nothing flagged: the exactness checks below still
		# hold, the loss checks have nothing to look at
		nooverflow=1
		skip "$what: AUX records flagged where trace was lost" \
			"the sink did not overflow in this run (0 flagged records, 0 decode errors): with the narrow SRC field and the drains at every switch, 2 harts may not fill it"
	elif [ -n "$errs" ] && [ "$errs" -le "$nflag" ] && [ "$nflag" -gt 0 ] && [ -z "$ue" ]; then
		ok "$what: $nflag AUX records flagged, $errs decode errors (at most one per loss point, none in a process without): $(grep -E '^(instructions|reaped_records|aux_partial|aux_truncated|resyncs):' "$tmp/o.st" | tr '\n' ' ')"
	else
		not_ok "$what: ${nflag} AUX records flagged, ${errs:-?} decode errors,${ue} $(head -c 300 "$tmp/o.st.err")"
	fi
	overflow_check perf-ntrace "$tmp/o"
	if [ -n "$hostperf" ]; then
		"$hostperf" script -i "$out/o.data" --symfs "$tmp/root" --itrace=i1i --ns \
			-F cpu,pid,time,ip >"$tmp/o.perf" 2>"$tmp/o.perf.err"
		perf_cpus "$tmp/o.perf" "$tmp/o.perf"
		overflow_check "perf script" "$tmp/o.perf"
	fi
fi

# Cost of draining at every context switch: a pipe ping-pong on CPU 0
# (the faster of two runs each).
if [ -s "$out/pp-none.txt" ] && [ -s "$out/pp-drain.txt" ] && [ -s "$out/pp-nodrain.txt" ]; then
	best() { cat "$out/pp-$1.txt" "$out/pp-${1}2.txt" 2>/dev/null | awk 'NR == 1 || $3 < m { m = $3 } END { print m }'; }
	none=$(best none) drain=$(best drain) nodrain=$(best nodrain)
	n=$(cut -d' ' -f2 <"$out/pp-none.txt")
	nrec() { dec --format=stats "$1" 2>/dev/null | sed -n 's/^chunks: //p'; }
	echo "# context switch (TCG wall time, ns): untraced $none, traced with switch drain $drain, without $nodrain; extra per switch $((drain - nodrain)); AUX records $(nrec "$out/pp-drain.data") vs $(nrec "$out/pp-nodrain.data")"
	[ -s "$out/a-nodrain.data" ] &&
		echo "# switch_drain=0, two programs on CPU 0: $(dec -q --format=stats "$out/a-nodrain.data" 2>/dev/null | grep -E '^(instructions|errors|tasks):' | tr '\n' ' ')(with the drain: 0 errors above)"
	ok "context-switch cost measured ($variant kernel, $n round trips): $((drain - nodrain)) ns more per switch with the drain ($drain vs $nodrain ns; untraced $none ns)"
elif [ -z "${NTRACE_CPUWIDE_NODRAIN:-}" ] && [ $config = ntrace-smp2 ]; then
	not_ok "ping-pong figures missing"
fi
# keep the files of a failing run for a closer look
if [ "$TAP_FAILED" != 0 ] && [ -z "${NTRACE_CPUWIDE_OUT:-}" ]; then
	rm -rf "$NTRACE_TOP/build/perf-e2e/cpuwide-$config-failed"
	cp -a "$tmp" "$NTRACE_TOP/build/perf-e2e/cpuwide-$config-failed" &&
		echo "# files of this run: build/perf-e2e/cpuwide-$config-failed"
fi
exit 0
