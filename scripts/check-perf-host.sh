#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The host perf's distribution features, as TAP (run by scripts/check-perf.sh
# with the perf scripts/perf.sh --host built). Usage: check-perf-host.sh PERF
#  - perf version --build-options: libpython, libslang, cxx-demangle and
#    libcapstone on; perf annotate's RISC-V disassembler is
#    riscv64-linux-gnu-objdump;
#  - a C++ program recorded with task-clock (the machine may have no
#    hardware counters): its templated member function demangled in perf
#    report, mangled with --no-demangle;
#  - perf script -s with a small python script counts every sample;
#  - perf's export-to-sqlite.py writes an SQLite database with every
#    sample, the demangled symbol and the call paths;
#  - perf script report flamegraph (JSON, and HTML through a local
#    template, no download) and perf script report gecko (--save-only);
#  - perf report's TUI in tmux: the screen lists the symbol, 'a' annotates
#    it, 'q' quits;
#  - RISC-V: an N-Trace recording of a riscv64 program (synthesised from
#    the program's ground truth as tools/perf-ntrace/tests/perfdata.sh
#    does, HEADER_ARCH riscv64) decoded instruction by instruction and
#    annotated with RISC-V mnemonics from riscv64-linux-gnu-objdump, which
#    perf picks by itself for a riscv64 recording (loop branch targets
#    right, every function annotated without a crash), each retired
#    instruction disassembled by capstone (perf script --insn-trace=disasm)
#    as objdump -M no-aliases disassembles it, and its call chains in a
#    flame graph.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

perf=${1:?usage: check-perf-host.sh PERF}
here=$NTRACE_TOP/scripts/perf-host
scratch tmp
TAP_PREFIX="perf: host perf: "
exec_path=$("$perf" --exec-path)

# ---- build options ----
opts=$("$perf" version --build-options 2>&1)
on() { grep -Eq "^ *$1: \[ on  \]" <<<"$opts"; }
missing=()
for f in libpython libslang cxx-demangle libtraceevent libelf dwarf zstd auxtrace; do
	on "$f" || missing+=("$f")
