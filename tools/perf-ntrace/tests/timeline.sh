#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace decode --format=timeline, folded and flame-html against the
# call tree QEMU executed (flat TAP lines). For ground-truth programs with
# recursion (104 deep), longjmp, tail calls, indirect calls, signal
# handlers (tests/e2e/callsys.c and a small handler program, recorded in
# QEMU user mode with the vDSO QEMU gives them) and bare-metal traps and
# interrupts, the retired PCs are encoded (BTM with timestamps, HTM) and
# decoded; the truth is computed from the PC list and the disassembly alone
# (tests/e2e/gt-callviews.awk, the calls and returns of gt-calltree.awk):
#  - every timeline slice (name, depth, first and last instruction) and no
#    other; trap marks per kind as QEMU recorded the traps;
#  - every folded stack and its exact instruction count;
#  - with timestamps (the model stamps each record with its sequence
#    number): slice times equal the timestamps where not marked estimated,
#    and within the trap records' offsets where they are;
#  - merging of small slices and the depth cap, accounted in otherData;
#  - the flame graph page: offline, its script parses, the hottest
#    function first in its table;
#  - perf.data input (synthesised as tests/perfdata.sh does) gives the
#    same slices; a damaged trace gives marked errors and cut slices.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD GT_DIR=$NTRACE_GT_DIR
TAP_PREFIX="timeline: "
scratch WORK "$BUILD/timeline" || exit 1
E2E=$SRC/tests/e2e
P=$PERF_NTRACE
GTT=$BUILD/tools/gt-tool

command -v python3 >/dev/null || { skip all "no python3 to read the JSON"; exit 0; }
[ -x "$GTT" ] || { skip all "gt-tool not built (make test-tools)"; exit 0; }
[ -f "$GT_DIR/manifest" ] || bash "$SRC/tests/gt/build-suite.sh" >"$WORK/build-suite.log" 2>&1 ||
	{ not_ok "the ground-truth programs build ($WORK/build-suite.log)"; exit 1; }

flow() { awk -f "$NTRACE_TOP/tools/autofdo/hex.awk" -f "$E2E/flow.awk" -f "$E2E/gt-callviews.awk" "$@"; }
ev() { python3 "$E2E/trace-events.py" "$@"; }
# QEMU user mode returns from signal handlers through its own vDSO: take
# it out of the QEMU binary (an ELF inside it) to decode those runs.
vdso=$WORK/vdso.so
python3 - "$(command -v qemu-riscv64)" "$vdso" <<'PY' 2>/dev/null || vdso=
import struct, sys
b = open(sys.argv[1], "rb").read()
i = b.find(b"\x7fELF", 1)
while i > 0:
    if b[i + 4] == 2 and struct.unpack_from("<H", b, i + 18)[0] == 243:
        shoff = struct.unpack_from("<Q", b, i + 0x28)[0]
        ent, num = struct.unpack_from("<HH", b, i + 0x3a)
        open(sys.argv[2], "wb").write(b[i:i + shoff + ent * num])
        sys.exit(0)
    i = b.find(b"\x7fELF", i + 1)
sys.exit(1)
PY

# record_signals NAME C-SOURCE ARGS...: a program run in QEMU user mode
# with its ground truth and the vDSO's load address in $WORK/NAME.vbase
record_signals() {
	local n=$1 src=$2 off pc
	shift 2
	"${CROSS_COMPILE}gcc" -O2 -static -o "$WORK/$n" "$src" || return 1
	qemu-riscv64 -d exec,nochain -one-insn-per-tb -D "$WORK/$n.log" "$WORK/$n" "$@" \
		>/dev/null 2>&1 || return 1
	off=$("${CROSS_COMPILE}nm" "$vdso" | awk '$3 == "__vdso_rt_sigreturn" { print $1 }')
	pc=$(grep -m1 '__vdso_rt_sigreturn$' "$WORK/$n.log" | awk -F/ '{ print $2 }')
	[ -n "$off" ] && [ -n "$pc" ] || return 1
	printf '0x%x\n' $((0x$pc - 0x$off)) >"$WORK/$n.vbase"
	"$GTT" execlog "$WORK/$n.log" "$WORK/$n.pcs" "$WORK/$n" "$vdso@$(cat "$WORK/$n.vbase")" \
		>/dev/null || return 1
	rm -f "$WORK/$n.log"
}

