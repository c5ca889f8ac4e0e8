#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ntrace QEMU model tests, printed as flat TAP lines. Bare-metal programs
# check register behaviour inside the guest; this script then checks the
# trace they leave in the shared RAM file on the host:
#  - every byte parses as N-Trace ("perf-ntrace dump" reports no error),
#  - re-encoding the model's ground-truth ingress log with the same
#    encoder settings gives exactly the bytes in the sink (plus idle
#    padding of the last word),
#  - the ground truth is a consistent instruction stream with the traps the
#    program took (4 ECALLs, 1 timer interrupt),
#  - it equals, instruction for instruction, what an independent recorder
#    (tools/perf-ntrace/tests/gt/gt-plugin.c: one callback per instruction)
#    saw QEMU retire in the same run,
#  - decoding the sink bytes with the program's ELF ("perf-ntrace decode")
#    gives that same instruction sequence.
# All of it runs for each XLEN in NTRACE_MODEL_XLENS (default "64 32"): the
# same programs built for RV32 (baremetal-rv32/) on qemu-system-riscv32,
# with TAP names "model: rv32: ...". The device tree and Linux run on RV64
# only (see Documentation/trace/ntrace-qemu-model.rst).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
top=$(cd "$here/../.." && pwd)
if [ -z "${NTRACE_MODEL_XLEN:-}" ]; then
	for x in ${NTRACE_MODEL_XLENS:-64 32}; do
		NTRACE_MODEL_XLEN=$x bash "$0"
	done
	exit 0
fi
. "$top/scripts/lib.sh"
B=$top/build/ntrace-model
XL=$NTRACE_MODEL_XLEN
case $XL in
64) BM=$B/baremetal TAP_PREFIX="model: " ENC_X='' TRACE_IMG=() ;;
32)	BM=$B/baremetal-rv32 TAP_PREFIX="model: rv32: " ENC_X='--xlen 32'
	# trace.c's U-mode part runs through an Sv32 alias of the program
	TRACE_IMG=(--elf "$BM/trace.elf@0xffc00000") ;;
*) echo "NTRACE_MODEL_XLEN must be 64 or 32" >&2; exit 2 ;;
esac
export TAP_PREFIX	# check_gt.py's lines too
PERF_NTRACE=${PERF_NTRACE:-$top/build/perf-ntrace/perf-ntrace}
work=$(mktemp -d /tmp/ntrace-model-test.XXXXXX)
# NTRACE_MODEL_KEEP=1 keeps the work directory (traces, logs) for a look
if [ -n "${NTRACE_MODEL_KEEP:-}" ]; then
	trap 'rm -f /dev/shm/ntrace-model-test.$$*; echo "# kept $work"' EXIT
else
	trap 'rm -rf "$work"; rm -f /dev/shm/ntrace-model-test.$$*' EXIT
fi
ram=/dev/shm/ntrace-model-test.$$

t() { check "$2" eval "$1"; }	# t EXPRESSION NAME

# Run a bare-metal program; its TAP lines are forwarded with a prefix.
# Extra QEMU arguments come from the array qextra; the guest RAM file is
# $ram unless exec_bm is given another (parallel runs).
qextra=()
exec_bm() {
	local name=$1 elf=$2 rf=$3; shift 3
	timeout 120 "$here/run-qemu.sh" -x "$XL" -r "$rf" "$@" -- -bios none -kernel "$elf" "${qextra[@]}" \
		>"$work/$name.out" 2>"$work/$name.err"
	echo $? >"$work/$name.rc"
}
show_bm() {
	local name=$1 rc
	rc=$(cat "$work/$name.rc" 2>/dev/null || echo 1)
	sed -E "s/^(not )?ok - /&$TAP_PREFIX$name: /" "$work/$name.out" | grep -E '^(not )?ok ' || true
	grep -v -E '^(not )?ok ' "$work/$name.out" | sed 's/^/# /'
	sed 's/^/# stderr: /' "$work/$name.err"
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$work/$name.out"; then
		not_ok "$name: program exited with status $rc"
	fi
	return "$rc"
}
run_bm() {
	local name=$1 elf=$2; shift 2
	exec_bm "$name" "$elf" "$ram" "$@"
	show_bm "$name"
}

# Extract [start, wp) of hart $3's sink buffer from the RAM file ($4, else
# $ram) to $1.
extract() {
	local out=$1 line start wp
	line=$(grep "^TRACE hart=${3:-0} " "$2") || return 1
	start=$(sed -E 's/.*start=(0x[0-9a-f]+).*/\1/' <<<"$line")
	wp=$(sed -E 's/.*wp=(0x[0-9a-f]+).*/\1/' <<<"$line")
	dd if="${4:-$ram}" of="$out" bs=4096 iflag=skip_bytes,count_bytes \
		skip=$((start - 0x80000000)) count=$((wp - start)) status=none
}

make -s -C "$here" all >"$work/build.log" 2>&1 || { cat "$work/build.log"; not_ok "build"; exit 1; }
make -s -C "$top/tools/perf-ntrace" tool >"$work/tool.log" 2>&1 ||
	{ cat "$work/tool.log"; not_ok "build perf-ntrace"; exit 1; }
# register words of a configuration (from the fields of ntrace_tci.h)
TRACE_CFG_TOOL=$B/trace-cfg

# the independent ground-truth recorder, as the ground-truth suite builds it
NT=$top/tools/perf-ntrace
GTP=$top/build/gt/bin/gt-plugin.so
if ! bash "$NT/tests/gt/build-suite.sh" --tools >"$work/gtp.log" 2>&1; then
	cat "$work/gtp.log"
	GTP=
fi

run_bm regs "$BM/regs.elf"
run_bm sink "$BM/sink.elf" -p "gt=$work/gt-sink"
extract "$work/sink.0.bin" "$work/sink.out" 0 || rm -f "$work/sink.0.bin"
# the same on two harts: each hart tests its own encoder and sink (bm.h)
qextra=(-device "loader,addr=0x80300100,data=2,data-len=4")
run_bm regs-smp2 "$BM/regs.elf" -s 2
run_bm sink-smp2 "$BM/sink.elf" -s 2 -p "gt=$work/gt-sink-smp2"
qextra=()
for h in 0 1; do
	extract "$work/sink-smp2.$h.bin" "$work/sink-smp2.out" $h || rm -f "$work/sink-smp2.$h.bin"
