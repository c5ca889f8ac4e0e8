#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf decodes N-Trace itself (TAP): the host perf, built with libntrace
# (tools/perf-patches/0004-0005), reads perf.data files that perf-e2e.sh
# recorded in the guest, and what "perf script/report/inject --itrace"
# make of them is checked against the model's ground truth (one retired
# PC per line, per recording), not against perf-ntrace:
#  - --itrace=i1i: one instruction sample per retired instruction, equal
#    to the ground truth instruction for instruction;
#  - --itrace=b: every branch sample whose target is not the next
#    instruction is a discontinuity of the ground truth, in order and
#    none missing; calls and returns flagged as such are exactly the
#    ground truth's executed calls and returns (from the disassembly);
#  - --itrace=i997il8: each sample's last branch is the ground truth's
#    last discontinuity before that instruction;
#  - perf report --itrace=i1i --sort sym: the share of every function
#    with 1% or more equals the ground truth's (two decimals);
#  - --itrace=e on a copy whose trace was damaged: an error with the AUX
#    offset, decoding resumes and reaches the process's last instruction,
#    and every run of samples between errors is exactly the ground truth's;
#    damaged at 16 places with 3 patterns, perf script exits 0 at each,
#    and each place damaged with bytes no message holds is an error with
#    exact runs; damaged at the start of each AUX record (before its first
#    sync), an error at the record's AUX offset;
#  - a recording with an AUX area too small (NAME:PROG:TRUTH:lost): the
#    truncated AUX records are errors, the runs between them exact;
#  - with ts=1, the samples carry trace time: non-decreasing, many more
#    distinct times than AUX records, between the first ITRACE_START and
#    the last AUX record; --itrace=i10us samples once per 10 us;
#  - --call-ret-trace: every call and return at the depth of the call tree
#    the ground truth executed, and --itrace=i97ig call chains equal to its
#    open calls (recursion, setjmp/longjmp, signal handlers);
#  - perf inject --itrace=i100il16 writes one sample per 100 instructions
#    with branch stacks; --call-trace prints one line per call sample;
#  - user and kernel flow from a perf record --kcore copy equal the
#    ground truth too, and so do its branch samples' discontinuities,
#    traps into the kernel included.
# Usage: perf-e2e-itrace.sh PERF WORK ROOT NAME:PROG:TRUTH...
#   WORK/out/NAME.data is the recording of /usr/bin/PROG (under ROOT);
#   TRUTH.pc its ground-truth PC list, TRUTH.flow the ground-truth records
#   "addr size itype" (traps as records of size 0, or itype 1/2 on the
#   record after which one was taken). PROG "-" skips the checks that need
#   the program's disassembly (dynamically linked programs), PROG "k" marks
#   a recording with kernel flow: recorded with --kcore it is checked like
#   the others, else it is decoded with NTRACE_VMLINUX (see
#   kernel_checks). A fourth field "ts": the trace has timestamps; "lost":
#   the AUX area was too small (only lost_checks).
#   The damaged-trace and perf inject checks use the first recording.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TAP_PREFIX="perf-itrace: "

perf=$1 work=$2 root=$3
shift 3
e2e=$NTRACE_TOP/tools/perf-ntrace/tests/e2e
flow() { local f=$1; shift; awk -f "$NTRACE_TOP/tools/autofdo/hex.awk" -f "$e2e/flow.awk" -f "$e2e/$f.awk" "$@"; }
d=$work/itrace
mkdir -p "$d"
# NTRACE_VMLINUX: the guest kernel's vmlinux, for recordings with kernel flow
kopt=()
[ -z "${NTRACE_VMLINUX:-}" ] || kopt=(--vmlinux "$NTRACE_VMLINUX")
ps() { "$perf" script --symfs "$root" "${kopt[@]}" "$@"; }

# ip per line (hex, no 0x, no leading zeros) -> 0x... like the ground truth
norm_ip() { awk '{ sub(/^0+/, "", $1); print "0x" ($1 == "" ? "0" : $1) }'; }

