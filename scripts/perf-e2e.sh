#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# End to end (TAP): "perf record -e ntrace//u" of a user program in the
# guest with the N-Trace QEMU model and the ntrace driver, the perf.data
# carried out on the export disk, then decoded on the host by perf-ntrace.
#
# Truth: the program's instruction flow recorded by QEMU user mode
# (tools/perf-ntrace/tests/gt, "loop-O2-g"). The C library start-up before
# main depends on the environment (auxv, argv, envp differ between
# qemu-riscv64 and the guest), so the check is on the flow from main to
# exit, which must be identical instruction for instruction; the decoded
# flow must also start at _start and end in _exit.
# Also: the guest's own (patched, static) perf report -D and the patched
# host perf read the file, the host perf lists the same records as our
# reader.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

pass() { echo "ok - perf-e2e: $*"; }
fail() { echo "not ok - perf-e2e: $*"; }

prog=loop-O2-g
gt=$NTRACE_TOP/build/gt
pn=$NTRACE_TOP/tools/perf-ntrace
B=$NTRACE_TOP/build/perf-ntrace
mkdir -p "$NTRACE_TOP/build/perf-e2e"
tmp=$(mktemp -d "$NTRACE_TOP/build/perf-e2e/run.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$gt/$prog.pcs" ]; then
	bash "$pn/tests/gt/build-suite.sh" >"$tmp/gt.log" 2>&1 ||
		{ fail "ground truth (tests/gt/build-suite.sh): $(tail -3 "$tmp/gt.log")"; exit 0; }
fi
make -s -C "$pn" all >"$tmp/make.log" 2>&1 || { fail "perf-ntrace builds"; exit 0; }
cp "$B/perf-ntrace" "$B/tests/perfdata_test" "$tmp/" &&
	cc -O2 -std=c11 -D_GNU_SOURCE -I"$pn/include" -o "$tmp/rt-tool" \
		"$pn/tests/roundtrip/rt-tool.c" "$B/libntrace.a" ||
	{ fail "test tools build"; exit 0; }
mkdir -p "$tmp/root/usr/bin"
cp "$gt/$prog" "$tmp/root/usr/bin/ntloop"
cp "$gt/$prog.pcs" "$tmp/truth.pcs"

cat >"$tmp/run.list" <<'EOF'
# scripts/perf-e2e.sh
/usr/bin/perf record -e ntrace//u -o /tmp/export/btm.data -- /usr/bin/ntloop
/usr/bin/perf record -e ntrace/htm=1,iret=1/u -o /tmp/export/htm.data -- /usr/bin/ntloop
/usr/bin/perf record -Se -e ntrace/htm=1/u -o /tmp/export/snap.data -- /usr/bin/ntloop
/usr/bin/perf report -D -i /tmp/export/btm.data >/tmp/export/btm.report
EOF
if ! bash "$NTRACE_TOP/scripts/initramfs.sh" --add "$tmp/run.list=/etc/ntrace/run.list" \
	--add "$tmp/root/usr/bin/ntloop=/usr/bin/ntloop" -o "$tmp/initrd.gz" >"$tmp/initrd.log" 2>&1; then
	fail "initramfs with perf, the driver and the program: $(tail -3 "$tmp/initrd.log")"
	exit 0
fi
start=$SECONDS
bash "$NTRACE_TOP/scripts/guest.sh" --config ntrace --mode run --initrd "$tmp/initrd.gz" \
	--export "$tmp/out" --timeout 600 --console "$tmp/console.log" >"$tmp/guest.log" 2>&1
st=$?
if [ $st -eq 0 ] && [ -s "$tmp/out/btm.data" ] && [ -s "$tmp/out/htm.data" ] &&
   [ -s "$tmp/out/snap.data" ]; then
	pass "guest recorded three perf.data files with perf record -e ntrace//u (full trace BTM, HTM; snapshot at exit) ($((SECONDS - start)) s)"
else
	fail "guest run (exit $st): $(grep -E 'run end|error|No such' "$tmp/guest.log" | head -5 | tr '\n' ' ')"
	exit 0
fi