done

# The register tests must fail without the model: they test the model.
timeout 60 "$here/run-qemu.sh" -x "$XL" -n -r "$ram" -- -bios none -kernel "$BM/regs.elf" \
	>"$work/noplugin.out" 2>&1
t "grep -q '^not ok' '$work/noplugin.out'" "register tests fail without the model (control)"

# ---- trace matrix --------------------------------------------------------
# One program (trace.elf) traces the same workload in every configuration
# below. A configuration is written as the options of "perf-ntrace encode"
# that describe what the registers select, plus a few that are not
# encoder settings:
#   --inhibit-src      trTeInhibitSrc=1 (messages carry no SRC despite
#                      --src-bits; the encoder options then drop them)
#   --ts-prescale N    trTsPrescale (with --ts; the unit is External: the
#                      platform timer, the time CSR / 4^N)
#   --ts-mode-none     timestamp unit counting and trTsEnable=1, but
#                      trTsMode=0 (none): messages carry no timestamp
#   --filter-range     filter 0 + comparator 0: only fib() is traced
#   --filter-priv      filter 1, MatchPrivilege: only U-mode is traced
#   --filter-out       comparator 1, match mode 2 (!(P && S)): all but fib()
#   --filter-latch     match mode 3: from fib()'s entry to spin()'s entry
#   --filter-mask      secondary function 6 (mask): classify()'s 64-byte block
#   --filter-two       MatchComp1 && MatchComp2: start <= iaddr, iaddr < end
#   --toggle-inst      trTeInstTracing 1 -> 0 -> 1 around untraced work
#   --toggle-enable    trTeEnable 1 -> 0 -> 1 (with the Empty handshake)
#   --harts N          N harts trace themselves (trTeSrcID = --src-id + hart)
# For each configuration and hart the harness checks: the program's own
# read-back of every register it set; the sink bytes parse; they equal the
# ground-truth log re-encoded by "perf-ntrace encode" with the same options;
# every option changes the bytes (encoding without it differs, so the
# workload exercises it); the ground truth is a consistent stream with the
# program's traps; it equals what the independent recorder (gt-plugin.c,
# one hart only) saw QEMU retire; "perf-ntrace decode" with the ELF gives
# exactly the ground truth; plus the checks specific to an option
# (Ownership messages, periodic syncs, SRC in every message, the stop and
# the sync around a gap, filter bounds, timestamps against the time CSR
# values the program reads itself). Runs on two harts
# must show, on every hart, the same instructions as the one-hart run.
variants=(
	"btm: --mode btm --sync-mode hwords --sync-max 10"
	"htm: --mode htm --sync-mode hwords --sync-max 10 --ts --context"
	"seq-jump: --mode btm --seq-jump"
	"iret-count: --mode htm --implicit-return count"
	"iret-partial: --mode htm --implicit-return partial"
	"iret-full: --mode btm --implicit-return full"
	"rep-hist: --mode htm --repeated-history"
	"all-jumps-btm: --mode btm --all-jumps"
	"all-jumps-htm: --mode htm --all-jumps"
	"ext-addr: --mode htm --ext-addr"
	"ext-addr-btm: --mode btm --ext-addr"
	"ext-addr-sync: --mode btm --ext-addr --sync-mode msgs --sync-max 1"
	"sync-msgs: --mode btm --sync-mode msgs --sync-max 1"
	"sync-cycles: --mode htm --sync-mode cycles --sync-max 3 --ts --ts-prescale 1"
	"ts-mode-none: --mode htm --ts-mode-none"
	"src: --mode btm --src-bits 4 --src-id 9"
	"inhibit-src: --mode btm --src-bits 4 --src-id 9 --inhibit-src"
	"everything: --mode htm --seq-jump --implicit-return full --repeated-history --all-jumps --context --ts --src-bits 3 --src-id 5 --sync-mode msgs --sync-max 4"
	"filter: --mode htm --sync-mode cycles --sync-max 4 --filter-range"
	"filter-priv: --mode btm --filter-priv"
	"filter-out: --mode btm --filter-out --context"
	"filter-latch: --mode htm --filter-latch"
	"filter-mask: --mode btm --filter-mask"
	"filter-two: --mode htm --filter-two --ts"
	"toggle-inst: --mode htm --ts --toggle-inst"
	"toggle-enable: --mode btm --sync-mode hwords --sync-max 8 --toggle-enable"
	"smp2: --mode htm --ts --context --src-bits 2 --src-id 1 --sync-mode hwords --sync-max 10 --harts 2"
	"smp2-toggle: --mode btm --seq-jump --implicit-return full --src-bits 1 --toggle-enable --harts 2"
	# QEMU's -icount (the driver benchmarks count instructions with it)
	"icount: --mode htm --ts --toggle-inst"
)
TRACE_CFG=0x80300000

# Register words for trace.c's struct trace_cfg from a configuration, in
# the struct's order (tests/trace-cfg.c; the fields come from ntrace_tci.h).
cfg_words() {
	"$TRACE_CFG_TOOL" "$@"
}

# "perf-ntrace encode" options of a configuration for hart $1.
enc_opts() {
	local h=$1 out=() inhibit='' id=0 bits=''
	shift
	[[ " $* " == *" --inhibit-src "* ]] && inhibit=1
	while [ $# -gt 0 ]; do
		case $1 in
		--inhibit-src | --ts-mode-none | --filter-* | --toggle-inst | --toggle-enable) ;;
		--ts-prescale | --harts) shift ;;
		--src-id) id=$2; shift ;;
		--src-bits) bits=$2; shift ;;
		--*) out+=("$1"); case $1 in --mode | --sync-mode | --sync-max | --implicit-return) out+=("$2"); shift ;; esac ;;
		esac
		shift
	done
	[ -n "$bits" ] && [ -z "$inhibit" ] && out+=(--src-bits "$bits" --src-id $((id + h)))
	# shellcheck disable=SC2206	# the encoder's XLEN, the target's
	out+=($ENC_X)
	echo "${out[@]}"
}

# The codec options of "perf-ntrace dump".
dump_opts() {
	local out=()
	while [ $# -gt 0 ]; do
		case $1 in
		--src-bits | --xlen) out+=("$1" "$2"); shift ;;
		--ts | --ext-addr) out+=("$1") ;;
		esac
		shift
	done
	echo "${out[@]}"
}