# Kernel and user flow: kernel samples carry kernel symbols. From a
# --kcore recording (a directory with kcore_dir/) the flow is then checked
# exactly like a user one. With vmlinux (NTRACE_VMLINUX), decoding stops
# only in code vmlinux does not hold (module code, here the ntrace driver
# that starts the trace), and where boot patched the kernel (alternatives)
# vmlinux is not the running code: how far the flow matches the ground
# truth is printed, not checked.
kernel_checks() {
	local ksym lo hi bad
	ksym=$(ps -i "$data" --itrace=b -F ip,sym,dso 2>/dev/null | grep -c 'kernel.kallsyms')
	if [ "$ksym" -gt 0 ]; then
		ok "$name: $ksym branch samples in the kernel, with its symbols"
	else
		not_ok "$name: no branch samples with kernel symbols"
	fi
	[ ! -d "$data" ] || return 0
	lo=$("${CROSS_COMPILE}nm" "$NTRACE_VMLINUX" | awk '$3 == "_stext" { print $1 }')
	hi=$("${CROSS_COMPILE}nm" "$NTRACE_VMLINUX" | awk '$3 == "_etext" { print $1 }')
	ps -i "$data" --itrace=e 2>/dev/null | grep -o 'cannot decode at pc 0x[0-9a-f]*' |
		awk '{ print $5 }' >"$d/$name.errpc"
	bad=$(awk -v lo="$lo" -v hi="$hi" -f "$e2e/in-text.awk" "$d/$name.errpc")
	if [ -s "$d/$name.errpc" ] && [ "$bad" = 0 ]; then
		ok "$name: all $(wc -l <"$d/$name.errpc") decode errors with vmlinux are outside its text (module code)"
	else
		not_ok "$name: $bad of $(wc -l <"$d/$name.errpc") decode errors inside vmlinux's text"
	fi
	echo "# $name with vmlinux: $(flow gt-prefix "$seg" "$d/$name.ipc") ($(wc -l <"$d/$name.ipc") decoded, $n in the ground truth)"
}

# Trace time: non-decreasing perf times, many more distinct than AUX
# records, between the task's first ITRACE_START and its last AUX record.
time_checks() {
	local res
	"$perf" report -D -i "$data" 2>/dev/null |
		awk '/PERF_RECORD_(ITRACE_START|AUX) / { print $2, $5 }' >"$d/$name.side"
	ps -i "$data" --itrace=b -F time --ns 2>/dev/null | tr -d ' .:' >"$d/$name.times"
	res=$(awk -f "$e2e/itrace-times.awk" "$d/$name.side" "$d/$name.times")
	read -r nt back distinct out aux lo hi <<<"$res"
	if [ "$nt" -gt 0 ] && [ "$back" = 0 ] && [ "$out" = 0 ] && [ "$distinct" -gt $((2 * aux)) ]; then
		ok "$name: $nt branch samples carry trace time: never decreasing, $distinct distinct times for $aux AUX records, all within $lo..$hi ns (first ITRACE_START, last AUX record)"
	else
		not_ok "$name: sample times: $nt samples, $back going back, $out outside $lo..$hi, $distinct distinct for $aux AUX records"
	fi
	# a time period: one sample per 10 us of trace time that has any, the
	# instructions since the last sample as its period
	res=$(ps -i "$data" --itrace=i10us -F time,period --ns 2>/dev/null | tr -d ':' |
		awk -v n="$n" -f "$e2e/itrace-period.awk")
	read -r ns bad sumok <<<"$res"
	if [ "$ns" -gt 1 ] && [ "$bad" = 0 ] && [ "$sumok" = 1 ]; then
		ok "$name: --itrace=i10us: $ns samples, each in a later 10 us of trace time, their periods add up to the instructions"
	else
		not_ok "$name: --itrace=i10us: $ns samples, $bad not in a later 10 us, periods add up: $sumok"
	fi
}