cat >"$WORK/sighandler.c" <<'C'
#include <signal.h>
#include <stdio.h>
static volatile long caught;
__attribute__((noinline)) static long leaf(long x) { return x * 3 + 1; }
__attribute__((noinline)) static long mid(long x) { return leaf(x) + leaf(x + 1); }
static void on_sig(int s) { caught += mid(s); }
__attribute__((noinline)) static long work(int i)
{
	if (i % 4 == 0)
		raise(SIGUSR1);
	return mid(i);
}
int main(void)
{
	long s = 0;

	signal(SIGUSR1, on_sig);
	for (int i = 0; i < 16; i++)
		s += work(i);
	printf("%ld %ld\n", s, caught);
	return 0;
}
C

progs="recursion-O0-gc recursion-O2-gc recursion-Os-g longjmp-O0-gc longjmp-O2-gc longjmp-Os-g
       deepcall-O2-gc tailcall-O2-gc funcptr-Os-gc traps-gc traps-notimer-g"
for n in $progs; do
	gt_copy "$n" "$WORK/$n.pcs" "$WORK/$n" >"$WORK/$n.priv" || { skip "$n" "no ground truth"; continue; }
	: >"$WORK/$n.vbase"
done
sigprogs=
if [ -n "$vdso" ]; then
	for s in "callsys:$E2E/callsys.c:200 signals" "sighandler:$WORK/sighandler.c:"; do
		IFS=: read -r n src args <<<"$s"
		# shellcheck disable=SC2086	# the arguments are words
		if record_signals "$n" "$src" $args; then
			echo u >"$WORK/$n.priv"
			sigprogs="$sigprogs $n"
		else
			not_ok "$n: recorded in QEMU user mode with its signal handlers"
		fi
	done
else
	skip "signal handler programs" "no vDSO found in qemu-riscv64"
fi

# check_views NAME MODE OPTS...: encode NAME's ground truth, decode the views
check_views() {
	local n=$1 mode=$2 w=$WORK/$1.$2 priv img want got
	shift 2
	priv=$(cat "$WORK/$n.priv")
	img=(--elf "$WORK/$n")
	[ -s "$WORK/$n.vbase" ] && img+=(--elf "$vdso@$(cat "$WORK/$n.vbase")")
	if ! "$P" encode --pcs "$WORK/$n.pcs" "${img[@]}" --priv "${priv:-u}" --mode "$mode" "$@" \
		-o "$w.bin" 2>"$w.err" ||
	   ! "$P" decode "${img[@]}" "$@" --format=timeline --min-slice 0 --max-depth 100000 -q \
		-o "$w.json" "$w.bin" 2>>"$w.err" ||
	   ! "$P" decode "${img[@]}" "$@" --format=folded --max-depth 100000 -q -o "$w.folded" \
		"$w.bin" 2>>"$w.err"; then
		not_ok "$n $mode: encode and decode ($(head -c 200 "$w.err"))"
		return 1
	fi
	if ! ev slices "$w.json" >"$w.sl" 2>"$w.err"; then
		not_ok "$n $mode: the timeline is valid JSON ($(head -c 200 "$w.err"))"
		return 1
	fi
	awk -v f=4 -f "$E2E/sym-canon.awk" "$WORK/$n.syms" "$w.sl" | sort -k1,1n -k3,3n >"$w.sl.c"
	if cmp -s "$WORK/$n.slices" "$w.sl.c"; then
		ok "$n $mode: timeline slices = the executed calls ($(wc -l <"$w.sl.c") slices, names, depths up to $(sort -k3n "$w.sl.c" | tail -1 | cut -d' ' -f3), first and last instruction)"
	else
		not_ok "$n $mode: timeline slices differ from the executed calls: $(diff "$WORK/$n.slices" "$w.sl.c" | grep -m4 '^[<>]' | tr '\n' ' ')"
	fi
	awk -v stack=1 -f "$E2E/sym-canon.awk" "$WORK/$n.syms" "$w.folded" | sort >"$w.f.c"
	if cmp -s "$WORK/$n.folded" "$w.f.c"; then
		ok "$n $mode: folded stacks = the ground truth's instruction counts ($(wc -l <"$w.f.c") stacks, $(awk '{ s += $NF } END { print s }' "$w.f.c") instructions)"
	else
		not_ok "$n $mode: folded stacks differ: $(diff "$WORK/$n.folded" "$w.f.c" | grep -m4 '^[<>]' | cut -c1-150 | tr '\n' ' ')"
	fi
	res=$(ev nesting "$w.json")
	check "$n $mode: the slices nest on their track in time as viewers need ($res nested/not)" \
		eval '[ "${res#* }" = 0 ] && [ "${res% *}" -gt 0 ]'
	# (a trap the program ends with has no handler address: no trace tells it)
	want=$("$GTT" dump "$WORK/$n.pcs" | awk '$1 == "pc" && c != "" {
		if (length(c) == 16 && c ~ /^8/) i++; else if (c == "8" || c == "9" || c == "b") s++; else e++ }
		{ c = $1 == "trap" ? $3 : "" }
		END { printf "exception %d interrupt %d syscall %d\n", e, i, s }')
	want="$want trap_return $("$GTT" ingress "$WORK/$n.pcs" --print --priv "${priv:-u}" \
		"$WORK/$n" 2>/dev/null | awk '$3 == "trap_return" { r++ } END { print r + 0 }')"
	got=$(ev cats "$w.json" | awk '{ n[$1] = $2 } END { printf "exception %d interrupt %d syscall %d trap_return %d\n", n["exception"], n["interrupt"], n["syscall"], n["trap_return"] }')
	if [ "$got" = "$want" ]; then
		ok "$n $mode: trap marks as QEMU took the traps and returned from them ($got)"
	else
		not_ok "$n $mode: trap marks: $got; QEMU took $want"
	fi
}

