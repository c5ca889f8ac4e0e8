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
# order, must be the hart's log, instruction for instruction.
# NTRACE_KVARIANT=debug boots the KASAN + lockdep kernel.
# NTRACE_CPUWIDE_NODRAIN=1 records a and c0 with the driver's switch_drain
# off: the checks must then fail.
# Set NTRACE_CPUWIDE_OUT=DIR to reuse the guest output of an earlier run
# (NAME.data, NAME.gt.hart*.txt, NAME.console.log for NAME = a, c0, h, pp;
# NTRACE_KEEP=1 keeps a run's files under build/perf-e2e/cpuwide/run.*).
variant=${NTRACE_KVARIANT:-guest}
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TAP_PREFIX="perf-e2e-cpuwide: "

progs=(loop-O2-g switch-O2-g)
names=(ntloop ntswitch)
gt=$NTRACE_TOP/build/gt
pn=$NTRACE_TOP/tools/perf-ntrace
e2e=$pn/tests/e2e
B=$NTRACE_BUILD
scratch tmp "$NTRACE_TOP/build/perf-e2e/cpuwide" "${NTRACE_KEEP:-}" || exit 1

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
cp "$NTRACE_TOP/build/guest-progs/ntcpuwide" "$tmp/root/usr/bin/"
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
	for f in ntloop ntswitch ntcpuwide; do
		adds+=(--add "$tmp/root/usr/bin/$f=/usr/bin/$f")
	done
	[ "$gtlog" = 1 ] && margs=(--model-args "gt=$tmp/$name.gt")
	guest_run "$tmp/$name" ntrace-smp2 --kernel "$variant" "${adds[@]}" "${margs[@]}" \
		--export "$tmp/$name.out" --timeout 900 --console "$out/$name.console.log" \
		>"$tmp/$name.guest.log" 2>&1 < <(printf '%s\n' "# scripts/perf-e2e-cpuwide.sh: $name" "$@")
	st=$?
	if [ $st = 2 ]; then
		not_ok "initramfs with perf, the driver and the programs: $(tail -3 "$tmp/$name/initramfs.log")"
		return 1
	fi
	for f in "$tmp/$name".gt.hart*.txt "$tmp/$name.out"/*; do
		[ -f "$f" ] && mv "$f" "$out/"
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

# no kernel warnings, KASAN or lockdep reports while recording
for name in a c0 h pp; do
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

for data in a c0 h; do
	case $data in
	a) what="perf record -a" ;;
	c0) what="perf record -C 0 (both programs on CPU 0)" ;;
	h) what="perf record -a -e ntrace/htm=1,iret=1,ctx=1,ts=1/u" ;;
	esac
	dec --format=stats -o "$tmp/$data.st" "$out/$data.data" 2>"$tmp/$data.st.err"
	dst=$?
	errs=$(sed -n 's/^errors: //p' "$tmp/$data.st")
	if [ $dst -eq 0 ] && grep -q '^task_mode: 1$' "$tmp/$data.st" && [ "$errs" = 0 ] &&
	   grep -q '^lost: 0$' "$tmp/$data.st" && grep -q '^images_missing: 0$' "$tmp/$data.st" &&
	   grep -q '^unattributed_bytes: 0$' "$tmp/$data.st" && [ ! -s "$tmp/$data.st.err" ]; then
		ok "$what: every process decodes with its own images, 0 errors: $(grep -E '^(instructions|tasks|exec_splits):' "$tmp/$data.st" | tr '\n' ' ')"
	else
		not_ok "$what: exit $dst, errors ${errs:-?}, $(grep -E '^(aux_partial|aux_truncated|resyncs|unattributed_bytes|images_missing):' "$tmp/$data.st" | tr '\n' ' ')driver: $(grep -o 'ntrace: CPU.*' "$out/$data.console.log" | head -2 | tr '\n' ' '): $(head -c 300 "$tmp/$data.st.err")"
	fi
	grep '^process' "$tmp/$data.st" | sed "s/^/# $data: /"
	# time order across CPUs; on -C 0 one CPU's trace holds both programs
	dec --show-task -o "$tmp/$data.tpc" "$out/$data.data" 2>/dev/null
	order=$(awk 'NR > 1 && $4 < t { bad++ } { t = $4; cpu[$1] = 1 } END { print bad + 0, length(cpu) }' "$tmp/$data.tpc")
	runs=$(awk '{ k = $1 " " $2 } k != last { n[$1]++; last = k } END { for (c in n) s = s " cpu" c ":" n[c]; print s }' "$tmp/$data.tpc")
	want_cpus=$([ $data = c0 ] && echo 1 || echo 2)
	if [ -s "$tmp/$data.tpc" ] && [ "${order% *}" = 0 ] && [ "${order#* }" = "$want_cpus" ]; then
		ok "$what: $(wc -l <"$tmp/$data.tpc") instructions from ${order#* } CPU(s) in time order (task runs per CPU:$runs)"
	else
		not_ok "$what: time order / CPUs: '$order' (want 0 $want_cpus)"
	fi
	# Truth 2: per CPU, every process's decoded instructions in time order =
	# the hart's ground-truth log (U-mode records; size 0: a trap, no
	# instruction). Linux CPU numbers and hart ids are matched by the data:
	# one of the two assignments must fit exactly.
	for c in 0 1; do
		awk -v c=$c '$1 == c { print $5 }' "$tmp/$data.tpc" >"$tmp/$data.cpu$c"
	done
	for h in 0 1; do
		awk '!/^#/ && $4 == 0 && $2 != 0 { print $1 }' "$out/$data.gt.hart$h.txt" \
			>"$tmp/$data.hart$h" 2>/dev/null
	done
	gtok=
	for m in "0 1" "1 0"; do
		read -r h0 h1 <<<"$m"
		if cmp -s "$tmp/$data.cpu0" "$tmp/$data.hart$h0" && cmp -s "$tmp/$data.cpu1" "$tmp/$data.hart$h1"; then
			gtok="cpu0=hart$h0 cpu1=hart$h1"
		fi
	done
	if [ -n "$gtok" ] && [ -s "$tmp/$data.cpu0" ]; then
		ok "$what: per CPU, all processes' decoded instructions = the model's ground truth ($gtok: $(wc -l <"$tmp/$data.cpu0") + $(wc -l <"$tmp/$data.cpu1") instructions)"
	else
		not_ok "$what: decoded per CPU ($(wc -l <"$tmp/$data.cpu0"), $(wc -l <"$tmp/$data.cpu1")) != ground truth per hart ($(wc -l <"$tmp/$data.hart0" 2>/dev/null), $(wc -l <"$tmp/$data.hart1" 2>/dev/null)); first difference cpu0/hart0: $(cmp "$tmp/$data.cpu0" "$tmp/$data.hart0" 2>&1 | head -1)"
	fi
	# perf decodes the file itself: all CPUs' samples, in time order
	# (with ts=1 merged by trace time), the programs' flows as QEMU's
	if [ -n "$hostperf" ]; then
		"$hostperf" script -i "$out/$data.data" --symfs "$tmp/root" --itrace=i1i --ns \
			-F cpu,pid,time,ip >"$tmp/$data.perf" 2>"$tmp/$data.perf.err"
		back=$(tr -d '[]:' <"$tmp/$data.perf" | awk -f "$e2e/perf-time-order.awk")
		if [ "${back% *}" = 0 ] && [ "${back#* }" = "$want_cpus" ]; then
			ok "$what: perf script --itrace=i1i: $(wc -l <"$tmp/$data.perf") instruction samples from ${back#* } CPU(s) in time order$([ $data = h ] && echo ', merged by trace time')"
		else
			not_ok "$what: perf script --itrace=i1i: '$back' (samples going back in time, CPUs; want 0 $want_cpus)"
		fi
	fi
	for i in "${!names[@]}"; do
		n=${names[$i]}
		pid=$(awk -v n="$n" '$1 == "process" && $3 == n { print $2 }' "$tmp/$data.st")
		if [ -n "$hostperf" ] && [ -n "$pid" ]; then
			tr -d '[]:' <"$tmp/$data.perf" |
				awk -v p="$pid" '$1 == p { sub(/^0+/, "", $4); print "0x" $4 }' >"$tmp/$data.$n.perf"
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
elif [ -z "${NTRACE_CPUWIDE_NODRAIN:-}" ]; then
	not_ok "ping-pong figures missing"
fi
# keep the files of a failing run for a closer look
if [ "$TAP_FAILED" != 0 ] && [ -z "${NTRACE_CPUWIDE_OUT:-}" ]; then
	rm -rf "$NTRACE_TOP/build/perf-e2e/cpuwide-failed"
	cp -a "$tmp" "$NTRACE_TOP/build/perf-e2e/cpuwide-failed" &&
		echo "# files of this run: build/perf-e2e/cpuwide-failed"
fi
exit 0