# A recording whose AUX area was too small: perf reports the kernel's
# loss, and every run of samples between the errors is exact. Whether the
# kernel lost trace depends on how soon perf ran; a run without loss must
# decode completely, and skips the loss check. A truncated record may also
# fall where the program did not run: then every instruction decodes.
lost_checks() {
	local res lost
	ps -i "$data" --itrace=i1ie -F ip >"$d/$name.seg" 2>/dev/null
	lost=$(grep -c 'code 3: @0x[0-9a-f]* AUX record truncated' "$d/$name.seg")
	res=$(flow gt-segments "$seg" "$d/$name.seg")
	case $res in
	ok*)
		read -r _ segs got errs <<<"$res"
		if [ "$lost" -gt 0 ] && [ "$got" -lt "$n" ]; then
			ok "$name: $lost AUX records truncated, reported as errors with their AUX offset; $got of $n instructions decoded, in $segs runs between the $errs errors, each run exactly the ground truth's"
		elif [ "$lost" -gt 0 ] && [ "$got" = "$n" ]; then
			# a cut where the program did not run (an empty
			# TRUNCATED record when the area had under a page free)
			ok "$name: $lost AUX records truncated, reported as errors with their AUX offset, none where the program ran: all $n instructions decoded exactly, in $segs runs"
		elif [ "$lost" = 0 ] && [ "$errs" = 0 ] && [ "$got" = "$n" ]; then
			skip "$name: truncated AUX records" "perf drained the AUX area in time this run (all $n instructions decoded exactly)"
		else
			not_ok "$name: $lost truncated AUX records reported, $errs errors, $got of $n instructions decoded"
		fi ;;
	*) not_ok "$name: $res" ;;
	esac
}

