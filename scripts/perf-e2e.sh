#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# End to end (TAP): "perf record -e ntrace/.../u -- PROG" in the guest with
# the N-Trace QEMU model and the ntrace driver, the perf.data files carried
# out on the export disk, then decoded on the host by perf-ntrace.
#
# Truth 1, exact: the model's ground-truth log (plugin argument gt=PREFIX,
# qemu/ntrace-model/plugin/gtlog.c), one record per instruction the hart
# retired while its encoder was tracing and the instruction passed the
# encoder's filters, with privilege and context (satp.ASID). With ":u" the
# driver programs a U-mode filter, so the log holds only user-mode records,
# and only of the traced process (a per-task event traces nothing else);
# the check does not rely on that: it keeps the U-mode records (priv 0) and
# cuts them where the context changes. Linux 6.12 gives every process its
# own ASID (the console must show the ASID allocator; a rollover needs
# 65536 processes), and the guest runs the commands of its run.list one
# after the other, so segment i is exactly the user-mode instruction stream
# of recording i, from the program's _start to its last instruction before
# the exit system call. The decoded PC list of each perf.data must equal
# its segment, instruction for instruction (size-0 trap records carry no
# instruction and are dropped). Two programs (a loop; tools/perf-ntrace/
# tests/e2e/callsys.c with indirect calls and jumps, deep recursion,
# longjmp, many system calls and sleeps) and several encoder configurations
# (BTM, HTM with implicit returns, repeated history, sequential jumps,
# short sync period, all jumps with timestamps and Ownership, snapshot mode).
#
# Truth 2, independent of the model: each program's instruction flow under
# QEMU user mode (the loop is tools/perf-ntrace/tests/gt's "loop-O2-g").
# The C library start-up before main depends on the environment (auxv,
# argv, envp differ between qemu-riscv64 and the guest), so that check is
# on main..exit. It guards against what truth 1 cannot see: the model's
# ingress and so its log and its trace both wrong in the same way.
#
# callsys-dyn runs twice: the same program, dynamically linked and PIE, so
# ld.so, libc and the program sit at other addresses in the second run,
# while QEMU reuses the first run's translations of the same physical pages
# (the model must report where code runs, not where it was translated).
# "callsys 200 signals": the handlers return through the vDSO's
# __vdso_rt_sigreturn, decoded with the guest kernel's vdso.so (--vdso);
# its call views (timeline, folded stacks, perf's SQLite call tree) are
# checked against the executed calls by scripts/perf-e2e-views.sh.
# Also: the guest's own (patched, static) perf report -D and the patched
# host perf read the file, the host perf lists the same records as our
# reader, and the host perf decodes every recording itself (--itrace),
# checked against the same ground truth (scripts/perf-e2e-itrace.sh);
# "lost" records the loop into an 8 KiB AUX area: when perf does not drain
# it in time the kernel truncates AUX records (whether it does depends on
# scheduling), and only perf-e2e-itrace.sh checks it (the runs decoded
# between the losses). "kern" traces user and kernel (no
# ":u", a sync every 16 messages) with perf record --kcore, and is decoded
# from that copy of the kernel's code.
# NTRACE_E2E_KEEP=1 keeps the work directory under build/perf-e2e/;
# NTRACE_PERF_ASAN=1 also runs the host perf built with ASan and UBSan on
# every recording and on mutated copies (scripts/perf-asan.sh, 5 to 10
# minutes);
# NTRACE_KVARIANT=debug boots the KASAN + lockdep kernel.
# The ntrace configuration's sink writes the AUX areas itself (direct
# mode), but for the "copy" recording, made with ntrace.direct=0 (through
# the sink's bounce buffer); NTRACE_E2E_CONFIG=ntrace-copy runs them all
# in copy mode.
# NTRACE_E2E_CONFIG=ntrace-sram (scripts/perf-e2e-sram.sh) records through
# the model's 64 KiB SRAM sink read out by the driver through trRamData,
# with the recordings whose trace rate a 64 KiB sink holds between drains
# (HTM; BTM of callsys; snapshot) and the same exact checks.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

config=${NTRACE_E2E_CONFIG:-ntrace}
TAP_PREFIX="perf-e2e: "
[ "$config" = ntrace ] || TAP_PREFIX="perf-e2e ($config): "

prog=loop-O2-g
variant=${NTRACE_KVARIANT:-guest}
gt=$NTRACE_TOP/build/gt
pn=$NTRACE_TOP/tools/perf-ntrace
e2e=$pn/tests/e2e
B=$NTRACE_BUILD
scratch tmp "$NTRACE_TOP/build/perf-e2e/$config" "${NTRACE_E2E_KEEP:-}" || exit 1