done
if [ ${#missing[@]} = 0 ]; then
	ok "perf version --build-options: libpython, libslang, cxx-demangle on (and libtraceevent, libelf, dwarf, zstd, auxtrace)"
else
	not_ok "perf version --build-options: off: ${missing[*]}"
fi
objdump=riscv64-linux-gnu-objdump
if command -v $objdump >/dev/null && on libcapstone; then
	ok "RISC-V disassemblers: $objdump ($($objdump --version | head -1)) for annotate; libcapstone on (capstone 5, scripts/capstone.sh) for perf script -F +disasm"
else
	not_ok "RISC-V disassemblers: $objdump installed and libcapstone on: $(grep -E '^ *libcapstone:' <<<"$opts")"
fi
if [ -f "$exec_path/scripts/python/export-to-sqlite.py" ] &&
   [ -x "$exec_path/scripts/python/bin/flamegraph-report" ]; then
	ok "perf's python scripts are installed in its exec path ($(ls "$exec_path/scripts/python/bin" | grep -c -- '-report$') reports)"
else
	not_ok "perf's python scripts in its exec path $exec_path"
fi

# ---- a host recording ----
sym='ntrace_demo::Spinner<long>::spin(long)'
mangled=_ZN11ntrace_demo7SpinnerIlE4spinEl
if ! g++ -O1 -g -fno-omit-frame-pointer -o "$tmp/spin" "$here/spin.cpp" 2>"$tmp/err"; then
	not_ok "g++ builds the C++ test program: $(head -c 300 "$tmp/err")"
	exit 0
fi
if ! (cd "$tmp" && "$perf" record -q -e task-clock -g -o perf.data ./spin 300000000) \
	>"$tmp/rec.out" 2>&1; then
	not_ok "perf record -e task-clock -g: $(head -c 300 "$tmp/rec.out")"
	exit 0
fi
nsamples=$("$perf" script -i "$tmp/perf.data" -F ip -G 2>/dev/null | grep -c .)
if [ "${nsamples:-0}" -ge 50 ]; then
	ok "perf record -e task-clock -g of a C++ program: $nsamples samples"
else
	not_ok "perf record -e task-clock -g of a C++ program: ${nsamples:-0} samples"
fi
"$perf" report -i "$tmp/perf.data" --stdio --no-children --sort sym >"$tmp/rep.txt" 2>/dev/null
"$perf" report -i "$tmp/perf.data" --stdio --no-children --sort sym --no-demangle \
	>"$tmp/rep-raw.txt" 2>/dev/null
if grep -qF "$sym" "$tmp/rep.txt" && grep -qF "$mangled" "$tmp/rep-raw.txt" &&
   ! grep -qF "$mangled" "$tmp/rep.txt"; then
	ok "perf report demangles $mangled to $sym ($(grep -F "$sym" "$tmp/rep.txt" | awk '{ print $1 }' | head -1))"
else
	not_ok "perf report demangles $mangled: $(grep -E 'spin|_ZN' "$tmp/rep.txt" | head -2 | tr '\n' ' ')"
fi

# ---- python scripting ----
out=$("$perf" script -i "$tmp/perf.data" -s "$here/count.py" 2>"$tmp/err")
ntop=$("$perf" script -i "$tmp/perf.data" -F ip,sym -G 2>/dev/null | awk '{ $1 = ""; print substr($0, 2) }' |
	grep -cxF "$sym")
if [ "$out" = "count.py: $nsamples samples, top $sym ($ntop)" ]; then
	ok "perf script -s count.py: $out"
else
	not_ok "perf script -s count.py: '$out' ($nsamples samples, $ntop in $sym): $(head -c 200 "$tmp/err")"
fi

# perf's export-to-sqlite.py (PySide2's QtSql and Qt's SQLite driver)
db=$tmp/perf.db
"$perf" script -i "$tmp/perf.data" -s "$exec_path/scripts/python/export-to-sqlite.py" \
	"$db" all callchains >"$tmp/sql.out" 2>&1
q() { sqlite3 "$db" "$1" 2>/dev/null; }
if [ -s "$db" ] && [ "$(q 'select count(*) from samples where id > 0')" = "$nsamples" ] &&
   [ "$(q "select count(*) from symbols where name = '$sym'")" = 1 ] &&
   [ "$(q 'select count(*) from call_paths')" -gt 1 ]; then
	ok "export-to-sqlite.py writes an SQLite database: $nsamples samples, $(q 'select count(*) from symbols') symbols ($sym among them), $(q 'select count(*) from call_paths') call paths"
else
	not_ok "export-to-sqlite.py: $(tail -3 "$tmp/sql.out" | tr '\n' ' ' | head -c 300)"
fi

# ---- perf script report flamegraph / gecko (run where perf.data is) ----
(cd "$tmp" && "$perf" script report flamegraph --format json -o fg.json) >"$tmp/fg.out" 2>&1
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d.get("children") or d.get("c")))' \
	"$tmp/fg.json" 2>/dev/null && grep -qF "$sym" "$tmp/fg.json"; then
	ok "perf script report flamegraph --format json: $(stat -c %s "$tmp/fg.json") bytes of stacks, $sym in them"
else
	not_ok "perf script report flamegraph --format json: $(tail -3 "$tmp/fg.out" | tr '\n' ' ' | head -c 300)"
fi
# HTML needs d3-flame-graph's template, which Debian 12 does not package:
# --template takes a local copy (here a stand-in with the placeholders the
# script fills); without one it asks before downloading from a CDN.
printf '<html><script>var o = /** @options_json **/; var s = [/** @flamegraph_json **/];</script></html>\n' \
	>"$tmp/template.html"
(cd "$tmp" && "$perf" script report flamegraph --template "$tmp/template.html" -o fg.html) \
	</dev/null >"$tmp/fgh.out" 2>&1
if grep -qF "$sym" "$tmp/fg.html" 2>/dev/null && ! grep -q '@flamegraph_json' "$tmp/fg.html"; then
	ok "perf script report flamegraph --template FILE: HTML with the stacks, offline"
else
	not_ok "perf script report flamegraph --template FILE: $(tail -3 "$tmp/fgh.out" | tr '\n' ' ' | head -c 300)"
