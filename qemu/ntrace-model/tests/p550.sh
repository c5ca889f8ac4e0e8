# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2154,SC2046,SC2086
# (run.sh defines $work, $ram, $here; option strings are split on purpose)
#
# The SiFive pre-ratified (v0) topologies, p550 and sifive-hart (sourced by
# tests/run.sh on RV64: its helpers exec_bm, show_bm, t, dec_match and
# $work, $BM, $PERF_NTRACE, $ram; fun_window from tests/funnel.sh).
# baremetal/p550.c programs the v0 registers as the P550 tools do: with
# the register test words it checks reset values, WARL, RW1C, write 0 to
# clear and the empty handshakes in the guest; otherwise every hart traces
# its workload at once with the teControl/tsControl fields of the run, and
# this script checks, for every hart, against independent truth: the
# model's ground-truth log of that hart re-encoded by "perf-ntrace encode
# --variant sifive-v0" with the options the P550 tables give those fields
# (teInstruction 7: call counter of 1023 and RCODE 8/9 repeated history;
# teSyncMaxBTM n: a sync every 2^(n+5) messages, else teSyncMaxInst n:
# every 2^(n+5) I-CNT bytes; tsBranch; SRC = teImpl.srcID in
# teImpl.nSrcBits bits unless teInhibitSrc):
#  - the buffer is exactly those bytes plus idle padding to the sink's word
#    (8 bytes in the funnel's sink, 4 in an encoder's), or with several
#    harts each SRC's messages are; it parses (perf-ntrace dump) and decodes
#    (perf-ntrace decode --variant sifive-v0) to the hart's instructions;
#  - encoding with one setting changed gives other bytes (so the register
#    field reached the encoder, and the check can fail);
#  - wrap: the buffer holds the end of the stream; stop-on-wrap: its start.

P550_CFG=0x80300000
# NAME: TOPO HARTS [mode=6|7] [btm=] [inst=] [inhibit=1] [ts=1] [branch=] [buf=] [stop=1]
p550_runs=(
	"p550-htm: p550 1 mode=6"
	"p550-opt: p550 1 mode=7"
	"p550-ts-b0: p550 1 mode=7 ts=1 branch=0"
	"p550-ts-b1: p550 1 mode=7 ts=1 branch=1"
	"p550-ts-b3: p550 1 mode=6 ts=1 branch=3"
	"p550-sync-btm: p550 1 mode=7 btm=0"
	"p550-sync-inst: p550 1 mode=6 btm=0xf inst=3"
	"p550-sync-off: p550 1 mode=7 btm=0xf inst=0xf"
	"p550-inhibit: p550 1 mode=7 inhibit=1"
	"p550-4h: p550 4 mode=7 ts=1 branch=3"
	"p550-4h-htm: p550 4 mode=6 btm=1 ts=1 branch=1"
	"p550-wrap: p550 1 mode=7 buf=0x200"
	"p550-stop: p550 1 mode=7 buf=0x200 stop=1"
	"p550-4h-wrap: p550 4 mode=7 buf=0x2000"
	"p550-4h-stop: p550 4 mode=6 buf=0x2000 stop=1"
	"p550-sifive-hart-1: sifive-hart 1 mode=7 ts=1 branch=1"
	"p550-sifive-hart-2: sifive-hart 2 mode=6 btm=0 ts=1 branch=3"
	"p550-sifive-hart-wrap: sifive-hart 1 mode=6 buf=0x200"
	"p550-sifive-hart-stop: sifive-hart 1 mode=7 buf=0x200 stop=1"
)