if [ ! -f "$gt/$prog.pcs" ]; then
	bash "$pn/tests/gt/build-suite.sh" >"$tmp/gt.log" 2>&1 ||
		{ not_ok "ground truth (tests/gt/build-suite.sh): $(tail -3 "$tmp/gt.log")"; exit 0; }
fi
make -s -C "$pn" all >"$tmp/make.log" 2>&1 || { not_ok "perf-ntrace builds"; exit 0; }
cp "$B/perf-ntrace" "$B/tests/perfdata_test" "$B/tools/rt-tool" "$B/tools/gt-tool" "$tmp/" ||
	{ not_ok "test tools build"; exit 0; }
# the second program, static like the ground-truth suite's, and its
# dynamically linked PIE build (build/guest-progs/)
make -s -C "$NTRACE_TOP" guest-progs >"$tmp/cs.log" 2>&1 ||
	{ not_ok "callsys builds: $(head -3 "$tmp/cs.log")"; exit 0; }
mkdir -p "$tmp/root/usr/bin"
cp "$gt/$prog" "$tmp/root/usr/bin/ntloop"
cp "$gt/$prog.pcs" "$tmp/truth.pcs"
cp "$NTRACE_TOP"/build/guest-progs/{callsys,callsys-dyn} "$tmp/root/usr/bin/"
# and the cross C library it loads
mkdir -p "$tmp/root/lib/riscv64-linux-gnu"
cp "/usr/${CROSS_COMPILE%-}/lib/ld-linux-riscv64-lp64d.so.1" "$tmp/root/lib/" &&
	cp "/usr/${CROSS_COMPILE%-}/lib/libc.so.6" "$tmp/root/lib/riscv64-linux-gnu/" ||
	{ not_ok "the cross C library"; exit 0; }
adds=()
for f in usr/bin/ntloop usr/bin/callsys usr/bin/callsys-dyn lib/ld-linux-riscv64-lp64d.so.1 \
	lib/riscv64-linux-gnu/libc.so.6; do
	adds+=(--add "$tmp/root/$f=/$f")
done

# The recordings, in run order: name; perf record options; program [args].
recs=(
	"btm;-e ntrace//u;ntloop"
	"htm;-e ntrace/htm=1,iret=1/u;ntloop"
	"snap;-Se -e ntrace/htm=1/u;ntloop"
	"cs-btm;-e ntrace//u;callsys"
	"cs-htm;-e ntrace/htm=1,iret=1/u;callsys"
	"peek;-e ntrace/htm=1,iret=1/u;callsys"
	"copy;-e ntrace/htm=1,iret=1/u;callsys"
	"cs-rep;-e ntrace/htm=1,iret=1,rephist=1,seqjump=1,sync_period=3/u;callsys"
	"cs-all;-e ntrace/alljumps=1,ts=1,ctx=1/u;callsys"
	"dyn1;-e ntrace//u;callsys-dyn"
	"dyn2;-e ntrace//u;callsys-dyn"
	"cs-sig;-e ntrace/htm=1,iret=1/u;callsys 200 signals"
	"trig;trigger;callsys 2000 trigger"
	"lost;-m,8K -e ntrace//u;ntloop"
	"kern;--kcore -e ntrace/htm=1,iret=1,sync_period=1/;callsys"
)
if [ "$config" = ntrace-sram ]; then
	recs=(
		"htm;-e ntrace/htm=1,iret=1/u;ntloop"
		"snap;-Se -e ntrace/htm=1/u;ntloop"
		"cs-btm;-e ntrace//u;callsys"
		"cs-htm;-e ntrace/htm=1,iret=1/u;callsys"
		"cs-rep;-e ntrace/htm=1,iret=1,rephist=1,seqjump=1,sync_period=3/u;callsys"
		"kern;--kcore -e ntrace/htm=1,iret=1,sync_period=1/;callsys"
	)