if grep -q 'RISC-V N-Trace version 1' "$tmp/out/btm.report" &&
   grep -q 'PERF_RECORD_AUXTRACE size' "$tmp/out/btm.report"; then
	pass "the guest's perf report -D reads the ntrace AUXTRACE_INFO and AUXTRACE records"
else
	fail "the guest's perf report -D reads the ntrace records"
fi

if hostperf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host 2>"$tmp/hp.err"); then
	"$hostperf" report -D -i "$tmp/out/btm.data" --stdio >"$tmp/d.out" 2>"$tmp/d.err"
	sed -n 's/^\(0x[0-9a-f]*\)@.* \[\(0x[0-9a-f]*\)\]: event: \([0-9]*\)$/\1 \2 \3/p' \
		"$tmp/d.out" | sort -k1,1 >"$tmp/perf.list"
	"$tmp/perfdata_test" --list "$tmp/out/btm.data" | cut -d' ' -f1-3 | sort -k1,1 >"$tmp/our.list"
	if [ -s "$tmp/our.list" ] && cmp -s "$tmp/perf.list" "$tmp/our.list"; then
		pass "host perf report -D and our reader list the same $(wc -l <"$tmp/our.list") records"
	else
		fail "host perf report -D and our reader differ: $(diff "$tmp/perf.list" "$tmp/our.list" | head -4 | tr '\n' ' ')"
	fi
	if "$hostperf" script -i "$tmp/out/htm.data" >/dev/null 2>"$tmp/ps.err"; then
		pass "host perf script accepts the recorded file"
	else
		fail "host perf script: $(head -c 200 "$tmp/ps.err")"
	fi
else
	fail "host perf builds: $(tail -2 "$tmp/hp.err" | tr '\n' ' ')"
fi

"$tmp/rt-tool" expect "$tmp/truth.pcs" "$tmp/truth.pc" --priv u "$tmp/root/usr/bin/ntloop" ||
	{ fail "ground-truth PC list"; exit 0; }
sym() { riscv64-linux-gnu-nm "$tmp/root/usr/bin/ntloop" | awk -v s="$1" '$3 == s { print "0x" substr($1, match($1, /[1-9a-f]/)) }'; }
main=$(sym main) exit_=$(sym exit) start_=$(sym _start) _exit=$(sym _exit)
seg() {	# main .. exit
	awk -v a="$main" -v b="$exit_" '$1 == a { on = 1 } on { print } on && $1 == b { exit }' "$1"
}
seg "$tmp/truth.pc" >"$tmp/truth.seg"
# snap: perf record -Se, one snapshot of the AUX area (overwrite mode) at exit
for mode in btm htm snap; do
	"$tmp/perf-ntrace" decode --root "$tmp/root" -o "$tmp/$mode.pc" "$tmp/out/$mode.data" \
		2>"$tmp/$mode.err"
	dst=$?
	"$tmp/perf-ntrace" decode --root "$tmp/root" --format=stats -o "$tmp/$mode.st" \
		"$tmp/out/$mode.data" 2>/dev/null
	seg "$tmp/$mode.pc" >"$tmp/$mode.seg"
	n=$(wc -l <"$tmp/$mode.pc")
	if [ $dst -eq 0 ] && [ ! -s "$tmp/$mode.err" ] && grep -q '^errors: 0$' "$tmp/$mode.st" &&
	   [ -s "$tmp/truth.seg" ] && cmp -s "$tmp/$mode.seg" "$tmp/truth.seg" &&
	   [ "$(head -1 "$tmp/$mode.pc")" = "$start_" ] &&
	   grep -q "^$_exit\$" <(tail -5 "$tmp/$mode.pc"); then
		pass "$mode: $n instructions decoded from _start to _exit; main..exit ($(wc -l <"$tmp/$mode.seg")) = QEMU's ground truth; $(grep -E '^(bytes|bits_per_instruction):' "$tmp/$mode.st" | tr '\n' ' ')"
	else
		fail "$mode: exit $dst, $n instructions, segment $(wc -l <"$tmp/$mode.seg") vs $(wc -l <"$tmp/truth.seg"): $(head -c 300 "$tmp/$mode.err")"
	fi
done
exit 0