# check_times NAME: BTM with timestamps. The model stamps each retired
# instruction's record with its index (the time it retired), so the time
# at a position P is P - 1; a trap record with no instruction carries the
# index of the next one, so times taken from one (at most one per such
# record) are P.
check_times() {
	local n=$1 w=$WORK/$1.btm res bad nr ne off z
	ev times "$w.json" | sort -k1,1n -k2,2nr >"$w.times" && ev meta "$w.json" >"$w.meta" || return 1
	z=$("$GTT" ingress "$WORK/$n.pcs" --print --priv "$(cat "$WORK/$n.priv")" "$WORK/$n" \
		${vb:+"$vdso@$vb"} 2>/dev/null | awk '$2 == 0 { z++ } END { print z + 0 }')
	res=$(awk -v z="$z" 'function chk(pos, t, est) {
			if (pos == 0)
				return
			d = t - (pos - 1)
			if (d < 0) d = -d
			if (d > 1) bad++
			if (est) ne++
			else { nr++; if (d) off++ }
		}
		{ chk($1, $3, $5 ~ /begin/); chk($2, $4, $5 ~ /end/)
		  if ($3 < last) bad++; last = $3 }
		END { printf "%d %d %d %d\n", bad + (off > z), nr, ne, off }' "$w.times")
	read -r bad nr ne off <<<"$res"
	if grep -q '^time_axis trace timestamps$' "$w.meta" && [ "$bad" = 0 ] && [ "$nr" -gt 0 ]; then
		ok "$n btm --ts: slice times are the timestamps ($nr at a timestamp, $off of them from the $z trap records; $ne estimated between two, within one instruction), in order"
	else
		not_ok "$n btm --ts: $bad slice times off the timestamps ($nr at a timestamp, $off off, $z trap records, $ne estimated; $(grep time_axis "$w.meta"))"
	fi
}

for n in $progs $sigprogs; do
	[ -f "$WORK/$n.pcs" ] || continue
	vb=$(cat "$WORK/$n.vbase")
	{ elf_code_syms "$WORK/$n"; [ -n "$vb" ] && elf_code_syms "$vdso" "$vb"; } | sort >"$WORK/$n.syms"
	"${CROSS_COMPILE}objdump" -d --no-show-raw-insn "$WORK/$n" >"$WORK/$n.dis"
	[ -n "$vb" ] && "${CROSS_COMPILE}objdump" -d --no-show-raw-insn \
		--adjust-vma="$vb" "$vdso" >>"$WORK/$n.dis"
	"$GTT" dump "$WORK/$n.pcs" >"$WORK/$n.pcl"
	flow -v mode=slices -v maxdepth=100000 "$WORK/$n.syms" "$WORK/$n.dis" "$WORK/$n.pcl" |
		sort -k1,1n -k3,3n >"$WORK/$n.slices"
	flow -v mode=folded -v maxdepth=100000 "$WORK/$n.syms" "$WORK/$n.dis" "$WORK/$n.pcl" |
		sort >"$WORK/$n.folded"
	check_views "$n" htm
	check_views "$n" btm --ts && check_times "$n"
done