fi
have() { printf '%s\n' "${recs[@]}" | grep -q "^$1;"; }
# trig's ring: small enough to wrap before callsys's halfway trigger
trig_ring=16K
commands() {
	echo "# scripts/perf-e2e.sh"
	for r in "${recs[@]}"; do
		IFS=';' read -r name opts p <<<"$r"
		# drains every 1.6 ms for a 4 MiB window, most of them peeks:
		# records that continue the last (NTRACE_AUX_FLAG_CONT)
		[ "$name" != peek ] || echo "write /sys/module/ntrace/parameters/drain_us 100"
		# copy mode on this topology (direct=0 applies at the next start)
		if [ "$name" = copy ] && [ "$config" = ntrace ]; then
			echo "/usr/bin/perf-ntrace info >/tmp/export/copy.before"
			echo "write /sys/module/ntrace/parameters/direct 0"
		fi
		if [ "$opts" = trigger ]; then	# a snapshot at trigger_point
			echo "/usr/bin/perf-ntrace trigger --perf /usr/bin/perf -m $trig_ring -o /tmp/export/$name.data trigger_point -- /usr/bin/$p >/tmp/export/$name.out"
			continue
		fi
		echo "/usr/bin/perf record $opts -o /tmp/export/$name.data -- /usr/bin/$p >/tmp/export/$name.out"
		[ "$name" != peek ] || echo "write /sys/module/ntrace/parameters/drain_us 4000"
		if [ "$name" = copy ] && [ "$config" = ntrace ]; then
			echo "write /sys/module/ntrace/parameters/direct 1"
			echo "/usr/bin/perf-ntrace info >/tmp/export/copy.after"
		fi
	done
	echo "/usr/bin/perf report -D -i /tmp/export/${recs[0]%%;*}.data >/tmp/export/rep.report"
	# the sink mode the driver uses
	echo "/usr/bin/perf-ntrace info >/tmp/export/info.txt"
	# the guest's perf decodes too (libntrace linked in)
	echo "/usr/bin/perf script -i /tmp/export/htm.data --itrace=i1i -F ip >/tmp/export/htm.guest-ipc"
}
start=$SECONDS
guest_run "$tmp" "$config" --kernel "$variant" "${adds[@]}" --model-args "gt=$tmp/gt" \
	--export "$tmp/out" --timeout 600 --console "$tmp/console.log" >"$tmp/guest.log" 2>&1 \
	< <(commands)
st=$?
if [ $st = 2 ]; then
	not_ok "initramfs with perf, the driver and the programs: $(tail -3 "$tmp/initramfs.log")"
	exit 0
fi
cp "$tmp/console.log" "$NTRACE_TOP/build/perf-e2e/$variant-$config.console" 2>/dev/null
missing=
for r in "${recs[@]}"; do
	name=${r%%;*}
	[ -s "$tmp/out/$name.data" ] || missing+=" $name.data"
done
if [ $st -eq 0 ] && [ -z "$missing" ]; then
	ok "guest ($variant kernel) recorded ${#recs[@]} perf.data files with perf record -e ntrace/.../u (BTM, HTM, snapshot at exit; two programs) ($((SECONDS - start)) s)"
else
	not_ok "guest run (exit $st, missing:${missing:- none}): $(grep -E 'run end|error|No such' "$tmp/guest.log" | grep -v 'exit=0' | head -5 | tr '\n' ' ')"
	exit 0
fi

# no kernel warnings, KASAN or lockdep reports while recording
clean=$(awk -v cfg=ntrace -f "$NTRACE_TOP/guest/console-to-tap.awk" "$tmp/console.log" |
	grep 'kernel log clean')
case $clean in
"ok "*) ok "$variant kernel log clean while recording" ;;
*) not_ok "$variant kernel log: ${clean#*: } (console: build/perf-e2e/$variant.console)" ;;
esac

# the copy recording went through the bounce buffer: copy drains only
# (the drains lines of perf-ntrace info before and after it, all CPUs)
if have copy && [ "$config" = ntrace ]; then
	drains() { # FILE: "direct-drains copy-drains copy-bytes" over all CPUs
		awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); n[kv[1]] += kv[2] } }
		     END { print n["direct"] + 0, n["copy"] + 0, n["copy_bytes"] + 0 }' \
			< <(grep -o 'cpu[0-9]* direct=.*' "$1" 2>/dev/null)
	}
	read -r d0 c0 b0 < <(drains "$tmp/out/copy.before")
	read -r d1 c1 b1 < <(drains "$tmp/out/copy.after")
	if [ -s "$tmp/out/copy.after" ] && [ "$d1" = "$d0" ] && [ "$c1" -gt "$c0" ]; then
		ok "copy: with direct=0 the recording drained by copy only: $((c1 - c0)) copies, $((b1 - b0)) bytes, no direct drain"
	else
		not_ok "copy: drains with direct=0: direct $d0 -> $d1, copy $c0 -> $c1 (perf-ntrace info before/after)"
	fi