p550_opt() {	# p550_opt KEY DEFAULT ARGS...
	local k=$1 d=$2 a
	shift 2
	for a; do [[ $a == "$k="* ]] && d=${a#*=}; done
	echo "$d"
}

# perf-ntrace encode options for hart $1 of a run, from the P550 tables.
p550_enc() {
	local h=$1 topo=$2 mode btm inst out=(--variant sifive-v0 --mode htm)
	shift 2
	mode=$(p550_opt mode 7 "$@") btm=$(($(p550_opt btm 3 "$@"))) inst=$(($(p550_opt inst 0xa "$@")))
	[ "$mode" = 7 ] && out+=(--implicit-return count --return-depth 1023 --repeated-history)
	[ "$(p550_opt ts 0 "$@")" = 1 ] && out+=(--ts --ts-branch "$(p550_opt branch 0 "$@")")
	if [ $btm -le 11 ]; then
		out+=(--sync-mode msgs --sync-max $((btm + 1)))
	elif [ $inst -le 5 ]; then
		out+=(--sync-mode hwords --sync-max "$inst")
	fi
	[ "$topo" = p550 ] && [ "$(p550_opt inhibit 0 "$@")" != 1 ] && out+=(--src-bits 2 --src-id "$h")
	echo "${out[@]}"
}

# The same with one setting changed, one variation per line.
p550_ablations() {
	local e=" $1 "
	[[ $e == *" --repeated-history "* ]] &&
		echo "${e/ --implicit-return count --return-depth 1023 --repeated-history / }"
	[[ $e != *" --repeated-history "* ]] && echo "$e --implicit-return count --return-depth 1023 --repeated-history"
	[[ $e == *" --ts-branch 3 "* ]] && echo "${e/--ts-branch 3/--ts-branch 1}"
	[[ $e == *" --ts-branch "[01]" "* ]] && sed -E 's/--ts-branch [01]/--ts-branch 3/' <<<"$e"
	[[ $e == *" --sync-mode "* ]] && sed -E 's/--sync-(mode|max) [a-z0-9]+//g' <<<"$e"
	[[ $e == *" --src-bits "* ]] && sed -E 's/--src-(bits|id) [0-9]+//g' <<<"$e"
	[[ $e != *" --src-bits "* ]] && [[ $e != *" --sync-mode "* ]] && echo "$e --sync-mode msgs --sync-max 4"
	return 0
}

p550_run() {
	local name=$1 topo=$2 harts=$3 rf=$ram.$1 w i=0
	shift 3
	local words=(0 "$(p550_opt mode 7 "$@")" "$(p550_opt btm 3 "$@")" "$(p550_opt inst 0xa "$@")"
		"$(p550_opt inhibit 0 "$@")" "$(p550_opt ts 0 "$@")" "$(p550_opt branch 0 "$@")"
		"$(p550_opt buf 0 "$@")" "$(p550_opt stop 0 "$@")")
	qextra=(-device "loader,addr=0x80300100,data=$harts,data-len=4")
	for w in "${words[@]}"; do
		qextra+=(-device "loader,addr=$(printf 0x%x $((P550_CFG + 4 * i))),data=$w,data-len=4")
		i=$((i + 1))
	done
	rm -f "$work/gt-$name".*
	exec_bm "$name" "$BM/p550.elf" "$rf" -s "$harts" -p "topo=$topo,gt=$work/gt-$name"
	# each sink's buffer, oldest byte first
	while read -r _ s base limit wp _; do
		python3 "$here/tests/v0-buf.py" extract "$rf" "${base#base=}" "${limit#limit=}" \
			"${wp#wp=}" "$([ "$topo" = p550 ] && echo 8 || echo 4)" "$work/$name.sink$s.bin" \
			>"$work/$name.sink$s.info"
	done < <(grep '^SINK ' "$work/$name.out")
	rm -f "$rf"
}

p550_check() {
	local name=$1 topo=$2 harts=$3 h s enc word kind=plain sbits=0 bin p failed abl src sum
	shift 3
	word=$([ "$topo" = p550 ] && echo 8 || echo 4)
	[ "$(p550_opt buf 0 "$@")" != 0 ] && kind=wrap
	[ "$(p550_opt stop 0 "$@")" = 1 ] && kind=stop
	[ "$topo" = p550 ] && [ "$(p550_opt inhibit 0 "$@")" != 1 ] && sbits=2
	echo "# $name: topo=$topo harts=$harts $*"
	show_bm "$name"
	for ((h = 0; h < harts; h++)); do
		p="$name: hart $h"
		s=$([ "$topo" = p550 ] && echo 0 || echo "$h")
		bin=$work/$name.sink$s.bin
		enc=$(p550_enc "$h" "$topo" "$@")
		# shellcheck disable=SC2086
		"$PERF_NTRACE" encode $enc -o "$work/$name.$h.re" "$work/gt-$name.hart$h.txt" 2>/dev/null
		t "grep -q '^HART $h .*impl=$(printf 0x%x $((($([ "$topo" = p550 ] && echo 0x2000100 || echo 0x80)) | h << 20 | h << 28)))' '$work/$name.out'" \
			"$p: teImpl srcID = hart index $h, hartid = its mhartid $h, nSrcBits $sbits"
		if [ ! -s "$bin" ] || [ ! -s "$work/$name.$h.re" ]; then
			not_ok "$p: the program reported its sink, the hart traced"
			continue
		fi
		sed 's/^/# /' "$work/$name.sink$s.info"
		if [ "$harts" = 1 ] || [ "$topo" != p550 ]; then
			src=$bin
		else
			sum=$(python3 "$here/tests/demux-src.py" "$bin" 2 "$work/$name.src" \
				$([ $kind = wrap ] && echo --wrapped) $([ $kind = stop ] && echo --cut))
			echo "# $p: $sum"
			[ $h = 0 ] && [ $kind != plain ] &&
				t "[ \$(tr ',' '\\n' <<<'$(sed -E 's/.*srcs=([^ ]+).*/\1/' <<<"$sum")' | wc -l) -ge 2 ]" \
					"$name: $kind: the funnel merged messages of several harts into the buffer"
			[ $h = 0 ] && [ $kind = plain ] &&
				t "[ '$(sed -E 's/.*srcs=([^ ]+).*/\1/' <<<"$sum")' = '$(seq -s, 0 $((harts - 1)))' ]" \
				"$name: every hart's SRC is in the funnel's sink"
			src=$work/$name.src.$h.bin
		fi
		case $kind in
		plain)
			if [ "$src" = "$bin" ]; then
				t "python3 '$here/tests/v0-buf.py' same '$bin' '$work/$name.$h.re' $word" \
					"$p: buffer = ground truth re-encoded (encode $enc) + idle to a $word-byte word"
			else
				t "cmp -s '$src' '$work/$name.$h.re'" \
					"$p: SRC $h messages in the funnel's sink = ground truth re-encoded (encode $enc)"
			fi
			# shellcheck disable=SC2086
			t "'$PERF_NTRACE' dump --variant sifive-v0 --src-bits $sbits $([[ " $enc " == *" --ts "* ]] && echo --ts) '$bin' >'$work/$name.$h.dump' 2>&1" \
				"$p: the buffer parses as sifive-v0 messages"
			# shellcheck disable=SC2086
			"$PERF_NTRACE" decode --elf "$BM/p550.elf" $(sed -E 's/--(sync-mode|sync-max|ts-branch|src-id) [a-z0-9]+//g; s/--repeated-history//' <<<"$enc") \
				$([ $sbits = 2 ] && echo "--src $h") -o "$work/$name.$h.dec" "$bin" 2>"$work/$name.$h.dec.err"
			t "dec_match '$work/gt-$name.hart$h.txt' '$work/$name.$h.dec'" \
				"$p: perf-ntrace decode --variant sifive-v0 gives hart $h's instructions"
			failed=''
			while read -r abl; do
				[ -n "$abl" ] || continue
				# shellcheck disable=SC2086
				"$PERF_NTRACE" encode $abl -o "$work/$name.$h.abl" "$work/gt-$name.hart$h.txt" 2>/dev/null
				if [ "$src" = "$bin" ]; then
					python3 "$here/tests/v0-buf.py" same "$bin" "$work/$name.$h.abl" $word >/dev/null &&
						failed="$failed [$abl]"
				else
					cmp -s "$src" "$work/$name.$h.abl" && failed="$failed [$abl]"
				fi
			done < <(p550_ablations "$enc")
			t "[ -z '$failed' ]" "$p: each setting changes the trace (encoding with one changed differs)"
			[ -n "$failed" ] && echo "# same bytes with:$failed"
			;;
		*)
			if [ $kind = stop ]; then
				t "grep -q '^SINK $s .*wp=0x[0-9a-f]*[13579bdf] ' '$work/$name.out' && grep -q 'wrapped=1 bytes=$(($(p550_opt buf 0 "$@")))' '$work/$name.sink$s.info'" \
					"$p: stop-on-wrap: SinkWP back at SinkBase with the wrapped bit, the whole buffer written once"
				t "! grep -q '^HART $h control=0x[0-9a-f]*[1-9a-f][0-9a-f][0-9a-f][0-9a-f] ' '$work/$name.out' || ! (( \$(sed -nE 's/^HART $h control=(0x[0-9a-f]+).*/\\1/p' '$work/$name.out') & 0x1000 ))" \
					"$p: stop-on-wrap: messages after the stop were dropped without teStallOrOverflow"
			else
				t "grep -q 'wrapped=1' '$work/$name.sink$s.info'" "$p: wrap: the wrapped bit of SinkWP is set"
			fi
			if [ "$src" = "$bin" ]; then
				t "python3 '$here/tests/v0-buf.py' window $kind '$bin' '$work/$name.$h.re' $word" \
					"$p: $kind: the buffer is the $([ $kind = wrap ] && echo end || echo start) of the ground truth re-encoded"
			else
				# all sources at once below: some may have no message left
				python3 "$here/tests/demux-src.py" "$work/$name.$h.re" 2 "$work/$name.re" >/dev/null
			fi
			;;
		esac
	done
	if [ $kind != plain ] && [ "$topo" = p550 ] && [ "$harts" -gt 1 ]; then
		t "fun_window $kind '$work/$name.src' '$work/$name.re' $(seq -s ' ' 0 $((harts - 1)))" \
			"$name: $kind: each SRC's messages in the funnel's sink are the $([ $kind = wrap ] && echo last || echo first) of its re-encoded ground truth"
	fi
}