# The rest on two programs with many small calls and signal handlers.
for n in recursion-O0-gc callsys; do
	[ -f "$WORK/$n.slices" ] || continue
	w=$WORK/$n.x
	vb=$(cat "$WORK/$n.vbase")
	img=(--elf "$WORK/$n")
	[ -n "$vb" ] && img+=(--elf "$vdso@$vb")
	total=$(wc -l <"$WORK/$n.slices")

	# small slices merged: the others drawn as they are, every one accounted
	m=50
	"$P" decode "${img[@]}" --format=timeline --min-slice $m -q -o "$w.m.json" "$WORK/$n.htm.bin"
	ev slices "$w.m.json" | awk -v m=$m '$2 - $1 >= m' |
		awk -v f=4 -f "$E2E/sym-canon.awk" "$WORK/$n.syms" - | sort -k1,1n -k3,3n >"$w.big"
	awk -v m=$m '$2 - $1 >= m' "$WORK/$n.slices" >"$w.big.gt"
	got=$(ev merged "$w.m.json" | awk '$4 == "call" { n += 1 + $3; e++ } $4 == "merged" { n += $2 + $3; e++; g++ }
		END { print n + 0, e + 0, g + 0 }')
	read -r acc events groups <<<"$got"
	meta=$(ev meta "$w.m.json" | awk '{ m[$1] = $2 } END { print m["slices"], m["slices_drawn"] + m["slices_merged"], m["merge_groups"] }')
	nest=$(ev nesting "$w.m.json")
	if cmp -s "$w.big" "$w.big.gt" && [ "$acc" = "$total" ] && [ "$meta" = "$total $total $groups" ] &&
	   [ "$events" -lt "$total" ] && [ "${nest#* }" = 0 ]; then
		ok "$n --min-slice $m: the $(wc -l <"$w.big") calls of $m instructions or more drawn as executed, the $((total - $(wc -l <"$w.big"))) shorter ones in $groups merged slices or alone; $events events for $total calls, all accounted in otherData, all nested"
	else
		not_ok "$n --min-slice $m: big slices $(diff "$w.big" "$w.big.gt" | grep -c '^[<>]') differ; accounted $acc of $total calls in $events events; otherData slices/drawn+merged/groups $meta (groups $groups); nested/not $nest"
	fi

	# depth cap: deeper frames neither drawn nor counted apart, but counted
	"$P" decode "${img[@]}" --format=timeline --min-slice 0 --max-depth 4 -q -o "$w.d.json" \
		"$WORK/$n.htm.bin"
	ev slices "$w.d.json" | awk -v f=4 -f "$E2E/sym-canon.awk" "$WORK/$n.syms" - |
		sort -k1,1n -k3,3n >"$w.d"
	capped=$(ev meta "$w.d.json" | awk '$1 == "frames_capped" { print $2 }')
	if awk '$3 <= 4' "$WORK/$n.slices" | cmp -s - "$w.d" &&
	   [ "$capped" = "$(awk '$3 > 4' "$WORK/$n.slices" | wc -l)" ]; then
		ok "$n --max-depth 4: the $(wc -l <"$w.d") calls up to depth 4 drawn, $capped deeper ones counted in otherData.frames_capped"
	else
		not_ok "$n --max-depth 4: $(wc -l <"$w.d") slices drawn, frames_capped $capped; the ground truth has $(awk '$3 <= 4' "$WORK/$n.slices" | wc -l) and $(awk '$3 > 4' "$WORK/$n.slices" | wc -l)"
	fi
	"$P" decode "${img[@]}" --format=folded --max-depth 4 -q "$WORK/$n.htm.bin" |
		awk -v stack=1 -f "$E2E/sym-canon.awk" "$WORK/$n.syms" - | sort >"$w.f4"
	flow -v mode=folded -v maxdepth=4 "$WORK/$n.syms" "$WORK/$n.dis" "$WORK/$n.pcl" | sort >"$w.f4.gt"
	check "$n --format=folded --max-depth 4: deeper frames folded into the 4th, counts = the ground truth's" \
		cmp -s "$w.f4" "$w.f4.gt"

	# the flame graph page
	"$P" decode "${img[@]}" --format=flame-html -q -o "$w.html" "$WORK/$n.htm.bin"
	hot=$(awk '{ k = split($1, f, ";"); c[f[k]] += $2 } END { for (s in c) print c[s], s }' \
		"$WORK/$n.folded" | sort -k1,1nr -k2 | head -1)
	first=$(sed -n 's/.*<tr><td class="fn">\([^<]*\)<\/td><td>\([0-9]*\)<.*/\2 \1/p' "$w.html" | head -1 |
		awk -v f=2 -f "$E2E/sym-canon.awk" "$WORK/$n.syms" -)
	check "$n --format=flame-html: the hottest function first ($hot instructions of its own)" \
		test "$first" = "$hot"
	check "$n --format=flame-html: one file that loads nothing (no src, href, url(), fetch, import)" \
		eval '! grep -Eiq "src=|href=|url\(|fetch\(|XMLHttpRequest|import |https?://[a-vx-z]" "$w.html"'
	if command -v node >/dev/null; then
		sed -n '/^<script>$/,/^<\/script>$/p' "$w.html" | sed '1d;$d' >"$w.js"
		cat >"$w.dom.js" <<'JS'
// a minimal DOM: enough for the page's script to draw into
const made = [];
function el(tag) {
	const e = { tag, attrs: {}, kids: [], textContent: '', on: {},
		setAttribute(k, v) { this.attrs[k] = v; },
		appendChild(c) { this.kids.push(c); return c; },
		addEventListener(t, f) { this.on[t] = f; } };
	made.push(e);
	return e;
}
const byId = {};
global.window = { innerWidth: 1200 };
global.document = {
	getElementById(id) { return byId[id] || (byId[id] = el('div')); },
	createElementNS(ns, tag) { return el(tag); },
};
require(process.argv[2]);
const rects = made.filter(e => e.tag === 'rect').length;
const texts = made.filter(e => e.tag === 'text').map(e => e.textContent);
console.log(rects, texts.length, texts.includes(process.argv[3]) ? 'has' : 'lacks');
JS
		name=${hot#* }
		res=$(node "$w.dom.js" "$w.js" "$name" 2>&1)
		case $res in
		*" has") ok "$n flame graph script runs (node, a stub DOM): $res '$name' among its labels" ;;
		*) not_ok "$n flame graph script: $res (wanted a label '$name')" ;;
		esac
	else
		skip "$n flame graph script runs" "no node"
	fi
	# a real browser (scripts/deps.sh --browser installs chromium)
	chrome=$(command -v chromium || command -v chromium-browser || :)
	if [ -n "$chrome" ]; then
		mkdir -p "$WORK/chrome"
		timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
			--disable-background-networking --no-first-run \
			--user-data-dir="$WORK/chrome" --dump-dom "file://$w.html" >"$w.dom" 2>/dev/null
		rects=$(grep -o '<rect ' "$w.dom" | wc -l)
		labels=$(grep -o '<text [^>]*>[^<]*</text>' "$w.dom" | sed 's/<[^>]*>//g')
		if [ "$rects" -ge 10 ] && grep -qxF "${hot#* }" <<<"$labels"; then
			ok "$n flame graph in headless Chromium: $rects blocks drawn, '${hot#* }' labelled"
		else
			not_ok "$n flame graph in headless Chromium: $rects blocks, labels $(head -5 <<<"$labels" | tr '\n' ' ')"
		fi
	else
		skip "$n flame graph in a browser" "no chromium (scripts/deps.sh --browser)"
	fi