fi

want_mode=smem
[ "$config" != ntrace-sram ] || want_mode=sram
if grep -Eq "sink_mode[^a-z]+$want_mode\b" "$tmp/out/info.txt"; then
	ok "the driver records through $want_mode sinks (perf-ntrace info: $(grep -Eo 'sink_mode[^a-z]+[a-z]+' "$tmp/out/info.txt"))"
else
	not_ok "the driver records through $want_mode sinks: perf-ntrace info says '$(grep -E 'sink_mode' "$tmp/out/info.txt")'"
fi
if grep -q 'RISC-V N-Trace version 1' "$tmp/out/rep.report" &&
   grep -q 'PERF_RECORD_AUXTRACE size' "$tmp/out/rep.report"; then
	ok "the guest's perf report -D reads the ntrace AUXTRACE_INFO and AUXTRACE records"
else
	not_ok "the guest's perf report -D reads the ntrace records"
fi

# perf itself in the guest: every instruction of the htm recording
awk '{ sub(/^0+/, "", $1); print "0x" $1 }' "$tmp/out/htm.guest-ipc" >"$tmp/htm.guest-pc" 2>/dev/null
htm_i=$(printf '%s\n' "${recs[@]}" | grep -n '^htm;' | cut -d: -f1)

if ! hostperf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host 2>"$tmp/hp.err"); then
	not_ok "host perf builds: $(tail -2 "$tmp/hp.err" | tr '\n' ' ')"
else
	first=${recs[0]%%;*}
	"$hostperf" report -D -i "$tmp/out/$first.data" --stdio >"$tmp/d.out" 2>"$tmp/d.err"
	sed -n 's/^\(0x[0-9a-f]*\)@.* \[\(0x[0-9a-f]*\)\]: event: \([0-9]*\)$/\1 \2 \3/p' \
		"$tmp/d.out" | sort -k1,1 >"$tmp/perf.list"
	"$tmp/perfdata_test" --list "$tmp/out/$first.data" | cut -d' ' -f1-3 | sort -k1,1 >"$tmp/our.list"
	if [ -s "$tmp/our.list" ] && cmp -s "$tmp/perf.list" "$tmp/our.list"; then
		ok "host perf report -D and our reader list the same $(wc -l <"$tmp/our.list") records"
	else
		not_ok "host perf report -D and our reader differ: $(diff "$tmp/perf.list" "$tmp/our.list" | head -4 | tr '\n' ' ')"
	fi
	# the peek recording's records that continue the last: in direct
	# mode, drains that left the sink running (decoded exactly below)
	if have peek; then
		ncont=0
		for f in $("$hostperf" report -D -i "$tmp/out/peek.data" 2>/dev/null |
			   sed -n 's/.*PERF_RECORD_AUX .*flags: \(0x[0-9a-f]*\).*/\1/p'); do
			[ $((f & 0x100)) = 0 ] || ncont=$((ncont + 1))
		done
		if [ "$ncont" -gt 0 ] || [ "$config" != ntrace ]; then
			ok "peek: $ncont AUX records continue the last (flag 0x100: drains that left the sink running)"
		else
			not_ok "peek: no AUX record continues the last (flag 0x100) with drain_us=100 in direct mode"
		fi
	fi
	if "$hostperf" script -i "$tmp/out/htm.data" >/dev/null 2>"$tmp/ps.err"; then
		ok "host perf script accepts the recorded file"
	else
		not_ok "host perf script: $(head -c 200 "$tmp/ps.err")"
	fi
	# perf annotate disassembles the guest's code with the cross objdump it
	# picks for the recording's arch (HEADER_ARCH riscv64); the same path is
	# checked on a synthesised recording by scripts/check-perf-host.sh.
	if [ -f "$tmp/out/htm.data" ]; then
		"$hostperf" annotate -i "$tmp/out/htm.data" --symfs "$tmp/root" --itrace=i1i \
			--stdio -v >"$tmp/ann.txt" 2>"$tmp/ann.err"
		mn=$(awk -F: 'NF >= 3 && $2 ~ /^ +[0-9a-f]+$/ { split($3, m, " "); print m[1] }' \
			"$tmp/ann.txt" | sort -u)
		if grep -q 'Executing: riscv64-linux-gnu-objdump ' "$tmp/ann.err" &&
		   grep -qx 'addi\|ld\|sd\|bnez\|bne\|ret' <<<"$mn" &&
		   ! grep -qx 'push\|mov\|(bad)' <<<"$mn"; then
			ok "host perf annotate of the htm recording: riscv64-linux-gnu-objdump, $(grep -c . <<<"$mn") RISC-V mnemonics ($(head -8 <<<"$mn" | xargs) ...)"
		else
			not_ok "host perf annotate of the htm recording: $(grep -i 'objdump\|error' "$tmp/ann.err" | head -2 | tr '\n' ' ') mnemonics: $(head -8 <<<"$mn" | xargs)"
		fi
	fi