for spec in "$@"; do
	IFS=: read -r name prog truth opt <<<"$spec"
	seg=$truth.pc
	data=$work/out/$name.data
	n=$(wc -l <"$seg")

	[ "$opt" != lost ] || { lost_checks; continue; }

	# instructions
	ps -i "$data" --itrace=i1i -F ip 2>"$d/$name.i.err" | norm_ip >"$d/$name.ipc"
	if [ "$prog" = k ]; then
		kernel_checks
		[ -d "$data" ] || continue
	fi
	if [ -s "$seg" ] && cmp -s "$d/$name.ipc" "$seg"; then
		ok "$name: perf script --itrace=i1i: $n instruction samples = the ground truth"
	else
		k=$(cmp "$d/$name.ipc" "$seg" 2>&1 | sed -n 's/.* line \([0-9]*\).*/\1/p')
		not_ok "$name: perf script --itrace=i1i: $(wc -l <"$d/$name.ipc") samples, ground truth $n; first difference at line ${k:-?}; $(head -c 200 "$d/$name.i.err" | tr '\n' ' ')"
	fi

	# branches: the discontinuities, in order. With the kernel traced
	# (k), a trap is a transfer into the handler, and the trace the driver
	# stops and starts again is one step.
	kernel=0
	[ "$prog" != k ] || kernel=1
	ps -i "$data" --itrace=b -F ip,addr,flags 2>"$d/$name.b.err" >"$d/$name.br"
	flow itrace-branches -v kernel=$kernel "$d/$name.br" >"$d/$name.disc"
	flow gt-discontinuities -v kernel=$kernel "$truth.flow" >"$d/$name.gtdisc"
	if [ -s "$d/$name.gtdisc" ] && cmp -s "$d/$name.disc" "$d/$name.gtdisc"; then
		ok "$name: perf script --itrace=b: $(wc -l <"$d/$name.br") branch samples; their $(wc -l <"$d/$name.disc") discontinuities = the ground truth's"
	else
		not_ok "$name: perf script --itrace=b: $(wc -l <"$d/$name.disc") discontinuities, ground truth $(wc -l <"$d/$name.gtdisc"): $(diff "$d/$name.disc" "$d/$name.gtdisc" | head -3 | tr '\n' ' ')"
	fi
	if [ "$prog" = k ]; then
		[ "$opt" != ts ] || time_checks
		continue
	fi

	# last branch of every 997th instruction
	ps -i "$data" --itrace=i997il8 -F ip,brstack 2>/dev/null >"$d/$name.lbr"
	res=$(flow gt-lastbranch -v period=997 "$truth.flow" "$d/$name.lbr")
	case $res in
	ok*) ok "$name: --itrace=i997il8: ${res#ok }" ;;
	*) not_ok "$name: --itrace=i997il8: $res" ;;
	esac

	[ "$opt" != ts ] || time_checks
	[ "$prog" != - ] || continue
	# perf report's per-symbol shares
	"${CROSS_COMPILE}nm" -S -n --defined-only "$root/usr/bin/$prog" >"$d/$prog.nm"
	flow gt-symshare "$d/$prog.nm" "$seg" | sort -k2 >"$d/$name.share.gt"
	"$perf" report -i "$data" --symfs "$root" --itrace=i1i --stdio --sort sym 2>/dev/null |
		awk '$1 ~ /%$/ && $2 == "[.]" && $1 + 0 >= 1 { sub(/%/, "", $1); print $1, $3 }' |
		flow nm-addr "$d/$prog.nm" - | sort -k2 >"$d/$name.share"
	if [ -s "$d/$name.share.gt" ] && cmp -s "$d/$name.share" "$d/$name.share.gt"; then
		ok "$name: perf report --itrace=i1i --sort sym: the $(wc -l <"$d/$name.share") functions with 1% or more have the ground truth's shares (top: $(sort -rn "$d/$name.share" | head -1 | cut -d' ' -f1)%)"
	else
		not_ok "$name: perf report --sort sym shares differ from the ground truth's: $(diff "$d/$name.share" "$d/$name.share.gt" | grep '^[<>]' | head -4 | tr '\n' ' ')"
	fi

	# calls and returns flagged as such, against the disassembly
	"${CROSS_COMPILE}objdump" -d --no-show-raw-insn "$root/usr/bin/$prog" >"$d/$prog.dis" 2>/dev/null
	want=$(flow gt-calls "$d/$prog.dis" "$seg")
	got=$(awk '/ call / { c++ } / return / { r++ } END { printf "%d calls %d returns\n", c, r }' "$d/$name.br")
	if [ "$got" = "$want" ]; then
		ok "$name: branch samples flagged call and return: $got, as the program executed"
	else
		not_ok "$name: branch samples flagged: $got; the program executed $want"
	fi

	# the call tree the ground truth executed (recursion, longjmp, signal
	# handlers): --call-ret-trace depths, and --itrace=g call chains
	flow gt-calltree -v mode=trace "$d/$prog.dis" "$seg" >"$d/$name.tree.gt"
	ps -i "$data" --call-ret-trace -F flags,callindent,ip,addr 2>/dev/null |
		flow itrace-calltree >"$d/$name.tree"
	if [ -s "$d/$name.tree.gt" ] && cmp -s "$d/$name.tree" "$d/$name.tree.gt"; then
		ok "$name: perf script --call-ret-trace: $(wc -l <"$d/$name.tree") calls and returns at the ground truth's depths (deepest $(sort -k2n "$d/$name.tree" | tail -1 | cut -d' ' -f2))"
	else
		not_ok "$name: perf script --call-ret-trace differs from the ground truth's call tree at: $(diff "$d/$name.tree" "$d/$name.tree.gt" | grep -m2 '^[<>]' | tr '\n' ' ')"
	fi
	flow gt-calltree -v mode=chain -v period=97 "$d/$prog.dis" "$seg" >"$d/$name.chain.gt"
	ps -i "$data" --itrace=i97ig -F ip 2>/dev/null | flow itrace-chains >"$d/$name.chain"
	if [ -s "$d/$name.chain.gt" ] && cmp -s "$d/$name.chain" "$d/$name.chain.gt"; then
		ok "$name: --itrace=i97ig: $(wc -l <"$d/$name.chain") call chains = the ground truth's open calls (up to $(awk '{ if (NF > m) m = NF } END { print m - 1 }' "$d/$name.chain") frames)"
	else
		not_ok "$name: --itrace=i97ig: $(wc -l <"$d/$name.chain") call chains, ground truth $(wc -l <"$d/$name.chain.gt"); first difference: $(diff "$d/$name.chain" "$d/$name.chain.gt" | grep -m2 '^[<>]' | cut -c1-120 | tr '\n' ' ')"
	fi
done

IFS=: read -r name prog truth _ <<<"$1"
[ "$prog" != k ] || exit 0

