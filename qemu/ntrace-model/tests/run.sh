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
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
top=$(cd "$here/../.." && pwd)
B=$top/build/ntrace-model
BM=$B/baremetal
PERF_NTRACE=${PERF_NTRACE:-$top/build/perf-ntrace/perf-ntrace}
work=$(mktemp -d /tmp/ntrace-model-test.XXXXXX)
trap 'rm -rf "$work"; rm -f /dev/shm/ntrace-model-test.$$' EXIT
ram=/dev/shm/ntrace-model-test.$$

ok() { echo "ok - model: $*"; }
nok() { echo "not ok - model: $*"; }
t() { if eval "$1"; then ok "$2"; else nok "$2"; fi; }

# Run a bare-metal program; its TAP lines are forwarded with a prefix.
# Extra QEMU arguments come from the array qextra.
qextra=()
run_bm() {
	local name=$1 elf=$2; shift 2
	timeout 120 "$here/run-qemu.sh" -r "$ram" "$@" -- -bios none -kernel "$elf" "${qextra[@]}" \
		>"$work/$name.out" 2>"$work/$name.err"
	local rc=$?
	sed -E "s/^(not )?ok - /&model: $name: /" "$work/$name.out" | grep -E '^(not )?ok ' || true
	grep -v -E '^(not )?ok ' "$work/$name.out" | sed 's/^/# /'
	sed 's/^/# stderr: /' "$work/$name.err"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$work/$name.out"; then
		nok "$name: program exited with status $rc"
	fi
	return $rc
}

make -s -C "$here" all >"$work/build.log" 2>&1 || { cat "$work/build.log"; nok "build"; exit 1; }
make -s -C "$top/tools/perf-ntrace" tool >"$work/tool.log" 2>&1 ||
	{ cat "$work/tool.log"; nok "build perf-ntrace"; exit 1; }

# the independent ground-truth recorder, as the ground-truth suite builds it
NT=$top/tools/perf-ntrace
GTP=$top/build/gt/bin/gt-plugin.so
if ! bash "$NT/tests/gt/build-suite.sh" --tools >"$work/gtp.log" 2>&1; then
	cat "$work/gtp.log"
	GTP=
fi

run_bm regs "$BM/regs.elf"
run_bm sink "$BM/sink.elf"

# The register tests must fail without the model: they test the model.
timeout 60 "$here/run-qemu.sh" -n -r "$ram" -- -bios none -kernel "$BM/regs.elf" \
	>"$work/noplugin.out" 2>&1
t "grep -q '^not ok' '$work/noplugin.out'" "register tests fail without the model (control)"

# Extract [start, wp) of the sink buffer from the RAM file.
extract() {
	local out=$1 line start wp
	line=$(grep "^TRACE hart=${3:-0} " "$2") || return 1
	start=$(sed -E 's/.*start=(0x[0-9a-f]+).*/\1/' <<<"$line")
	wp=$(sed -E 's/.*wp=(0x[0-9a-f]+).*/\1/' <<<"$line")
	dd if="$ram" of="$out" bs=4096 iflag=skip_bytes,count_bytes \
		skip=$((start - 0x80000000)) count=$((wp - start)) status=none
}

# Ground truth sanity: sequential records follow each other; traps as expected.
gt_check() {
	python3 - "$1" <<'PY'
import sys
bad = exc = irq = n = upriv = 0
prev = None
first = last = 0
for line in open(sys.argv[1]):
    f = line.split('#')[0].split()
    if len(f) < 7:
        continue
    addr, size, it, flags = int(f[0], 0), int(f[1]), int(f[2]), int(f[6])
    # after a record that neither branches nor traps, the next one follows it
    if prev and prev[2] in (0, 4) and not prev[3] & 2 and addr != prev[0] + prev[1]:
        bad += 1
    exc += it == 1
    irq += it == 2
    upriv += int(f[3]) == 0
    if n == 0:
        first = flags
    n += 1
    last = flags
    prev = (addr, size, it, flags)
print("# %d records checked, %d sequence breaks, %d exceptions, %d interrupts, %d in U-mode"
      % (n, bad, exc, irq, upriv))
sys.exit(0 if n and not bad and exc == 5 and irq == 1 and upriv > 100 and first & 1
         and last & 2 else 1)
PY
}

# Model ground truth (size > 0 records) as a list of addresses.
gt_addrs() {
	grep -v '^#' "$1" | awk '$2 != 0 { print $1 }'
}

# The model's records are a contiguous run of what the recorder logged.
pcs_match() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
m = [int(l.split()[0], 0) for l in open(sys.argv[1])
     if not l.startswith('#') and l.split()[1] != '0']