fi

# Decode every recording on the host, with the guest kernel's vDSO image
# (signal handlers return through its __vdso_rt_sigreturn).
kdir=$(bash "$NTRACE_TOP/scripts/kernel.sh" "$variant" 2>/dev/null)
vdso=$kdir/arch/riscv/kernel/vdso/vdso.so
[ -f "$vdso" ] || not_ok "the guest kernel's vdso.so ($vdso)"
# perf finds it in the build-id cache of --symfs
perf_vdso_cache "$tmp/root" "$vdso" || not_ok "the vdso.so in perf's build-id cache under $tmp/root"
for r in "${recs[@]}"; do
	name=${r%%;*}
	"$tmp/perf-ntrace" decode --root "$tmp/root" --vdso "$vdso" -o "$tmp/$name.pc" \
		"$tmp/out/$name.data" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	"$tmp/perf-ntrace" decode --root "$tmp/root" --vdso "$vdso" --format=stats \
		-o "$tmp/$name.st" "$tmp/out/$name.data" 2>/dev/null
done
sym() { riscv64-linux-gnu-nm "$tmp/root/usr/bin/$1" | awk -v s="$2" '$3 == s { print "0x" substr($1, match($1, /[1-9a-f]/)) }'; }
decoded_ok() {	# NAME: decoder exit 0, no warnings, no errors
	[ "$(cat "$tmp/$1.rc")" = 0 ] && [ ! -s "$tmp/$1.err" ] && grep -q '^errors: 0$' "$tmp/$1.st"
}
nth() { sed -n "${2}p" "$1" | grep . || echo '(end)'; }	# FILE N: line N
stats() { grep -E '^(bytes|bits_per_instruction):' "$tmp/$1.st" | tr '\n' ' '; }

# AutoFDO counts of a PIE (decode --format=autofdo) are the file's: each
# of the two runs of callsys-dyn, loaded at different addresses, has a
# range at _start's offset from the file's text base, and the runs count
# the same ranges but for some (a failed LR/SC retries a loop; a trap
# lands elsewhere: 2 of 77 differed in one CI run, 8 of 78 and 9 of 77 on
# a loaded host, where more interrupts split more ranges). Counts not made
# relative to the file would differ in every range (twice the ranges in
# the diff), so fewer differing than half the ranges tells the two apart
# whatever the load.
for name in dyn1 dyn2; do
	have $name || continue
	"$tmp/perf-ntrace" decode --root "$tmp/root" --vdso "$vdso" --format=autofdo \
		--dso /usr/bin/callsys-dyn -q -o "$tmp/$name.afdo" "$tmp/out/$name.data"
done
read -r _ _ tbase < <("${CROSS_COMPILE}readelf" -lW "$tmp/root/usr/bin/callsys-dyn" |
	awk -f "$NTRACE_TOP/tools/autofdo/hex.awk" -f "$NTRACE_TOP/tools/autofdo/text-range.awk")
soff=$(printf '%x' $(($(sym callsys-dyn _start) - ${tbase:-0})))
keys() { awk -F: 'NR > 1 && /-[0-9a-f]+:/ { print $1 }' "$1" | sort; }
ndiff=$(diff <(keys "$tmp/dyn1.afdo") <(keys "$tmp/dyn2.afdo") | grep -c '^[<>]')
nr=$(head -1 "$tmp/dyn1.afdo" 2>/dev/null)
if ! have dyn1; then
	:	# not recorded in this configuration
elif grep -q "^$soff-" "$tmp/dyn1.afdo" && grep -q "^$soff-" "$tmp/dyn2.afdo" &&
   [ "${nr:-0}" -gt 0 ] && [ $((ndiff * 2)) -le "${nr:-0}" ]; then
	ok "dyn1, dyn2 (PIE): --format=autofdo counts $nr ranges of the file, _start's at offset 0x$soff in both runs, $ndiff ranges differ"