done

# Uneven time: the records of a run restamped with a made-up clock (1 tick
# per instruction, 5 per branch or jump, 9 more every 13th record) and
# encoded from text, HTM (few timestamps) and BTM. A time at a timestamp
# must be the clock's time at that position exactly; an estimated one must
# lie between the times of the exact ones around it.
uneven() {	# NAME MODE
	local n=$1 w=$WORK/$1.u$2 res
	"$GTT" ingress "$WORK/$n.pcs" --print --priv "$(cat "$WORK/$n.priv")" "$WORK/$n" \
		${vb:+"$vdso@$vb"} 2>/dev/null | awk '
		BEGIN { k = split("none exception interrupt trap_return not_taken taken indirect " \
			"reserved7 ind_call dir_call ind_jump dir_jump coswap return other_ind_jump " \
			"other_dir_jump", nm, " "); for (i = 1; i <= k; i++) it[nm[i]] = i - 1 }
		{ if ($2 != 0) t += 1 + ($3 != "none") * 4 + (NR % 13 == 0) * 9
		  print "0x" $1, $2, it[$3], $4, 0, t, $5 - ($5 % 8 >= 4 ? 4 : 0) }' >"$w.rec"
	"$P" encode --mode "$2" --ts -o "$w.bin" "$w.rec" &&
		"$P" decode "${img[@]}" --ts --format=timeline --min-slice 0 -q -o "$w.json" "$w.bin" ||
		{ not_ok "$n $2 uneven timestamps: encode and decode"; return; }
	ev times "$w.json" | awk '{ print $1, $3, ($5 ~ /begin/); print $2, $4, ($5 ~ /end/) }' |
		sort -k1,1n -u >"$w.st"
	res=$(awk 'FNR == NR { if ($2 != 0) T[++p] = $6; next }
		{ pos[++n] = $1; t[n] = $2; e[n] = $3 }
		END {
			for (i = 1; i <= n; i++)
				if (!e[i]) { nr++; last = i; if (t[i] != T[pos[i]]) bad++ }
				else before[i] = last
			for (i = n; i >= 1; i--)
				if (!e[i]) nx = i; else after[i] = nx
			for (i = 1; i <= n; i++) {
				if (!e[i] || !(pos[i] in T))
					continue
				ne++
				lo = before[i] ? T[pos[before[i]]] : 0
				hi = after[i] ? T[pos[after[i]]] : T[p]
				if (t[i] < lo || t[i] > hi) bad++
				d = t[i] - T[pos[i]]; err += d < 0 ? -d : d
				if (i > 1 && t[i] < t[i - 1]) bad++
			}
			printf "%d %d %d %.2f\n", bad, nr, ne, ne ? err / ne : 0
		}' "$w.rec" "$w.st")
	read -r bad nr ne err <<<"$res"
	nest=$(ev nesting "$w.json")
	bad=$((bad + ${nest#* }))
	if [ "$bad" = 0 ] && [ "$nr" -gt 0 ]; then
		ok "$n $2 uneven timestamps: $nr slice times at a timestamp equal the clock, $ne estimated between them (mean error $err ticks), in order and nested"
	else
		not_ok "$n $2 uneven timestamps: $bad wrong of $nr at a timestamp and $ne estimated"
	fi
}
for n in recursion-O2-gc callsys; do
	[ -f "$WORK/$n.slices" ] || continue
	vb=$(cat "$WORK/$n.vbase")
	img=(--elf "$WORK/$n")
	[ -n "$vb" ] && img+=(--elf "$vdso@$vb")
	uneven "$n" htm
	uneven "$n" btm
done

# perf.data input: the same slices (synthesised as tests/perfdata.sh does)
n=recursion-O2-gc
PDT=$BUILD/tests/perfdata_test
if [ -x "$PDT" ] && [ -f "$WORK/$n.slices" ]; then
	mkdir -p "$WORK/bin" && cp "$WORK/$n" "$WORK/bin/$n"
	"$P" encode --pcs "$WORK/$n.pcs" --elf "$WORK/$n" --priv u -o "$WORK/$n.pd.bin" &&
		"$PDT" --write "$WORK/$n.data" --trace "$WORK/$n.pd.bin" --chunks 5 \
			--elf "/usr/bin/$n@0x10000,0x100000" >/dev/null &&
		"$P" decode --elf-dir "$WORK/bin" --format=timeline --min-slice 0 -q \
			-o "$WORK/$n.pd.json" "$WORK/$n.data"
	ev slices "$WORK/$n.pd.json" | awk -v f=4 -f "$E2E/sym-canon.awk" "$WORK/$n.syms" - |
		sort -k1,1n -k3,3n >"$WORK/$n.pd.sl"
	check "$n perf.data (5 AUXTRACE chunks): timeline slices = the executed calls" \
		cmp -s "$WORK/$n.pd.sl" "$WORK/$n.slices"
	# task mode (the AUX records name CPU, task and time): a track per
	# task named by its comm, a track per CPU saying which task ran
	ev names "$WORK/$n.pd.json" >"$WORK/$n.pd.names"
	tracks=$(awk '$3 == "CPU" { c++ } $3 != "CPU" && $NF == $1 "/" $2 { t++ }
		END { print c + 0, t + 0, NR }' "$WORK/$n.pd.names")
	busy=$(grep -c '"cat":"task","ph":"X"' "$WORK/$n.pd.json")
	check "$n perf.data task mode: a track per task named by comm, pid and tid, one per CPU with $busy task slice(s) ($(tr '\n' ',' <"$WORK/$n.pd.names"))" \
		eval '[ "$tracks" = "1 1 2" ] && [ "$busy" -ge 1 ]'
	# with timestamps and perf's time conversion in AUXTRACE_INFO (perf
	# time = 5000000 ns + 1.5 ns per unit): times are perf times, in us
	"$P" encode --pcs "$WORK/$n.pcs" --elf "$WORK/$n" --priv u --ts -o "$WORK/$n.pdts.bin" &&
		"$PDT" --write "$WORK/$n.ts.data" --trace "$WORK/$n.pdts.bin" --chunks 5 --ts \
			--elf "/usr/bin/$n@0x10000,0x100000" >/dev/null &&
		"$P" decode --elf-dir "$WORK/bin" --format=timeline --min-slice 0 -q \
			-o "$WORK/$n.pdts.json" "$WORK/$n.ts.data"
	ev meta "$WORK/$n.pdts.json" >"$WORK/$n.pdts.meta"
	res=$(ev times "$WORK/$n.pdts.json" | awk 'function chk(p, t) {
			if (p == 0) return
			d = t * 1000 - (5000000 + int((p - 1) * 3 / 2)); if (d < 0) d = -d
			if (d > 2) bad++; n++ }
		{ chk($1, $3); chk($2, $4) } END { print bad + 0, n + 0 }')
	check "$n perf.data with timestamps: $res slice times off/checked against perf's time conversion (us of perf time)" \
		eval '[ "${res% *}" = 0 ] && [ "${res#* }" -gt 0 ] && grep -q "^time_unit microseconds of perf time" "$WORK/$n.pdts.meta"'
	# data lost between two AUX records (flagged TRUNCATED): marked as
	# lost, a stretch with a duration in time, the open calls cut there;
	# the calls that ended before it are the executed ones
	# (periodic sync: decoding resumes after the loss)
	"$P" encode --pcs "$WORK/$n.pcs" --elf "$WORK/$n" --priv u --ts --sync-mode msgs \
		--sync-max 2 -o "$WORK/$n.pdsync.bin"
	size=$(stat -c %s "$WORK/$n.pdsync.bin")
	"$PDT" --write "$WORK/$n.lose.data" --trace "$WORK/$n.pdsync.bin" --chunks 3 --ts \
		--lose $((size / 5)) --elf "/usr/bin/$n@0x10000,0x100000" >/dev/null &&
		"$P" decode --elf-dir "$WORK/bin" --format=timeline --min-slice 0 -q \
			-o "$WORK/$n.lose.json" "$WORK/$n.lose.data"
	at=$(grep -o '"cat":"lost","ph":"i",[^}]*' "$WORK/$n.lose.json" | head -1 |
		sed -n 's/.*"begin_insn":\([0-9]*\).*/\1/p')
	# (the stretch is "not decoded" when the truncated record ends inside
	# a message, which is an error first: where the cut falls depends on
	# the program's code, so on the cross compiler that built it)
	gap=$(grep -oE '"name":"(trace lost|not decoded)","cat":"(lost|error)","ph":"X","ts":[0-9.]*,"dur":[0-9.]*' \
		"$WORK/$n.lose.json" | head -1 | sed 's/.*"dur"://')
	ncut=$(grep -c '"cut":' "$WORK/$n.lose.json")
	ev slices "$WORK/$n.lose.json" | awk -v at="${at:-0}" '$2 <= at' |
		awk -v f=4 -f "$E2E/sym-canon.awk" "$WORK/$n.syms" - | sort -k1,1n -k3,3n >"$WORK/$n.lose.sl"
	if [ -n "$at" ] && [ -n "$gap" ] && [ "${gap%.*}" -gt 0 ] && [ "$ncut" -gt 0 ] &&
	   awk -v at="$at" '$2 < at' "$WORK/$n.slices" | cmp -s - <(awk -v at="$at" '$2 < at' "$WORK/$n.lose.sl"); then
		ok "$n perf.data with lost data: marked at instruction $at, a stretch of $gap us lost or not decoded, $ncut calls cut there, the $(awk -v at="$at" '$2 < at' "$WORK/$n.lose.sl" | wc -l) calls that ended before it as executed"
	else
		not_ok "$n perf.data with lost data: mark at '$at', stretch '$gap', $ncut cut, calls before it: $(awk -v at="${at:-0}" '$2 < at' "$WORK/$n.slices" | diff - <(awk -v at="${at:-0}" '$2 < at' "$WORK/$n.lose.sl") | grep -c '^[<>]') differ"
	fi
else
	skip "perf.data timeline" "no perfdata_test (make tests) or no ground truth"
fi

# A damaged trace: the stretch that did not decode is marked, the frames
# open there are cut, the rest still drawn.
if [ -f "$WORK/$n.htm.bin" ]; then
	d=$WORK/damaged.bin
	cp "$WORK/$n.htm.bin" "$d"
	size=$(stat -c %s "$d")
	printf '\x55%.0s' $(seq 48) | dd of="$d" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
	"$P" decode --elf "$WORK/$n" --format=timeline -q -o "$WORK/damaged.json" "$d"
	res=$(ev meta "$WORK/damaged.json" | awk '$1 == "decode_errors" { print "errors", $2 }')
	cats=$(ev cats "$WORK/damaged.json" | awk '$1 == "error" { print "marks", $2 }')
	cut=$(grep -c '"cut":' "$WORK/damaged.json")
	gap=$(grep -c '"name":"not decoded","cat":"error","ph":"X"' "$WORK/damaged.json")
	if [ -n "$res" ] && [ "${res#errors }" -gt 0 ] && [ "${cats#marks }" = "${res#errors }" ] &&
	   [ "$cut" -gt 0 ] && [ "$gap" -gt 0 ]; then
		ok "damaged trace: valid JSON, $res with as many error marks, $gap stretch(es) not decoded, $cut slices cut there"
	else
		not_ok "damaged trace: '$res' '$cats', $gap undecoded stretches, $cut cut slices"
	fi
fi

# Without symbols (a raw binary image): each call named by its entry
# address, the ones the ground truth names by symbol
n=traps-notimer-g
if [ -f "$WORK/$n.slices" ] && [ -f "$WORK/$n.btm.bin" ]; then
	"${CROSS_COMPILE}objcopy" -O binary "$WORK/$n" "$WORK/$n.raw"
	"$P" decode --bin "$WORK/$n.raw@0x80000000" --ts --format=timeline --min-slice 0 -q \
		-o "$WORK/$n.raw.json" "$WORK/$n.btm.bin"
	ev slices "$WORK/$n.raw.json" | sort -k1,1n -k3,3n >"$WORK/$n.raw.sl"
	awk 'FNR == NR { a = $1; sub(/^0+/, "", a); addr[$2] = "0x" a; next }
	     { $4 = addr[$4]; print }' "$WORK/$n.syms" "$WORK/$n.slices" >"$WORK/$n.raw.gt"
	check "$n from a raw binary: $(wc -l <"$WORK/$n.raw.sl") call slices named by their entry addresses, as executed" \
		cmp -s "$WORK/$n.raw.sl" "$WORK/$n.raw.gt"
fi

# decode --until FUNC (the cut of a trigger snapshot): the flow up to the
# first instruction of FUNC, the first time it runs, and no further; the
# timeline ends there with a trigger marker. FUNC: the function first
# entered nearest the middle of the ground truth.
for n in recursion-O2-gc longjmp-O2-gc tailcall-O2-gc funcptr-Os-gc; do
	[ -f "$WORK/$n.htm.bin" ] || continue
	read -r idx fn < <(awk 'FNR == NR { a = $1; sub(/^0+/, "", a); f["0x" a] = $2; next }
		$1 == "pc" { k++; a = "0x" $2; print a >"/dev/stderr"
			     if ((a in f) && !(a in seen)) { seen[a] = k; name[a] = f[a] } }
		END { best = -1
		      for (a in seen) {
			d = seen[a] - k / 2; if (d < 0) d = -d
			if (name[a] != "main" && name[a] != "_start" && (best < 0 || d < best)) {
				best = d; bi = seen[a]; bn = name[a] } }
		      print bi, bn }' "$WORK/$n.syms" "$WORK/$n.pcl" 2>"$WORK/$n.until.want")
	"$P" decode --elf "$WORK/$n" --until "$fn" -o "$WORK/$n.until.pc" "$WORK/$n.htm.bin" \
		2>"$WORK/$n.until.err"
	"$P" decode --elf "$WORK/$n" --until "$fn" --format=timeline -o "$WORK/$n.until.json" \
		"$WORK/$n.htm.bin" 2>/dev/null
	mark=$(ev trigger "$WORK/$n.until.json" | tr '\n' ' ')
	check "$n: decode --until $fn: the first $idx instructions of the ground truth, ending at $fn's first; the timeline's trigger marker there ($mark)" \
		eval '[ ! -s "$WORK/$n.until.err" ] && [ -n "$fn" ] &&
		      cmp -s "$WORK/$n.until.pc" <(head -n "$idx" "$WORK/$n.until.want") &&
		      [ "$mark" = "$idx $(tail -1 "$WORK/$n.until.pc") $fn end $idx " ]'
done
"$P" decode --elf "$WORK/recursion-O2-gc" --until no_such_function -o /dev/null \
	"$WORK/recursion-O2-gc.htm.bin" 2>"$WORK/until-none.err"
check "decode --until a symbol no image has: the whole trace, and stderr says so" \
	grep -q "not reached (no image has that symbol)" "$WORK/until-none.err"

# --time insn on a trace with timestamps: the instruction count is the axis
n=recursion-O2-gc
if [ -f "$WORK/$n.btm.bin" ]; then
	"$P" decode --elf "$WORK/$n" --ts --time insn --format=timeline -q -o "$WORK/insn.json" \
		"$WORK/$n.btm.bin"
	check "--time insn: otherData says so and every slice starts at its instruction count" \
		eval 'ev meta "$WORK/insn.json" | grep -q "^time_axis retired instructions$" &&
		      ev times "$WORK/insn.json" | awk "\$1 != \$3 || \$2 != \$4 || \$5 != \"-\" { bad++ } END { exit bad > 0 }"'
fi

[ "$TAP_FAILED" = 0 ]
