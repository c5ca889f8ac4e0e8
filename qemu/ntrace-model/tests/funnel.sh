# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Topologies, funnels and SRAM sinks (sourced by tests/run.sh: its helpers
# exec_bm, show_bm, extract, t, dec_match and $work, $BM, $PERF_NTRACE,
# $XL, $ENC_X): on both XLENs.
# baremetal/funnel.c runs on every hart at once, each encoder with
# trTeSrcBits=4 and trTeSrcID=9+hart, into the topology the plugin was
# started with (topo=); the plugin's layout file (layout=) says which
# encoder feeds which funnel input and sink. For every run and sink:
#  - the bytes parse as N-Trace (perf-ntrace dump);
#  - split into whole messages by SRC (tests/demux-src.py) they hold
#    exactly the sources that feed the sink, minus those behind a disabled
#    funnel input; only idle bytes follow the last message;
#  - each source's messages equal that hart's ground truth re-encoded
#    (perf-ntrace encode --src-bits 4 --src-id 9+hart), and decoding the
#    sink with --src 9+hart gives that hart's instructions;
#  - a hart behind a disabled input traced (its ground truth is not empty)
#    and none of its messages is in the sink.
# SRAM runs read the sink out through trRamRP/trRamData in the guest; the
# wrap runs trim trRamLimit to 256 bytes: with wrap, each source's
# messages in the buffer are the last ones of its re-encoded stream; with
# stop-on-wrap the first ones, and the buffer holds exactly 256 bytes.

FUN_CFG=0x80300000
FUN_SRAM=0x10000
# NAME: TOPO HARTS MODE [dis=FUNNEL:MASK] [trim=BYTES] [stop]
fun_runs=(
	"hart-2-smem: hart 2 smem"
	"hart-2-sram: hart 2 sram"
	"hart-4-smem: hart 4 smem"
	"hart-4-sram: hart 4 sram"
	"funnel-2-smem: funnel 2 smem"
	"funnel-2-sram: funnel 2 sram"
	"funnel-4-smem: funnel 4 smem"
	"funnel-4-sram: funnel 4 sram"
	"funnel2-2-smem: funnel2 2 smem"
	"funnel2-2-sram: funnel2 2 sram"
	"funnel2-4-smem: funnel2 4 smem"
	"funnel2-4-sram: funnel2 4 sram"
	"funnel-2-dis: funnel 2 smem dis=0:0x2"
	"funnel-4-dis: funnel 4 sram dis=0:0x4"
	"funnel2-2-dis: funnel2 2 smem dis=2:0x1"
	"funnel2-4-dis: funnel2 4 sram dis=1:0x2"
	"funnel2-4-distop: funnel2 4 smem dis=0:0x2"
	"sram-wrap: funnel 2 sram trim=0x100"
	"sram-stop: funnel 2 sram trim=0x100 stop"
)

fun_opt() {	# fun_opt KEY ARGS...: value of KEY=VALUE, or empty
	local k=$1 a
	shift
	for a; do [[ $a == "$k="* ]] && echo "${a#*=}"; done
	return 0
}