# Configurations with one option group taken away (each printed on a line
# as "NAME|OPTIONS"); the bytes must differ from the sink's for each.
ablations() {
	local -a a=("$@")
	local i n=${#a[@]} skip
	for ((i = 0; i < n; i++)); do
		case ${a[i]} in
		--mode)
			echo "mode ${a[i + 1]}|${a[*]:0:i} --mode $([ "${a[i + 1]}" = htm ] && echo btm || echo htm) ${a[*]:i+2}" ;;
		--context | --seq-jump | --repeated-history | --all-jumps | --ext-addr | --ts | --inhibit-src)
			echo "${a[i]#--}|${a[*]:0:i} ${a[*]:i+1}" ;;
		--src-bits)
			[[ " ${a[*]} " == *" --inhibit-src "* ]] ||
				echo "src-bits ${a[i + 1]}|${a[*]:0:i} ${a[*]:i+2}" ;;
		--implicit-return)
			echo "implicit-return ${a[i + 1]}|${a[*]:0:i} ${a[*]:i+2}"
			# the modes differ at the workload's returns that do not go
			# to their call site: count at user_exit, partial at
			# ret_probe_far (same low 16 bits as the call's successor)
			for m in count partial full; do
				[ "$m" = "${a[i + 1]}" ] ||
					echo "implicit-return ${a[i + 1]} -> $m|${a[*]:0:i} --implicit-return $m ${a[*]:i+2}"
			done ;;
		--sync-mode)
			# sync off: drop the mode and its period
			skip=$(sed -E 's/--sync-(mode|max) [a-z0-9]+//g' <<<"${a[*]}")
			echo "sync-mode ${a[i + 1]}|$skip" ;;
		esac
	done
}

# Checks on one hart's ground truth, printed as TAP lines:
#   check_gt.py PREFIX GT PCS|- KIND PRESCALE|- REFGT|- FIB-LO:FIB-HI:SPIN:CLASSIFY STORES
#               SINK.bin REENCODED.bin ENCODE-OPTIONS DECODED DECODE-OPTIONS NAME:ADDR|-
#               PROBE-ADDR TIMES-LINE|-
# (STORES: a file with the addresses of trace.elf's sw instructions;
# NAME:ADDR: where decoding must part from the ground truth, see 4. below;
# PROBE-ADDR: time_probe_insn, the program's rdtime; TIMES-LINE: the
# program's "TIMES hart=N first= last= probes=" line, see 3. below)
# KIND: plain, toggle (a gap), priv (U-mode only), or an address filter:
# range, two (fib() only), out (all but fib()), latch (fib() entry to spin()
# entry), mask (classify()'s 64-byte block).
cat >"$work/check_gt.py" <<'PY'
import os, struct, sys
(pre, gtf, pcsf, kind, ps, reff, syms, storesf,
 binf, reencf, encopts, decf, decopts, user_exit, probe_addr, times) = sys.argv[1:17]
lo, hi, spin, classify = (int(x, 0) for x in syms.split(':'))
filters = {
    'range': lambda a: lo <= a < hi,
    'two': lambda a: lo <= a < hi,
    'out': lambda a: not lo <= a < hi,
    'mask': lambda a: a & ~0x3f == classify & ~0x3f,
}


def latch(pcs):
    # set by the primary match (fib's entry), held up to and including the
    # secondary match (spin's entry), as the model's match mode 3
    on, out = False, []
    for a in pcs:
        on = on or a == lo
        out.append(on)
        if on and a == spin:
            on = False
    return out

def tap(ok, name, note=None):
    print("%sok - %s%s: %s" % ("" if ok else "not ", os.environ['TAP_PREFIX'], pre, name))
    if note:
        print("# " + note)

recs = []
for line in open(gtf):
    f = line.split('#')[0].split()
    if len(f) >= 7:
        recs.append((int(f[0], 0), int(f[1]), int(f[2]), int(f[3]), int(f[5]), int(f[6])))
insn = [r for r in recs if r[1]]
addrs = [r[0] for r in insn]

# 0. the sink bytes are the ground truth re-encoded, plus idle bytes (0xFF)
# padding the last word
a, b = open(binf, 'rb').read(), open(reencf, 'rb').read()
pad = a[len(b):]
tap(a[:len(b)] == b and len(pad) < 4 and all(x == 0xff for x in pad) and len(b) > 0,
    "sink bytes equal the ground truth re-encoded (perf-ntrace encode %s)" % encopts,
    "sink %d bytes, re-encoded %d bytes" % (len(a), len(b)))

# 1. a consistent stream: after a record that neither branches, traps nor
# stops trace, the next record follows it; trace start/stop marks; traps
bad = exc = irq = upriv = 0
prev = None
for r in recs:
    if prev and prev[2] in (0, 4) and not prev[5] & 2 and r[0] != prev[0] + prev[1]:
        bad += 1
    exc += r[2] == 1
    irq += r[2] == 2
    upriv += r[3] == 0
    prev = r
starts = sum(1 for r in recs if r[5] & 1)
stops = sum(1 for r in recs if r[5] & 2)
ok = bool(recs) and not bad and recs[0][5] & 1 and recs[-1][5] & 2 and starts == stops
if kind in ('plain', 'toggle'):
    ok = ok and exc == 5 and irq == 1 and upriv > 100 and starts == (2 if kind == 'toggle' else 1)
    what = "5 ECALLs (1 from U-mode), 1 interrupt, U-mode records, %s" % (
        "2 trace segments (the gap)" if kind == 'toggle' else "1 trace segment")
elif kind == 'priv':
    ok = ok and upriv == len(recs) and len(insn) > 100 and exc == 1
    what = "only U-mode records (the ECALL back included)"
elif kind == 'latch':
    ok = ok and len(insn) > 1000 and addrs[0] == lo and addrs[-1] == spin and starts == 1
    what = "one segment from fib() entry 0x%x to spin() entry 0x%x" % (lo, spin)
elif kind == 'out':
    ok = ok and len(insn) > 1000 and all(filters[kind](a) for a in addrs) and exc == 5 and irq == 1
    what = "no address in fib() [0x%x, 0x%x), all traps" % (lo, hi)