p550_selected=()
for v in "${p550_runs[@]}"; do
	[ -n "${NTRACE_MODEL_VARIANTS:-}" ] && [[ " $NTRACE_MODEL_VARIANTS " != *" ${v%%:*} "* ]] &&
		[[ " $NTRACE_MODEL_VARIANTS " != *" p550 "* ]] && continue
	p550_selected+=("$v")
done
if [ -z "${NTRACE_MODEL_VARIANTS:-}" ] || [[ " $NTRACE_MODEL_VARIANTS " == *" p550 "* ]] ||
	[[ " $NTRACE_MODEL_VARIANTS " == *" p550-regs "* ]]; then
	# the register tests, two harts, both topologies; and without the model
	for topo in p550 sifive-hart; do
		qextra=(-device "loader,addr=0x80300100,data=2,data-len=4"
			-device "loader,addr=$P550_CFG,data=1,data-len=4")
		run_bm "p550-regs-$topo" "$BM/p550.elf" -s 2 -p "topo=$topo"
	done
	timeout 60 "$here/run-qemu.sh" -n -r "$ram" -- -bios none -kernel "$BM/p550.elf" \
		-device "loader,addr=$P550_CFG,data=1,data-len=4" >"$work/p550-noplugin.out" 2>&1
	t "grep -q '^not ok' '$work/p550-noplugin.out'" "p550-regs: the v0 register tests fail without the model (control)"
	qextra=()