else
	not_ok "dyn1, dyn2 (PIE): --format=autofdo: ${nr:-no} ranges, $ndiff differ, _start at 0x$soff: $(grep -c "^$soff-" "$tmp/dyn1.afdo") and $(grep -c "^$soff-" "$tmp/dyn2.afdo") ranges"
fi

# Truth 1: the model's ground-truth log, U-mode records cut by context.
gtlog=$tmp/gt.hart0.txt
mkdir -p "$tmp/gtseg"
if [ -s "$gtlog" ] && awk -v dir="$tmp/gtseg" -f "$e2e/gt-umode-segments.awk" "$gtlog"; then
	read -r gt_total gt_other gt_nseg gt_ctxs <"$tmp/gtseg/summary"
	if grep -q 'ASID allocator using' "$tmp/console.log" && [ "$gt_nseg" = "${#recs[@]}" ] &&
	   [ -z "$(tr -d ' \n' <"$tmp/gtseg/reused")" ]; then
		ok "ground-truth log: $gt_total records, $gt_other not U-mode, ${#recs[@]} U-mode segments with distinct ASIDs ($gt_ctxs), one per recording"
	else
		not_ok "ground-truth log: $gt_total records, $gt_other not U-mode, $gt_nseg U-mode segments (ASIDs$gt_ctxs; reused:$(cat "$tmp/gtseg/reused")) for ${#recs[@]} recordings; $(grep -o 'ASID allocator.*' "$tmp/console.log" || echo 'kernel uses no ASIDs')"
		gt_nseg=0
	fi
else
	not_ok "ground-truth log $gtlog missing or malformed"
	gt_nseg=0
fi
i=0
for r in "${recs[@]}"; do
	IFS=';' read -r name _ p <<<"$r"
	p=${p%% *}
	i=$((i + 1))
	# user and kernel, and an AUX area too small: perf-e2e-itrace.sh;
	# a snapshot at a trigger: below
	[ "$name" != kern ] && [ "$name" != lost ] && [ "$name" != trig ] || continue
	[ "$gt_nseg" = "${#recs[@]}" ] || { not_ok "$name: = ground truth (no ground-truth segment)"; continue; }
	seg=$tmp/gtseg/$i.pc
	n=$(wc -l <"$tmp/$name.pc") ng=$(wc -l <"$seg")
	first=$(head -1 "$seg") start_=$(sym "$p" _start) _exit=$(sym "$p" _exit)
	[ "$p" != callsys-dyn ] || start_=$first _exit=$(tail -1 "$seg")	# no fixed addresses
	if ! decoded_ok "$name"; then
		not_ok "$name ($p): decoder exit $(cat "$tmp/$name.rc"), $(grep '^errors:' "$tmp/$name.st"): $(head -c 300 "$tmp/$name.err" | tr "\n" " ")"
	elif ! cmp -s "$tmp/$name.pc" "$seg"; then
		# cmp names the first differing line, or says EOF on the shorter file
		k=$(cmp "$tmp/$name.pc" "$seg" 2>&1 | sed -n '/EOF/q; s/.* line \([0-9]*\).*/\1/p')
		[ -n "$k" ] || k=$(( (n < ng ? n : ng) + 1 ))
		not_ok "$name ($p): decoded $n instructions, ground truth $ng; first difference at instruction $k: decoded $(nth "$tmp/$name.pc" "$k") ground truth $(nth "$seg" "$k")"
	elif [ "$first" != "$start_" ] || ! grep -q "^$_exit\$" <(tail -8 "$seg"); then
		not_ok "$name ($p): the ground-truth segment does not run from _start ($start_, got $first) into _exit ($_exit)"
	else
		ok "$name ($p): $n instructions decoded = the model's ground truth for the process (ASID $(awk -v i="$i" '{ print $(3 + i) }' "$tmp/gtseg/summary"), $(cat "$tmp/gtseg/$i.recs") records), _start to _exit; $(stats "$name")"
	fi
done