fi
(cd "$tmp" && "$perf" script report flamegraph -o fg2.html) </dev/null >"$tmp/fg2.out" 2>&1
if [ ! -e "$tmp/fg2.html" ] && grep -q 'does not exist' "$tmp/fg2.out"; then
	ok "perf script report flamegraph without a template and without a terminal stops before downloading"
else
	not_ok "perf script report flamegraph without a template: $(tail -2 "$tmp/fg2.out" | tr '\n' ' ' | head -c 300)"
fi
(cd "$tmp" && "$perf" script report gecko --save-only gecko.json) >"$tmp/gk.out" 2>&1
gk=$(python3 - "$tmp/gecko.json" "$sym" <<'EOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
n = sum(len(t["samples"]["data"]) for t in d["threads"])
names = [s for t in d["threads"] for s in t["stringTable"]]
print(n, len(d["threads"]), int(any(sys.argv[2] in s for s in names)))
EOF
)
read -r gk_n gk_t gk_sym <<<"$gk"
if [ "${gk_n:-}" = "$nsamples" ] && [ "${gk_sym:-}" = 1 ]; then
	ok "perf script report gecko --save-only: a Firefox profiler JSON with $gk_n samples in $gk_t threads, $sym among the functions"
else
	not_ok "perf script report gecko: '$gk' ($nsamples samples): $(tail -3 "$tmp/gk.out" | tr '\n' ' ' | head -c 300)"
fi

# ---- the TUI, in tmux ----
# perf report in a tmux session of our own server (-L): the screen is read
# with capture-pane, keys sent with send-keys.
sock=ntrace-check-$$
tm() { tmux -L "$sock" "$@"; }
screen() { tm capture-pane -p -t tui 2>/dev/null; }
wait_for() {	# TEXT: the screen shows TEXT within 20 s
	local i
	for i in $(seq 100); do
		screen | grep -qF "$1" && return 0
		sleep 0.2
	done
	return 1
}
tui_start() {	# perf report ARGS... in $tmp
	local a q=
	for a in "$@"; do q+=" '$a'"; done
	tm new-session -d -s tui -x 160 -y 40 \
		"cd '$tmp' && TERM=screen '$perf' report$q; echo perf report exited: \$?; sleep 30"
}
tui_quit() {	# NAME: q from the annotate view, q from the report
	tm send-keys -t tui q
	wait_for 'Samples: ' && tm send-keys -t tui q
	if wait_for 'perf report exited: 0'; then
		ok "$1: q quits"
	else
		not_ok "$1: q quits: $(screen | grep . | head -3 | tr '\n' ' ')"
	fi
	tm kill-server 2>/dev/null
}
have_tmux=0
command -v tmux >/dev/null && have_tmux=1
if [ $have_tmux = 0 ]; then
	skip "perf report TUI" "no tmux"
else
	tui_start -i perf.data --no-children
	if wait_for "$sym" && screen | grep -q "^Samples: .* of event 'task-clock'"; then
		ok "perf report TUI in tmux lists $sym under the Samples header"
		tm send-keys -t tui a
		if wait_for 'Percent' || wait_for 'imul'; then
			ok "perf report TUI: 'a' annotates it ($(screen | grep -Eo '\b(imul|lea|add|cmp|jne|ret)\b' | sort -u | xargs))"
		else
			not_ok "perf report TUI: 'a' annotates: $(screen | head -5 | tr '\n' ' ')"
		fi
		tui_quit "perf report TUI"
	else
		not_ok "perf report TUI in tmux: $(screen | head -5 | tr '\n' ' ')"
		tm kill-server 2>/dev/null
	fi
fi

# ---- RISC-V: an N-Trace recording, decoded and annotated ----
nt=$tmp/nt
if ! make -C "$NTRACE_TOP/tools/perf-ntrace" -s B="$nt" "$nt/tools/gt-tool" "$nt/tools/rt-tool" \
	"$nt/tests/perfdata_test" >"$tmp/nt.log" 2>&1; then
	not_ok "the perf-ntrace test tools build: $(tail -3 "$tmp/nt.log" | tr '\n' ' ')"
	exit 0