fi
for v in "${p550_selected[@]}"; do
	[ "$(jobs -rp | wc -l)" -ge 2 ] && wait -n
	# shellcheck disable=SC2086
	p550_run ${v%%:*} ${v#*:} &
done
wait
qextra=()
for v in "${p550_selected[@]}"; do
	# shellcheck disable=SC2086
	p550_check ${v%%:*} ${v#*:}
done

# Device tree of the v0 topologies (as SiFive's RFC writes them): a node
# per component at its address, "sifive,trace-encoder0" with the hart's
# cpus phandle and the timer rate, for p550 its out-port linked both ways
# to the funnel's in-ports port@N ("sifive,trace-funnel0", no out-ports);
# the no-map region is the topology's 0x110000 bytes; QEMU boots with it
# and the register tests pass.
p550_dt() {	# p550_dt TOPO HARTS
	local topo=$1 n=$2 d=$work/dt-$1
	if ! "$here/dt/gen-dt.sh" -o "$d.dtb" -s "$n" -t "$topo" 2>"$d.err" ||
		! dtc -q -I dtb -O dts -o "$d.dts" "$d.dtb"; then
		cat "$d.err"
		not_ok "p550-dt: $topo: generated ($n harts)"
		return
	fi
	t "python3 - '$d.dts' '$topo' $n <<'PY'
import re, sys
t, topo, n = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
base = 0x80000000 + (512 << 20) - 0x110000
def node(name):
    m = re.search(r'\n(\t+)' + re.escape(name) + r' \{\n(.*?)\n\1\};', t, re.S)
    return m.group(2) if m else None
def ph(body):
    m = re.search(r'phandle = <(0x[0-9a-f]+)>;', body)
    return m and int(m.group(1), 16)
ok = True
rsv = node('ntrace-regs@%x' % base)
ok &= bool(rsv) and 'no-map' in rsv and ('0x%x 0x00 0x110000' % base) in rsv
tb = re.search(r'timebase-frequency = <(0x[0-9a-f]+)>;', t).group(1)
fun = node('trace-funnel@%x' % (base + 0x18000))
ok &= (fun is not None) == (topo == 'p550')
if fun:
    ok &= '\"sifive,trace-funnel0\"' in fun and 'out-ports' not in fun
for h in range(n):
    te, cpu = node('trace-encoder@%x' % (base + 0x100000 + 0x1000 * h)), node('cpu@%d' % h)
    if not te or not cpu:
        ok = False
        continue
    ok &= 'compatible = \"sifive,trace-encoder0\";' in te and ('cpus = <0x%02x>;' % ph(cpu)) in te
    ok &= ('riscv,timestamp-frequency = <%s>;' % tb) in te
    if topo == 'p550':
        ep = re.search(r'endpoint \{\s*remote-endpoint = <(0x[0-9a-f]+)>;\s*phandle = <(0x[0-9a-f]+)>', te)
        port = re.search(r'port@%d \{\s*reg = <0x%02x>;\s*endpoint \{\s*remote-endpoint = <(0x[0-9a-f]+)>;\s*phandle = <(0x[0-9a-f]+)>' % (h, h), fun or '')
        ok &= bool(ep and port) and ep.group(1) == port.group(2) and port.group(1) == ep.group(2)
    else:
        ok &= 'out-ports' not in te
print('# dt %s: %d encoders, ok=%s' % (topo, n, ok))
sys.exit(0 if ok else 1)
PY" "p550-dt: $topo ($n harts): sifive nodes at the P550 offsets, cpus, timestamp rate, encoder n -> funnel port@n, 0x110000-byte no-map region"
	qextra=(-dtb "$d.dtb" -device "loader,addr=0x80300100,data=$n,data-len=4"
		-device "loader,addr=$P550_CFG,data=1,data-len=4")
	if run_bm "p550-dt-$topo" "$BM/p550.elf" -s "$n" -p "topo=$topo" >/dev/null; then
		ok "p550-dt: $topo: QEMU accepts the generated DT (-dtb) and the register tests pass with it"
	else
		not_ok "p550-dt: $topo: QEMU accepts the generated DT (-dtb) and the register tests pass with it"
	fi
	qextra=()
}
if [ -z "${NTRACE_MODEL_VARIANTS:-}" ] || [[ " $NTRACE_MODEL_VARIANTS " == *" p550 "* ]] ||
	[[ " $NTRACE_MODEL_VARIANTS " == *" p550-dt "* ]]; then
	p550_dt p550 4
	p550_dt sifive-hart 2
	t "! '$here/dt/gen-dt.sh' -o '$work/dt-x.dtb' -t p550 -f upstream 2>/dev/null" \
		"p550-dt: -f is refused for the v0 topologies (one form)"
fi