# A damaged copy of the first recording: 64 bytes in the middle of its
# largest AUXTRACE event's trace bytes overwritten. Only trace bytes: bytes
# past the event's data are the next perf record's header, and perf
# rejects a file whose records do not parse before any decoding (exit
# -EINVAL, nothing decoded; what a first AUXTRACE event of less than 128
# bytes did here).
data=$work/out/$name.data
at=0 size=0 aoff=0 acpu=0
while read -r a s o c; do
	[ $((s)) -le "$size" ] || { at=$((a)) size=$((s)) aoff=$((o)) acpu=$c; }
done < <("$perf" report -D -i "$data" 2>/dev/null |
	 awk '$5 == "PERF_RECORD_AUXTRACE" { print $3, $7, $9, $NF }')
# that CPU's AUX records "OFFSET SIZE FLAGS"; the driver starts each at a
# message boundary unless a buffer wrapped under it (flagged OVERWRITE,
# PARTIAL or COLLISION: 0xe)
"$perf" report -D -i "$data" 2>/dev/null |
	awk -v cpu="$acpu" '$5 == "PERF_RECORD_AUX" && $1 == cpu { print $7, $9, $11 }' >"$d/aux.list"
# unaligned(OFFSET): 64 bytes at OFFSET into the event's data touch a
# record that may start inside a message
unaligned() {
	local ro rs fl
	while read -r ro rs fl; do
		(( (fl & 0xe) && ro < aoff + $1 + 64 && aoff + $1 < ro + rs )) && return 0
	done <"$d/aux.list"
	return 1
}
# damage(OFFSET BYTE): bad.data is data with 64 bytes of BYTE at OFFSET
# into that event's trace bytes
damage() {
	cp "$data" "$d/bad.data"
	head -c 64 /dev/zero | tr '\0' "\\$(printf %03o "$2")" |
		dd of="$d/bad.data" bs=1 seek=$((at + 0x30 + $1)) conv=notrunc status=none
}
off=$(( size > 128 ? size / 2 : 0 ))
damage "$off" 0x55
off=$((at + 0x30 + off))
ps -i "$d/bad.data" --itrace=i1ie -F ip >"$d/bad.out" 2>"$d/bad.err"
st=$?
errs=$(grep -c 'instruction trace error.*code 1: @0x' "$d/bad.out")
grep -v 'error\|^$\|Warning' "$d/bad.out" | norm_ip | tail -1000 >"$d/bad.tail"
res=$(flow gt-segments "$truth.pc" "$d/bad.out")
if [ $st = 0 ] && [ "$errs" -gt 0 ] && [ "${res%% *}" = ok ] &&
   cmp -s "$d/bad.tail" <(tail -1000 "$truth.pc"); then
	read -r _ segs got _ <<<"$res"
	ok "$name damaged at file offset $off: perf script --itrace=i1ie reports $errs decode errors with their AUX offset ($(grep -m1 -o '@0x[0-9a-f]*' "$d/bad.out")), resumes, and decodes $got of $(wc -l <"$truth.pc") instructions in $segs runs, each exactly the ground truth's, to its last instruction"
else
	not_ok "$name damaged: perf script exit $st, $errs errors with an offset, runs: $res, last instructions $(cmp -s "$d/bad.tail" <(tail -1000 "$truth.pc") && echo equal || echo differ)"
fi

# lost_unreported(OUT): trace lost with no error: a run of OUT that is not the
# ground truth's, or fewer instructions than it and no error (what is
# lost before the first run or after the last leaves the runs exact)
lost_unreported() {
	local res
	res=$(flow gt-segments "$truth.pc" "$1")
	[ "${res%% *}" != ok ] && return 0
	grep -q 'instruction trace error' "$1" && return 1
	read -r _ _ got _ <<<"$res"
	[ "$got" -lt "$(wc -l <"$truth.pc")" ]
}