else:
    ok = ok and len(insn) > (100 if kind == 'mask' else 1000) and all(filters[kind](a) for a in addrs)
    what = ("only addresses in [0x%x, 0x%x)" % (lo, hi) if kind != 'mask' else
            "only addresses in classify()'s block 0x%x" % (classify & ~0x3f))
tap(ok, "ground truth is a consistent stream: " + what,
    "%d records, %d sequence breaks, %d exceptions, %d interrupts, %d in U-mode, %d segments"
    % (len(recs), bad, exc, irq, upriv, starts))

# 2. the independent recorder: each trace segment (from a start mark on)
# is a run of what QEMU retired, in order, with untraced instructions
# between segments; with the range filter, exactly the in-range ones
if pcsf != '-':
    raw = open(pcsf, 'rb').read()
    w = struct.unpack('<%dQ' % ((len(raw) - 8) // 8), raw[8:]) if raw[:8] == b'NTGTPCS1' else ()
    pcs, i = [], 0
    while i < len(w):
        if w[i] & 1:
            i += 2
        else:
            pcs.append(w[i])
            i += 1
    segs, cur = [], []
    for r in insn:
        if r[5] & 1 and cur:
            segs.append(cur)
            cur = []
        cur.append(r[0])
    if cur:
        segs.append(cur)
    if kind in filters or kind == 'latch':
        k0 = pcs.index(addrs[0]) if addrs and addrs[0] in pcs else -1
        same = False
        if k0 >= 0:
            # the recorder's matching instructions from the first traced one
            # until as many have been seen as the model traced
            run = pcs[k0:]
            sel = latch(run) if kind == 'latch' else [filters[kind](a) for a in run]
            want = [a for a, m in zip(run, sel) if m][:len(addrs)]
            same = want == addrs
        note = "model %d instructions, recorder %d, matching from %d: %s" % (
            len(addrs), len(pcs), k0, "equal" if same else "DIFFERENT")
    else:
        pos, same, gaps = 0, bool(segs), []
        for s in segs:
            try:
                k = pcs.index(s[0], pos)
            except ValueError:
                same = False
                break
            if pcs[k:k + len(s)] != s:
                same = False
                break
            gaps.append(k - pos)
            pos = k + len(s)
        same = same and len(addrs) > (100 if kind == 'priv' else 1000) and all(g > 0 for g in gaps[1:])
        note = "model %d instructions in %d segments, recorder %d, untraced between: %s: %s" % (
            len(addrs), len(segs), len(pcs), gaps[1:], "equal" if same else "DIFFERENT")
        if kind == 'toggle' and same and len(segs) == 2:
            # trace stops at the store that clears trTeInstTracing/Enable
            # (the last traced instruction) and starts after the store that
            # sets it again (the last untraced one)
            k = pcs.index(segs[1][0], pcs.index(segs[0][0]) + len(segs[0]))
            stores = set(int(l, 16) for l in open(storesf))
            ok = segs[0][-1] in stores and pcs[k - 1] in stores
            tap(ok, "trace stops at the disabling store and restarts after the enabling store",
                "last traced 0x%x, last untraced 0x%x: %s" % (
                    segs[0][-1], pcs[k - 1], "both sw" if ok else "NOT both sw"))
    tap(same, "ground truth equals the independent per-instruction recorder", note)

# 3. timestamps: the model's timestamp unit is External, the platform timer
# (the time CSR) / 4^prescale, and every record of a block carries the time
# at which the block's last instruction had retired. Independent truth: the
# time CSR values the program read itself, just before the store that
# enables trace (first), just after the one that disables it (last), and
# at each time_probe() (an rdtime at PROBE-ADDR, ending its block with a
# return). So: timestamps never decrease; every one lies in
# [first, last] / 4^prescale; and the record of the k-th probe's rdtime
# lies between that probe's value and the next one's (or last), exactly,
# as the next probe runs in a later block. Where a filter traces only some
# of the probes, the pairing is skipped (counts differ).
if ps != '-':
    import re
    p = 4 ** int(ps)
    ts = [r[4] for r in recs]
    mono = all(b >= a for a, b in zip(ts, ts[1:]))
    t = dict(re.findall(r'(first|last|probes)=([0-9a-fx,]+)', times)) if times != '-' else {}
    if 'first' in t and 'last' in t:
        first, last = int(t['first'], 16) // p, int(t['last'], 16) // p
        probes = [int(v, 16) for v in t.get('probes', '').split(',') if v]
        inside = all(first <= x <= last for x in ts)
        pts = [r[4] for r in recs if r[0] == int(probe_addr, 0)]
        paired = len(pts) == len(probes) and len(probes) > 0
        bounds = [v // p for v in probes[1:]] + [last]
        bad = [k for k in range(len(pts)) if paired and not probes[k] // p <= pts[k] <= bounds[k]]
        ok = mono and inside and ts[-1] > ts[0] and not bad and (paired or kind not in ('plain', 'toggle'))
        note = ("%d records, timestamps %d..%d, the program's time CSR reads %d..%d (/%d), "
                "%d probes traced of %d%s" % (len(ts), ts[0], ts[-1], first, last, p, len(pts),
                len(probes), (", out of bounds at probe(s) %s" % bad) if bad else ""))
    else:
        ok, note = False, "no TIMES line from the program"
    tap(ok, "timestamps are the time CSR / 4^%s (trTsPrescale=%s): non-decreasing, within the "
        "program's own reads around the trace and around each traced rdtime" % (ps, ps), note)

# 4. decoding the sink bytes with the ELF gives the ground truth. With
# trTeInstImplicitReturnMode=1 (call counting, no address compare) the
# return of user_work() (U-mode) goes to user_exit, not to a call site, and
# is still taken as implicit; with mode 2 (16-bit partial addresses) so is
# the return of retprobe.S to ret_probe_far, 64 KiB past its call site. As
# the spec defines these modes, decoding must then follow the ground truth
# up to exactly that return and part from it there (argument NAME:ADDR).
dec = [int(l.split()[0], 16) for l in open(decf) if l.strip() and not l.startswith('#')]
if user_exit == '-':
    tap(dec == addrs and len(dec) > 0,
        "perf-ntrace decode %s of the sink bytes gives the ground truth" % decopts,
        "decoded %d instructions, ground truth %d" % (len(dec), len(addrs)))
else:
    where, ue = user_exit.split(':')
    ue = int(ue, 0)
    n = 0
    while n < min(len(addrs), len(dec)) and addrs[n] == dec[n]:
        n += 1
    ok = n > 1000 and n < len(addrs) and addrs[n] == ue and (n >= len(dec) or dec[n] != ue)
    tap(ok, "perf-ntrace decode %s gives the ground truth up to the return to %s "
        "(this mode cannot tell it from an implicit one, as the spec says)" % (decopts, where),
        "decoded %d, ground truth %d, equal for %d, then 0x%x (decoded 0x%x; %s 0x%x)"
        % (len(dec), len(addrs), n, addrs[n] if n < len(addrs) else 0,
           dec[n] if n < len(dec) else 0, where, ue))

# 5. another hart, or another run: the same instructions as the reference
if reff != '-':
    ref = [int(l.split()[0], 0) for l in open(reff)
           if not l.startswith('#') and l.split()[1] != '0']
    tap(ref == addrs, "same instructions as the one-hart run of the same program",
        "%d here, %d in the one-hart run" % (len(addrs), len(ref)))
PY

# Decoded instruction addresses (perf-ntrace decode) equal the ground truth.
dec_match() {
	[ -s "$2" ] && diff <(gt_addrs "$1" | python3 -c 'import sys; [print(hex(int(l, 0))) for l in sys.stdin]') \
		<(grep -v '^#' "$2" | awk '{ print $1 }' | python3 -c 'import sys; [print(hex(int(l, 16))) for l in sys.stdin if l.strip()]') \
		>/dev/null
}
gt_addrs() {
	grep -v '^#' "$1" | awk '$2 != 0 { print $1 }'
}

# Sink bytes $1 equal the re-encoded $2 plus idle padding of the last word.
same_bytes() {
	python3 - "$1" "$2" <<'PY'
import sys
a = open(sys.argv[1], 'rb').read()
b = open(sys.argv[2], 'rb').read()
pad = a[len(b):]
ok = a[:len(b)] == b and len(pad) < 4 and all(x == 0xff for x in pad) and len(b) > 0
print("# sink %d bytes, re-encoded %d bytes" % (len(a), len(b)))
sys.exit(0 if ok else 1)
PY
}

sym() { nm "$BM/trace.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
# addresses the filters use (check_gt.py)
syms=$(sym __start_ntfilt):$(sym __stop_ntfilt):$(sym spin):$(sym classify)
user_exit=$(sym user_exit)
time_probe=$(sym time_probe_insn)
ret_probe_far=$(sym ret_probe_far)
"${CROSS_COMPILE}objdump" -d "$BM/trace.elf" | awk -F'\t' '$3 == "sw" { sub(/:$/, "", $1); print $1 }' |
	tr -d ' ' >"$work/stores"
declare -A ref_gt	# one-hart ground truth per kind of traced region
harts_of() {
	local all=" $* "
	if [[ $all == *" --harts "* ]]; then sed -E 's/.*--harts ([0-9]+).*/\1/' <<<"$all"; else echo 1; fi
}

# Run one configuration in QEMU with its own RAM file and keep each hart's
# sink bytes in $work/NAME.H.bin (runs in the background, two at a time).
variant_run() {
	local name=$1 harts words w i=0 q=() rf=$ram.$1
	shift
	harts=$(harts_of "$@")
	words=$(cfg_words "$@") || return
	for w in $words; do
		q+=(-device "loader,addr=$(printf 0x%x $((TRACE_CFG + 4 * i))),data=$(printf 0x%x "$w"),data-len=4")
		i=$((i + 1))
	done
	rm -f "$work/gt-$name".*
	qextra=("${q[@]}")
	[[ $name == icount* ]] && qextra+=(-icount shift=0)
	[ -n "$GTP" ] && [ "$harts" = 1 ] &&
		qextra+=(-plugin "$GTP,out=$work/$name.pcs,start=0x80000000")
	exec_bm "$name" "$BM/trace.elf" "$rf" -s "$harts" -p "gt=$work/gt-$name"
	for ((i = 0; i < harts; i++)); do
		extract "$work/$name.$i.bin" "$work/$name.out" $i "$rf" || rm -f "$work/$name.$i.bin"
	done
	rm -f "$rf"
}

# Check one configuration's run (in order, after variant_run).
run_variant() {
	local name=$1 kind=plain prescale=- harts h words w opts dopts mopts
	local gt pcs bin ref abl failed
	shift
	local -a hw=("$@")
	words=$(cfg_words "${hw[@]}") || { not_ok "$name: configuration"; return; }
	[[ " ${hw[*]} " == *" --toggle-"* ]] && kind=toggle
	[[ " ${hw[*]} " == *" --filter-"* ]] && kind=$(sed -E 's/.*--filter-([a-z]+).*/\1/' <<<"${hw[*]}")
	[[ " ${hw[*]} " == *" --ts "* ]] &&
		prescale=$(sed -nE 's/.*--ts-prescale ([0-9]+).*/\1/p' <<<"${hw[*]}") && prescale=${prescale:-0}
	harts=$(harts_of "${hw[@]}")
	echo "# $name: ${hw[*]}"
	show_bm "$name"
	for ((h = 0; h < harts; h++)); do
		local p="$name: hart $h"
		gt=$work/gt-$name.hart$h.txt
		bin=$work/$name.$h.bin
		if [ ! -s "$bin" ] || [ ! -s "$gt" ]; then
			not_ok "$p: program reported where the trace is"
			continue
		fi
		# shellcheck disable=SC2046
		opts=$(enc_opts $h "${hw[@]}")
		# shellcheck disable=SC2086
		mopts=$(dump_opts $opts)
		# decode with what the encoder's registers hold (the program
		# checks that they read back as written)
		dopts="--regs $("$TRACE_CFG_TOOL" --hart "$h" "${hw[@]}")"
		# shellcheck disable=SC2086
		t "'$PERF_NTRACE' dump $mopts '$bin' >'$work/$name.$h.dump' 2>&1" \
			"$p: sink bytes parse as N-Trace messages (perf-ntrace dump $mopts)"
		# shellcheck disable=SC2086
		"$PERF_NTRACE" encode $opts -o "$work/$name.$h.re" "$gt" 2>"$work/$name.$h.re.err"
		# every option changes the bytes: encoding without it differs
		failed=''
		while IFS='|' read -r abl w; do
			[ -n "$abl" ] || continue
			# shellcheck disable=SC2046,SC2086
			"$PERF_NTRACE" encode $(enc_opts $h $w) -o "$work/$name.$h.abl" "$gt" 2>/dev/null
			cmp -s "$work/$name.$h.abl" "$work/$name.$h.re" && failed="$failed [$abl]"
		done < <(ablations "${hw[@]}")
		t "[ -z '$failed' ]" "$p: every option changes the trace (encoding without it differs)"
		[ -n "$failed" ] && echo "# same bytes without:$failed"
		pcs=-
		[ "$harts" = 1 ] && [ -n "$GTP" ] && pcs=$work/$name.pcs
		ref=-
		# the traced instructions depend only on cfg.flags (filters, gap)
		w=$(awk '{ print $5 }' <<<"$words")
		if [ "$harts" = 1 ]; then
			[ -n "${ref_gt[$w]:-}" ] || ref_gt[$w]=$gt
		else
			ref=${ref_gt[$w]:--}
		fi
		# shellcheck disable=SC2086
		"$PERF_NTRACE" decode --elf "$BM/trace.elf" "${TRACE_IMG[@]}" $dopts -o "$work/$name.$h.dec" "$bin" \
			2>"$work/$name.$h.dec.err"
		w=-
		[[ " $opts " == *" --implicit-return count "* ]] && w=user_exit:$user_exit
		[[ " $opts " == *" --implicit-return partial "* ]] && w=ret_probe_far:$ret_probe_far
		times=$(grep "^TIMES hart=$h " "$work/$name.out" || echo -)
		python3 "$work/check_gt.py" "$p" "$gt" "$pcs" "$kind" "$prescale" "$ref" "$syms" \
			"$work/stores" "$bin" "$work/$name.$h.re" "$opts" "$work/$name.$h.dec" "$dopts" "$w" \
			"$time_probe" "$times"
		[ "$harts" = 1 ] && [ -z "$GTP" ] && not_ok "$p: build the independent recorder (gt-plugin.c)"
		[ "$harts" != 1 ] && [ "$ref" = - ] && not_ok "$p: a one-hart run to compare with"
		sed 's/^/# decode: /' "$work/$name.$h.dec.err" | head -5
		variant_extra "$p" "$h" "$work/$name.$h.dump" "$bin" "$gt" "$opts" "${hw[@]}"
	done
}

# Checks specific to options, on the dump of one hart's trace.
variant_extra() {
	local p=$1 h=$2 dump=$3 bin=$4 gt=$5 enc=$6 id=0
	shift 6
	local args=" $* "
	if [[ $args == *" --context "* ]] && [[ $args != *" --filter-"* ]]; then
		t "[ \$(grep -c ' Ownership .*prv=0' '$dump') -ge 1 ] && grep -q ' Ownership .*context=0x5 ' '$dump'" \
			"$p: trTeContext=1 gives Ownership messages (U-mode, satp.ASID=5)"
	fi
	if [[ $args == *" --sync-mode "* ]]; then
		t "grep -q ' sync=2(' '$dump'" \
			"$p: periodic sync messages (SYNC=2) with trTeInstSyncMode=$(sed -E 's/.*--sync-mode ([a-z]+).*/\1/' <<<"$args")"
	fi
	if [[ $args == *" --src-bits "* ]] && [[ $args != *" --inhibit-src "* ]]; then
		[[ $args == *" --src-id "* ]] && id=$(sed -E 's/.*--src-id ([0-9]+).*/\1/' <<<"$args")
		t "awk -v s=$((id + h)) -f '$here/tests/msg-src.awk' '$dump'" \
			"$p: every message carries SRC=$((id + h)) (trTeSrcID+hart, trTeSrcBits)"
	fi
	if [[ $args == *" --ts-mode-none "* ]]; then
		# shellcheck disable=SC2086
		"$PERF_NTRACE" encode $enc --ts -o "$bin.ts" "$gt" 2>/dev/null
		t "! grep -q ' tstamp=' '$dump' && [ -s '$bin.ts' ] && ! cmp -s '$bin' '$bin.ts'" \
			"$p: trTsMode=0: no message carries a timestamp (encoding with --ts differs)"
	fi
	if [ -n "$ENC_X" ] && [[ $args == *" --ext-addr "* ]] && [[ $args == *" --sync-mode "* ]]; then
		# periodic syncs carry full addresses of U-mode's alias at the top
		# of the address space: trimmed to fewer bits only with XLEN 32
		# shellcheck disable=SC2086
		"$PERF_NTRACE" encode ${enc/--xlen 32/--xlen 64} -o "$bin.x64" "$gt" 2>/dev/null
		t "[ -s '$bin.x64' ] && ! cmp -s '$bin' '$bin.x64'" \
			"$p: trTeInstExtendAddrMSB with XLEN 32: the sink differs from the same trace encoded with XLEN 64"
	fi
	if [[ $args == *" --inhibit-src "* ]]; then
		t "! grep -q ' src=' '$dump'" "$p: trTeInhibitSrc=1: no message carries a SRC field"
	fi
	if [[ $args == *" --toggle-"* ]]; then
		# trace start sync, stop at the gap, sync after it, stop at the end
		t "[ \"\$(grep -E 'ProgTraceSync.* sync=5\(|ProgTraceCorrelation.* evcode=4 ' '$dump' | grep -oE 'sync=5|evcode=4' | tr '\n' ' ')\" = 'sync=5 evcode=4 sync=5 evcode=4 ' ]" \
			"$p: trace disabled and re-enabled: ProgTraceCorrelation (EVCODE=4) at the stop, ProgTraceSync (SYNC=5) after the re-enable"
	fi
}

# NTRACE_MODEL_VARIANTS="btm smp2" runs only those configurations
selected=()
for v in "${variants[@]}"; do
	[ -n "${NTRACE_MODEL_VARIANTS:-}" ] && [[ " $NTRACE_MODEL_VARIANTS " != *" ${v%%:*} "* ]] && continue
	selected+=("$v")
done
# the QEMU runs, two at a time (each has its own RAM file), then the checks
for v in "${selected[@]}"; do
	[ "$(jobs -rp | wc -l)" -ge 2 ] && wait -n
	# shellcheck disable=SC2086
	variant_run ${v%%:*} ${v#*:} &
done
wait
for v in "${selected[@]}"; do
	# shellcheck disable=SC2086
	run_variant ${v%%:*} ${v#*:}
done

# The sink program's last session: the driver wrote Start/Limit/WP while the
# sink captured (ignored); the programmed buffer holds exactly that
# session's trace (the ground truth from its trace start on, re-encoded).
for sh in sink:0 sink-smp2:0 sink-smp2:1; do
	sn=${sh%:*} h=${sh#*:}
	if [ ! -s "$work/$sn.$h.bin" ]; then
		not_ok "$sn: hart $h: program reported where the last session's trace is"
		continue
	fi
	awk '/^#/ { next } { n++; if ($7 % 2 == 1) s = n; l[n] = $0 } END { for (i = s; i <= n; i++) print l[i] }' \
		"$work/gt-$sn.hart$h.txt" >"$work/$sn.$h.gt"
	# shellcheck disable=SC2086
	"$PERF_NTRACE" encode --mode btm $ENC_X -o "$work/$sn.$h.re" "$work/$sn.$h.gt" 2>/dev/null
	t "same_bytes '$work/$sn.$h.bin' '$work/$sn.$h.re'" \
		"$sn: hart $h: pointers written while capturing: the buffer holds exactly the session's trace"
	"$PERF_NTRACE" decode --elf "$BM/sink.elf" -o "$work/$sn.$h.dec" "$work/$sn.$h.bin" 2>/dev/null
	t "dec_match '$work/$sn.$h.gt' '$work/$sn.$h.dec'" \
		"$sn: hart $h: pointers written while capturing: the buffer decodes to the session's instructions"
done

# The independent recorder itself, against QEMU's own exec log of the same
# run (one instruction per block, so every retired pc is logged once): the
# whole trace.elf workload, traced by the model in its default
# configuration. ground-truth.sh does the same for RV64 programs of the
# suite; here it also covers the recorder on RV32 (the U-mode alias,
# C.JAL, the timer interrupt).
recorder_vs_execlog() {
	local n na nb
	[ -n "$GTP" ] || return 1
	timeout 120 "$here/run-qemu.sh" -x "$XL" -r "$ram" -- -bios none -kernel "$BM/trace.elf" \
		-accel tcg,one-insn-per-tb=on -d exec,nochain -D "$work/rx.log" \
		-plugin "$GTP,out=$work/rx.pcs,start=0x80000000" >"$work/rx.out" 2>&1 || return 1
	grep -q '^TRACE hart=0 ' "$work/rx.out" || return 1
	"$top/build/gt/bin/gt-tool" execlog "$work/rx.log" "$work/rx.exec.pcs" --start 0x80000000 \
		"$BM/trace.elf" "${TRACE_IMG[@]:1}" >/dev/null || return 1
	# addresses only: the exec log does not show interrupts
	"$top/build/gt/bin/gt-tool" dump "$work/rx.exec.pcs" | awk '$1 == "pc" { print $2 }' >"$work/rx.a"
	"$top/build/gt/bin/gt-tool" dump "$work/rx.pcs" | awk '$1 == "pc" { print $2 }' >"$work/rx.b"
	na=$(wc -l <"$work/rx.a") nb=$(wc -l <"$work/rx.b")
	echo "# exec log $na, recorder $nb"
	# the final WFI loop may retire once more in one than in the other
	[ "$na" -gt 10000 ] && [ $((na - nb)) -le 2 ] && [ $((nb - na)) -le 2 ] || return 1
	n=$((na < nb ? na - 2 : nb - 2))
	cmp -s <(head -n "$n" "$work/rx.a") <(head -n "$n" "$work/rx.b")
}
check "recorder: trace.elf: gt-plugin retires what QEMU's exec log shows (same run)" recorder_vs_execlog
rm -f "$work"/rx.*

# Two harts, each tracing itself into its own sink with its own source ID.
rm -f "$work"/gt-mh.*
run_bm mhart "$BM/mhart.elf" -s 2 -p "gt=$work/gt-mh"
for h in 0 1; do
	if ! extract "$work/mh$h.bin" "$work/mhart.out" $h; then
		not_ok "mhart: hart $h reported its trace"
		continue
	fi
	t "'$PERF_NTRACE' dump --src-bits 1 '$work/mh$h.bin' >'$work/mh$h.dump' 2>&1 &&
	   awk -v s=$h -f '$here/tests/msg-src.awk' '$work/mh$h.dump'" \
		"mhart: hart $h trace parses and every message carries SRC=$h"
	"$PERF_NTRACE" decode --elf "$BM/mhart.elf" --mode htm --src-bits 1 \
		-o "$work/mh$h.dec" "$work/mh$h.bin" 2>"$work/mh$h.dec.err"
	t "dec_match '$work/gt-mh.hart$h.txt' '$work/mh$h.dec'" \
		"mhart: hart $h trace decodes to what hart $h executed"
done
# Hart 0 starts and stops hart 1's encoder (the stop completes at hart 1's
# next block boundary).
rm -f "$work"/gt-rm.*
run_bm remote "$BM/remote.elf" -s 2 -p "gt=$work/gt-rm"
line=$(grep '^TRACE hart=1 ' "$work/remote.out")
if [ -n "$line" ]; then
	# the buffer may have wrapped (hart 1 runs on while hart 0 waits on a
	# busy host): then the oldest bytes start at WP
	python3 - "$ram" "$line" "$work/rm.bin" <<'PY'
import re, sys
f = dict(re.findall(r'(\w+)=(0x[0-9a-f]+)', sys.argv[2]))
start, wp, limit = (int(f[k], 16) for k in ('start', 'wp', 'limit'))
ram = open(sys.argv[1], 'rb')
def read(a, n):
    ram.seek(a - 0x80000000)
    return ram.read(n)
wrap, wp = wp & 1, wp & ~3
data = read(wp, limit + 4 - wp) + read(start, wp - start) if wrap else read(start, wp - start)
open(sys.argv[3], 'wb').write(data)
print("# remote: %d trace bytes, wrapped: %d" % (len(data), wrap))
PY
	wrapped=; grep -q 'wp=0x[0-9a-f]*[13579bdf] ' <<<"$line" && wrapped=--wrapped
	"$PERF_NTRACE" decode --elf "$BM/remote.elf" --mode btm --src-bits 1 $wrapped -q \
		-o "$work/rm.dec" "$work/rm.bin" 2>"$work/rm.dec.err"
	# decoded = the most recent run of what hart 1 executed (all unless wrapped)
	t "python3 - '$work/gt-rm.hart1.txt' '$work/rm.dec' '$wrapped' <<'PY'
import sys
g = [int(l.split()[0], 0) for l in open(sys.argv[1])
     if not l.startswith('#') and l.split()[1] != '0']
d = [int(l.split()[0], 16) for l in open(sys.argv[2]) if l.strip() and not l.startswith('#')]
ok = len(d) > 1000 and (d == g[-len(d):] if sys.argv[3] else d == g)
print('# remote: ground truth %d, decoded %d, match: %s' % (len(g), len(d), ok))
sys.exit(0 if ok else 1)
PY" "remote: trace started and stopped by another hart decodes to what hart 1 executed"
	t "grep -v '^#' '$work/gt-rm.hart1.txt' | awk 'NR == 1 { f = \$7 } { l = \$7 } END { exit !(f % 2 == 1 && int(l / 2) % 2 == 1) }'" \
		"remote: first record marks trace start, last marks trace stop"
else
	not_ok "remote: hart 0 reported hart 1's trace"
fi

# Topologies (a sink per hart, funnels), SRAM sinks: tests/funnel.sh
. "$here/tests/funnel.sh"

# The rest is the same on both XLENs: RV64 only
[ "$XL" = 64 ] || exit 0

# The SiFive pre-ratified (v0) topologies p550 and sifive-hart: tests/p550.sh
. "$here/tests/p550.sh"

# Device tree: QEMU's DT plus encoder/sink nodes and the reserved region.
if "$here/dt/gen-dt.sh" -o "$work/nt.dtb" -s 2 2>"$work/dt.err" &&
	dtc -q -I dtb -O dts -o "$work/nt.dts" "$work/nt.dtb"; then
	ok "dt: generated from QEMU's dumped DT (2 harts)"
	python3 - "$work/nt.dts" <<'PY' >"$work/dt.check" 2>&1
import re, sys
t = open(sys.argv[1]).read()
def node(name):
    m = re.search(r'\n(\t+)' + re.escape(name) + r' \{\n(.*?)\n\1\};', t, re.S)
    return m.group(2) if m else None
def phandle(body):
    m = re.search(r'phandle = <(0x[0-9a-f]+)>;', body)
    return m and int(m.group(1), 16)
ok = True
rsv = node('ntrace-regs@9fff0000')
ok &= bool(rsv) and 'no-map' in rsv and '0x9fff0000 0x00 0x10000' in rsv
tb = re.search(r'timebase-frequency = <(0x[0-9a-f]+)>;', t)
ok &= bool(tb)
for h in range(2):
    te = node('trace-encoder@%x' % (0x9fff0000 + h * 0x2000))
    rs = node('trace-ramsink@%x' % (0x9fff1000 + h * 0x2000))
    cpu = node('cpu@%d' % h)
    if not (te and rs and cpu):
        ok = False
        continue
    ok &= '"qemu,ntrace-encoder\\0riscv,trace-component"' in te
    ok &= '"qemu,ntrace-ramsink\\0riscv,trace-component"' in rs
    ok &= ('cpus = <0x%02x>;' % phandle(cpu)) in te
    # the timestamp unit's input is the platform timer
    ok &= bool(tb) and ('riscv,timestamp-frequency = <%s>;' % tb.group(1)) in te
    # the encoder's endpoint points at the sink's endpoint and back
    te_ep, rs_ep = phandle(te), phandle(rs)
    te_re = int(re.search(r'remote-endpoint = <(0x[0-9a-f]+)>', te).group(1), 16)
    rs_re = int(re.search(r'remote-endpoint = <(0x[0-9a-f]+)>', rs).group(1), 16)
    ok &= te_re == rs_ep and rs_re == te_ep
print("# dt nodes consistent:", ok)
sys.exit(0 if ok else 1)
PY
	t "[ \$? -eq 0 ]" "dt: per-hart encoder and sink nodes, cpus phandles, timestamp rate = timebase-frequency, graph links, no-map region"
	cat "$work/dt.check"
	"$here/dt/gen-dt.sh" -o "$work/nt1.dtb" -s 1 2>/dev/null
	qextra=(-dtb "$work/nt1.dtb")
	if run_bm dtboot "$BM/regs.elf" >/dev/null; then
		ok "dt: QEMU accepts the generated DT (-dtb) and the model works with it"
	else
		not_ok "dt: QEMU accepts the generated DT (-dtb) and the model works with it"
	fi
	qextra=()
else
	cat "$work/dt.err"
	not_ok "dt: generated from QEMU's dumped DT (2 harts)"
fi
# Linux with the model loaded and the generated DT: the register region is
# reserved no-map and the component nodes become devices. Uses a guest
# kernel already built by scripts/kernel.sh (never builds one here).
image=$(ls -t "$NTRACE_CACHE"/kernel/guest-*/arch/riscv/boot/Image 2>/dev/null | head -1)
if [ -z "$image" ]; then
	skip "linux: boots with the model and the generated DT" "no cached guest kernel (scripts/kernel.sh)"
elif "$here/dt/gen-dt.sh" -o "$work/lx.dtb" -s 2 2>/dev/null; then
	timeout 300 "$here/run-qemu.sh" -s 2 -r "$ram" -- -kernel "$image" -dtb "$work/lx.dtb" \
		-append "console=ttyS0 panic=-1" >"$work/linux.log" 2>&1
	t "grep -q 'reserved mem: 0x000000009fff0000..0x000000009fffffff (64 KiB) nomap.*ntrace-regs' '$work/linux.log' &&
	   grep -q 'Linux version' '$work/linux.log'" \
		"linux: boots with the model and the generated DT, register region reserved no-map"
	grep -E 'ntrace|trace-(encoder|ramsink)' "$work/linux.log" | sed 's/^/# linux: /' | head -6
else
	not_ok "linux: generate the DT"
fi
exit 0