fi
mkdir -p "$tmp/root/usr/bin"
cat >"$tmp/sum.c" <<'EOF'
static volatile long sink;

__attribute__((noinline)) long sum_squares(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i * i;
	return s;
}

int main(void)
{
	sink = sum_squares(2000);
	return 0;
}
EOF
rv=$tmp/root/usr/bin/sum
if ! record_user_gt "$nt/tools/gt-tool" "$tmp/sum.c" "$rv" "$tmp/sum.pcs" ||
   ! "$nt/tools/rt-tool" expect "$tmp/sum.pcs" "$tmp/sum.expect" --priv u "$rv" ||
   ! "$nt/tools/rt-tool" encode btm "$tmp/sum.pcs" "$tmp/sum.bin" --priv u "$rv" ||
   ! "$nt/tests/perfdata_test" --write "$tmp/sum.data" --trace "$tmp/sum.bin" --chunks 1 \
	--elf /usr/bin/sum@0x10000,0x100000 ||
   ! python3 "$here/set-arch.py" "$tmp/sum.data" riscv64; then
	not_ok "an N-Trace perf.data of a riscv64 program (ground truth, encoder, perfdata_test, set-arch.py)"
	exit 0
fi
n_exp=$(grep -c . "$tmp/sum.expect")
"$perf" script -i "$tmp/sum.data" --symfs "$tmp/root" --itrace=i1i -F ip >"$tmp/sum.ip" 2>"$tmp/err"
if [ "$(awk '{ print "0x" $1 }' "$tmp/sum.ip" | sed 's/^0x0*/0x/')" = "$(sed 's/^0x0*/0x/' "$tmp/sum.expect")" ]; then
	ok "riscv64 N-Trace recording: perf script --itrace=i1i gives the $n_exp retired instructions"
else
	not_ok "riscv64 N-Trace recording: perf script --itrace=i1i: $(grep -c . "$tmp/sum.ip") of $n_exp instructions: $(head -c 200 "$tmp/err")"
fi
# --insn-trace (i0ns): every instruction, as with Intel PT, with its bytes
# as objdump shows them
"$perf" script -i "$tmp/sum.data" --symfs "$tmp/root" --insn-trace -F ip,insn \
	>"$tmp/sum.insn" 2>"$tmp/err"
$objdump -d "$rv" >"$tmp/sum.dis"
bad=$(python3 - "$tmp/sum.insn" "$tmp/sum.dis" "$tmp/sum.expect" <<'PY' 2>&1
import re, sys
code = {}
for l in open(sys.argv[2]):
	m = re.match(r"^ +([0-9a-f]+):\t([0-9a-f]{4}(?:[0-9a-f]{4})?) ", l)
	if m:
		w = m.group(2)
		code[int(m.group(1), 16)] = [w[i:i + 2] for i in range(len(w) - 2, -1, -2)]
got = []
for l in open(sys.argv[1]):
	m = re.match(r"^ *([0-9a-f]+) insn:((?: [0-9a-f]{2})+)\s*$", l)
	# the decoder's error at the trace's sudden end ('e' of i0nse) is no instruction
	if m or "instruction trace error" not in l:
		got.append((int(m.group(1), 16), m.group(2).split()) if m else (None, l.strip()))
want = [int(l, 16) for l in open(sys.argv[3]) if l.strip()]
if [a for a, _ in got] != want:
	other = [l for a, l in got if a is None]
	print("%d lines for %d instructions%s" % (len(got), len(want),
	      ", not an instruction: " + other[0] if other else ""))
bytes_bad = [a for a, b in got if a is not None and code.get(a) != b]
if bytes_bad:
	print("%d lines whose bytes are not objdump's, first at %#x" % (len(bytes_bad), bytes_bad[0]))
PY
)
if [ -z "$bad" ] && [ -s "$tmp/sum.insn" ]; then
	ok "riscv64 N-Trace recording: perf script --insn-trace -F +insn lists the $n_exp retired instructions, each with objdump's bytes"
else
	not_ok "riscv64 N-Trace recording: perf script --insn-trace -F +insn: $bad $(head -c 200 "$tmp/err")"