raw = open(sys.argv[2], 'rb').read()
assert raw[:8] == b'NTGTPCS1', 'not a .pcs file'
w = struct.unpack('<%dQ' % ((len(raw) - 8) // 8), raw[8:])
pcs, i = [], 0
while i < len(w):
    if w[i] & 1:
        i += 2
    else:
        pcs.append(w[i])
        i += 1
k = pcs.index(m[0]) if m and m[0] in pcs else -1
same = k >= 0 and pcs[k:k + len(m)] == m
print("# model %d instructions, recorder %d, window at %d: %s"
      % (len(m), len(pcs), k, "equal" if same else "DIFFERENT"))
sys.exit(0 if same and len(m) > 1000 else 1)
PY
}

dec_match() {
	[ -s "$2" ] && diff <(gt_addrs "$1" | python3 -c 'import sys; [print(hex(int(l, 0))) for l in sys.stdin]') \
		<(grep -v '^#' "$2" | awk '{ print $1 }' | python3 -c 'import sys; [print(hex(int(l, 16))) for l in sys.stdin if l.strip()]') \
		>/dev/null
}

for mode in btm htm; do
	opts="--mode $mode --sync-mode hwords --sync-max 10"
	[ $mode = htm ] && opts="$opts --ts --context"
	rm -f "$work/gt-$mode".*
	qextra=()
	[ -n "$GTP" ] && qextra=(-plugin "$GTP,out=$work/$mode.pcs,start=0x80000000")
	run_bm "trace-$mode" "$BM/trace-$mode.elf" -p "gt=$work/gt-$mode"
	qextra=()
	gt=$work/gt-$mode.hart0.txt
	if ! extract "$work/$mode.bin" "$work/trace-$mode.out"; then
		nok "$mode: program reported where the trace is"
		continue
	fi
	ok "$mode: program reported where the trace is"
	opt_ts=; [ $mode = htm ] && opt_ts=--ts
	t "'$PERF_NTRACE' dump $opt_ts '$work/$mode.bin' >'$work/$mode.dump' 2>&1" \
		"$mode: sink bytes parse as N-Trace messages (perf-ntrace dump)"
	grep -c . "$work/$mode.dump" | sed 's/^/# messages: /'
	[ $mode = htm ] && t "grep -q 'Ownership.*' '$work/$mode.dump' && [ \$(grep -c Ownership '$work/$mode.dump') -ge 2 ]" \
		"htm: trTeContext=1 gives Ownership messages at the U-mode switches"
	t "gt_check '$gt'" "$mode: ground truth is a consistent stream with 5 ECALLs (1 from U-mode), 1 interrupt, U-mode records"
	# shellcheck disable=SC2086
	"$PERF_NTRACE" encode $opts -o "$work/$mode.re" "$gt" 2>"$work/$mode.re.err"
	# the sink pads its last word with idle bytes (0xFF)
	python3 - "$work/$mode.bin" "$work/$mode.re" <<'PY' >"$work/$mode.cmp" 2>&1
import sys
a = open(sys.argv[1], 'rb').read()
b = open(sys.argv[2], 'rb').read()
pad = a[len(b):]
ok = a[:len(b)] == b and len(pad) < 4 and all(x == 0xff for x in pad) and len(b) > 0
print("# sink %d bytes, re-encoded %d bytes" % (len(a), len(b)))
sys.exit(0 if ok else 1)
PY
	t "[ \$? -eq 0 ]" "$mode: sink bytes equal the ground truth re-encoded by perf-ntrace encode"
	cat "$work/$mode.cmp"
	if [ -n "$GTP" ]; then
		t "pcs_match '$gt' '$work/$mode.pcs'" \
			"$mode: ground truth equals the independent per-instruction recorder"
	else
		nok "$mode: build the independent recorder (gt-plugin.c)"
	fi
	# shellcheck disable=SC2086
	"$PERF_NTRACE" decode --elf "$BM/trace-$mode.elf" $opt_ts --mode $mode \
		-o "$work/$mode.dec" "$work/$mode.bin" 2>"$work/$mode.dec.err"
	t "dec_match '$gt' '$work/$mode.dec'" \
		"$mode: perf-ntrace decode of the sink bytes gives the executed instructions"
	sed 's/^/# decode: /' "$work/$mode.dec.err" | head -5
done
# Address-range filter: only fib() (its own section) is traced.
run_bm trace-filter "$BM/trace-filter.elf" -p "gt=$work/gt-flt"
if extract "$work/flt.bin" "$work/trace-filter.out" &&
	range=$(sed -nE 's/^FILTER start=(0x[0-9a-f]+) end=(0x[0-9a-f]+).*/\1 \2/p' "$work/trace-filter.out") &&
	[ -n "$range" ]; then
	t "python3 - '$work/gt-flt.hart0.txt' $range <<'PY'
import sys
lo, hi = int(sys.argv[2], 0), int(sys.argv[3], 0)
a = [int(l.split()[0], 0) for l in open(sys.argv[1])
     if not l.startswith('#') and l.split()[1] != '0']
print('# filtered records: %d, all in [0x%x, 0x%x): %s' % (len(a), lo, hi, all(lo <= x < hi for x in a)))
sys.exit(0 if len(a) > 1000 and all(lo <= x < hi for x in a) else 1)
PY" "filter: only instructions inside the comparator's address range are traced"
	# this variant counts periodic sync in core clock cycles (trTeInstSyncMode=2)
	"$PERF_NTRACE" encode --mode htm --sync-mode cycles --sync-max 4 -o "$work/flt.re" \
		"$work/gt-flt.hart0.txt" 2>/dev/null
	t "[ -s '$work/flt.re' ] && cmp -s -n \$(stat -c %s '$work/flt.re') '$work/flt.re' '$work/flt.bin'" \
		"filter: sink bytes equal the filtered ground truth re-encoded"
	"$PERF_NTRACE" decode --elf "$BM/trace-filter.elf" --mode htm -o "$work/flt.dec" \
		"$work/flt.bin" 2>"$work/flt.dec.err"
	t "dec_match '$work/gt-flt.hart0.txt' '$work/flt.dec'" \
		"filter: decoding the filtered trace gives the filtered instructions"
	"$PERF_NTRACE" dump "$work/flt.bin" >"$work/flt.dump" 2>&1
	t "grep -q 'sync=2' '$work/flt.dump'" \
		"filter: periodic sync counted in core clock cycles (trTeInstSyncMode=2)"
else
	nok "filter: program reported where the trace and the range are"
fi

# Two harts, each tracing itself into its own sink with its own source ID.
rm -f "$work"/gt-mh.*
run_bm mhart "$BM/mhart.elf" -s 2 -p "gt=$work/gt-mh"
for h in 0 1; do
	if ! extract "$work/mh$h.bin" "$work/mhart.out" $h; then
		nok "mhart: hart $h reported its trace"
		continue
	fi
	# dump prints src= only when it is not 0
	t "'$PERF_NTRACE' dump --src-bits 1 '$work/mh$h.bin' >'$work/mh$h.dump' 2>&1 &&
	   awk -v h=$h '{ s = match(\$0, / src=[0-9]+ /) ? substr(\$0, RSTART + 5, RLENGTH - 6) : 0
			  if (s != h) bad++ } END { exit bad > 0 || NR == 0 }' '$work/mh$h.dump'" \
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
	nok "remote: hart 0 reported hart 1's trace"