# The snapshot at a trigger (perf-ntrace trigger, a uprobe on callsys's
# trigger_point, called once halfway): decoded up to trigger_point
# (--until), it must be the last instructions of the process's ground
# truth before trigger_point's first one, and fewer than all of them (the
# 16K ring wrapped: what is kept is the trace just before the trigger);
# its timeline ends there, with a trigger marker. (The uprobe's breakpoint
# traps at trigger_point, whose first instruction then runs out of line in
# the [uprobes] page: the log has the call, then that page; --until ends
# with trigger_point's address. The truth is cut at callsys's only call of
# trigger_point, which the log has whatever the page's address.)
if have trig && [ "$gt_nseg" = "${#recs[@]}" ]; then
	ti=$(printf '%s\n' "${recs[@]}" | grep -n '^trig;' | cut -d: -f1)
	ta=$(sym callsys trigger_point)
	"$tmp/perf-ntrace" decode --root "$tmp/root" --vdso "$vdso" --until trigger_point \
		-o "$tmp/trig.until" "$tmp/out/trig.data" 2>"$tmp/trig.until.err"
	trc=$?
	tc=$("${CROSS_COMPILE}objdump" -d "$tmp/root/usr/bin/callsys" |
		awk '$NF == "<trigger_point>" && /\tjal\t/ { sub(/:$/, "", $1); print "0x" $1; exit }')
	awk -v a="$ta" -v c="$tc" '{ print } $1 == c { print a; exit }' \
		"$tmp/gtseg/$ti.pc" >"$tmp/trig.gtpre"
	n=$(wc -l <"$tmp/trig.until") np=$(wc -l <"$tmp/trig.gtpre")
	bytes=$(sed -n 's/^chunk_bytes: //p' "$tmp/trig.st")
	if [ $trc = 0 ] && [ ! -s "$tmp/trig.until.err" ] && [ "$n" -gt 0 ] &&
	   [ "$(tail -1 "$tmp/trig.gtpre")" = "$ta" ] && [ "$n" -lt "$np" ] &&
	   cmp -s "$tmp/trig.until" <(tail -n "$n" "$tmp/trig.gtpre"); then
		ok "trig: perf-ntrace trigger's snapshot (${bytes:-?} bytes, ring $trig_ring) decoded up to trigger_point ($ta) = the last $n of the $np instructions the ground truth has before it; $(grep -c . "$tmp/out/trig.out") lines of output, $(ls "$tmp/out" | grep -c '^trig\.data') snapshot files"
	else
		not_ok "trig: snapshot decoded --until trigger_point: exit $trc, $n instructions, ground truth $np up to $(tail -1 "$tmp/trig.gtpre") (trigger_point $ta, called at ${tc:-?}: $(grep -c "^$tc\$" "$tmp/gtseg/$ti.pc") times in the log); last decoded $(tail -1 "$tmp/trig.until"): $(head -c 200 "$tmp/trig.until.err")"
	fi
	"$tmp/perf-ntrace" decode --root "$tmp/root" --vdso "$vdso" --until trigger_point \
		--format=timeline -o "$tmp/trig.json" "$tmp/out/trig.data" 2>/dev/null
	mark=$(python3 "$e2e/trace-events.py" trigger "$tmp/trig.json" 2>&1 | tr '\n' ' ')
	if [ "$mark" = "$n $ta trigger_point end $n " ]; then
		ok "trig: the timeline ends at the trigger marker (trigger_point, after instruction $n)"
	else
		not_ok "trig: timeline trigger marker and last slice end: '$mark' (want '$n $ta trigger_point end $n')"
	fi
fi

# The call views (timeline, folded stacks, perf's SQLite call tree) of the
# recording with recursion, longjmp and signal handlers.
if have cs-sig && [ "$gt_nseg" = "${#recs[@]}" ]; then
	si=$(printf '%s\n' "${recs[@]}" | grep -n '^cs-sig;' | cut -d: -f1)
	bash "$NTRACE_TOP/scripts/perf-e2e-views.sh" "$tmp/perf-ntrace" "${hostperf:-}" "$tmp/root" \
		"$vdso" "$tmp/out/cs-sig.data" callsys "$tmp/gtseg/$si.pc" "$tmp"
fi