fi
# --insn-trace=disasm (-F +disasm): capstone's disassembly of every
# retired instruction (patch 0023), the instruction objdump shows at its
# address (riscv-disasm.py puts both in one form: pseudo-instructions
# expanded, numbers by value, branch targets absolute)
"$perf" script -i "$tmp/sum.data" --symfs "$tmp/root" --insn-trace=disasm >"$tmp/sum.asm" 2>"$tmp/err"
$objdump -d -M no-aliases "$rv" >"$tmp/sum.na"
if res=$(python3 "$here/riscv-disasm.py" "$tmp/sum.asm" "$tmp/sum.na" "$tmp/sum.expect" 2>&1); then
	ok "riscv64 N-Trace recording: perf script --insn-trace=disasm: $res"
else
	not_ok "riscv64 N-Trace recording: perf script --insn-trace=disasm is not objdump's disassembly: $res $(head -c 200 "$tmp/err")"
fi
"$perf" annotate -i "$tmp/sum.data" --symfs "$tmp/root" --itrace=i1i --stdio -v sum_squares \
	>"$tmp/ann.txt" 2>"$tmp/ann.err"
# the mnemonics objdump gives for the function, and its retired instructions
want=$($objdump -d --no-show-raw-insn --disassemble=sum_squares "$rv" |
	awk -F'\t' '/^ +[0-9a-f]+:\t/ { split($2, m, " "); print m[1] }' | sort -u)