fi

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
    # the encoder's endpoint points at the sink's endpoint and back
    te_ep, rs_ep = phandle(te), phandle(rs)
    te_re = int(re.search(r'remote-endpoint = <(0x[0-9a-f]+)>', te).group(1), 16)
    rs_re = int(re.search(r'remote-endpoint = <(0x[0-9a-f]+)>', rs).group(1), 16)
    ok &= te_re == rs_ep and rs_re == te_ep
print("# dt nodes consistent:", ok)
sys.exit(0 if ok else 1)
PY
	t "[ \$? -eq 0 ]" "dt: per-hart encoder and sink nodes, cpus phandles, graph links, no-map region"
	cat "$work/dt.check"
	"$here/dt/gen-dt.sh" -o "$work/nt1.dtb" -s 1 2>/dev/null
	qextra=(-dtb "$work/nt1.dtb")
	if run_bm dtboot "$BM/regs.elf" >/dev/null; then
		ok "dt: QEMU accepts the generated DT (-dtb) and the model works with it"
	else
		nok "dt: QEMU accepts the generated DT (-dtb) and the model works with it"
	fi
	qextra=()
else
	cat "$work/dt.err"
	nok "dt: generated from QEMU's dumped DT (2 harts)"
fi
# Linux with the model loaded and the generated DT: the register region is
# reserved no-map and the component nodes become devices. Uses a guest
# kernel already built by scripts/kernel.sh (never builds one here).
cache=${NTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ntrace}
image=$(ls -t "$cache"/kernel/guest-*/arch/riscv/boot/Image 2>/dev/null | head -1)
if [ -z "$image" ]; then
	echo "ok - model: linux: boots with the model and the generated DT # SKIP no cached guest kernel (scripts/kernel.sh)"
elif "$here/dt/gen-dt.sh" -o "$work/lx.dtb" -s 2 2>/dev/null; then
	timeout 300 "$here/run-qemu.sh" -s 2 -r "$ram" -- -kernel "$image" -dtb "$work/lx.dtb" \
		-append "console=ttyS0 panic=-1" >"$work/linux.log" 2>&1
	t "grep -q 'reserved mem: 0x000000009fff0000..0x000000009fffffff (64 KiB) nomap.*ntrace-regs' '$work/linux.log' &&
	   grep -q 'Linux version' '$work/linux.log'" \
		"linux: boots with the model and the generated DT, register region reserved no-map"
	grep -E 'ntrace|trace-(encoder|ramsink)' "$work/linux.log" | sed 's/^/# linux: /' | head -6
else
	nok "linux: generate the DT"
fi
exit 0