# perf itself decodes the recordings (tools/perf-patches/0005), checked
# against the same segments.
if [ -n "${hostperf:-}" ] && [ "$gt_nseg" = "${#recs[@]}" ]; then
	specs=() i=0
	for r in "${recs[@]}"; do
		IFS=';' read -r name _ p <<<"$r"
		p=${p%% *} i=$((i + 1))
		[ "$name" != kern ] && [ "$name" != trig ] || continue
		[ "$p" != callsys-dyn ] || p=-
		case $r in
		*ts=1*) specs+=("$name:$p:$tmp/gtseg/$i:ts") ;;
		lost*) specs+=("$name:$p:$tmp/gtseg/$i:lost") ;;
		*) specs+=("$name:$p:$tmp/gtseg/$i") ;;
		esac
	done
	if [ -s "$tmp/htm.guest-pc" ] && cmp -s "$tmp/htm.guest-pc" "$tmp/gtseg/$htm_i.pc"; then
		ok "htm: the guest's perf script --itrace=i1i: $(wc -l <"$tmp/htm.guest-pc") instruction samples = the ground truth"
	else
		not_ok "htm: the guest's perf script --itrace=i1i: $(wc -l <"$tmp/htm.guest-pc" 2>/dev/null) samples, ground truth $(wc -l <"$tmp/gtseg/$htm_i.pc")"
	fi
	bash "$NTRACE_TOP/scripts/perf-e2e-itrace.sh" "$hostperf" "$tmp" "$tmp/root" "${specs[@]}"
	# kern, the last recording, traced user and kernel: every record the
	# log has after the previous recording's (the others trace only U-mode)
	awk -v from="$(cat "$tmp/gtseg/last-but-one")" -v out="$tmp/gtseg/kern" \
		'NR > from && !/^#/ { print $1, $2, $3 >(out ".flow"); if ($2 != 0) print $1 >(out ".pc") }' \
		"$gtlog"
	bash "$NTRACE_TOP/scripts/perf-e2e-itrace.sh" "$hostperf" "$tmp" "$tmp/root" \
		"kern:k:$tmp/gtseg/kern"
fi

# Truth 2: QEMU user mode (qemu-riscv64's exec log), main..exit of each
# program; the loop's comes from the ground-truth suite.
(cd "$tmp" && qemu-riscv64 -one-insn-per-tb -d exec,nochain -D "$tmp/cs.exec" \
	"$tmp/root/usr/bin/callsys" >"$tmp/cs.out") &&
	"$tmp/gt-tool" execlog "$tmp/cs.exec" "$tmp/cs.pcs" "$tmp/root/usr/bin/callsys" &&
	rm -f "$tmp/cs.exec" || { not_ok "callsys under qemu-riscv64"; exit 0; }
for p in ntloop callsys; do
	pcs=$tmp/truth.pcs
	[ $p = ntloop ] || pcs=$tmp/cs.pcs
	"$tmp/rt-tool" expect "$pcs" "$tmp/$p.truth" --priv u "$tmp/root/usr/bin/$p" ||
		{ not_ok "ground-truth PC list of $p"; exit 0; }
done
# A trap between LR and SC makes the SC fail and the loop run again: the
# guest takes page faults where QEMU user mode takes none (the first store
# to a page of .data is an SC in printf's lock). Such failed iterations
# (back to the same LR within 8 instructions, an SC on the way) are
# dropped from both sides before comparing.
lrsc() {	# PROG: "lr" addresses, then "sc" addresses
	"${CROSS_COMPILE}objdump" -d "$tmp/root/usr/bin/$1" |
		awk -v k="$2" '$3 ~ "^" k "\\.[wd]" { sub(":", "", $1); printf "0x%s ", $1 }'
}
seg() {	# PROG FILE: main .. exit, without failed LR/SC iterations
	awk -v a="$(sym "$1" main)" -v b="$(sym "$1" exit)" \
		'$1 == a { on = 1 } on { print } on && $1 == b { exit }' "$2" |
	awk -v lrs="$(lrsc "$1" lr)" -v scs="$(lrsc "$1" sc)" -f "$e2e/lrsc-retries.awk"
}
for r in "${recs[@]}"; do
	IFS=';' read -r name _ p <<<"$r"
	[ "$p" = callsys ] || [ "$p" = ntloop ] || continue	# the same runs only
	[ "$name" != kern ] && [ "$name" != lost ] && [ "$name" != trig ] || continue
	seg "$p" "$tmp/$p.truth" >"$tmp/$p.tseg" 2>"$tmp/$p.tseg.err"
	seg "$p" "$tmp/$name.pc" >"$tmp/$name.seg" 2>"$tmp/$name.seg.err"
	if decoded_ok "$name" && [ -s "$tmp/$p.tseg" ] && cmp -s "$tmp/$name.seg" "$tmp/$p.tseg"; then
		ok "$name ($p): main..exit ($(wc -l <"$tmp/$name.seg") instructions$(sed 's/^/, less /' "$tmp/$name.seg.err")) = QEMU user mode's ground truth"
	else
		not_ok "$name ($p): main..exit: segment $(wc -l <"$tmp/$name.seg") vs $(wc -l <"$tmp/$p.tseg") instructions"
	fi
done

# perf with AddressSanitizer and UBSan on these recordings, when asked
[ "${NTRACE_PERF_ASAN:-}" != 1 ] || bash "$NTRACE_TOP/scripts/perf-asan.sh" "$tmp"
exit 0