# The same at 16 places across those bytes, with 0x55, 0x00 and 0xff:
# perf script never fails on damaged trace, it reports and resumes. 0x55
# (field ends) and 0x00 hold no end of message, so each such place in
# records that start at a message boundary is an error with its AUX
# offset and exact runs. 0xff is the idle byte and ends a message: the
# message it cuts may parse, and the flow go wrong before an error or with
# none; such places, and others in records a wrap may have cut, are counted.
fails= silent=0 tried=0 errs=0 strict=
for pat in 0x55 0x00 0xff; do
	for ((i = 0; i < 16; i++)); do
		o=$(( size > 64 ? i * (size - 64) / 15 : 0 ))
		damage "$o" "$pat"
		ps -i "$d/bad.data" --itrace=i1ie -F ip >"$d/sweep.out" 2>/dev/null
		st=$? tried=$((tried + 1)) e=0
		[ $st = 0 ] || fails+=" $pat@$o:exit$st"
		grep -q 'instruction trace error.*: @[0-9]' "$d/sweep.out" && e=1 errs=$((errs + 1))
		if lost_unreported "$d/sweep.out"; then
			silent=$((silent + 1))
			[ "$pat" = 0xff ] || unaligned "$o" || strict+=" $pat@$o"
		elif [ "$pat" != 0xff ] && [ "$e" = 0 ] && ! unaligned "$o"; then
			strict+=" $pat@$o:no-error"
		fi
	done
done
if [ -z "$fails" ] && [ -z "$strict" ] && [ "$errs" -gt 0 ]; then
	ok "$name damaged at $tried places (64 bytes of 0x55, 0x00, 0xff): perf script exits 0 at each, $errs with decode errors and their AUX offset, every 0x55 and 0x00 place in aligned records among them with exact runs; $silent places with trace lost unreported (0xff, or in records a wrap may have cut)"
else
	not_ok "$name damaged at $tried places: perf script failed at:${fails:- none}; $errs with decode errors; 0x55/0x00 places with trace lost unreported or no error:${strict:- none}"
fi

# Damage before the first sync of an AUX record that starts at a message
# boundary: bad bytes there are a decode error at the record's AUX offset,
# not the tail of a cut message.
tried=0 bad=
while read -r ro rs fl; do
	(( !(fl & 0xe) && ro >= aoff && ro - aoff + 64 <= size && rs >= 64 )) || continue
	damage $((ro - aoff)) 0x55
	ps -i "$d/bad.data" --itrace=i1ie -F ip >"$d/start.out" 2>/dev/null </dev/null
	tried=$((tried + 1))
	{ grep -q "instruction trace error.*: @$(printf %#x $((ro))) " "$d/start.out" &&
	  ! lost_unreported "$d/start.out"; } || bad+=" $(printf %#x $((ro)))"
done <"$d/aux.list"
if [ "$tried" -gt 0 ] && [ -z "$bad" ]; then
	ok "$name damaged at the start of each of its $tried AUX records (64 bytes of 0x55): each a decode error at the record's AUX offset, every run exact"
else
	not_ok "$name damaged at the start of its $tried AUX records: no error at the record's offset, or trace lost unreported, at AUX offset:${bad:- (no record)}"
fi

# perf inject: instruction samples every 100 instructions with 16 branches
"$perf" inject --symfs "$root" --itrace=i100il16 -i "$data" -o "$d/inj.data" 2>"$d/inj.err"
"$perf" script -i "$d/inj.data" -F ip,brstack 2>/dev/null >"$d/inj.out"
want=$(( $(wc -l <"$truth.pc") / 100 ))
got=$(wc -l <"$d/inj.out") full=$(awk 'NF == 17' "$d/inj.out" | wc -l)
if [ "$got" = "$want" ] && [ "$full" -gt $((want * 9 / 10)) ]; then
	ok "$name: perf inject --itrace=i100il16 wrote $got samples (one per 100 of $(wc -l <"$truth.pc") instructions), $full with 16 branches"
else
	not_ok "$name: perf inject --itrace=i100il16: $got samples (want $want), $full with 16 branches: $(head -c 200 "$d/inj.err")"
fi

# --call-trace: one line per call, as the program executed
calls=$(ps -i "$data" --call-trace 2>/dev/null | wc -l)
want=$(ps -i "$data" --itrace=c -F ip 2>/dev/null | wc -l)
if [ "$calls" -gt 0 ] && [ "$calls" = "$want" ]; then
	ok "$name: perf script --call-trace prints $calls calls"
else
	not_ok "$name: perf script --call-trace prints $calls lines for $want calls"
fi
exit 0