# Run one configuration (in the background, its own RAM file).
fun_run() {
	local name=$1 topo=$2 harts=$3 mode=$4 rf=$ram.f-$1 w i=0 dis words
	shift 4
	dis=$(fun_opt dis "$@")
	words=("$([ "$mode" = sram ] && echo 1 || echo 0)"
		"$([ -n "$dis" ] && echo "${dis%:*}" || echo 0xffffffff)"
		"$([ -n "$dis" ] && echo "${dis#*:}" || echo 0)"
		"$(fun_opt trim "$@")"
		"$([[ " $* " == *" stop "* ]] && echo 1 || echo 0)")
	qextra=(-device "loader,addr=0x80300100,data=$harts,data-len=4")
	for w in "${words[@]}"; do
		qextra+=(-device "loader,addr=$(printf 0x%x $((FUN_CFG + 4 * i))),data=${w:-0},data-len=4")
		i=$((i + 1))
	done
	rm -f "$work/gt-f-$name".*
	exec_bm "f-$name" "$BM/funnel.elf" "$rf" -s "$harts" \
		-p "topo=$topo,sram=$FUN_SRAM,layout=$work/f-$name.layout,gt=$work/gt-f-$name"
	for ((i = 0; i < harts; i++)); do
		extract "$work/f-$name.$i.bin" "$work/f-$name.out" $i "$rf" || rm -f "$work/f-$name.$i.bin"
	done
	rm -f "$rf"
}

# Harts whose messages end in sink $2, and those dropped by a disabled
# funnel input ($3 = FUNNEL:MASK or empty), from layout $1: "kept H..." and
# "dropped H..." lines.
fun_paths() {
	python3 - "$@" <<'PY'
import sys
lay, sink, dis = sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else ''
out, harts = {}, []
for l in open(lay):
    f = l.split()
    if not f or f[0].startswith('#'):
        continue
    kv = dict(x.split('=', 1) for x in f[3:])
    if 'out' in kv:
        k, i, p = kv['out'].split(':')
        out[(f[0], int(f[1]))] = (k, int(i), int(p))
    if f[0] == 'encoder':
        harts.append(int(kv['hart']))
df, dm = (int(x, 0) for x in dis.split(':')) if dis else (-1, 0)
kept, dropped = [], []
for h in harts:
    at, drop = ('encoder', h), False
    while at[0] != 'sink':
        k, i, p = out[at]
        drop |= k == 'funnel' and i == df and bool(dm >> p & 1)
        at = (k, i)
    if at[1] == sink:
        (dropped if drop else kept).append(h)
print('kept', *kept)
print('dropped', *dropped)
PY
}

# Messages of each source in a wrapped (or stopped) buffer against the
# re-encoded ground truth: the last (first) ones of each source's stream.
fun_window() {	# fun_window KIND(wrap|stop) PREFIX-BUF PREFIX-RE SRC...
	python3 - "$@" <<'PY'
import os, sys
kind, pb, pr, srcs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
ok, seen = True, 0
for s in srcs:
    fb, fr = '%s.%s.msgs' % (pb, s), '%s.%s.msgs' % (pr, s)
    b = open(fb).read().split() if os.path.exists(fb) else []
    r = open(fr).read().split()
    seen += len(b)
    good = not b or (r[-len(b):] == b if kind == 'wrap' else r[:len(b)] == b)
    print("# SRC %s: %d of %d messages in the buffer, %s" % (
        s, len(b), len(r), "match" if good else "MISMATCH"))
    ok &= good
sys.exit(0 if ok and seen > 0 else 1)
PY
}

fun_check() {
	local name=$1 topo=$2 harts=$3 mode=$4 dis lay nsinks s h kept dropped sum src
	local p f=$work/f-$1
	shift 4
	dis=$(fun_opt dis "$@")
	lay=$f.layout
	echo "# f-$name: topo=$topo harts=$harts $mode $*"
	show_bm "f-$name"
	if [ ! -s "$lay" ]; then
		not_ok "f-$name: the plugin wrote its layout"
		return
	fi
	# trFunnelDisInput's probe reads back one bit per input the layout has
	t "diff <(awk '\$1 == \"funnel\" { sub(/inputs=/, \"\", \$4); printf \"FUNNEL %s inputs=0x%x\\n\", \$2, 2 ^ \$4 - 1 }' '$lay') <(grep '^FUNNEL ' '$f.out')" \
		"f-$name: funnels found by discovery, trFunnelDisInput probe = the layout's inputs"
	nsinks=$(grep -c '^sink ' "$lay")
	for ((s = 0; s < nsinks; s++)); do
		p="f-$name: sink $s"
		if [ ! -s "$f.$s.bin" ]; then
			not_ok "$p: program reported where the trace is"
			continue
		fi
		kept=$(fun_paths "$lay" $s "$dis" | sed -n 's/^kept *//p')
		dropped=$(fun_paths "$lay" $s "$dis" | sed -n 's/^dropped *//p')
		if [[ " $* " == *" stop "* ]]; then
			# stop-on-wrap may cut the last message (the spec allows it)
			"$PERF_NTRACE" dump --src-bits 4 "$f.$s.bin" >"$f.$s.dump" 2>&1
			t "[ \$(grep -c ERROR '$f.$s.dump') -le 1 ] && ! grep ERROR '$f.$s.dump' | grep -vq 'trace ends inside a message' && ! tail -1 '$f.$s.dump' | grep -q ERROR -a || tail -1 '$f.$s.dump' | grep -q 'trace ends inside a message'" \
				"$p: bytes parse as N-Trace messages, only the last one may be cut (perf-ntrace dump --src-bits 4)"
		elif [[ " $* " == *" trim="* ]]; then
			t "'$PERF_NTRACE' dump --wrapped --src-bits 4 '$f.$s.bin' >'$f.$s.dump' 2>&1" \
				"$p: bytes parse as N-Trace messages (perf-ntrace dump --wrapped --src-bits 4)"
		else
			t "'$PERF_NTRACE' dump --src-bits 4 '$f.$s.bin' >'$f.$s.dump' 2>&1" \
				"$p: bytes parse as N-Trace messages (perf-ntrace dump --src-bits 4)"
		fi
		if [[ " $* " == *" trim="* ]]; then
			fun_window_check "$name" "$f" "$s" "$kept" "$@"
			continue
		fi
		sum=$(python3 "$here/tests/demux-src.py" "$f.$s.bin" 4 "$f.$s.src")
		echo "# $p: $sum"
		src=$(for h in $kept; do echo $((9 + h)); done | sort -n | paste -sd,)
		t "[ '$(sed -E 's/.*srcs=([^ ]+).*/\1/' <<<"$sum")' = '${src:--}' ]" \
			"$p: sources in the sink: SRC ${src:-none} (harts ${kept:-none}${dropped:+; not $dropped})"
		t "grep -q 'tail_idle=1' <<<'$sum' && [ \$(sed -E 's/.*tail=([0-9]+).*/\1/' <<<'$sum') -lt 4 ]" \
			"$p: whole messages only, idle padding of the last word after them"
		for h in $kept; do
			# shellcheck disable=SC2086
			"$PERF_NTRACE" encode --mode htm $ENC_X --src-bits 4 --src-id $((9 + h)) \
				-o "$f.$h.re" "$work/gt-f-$name.hart$h.txt" 2>/dev/null
			t "[ -s '$f.$h.re' ] && cmp -s '$f.$s.src.$((9 + h)).bin' '$f.$h.re'" \
				"$p: SRC $((9 + h)) messages equal hart $h's ground truth re-encoded"
			"$PERF_NTRACE" decode --elf "$BM/funnel.elf" --mode htm --src-bits 4 --src $((9 + h)) \
				-o "$f.$h.dec" "$f.$s.bin" 2>"$f.$h.dec.err"
			t "dec_match '$work/gt-f-$name.hart$h.txt' '$f.$h.dec'" \
				"$p: decoding SRC $((9 + h)) gives hart $h's instructions"
		done
		for h in $dropped; do
			t "[ \$(grep -vc '^#' '$work/gt-f-$name.hart$h.txt') -gt 1000 ] && [ ! -e '$f.$s.src.$((9 + h)).bin' ]" \
				"$p: hart $h traced, its funnel input is disabled: none of its messages in the sink"
		done
	done
}

# trRamLimit trimmed to 256 bytes: wrap or stop-on-wrap.
fun_window_check() {
	local name=$1 f=$2 s=$3 kept=$4 kind=wrap h srcs=() sum
	shift 4
	[[ " $* " == *" stop "* ]] && kind=stop
	local p="f-$name: sink $s"
	t "[ \$(stat -c %s '$f.$s.bin') -eq \$(($(fun_opt trim "$@"))) ]" \
		"$p: read out through trRamData: the whole trimmed SRAM ($(fun_opt trim "$@") bytes)"
	if [ $kind = stop ]; then
		t "grep -q '^SINK $s wp=0x1 ' '$f.out'" \
			"$p: stop-on-wrap: trRamWP back at trRamStart (0) with trRamWrap"
		sum=$(python3 "$here/tests/demux-src.py" "$f.$s.bin" 4 "$f.$s.src")
		# A message cut where the sink filled is lost: its encoder says
		# so. Later messages wait in the funnel (nothing lost yet), so
		# with no cut message no encoder has overflowed.
		local cut=0 ovf=0 c
		grep -q 'tail=0 \|tail_idle=1' <<<"$sum" || cut=1
		while read -r _ _ _ c; do
			((${c#control=} & 0x1000)) && ovf=1	# trTeInstStallOrOverflow
		done < <(grep '^HART ' "$f.out")
		t "[ $ovf = $cut ]" \
			"$p: stop-on-wrap: an encoder reports trTeInstStallOrOverflow exactly when the last message in the sink is cut ($([ $cut = 1 ] && echo cut || echo whole))"
	else
		t "grep -q '^SINK $s wp=0x[0-9a-f]*[13579bdf] ' '$f.out'" "$p: wrap: trRamWrap set"
		sum=$(python3 "$here/tests/demux-src.py" "$f.$s.bin" 4 "$f.$s.src" --wrapped)
	fi
	echo "# $p: $sum"
	for h in $kept; do
		# shellcheck disable=SC2086
		"$PERF_NTRACE" encode --mode htm $ENC_X --src-bits 4 --src-id $((9 + h)) \
			-o "$f.$h.re" "$work/gt-f-$name.hart$h.txt" 2>/dev/null
		python3 "$here/tests/demux-src.py" "$f.$h.re" 4 "$f.re" >/dev/null
		srcs+=($((9 + h)))
	done
	t "fun_window $kind '$f.$s.src' '$f.re' ${srcs[*]}" \
		"$p: $([ $kind = stop ] && echo "stop-on-wrap: each source's messages are the first ones of its re-encoded ground truth (the last one may be cut)" || echo "wrap: each source's messages are the last ones of its re-encoded ground truth")"
}

fun_selected=()
for v in "${fun_runs[@]}"; do
	[ -n "${NTRACE_MODEL_VARIANTS:-}" ] && [[ " $NTRACE_MODEL_VARIANTS " != *" f-${v%%:*} "* ]] &&
		[[ " $NTRACE_MODEL_VARIANTS " != *" funnel "* ]] && continue
	fun_selected+=("$v")
done
for v in "${fun_selected[@]}"; do
	[ "$(jobs -rp | wc -l)" -ge 2 ] && wait -n
	# shellcheck disable=SC2086
	fun_run ${v%%:*} ${v#*:} &
done
wait
qextra=()
for v in "${fun_selected[@]}"; do
	# shellcheck disable=SC2086
	fun_check ${v%%:*} ${v#*:}
done

# Device tree of each topology (4 harts): every component of the plugin's
# layout is a node at its address with the right compatible, and the graph
# links say what the layout says (encoder -> funnel input port@N or sink,
# funnel -> funnel/sink), both ways; QEMU boots with it. RV64 only, as the
# other DT checks (run.sh).
dt_topos=()
[ "$XL" = 64 ] && dt_topos=(funnel funnel2)
for topo in "${dt_topos[@]}"; do
	if ! "$here/dt/gen-dt.sh" -o "$work/dt-$topo.dtb" -s 4 -t "$topo" 2>"$work/dt-$topo.err" ||
		! dtc -q -I dtb -O dts -o "$work/dt-$topo.dts" "$work/dt-$topo.dtb"; then
		cat "$work/dt-$topo.err"
		not_ok "dt: $topo: generated (4 harts)"
		continue
	fi
	rm -f "$ram.lay"
	timeout 30 "$here/run-qemu.sh" -s 4 -r "$ram.lay" -p "topo=$topo,layout=$work/dt-$topo.layout" \
		-- -bios none -machine dumpdtb="$work/dt-$topo.dump.dtb" >/dev/null 2>&1
	rm -f "$ram.lay"
	t "python3 - '$work/dt-$topo.dts' '$work/dt-$topo.layout' <<'PY'
import re, sys
t = open(sys.argv[1]).read()
comp = {'encoder': 'trace-encoder', 'sink': 'trace-ramsink', 'funnel': 'trace-funnel'}
compat = {'encoder': 'qemu,ntrace-encoder', 'sink': 'qemu,ntrace-ramsink', 'funnel': 'qemu,ntrace-funnel'}
def node(name):
    m = re.search(r'\n(\t+)' + re.escape(name) + r' \{\n(.*?)\n\1\};', t, re.S)
    return m.group(2) if m else None
def eps(body, ports):
    # endpoint phandle -> (remote phandle, port number) under in-ports/out-ports
    m = re.search(ports + r' \{(.*?)\n\t\t\t\};\n', body + '\n', re.S)
    out = []
    for pm in re.finditer(r'port(?:@(\d+))? \{(.*?)\};\n\t\t\t\t\};', m.group(1) if m else '', re.S):
        r = re.search(r'remote-endpoint = <(0x[0-9a-f]+)>', pm.group(2))
        h = re.search(r'phandle = <(0x[0-9a-f]+)>', pm.group(2))
        out.append((int(h.group(1), 16), int(r.group(1), 16), int(pm.group(1) or 0)))
    return out
lay, ok = [], True
for l in open(sys.argv[2]):
    f = l.split()
    if f and not f[0].startswith('#'):
        lay.append((f[0], int(f[1]), 0x9fff0000 + int(f[2], 16), dict(x.split('=') for x in f[3:])))
nodes, inp, outp = {}, {}, {}
for k, i, a, kv in lay:
    b = node('%s@%x' % (comp[k], a))
    if not b or compat[k] not in b:
        print('# missing or wrong node', k, i); ok = False; continue
    nodes[(k, i)] = b
    inp[(k, i)] = eps(b, 'in-ports')
    outp[(k, i)] = eps(b, 'out-ports')
for k, i, a, kv in lay:
    if 'out' not in kv or (k, i) not in nodes:
        continue
    dk, di, dp = kv['out'].split(':')
    o = outp[(k, i)]
    # my endpoint's remote is the destination's input endpoint on port dp, and back
    good = len(o) == 1 and any(r == o[0][0] and h == o[0][1] and p == int(dp)
                               for h, r, p in inp.get((dk, int(di)), []))
    if not good:
        print('# bad link', k, i, '->', kv['out']); ok = False
nin = sum(len(v) for v in inp.values())
nout = sum(len(v) for v in outp.values())
print('# dt %s: %d nodes, %d links, ok=%s' % (sys.argv[1], len(nodes), nout, ok))
sys.exit(0 if ok and nin == nout == sum('out' in kv for _, _, _, kv in lay) else 1)
PY" "dt: $topo (4 harts): a node per component of the layout, graph links = the layout's (funnel input port@N)"
	qextra=(-dtb "$work/dt-$topo.dtb" -device "loader,addr=0x80300100,data=4,data-len=4")
	if exec_bm "dt-$topo" "$BM/funnel.elf" "$ram" -s 4 -p "topo=$topo,sram=$FUN_SRAM" &&
		[ "$(cat "$work/dt-$topo.rc")" = 0 ]; then
		ok "dt: $topo: QEMU accepts the generated DT (-dtb) and the model works with it"
	else
		not_ok "dt: $topo: QEMU accepts the generated DT (-dtb) and the model works with it"
	fi
	qextra=()
done