read -r lo size < <(${CROSS_COMPILE}nm -S "$rv" | awk '$4 == "sum_squares" { print $1, $2 }')
n_fn=$(python3 -c 'import sys
lo, hi = int(sys.argv[1], 16), int(sys.argv[1], 16) + int(sys.argv[2], 16)
print(sum(lo <= int(l, 16) < hi for l in open(sys.argv[3])))' "${lo:-0}" "${size:-0}" "$tmp/sum.expect")
# "    24.98 :   10654:  mul     a4,a5,a5"
have=$(awk -F: 'NF >= 3 && $2 ~ /^ +[0-9a-f]+$/ { split($3, m, " "); print m[1] }' "$tmp/ann.txt" | sort -u)
miss=$(comm -23 <(echo "$want") <(echo "$have") | xargs)
loop=$(awk -F: 'NF >= 3 && $2 ~ /^ +[0-9a-f]+$/ && $1 + 0 > 20 { n++; p += $1 } END { printf "%d instructions, %.2f%%", n, p }' "$tmp/ann.txt")
if grep -q "Executing: $objdump " "$tmp/ann.err" && [ -n "$want" ] && [ -z "$miss" ] &&
   grep -q "of sum for instructions ($n_fn samples" "$tmp/ann.txt"; then
	ok "riscv64 N-Trace recording: perf annotate runs $objdump by itself; sum_squares' $n_fn retired instructions over $(echo "$want" | xargs), the loop $loop"
else
	not_ok "riscv64 N-Trace recording: perf annotate sum_squares ($n_fn instructions): missing '$miss'; $(grep -E 'samples|objdump' "$tmp/ann.txt" "$tmp/ann.err" | head -2 | tr '\n' ' ')"
fi
# the loop's branch goes back to its head, 0xa bytes into the function
# (patch 0015: "a5" was read as the target 0xa5)
"$perf" annotate -i "$tmp/sum.data" --symfs "$tmp/root" --itrace=i1i --stdio2 sum_squares \
	>"$tmp/ann2.txt" 2>/dev/null
if grep -Eq '↑ bne +a[0-7],a[0-7],a *$' "$tmp/ann2.txt" && grep -Eq '^ *[0-9.]+ +a: +mul ' "$tmp/ann2.txt"; then
	ok "riscv64 N-Trace recording: perf annotate --stdio2 shows the loop's bne jumping back to its head (offset a)"
else
	not_ok "riscv64 N-Trace recording: the loop's bne in perf annotate --stdio2: $(grep -E 'bne|mul' "$tmp/ann2.txt" | tr '\n' ' ' | tr -s ' ')"
fi
# a flame graph of the trace: call chains from the decoded calls
"$perf" script -i "$tmp/sum.data" --symfs "$tmp/root" --itrace=i100ig \
	-s "$exec_path/scripts/python/flamegraph.py" -- -f json -o "$tmp/rvfg.json" >/dev/null 2>&1
fg=$(python3 - "$tmp/rvfg.json" <<'EOF' 2>&1
import json, sys
def walk(n, path):
	p = path + [n["n"]]
	if n["n"] == "sum_squares":
		print(" > ".join(p[2:]), n["v"])
	for c in n["c"]:
		walk(c, p)
walk(json.load(open(sys.argv[1])), [])
EOF
)
# the samples that fall in it: every 100th retired instruction of the
# ground truth (how many of its 8005 depends on the C library's start-up
# before main, which depends on the environment: 80 or 81)
n_fg=$(python3 -c 'import sys
lo, hi = int(sys.argv[1], 16), int(sys.argv[1], 16) + int(sys.argv[2], 16)
pcs = [int(l, 16) for l in open(sys.argv[3]) if l.strip()]
print(sum(lo <= pcs[i] < hi for i in range(99, len(pcs), 100)))' "${lo:-0}" "${size:-0}" "$tmp/sum.expect")
if [ "$fg" = "_start > __libc_start_main_impl > __libc_start_call_main > main > sum_squares $n_fg" ]; then
	ok "riscv64 N-Trace recording: flamegraph.py --itrace=i100ig: $fg samples (every 100th instruction of the ground truth)"
else
	not_ok "riscv64 N-Trace recording: flamegraph.py --itrace=i100ig: '$fg' (want $n_fg samples in sum_squares under main)"
fi
# the TUI on the trace: the top function annotated in RISC-V
if [ $have_tmux = 1 ]; then
	tui_start -i sum.data --symfs root --itrace=i1i --no-children --sort sym
	top=$("$perf" report -i "$tmp/sum.data" --symfs "$tmp/root" --itrace=i1i --no-children \
		--sort sym --stdio 2>/dev/null | awk '/%/ { print $3; exit }')
	# perf's warning boxes (the file has a LOST record; no kallsyms) wait
	# for a key each
	for i in $(seq 40); do
		if screen | grep -q 'Warning:'; then
			tm send-keys -t tui Enter
		elif screen | grep -q '^Available samples'; then
			# the events with samples: the N-Trace PMU's, dummy:u and
			# the decoder's instructions; go down to the last
			tm send-keys -t tui Down Down Enter
		elif screen | grep -q '^Samples: '; then
			break
		fi
		sleep 0.5
	done
	if wait_for "$top" && screen | grep -q "^Samples: .* of event 'instructions'"; then
		tm send-keys -t tui a
		wait_for 'Percent'
		sleep 1
		mn=$(screen | grep -Eo '\b(addi|addiw|auipc|ld|sd|lw|sw|bnez|beqz|bne|beq|li|mv|ret|jal)\b' | sort -u | xargs)
		if [ "$(wc -w <<<"$mn")" -ge 4 ] && ! screen | grep -Eq '\b(push|mov|lea|imul)\b'; then
			ok "perf report TUI on the riscv64 recording: 'a' annotates $top in RISC-V ($mn)"
		else
			not_ok "perf report TUI on the riscv64 recording: 'a' on $top: $(screen | grep . | head -6 | tr '\n' ' ')"
		fi
		tui_quit "perf report TUI on the riscv64 recording"
	else
		not_ok "perf report TUI on the riscv64 recording: $(screen | grep . | head -4 | tr '\n' ' ')"
		tm kill-server 2>/dev/null
	fi
fi
# every function of the recording (glibc's start-up code has branches to
# every register pair; patch 0014: a crash in map__objdump_2mem())
"$perf" annotate -i "$tmp/sum.data" --symfs "$tmp/root" --itrace=i1i --stdio >"$tmp/ann-all.txt" 2>/dev/null
st=$?
nfn=$(grep -c '^ *Percent *|' "$tmp/ann-all.txt")
if [ $st = 0 ] && [ "$nfn" -gt 20 ]; then
	ok "riscv64 N-Trace recording: perf annotate of all its $nfn functions exits 0"
else
	not_ok "riscv64 N-Trace recording: perf annotate of all functions: exit $st after $nfn functions"
fi
exit 0
