#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# End to end (TAP) on SiFive's pre-ratified blocks, as on the HiFive
# Premier P550 (the model's topo=p550, one hart, its encoder through the
# system funnel into the funnel's own system-memory sink): the driver binds
# sifive,trace-encoder0 / sifive,trace-funnel0, and
#   perf record --kcore -e ntrace/htm=1,sync_period=1,ts=1/ -- callsys
# (a v0 encoder has no privilege filter: user and kernel; teInstruction 6)
# is decoded by the host perf
# (perf-e2e-itrace.sh's checks of a --kcore recording) and must equal the
# model's ground-truth log, every record the encoder was given; its
# samples' times (the v0 unit's count placed on the time CSR by the
# record's ts_zero) lie between perf's first ITRACE_START and last AUX
# record, never going back (perf-e2e-itrace.sh's time checks). The
# messages are the sifive-v0 variant, known to the decoder only from the
# AUXTRACE_INFO record: perf report -D must show it, and perf-ntrace info
# in the guest the caps/ that produced it.
# Not iret=1 (teInstruction 7): a call counter takes every return for the
# return of the latest call, and callsys returns through longjmp, which no
# decoder can follow from such a trace (it decodes wrongly until the next
# synchronisation message; the first such run of this script differed from
# the ground truth at __longjmp's ret).
# NTRACE_E2E_KEEP=1 keeps the work directory under build/perf-e2e/p550/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TAP_PREFIX="perf-e2e-p550: "
config=ntrace-p550-smp1
variant=${NTRACE_KVARIANT:-guest}
pn=$NTRACE_TOP/tools/perf-ntrace
scratch tmp "$NTRACE_TOP/build/perf-e2e/p550" "${NTRACE_E2E_KEEP:-}" || exit 1

make -s -C "$NTRACE_TOP" guest-progs >"$tmp/cs.log" 2>&1 ||
	{ not_ok "callsys builds: $(head -3 "$tmp/cs.log")"; exit 0; }
mkdir -p "$tmp/root/usr/bin"
cp "$NTRACE_TOP/build/guest-progs/callsys" "$tmp/root/usr/bin/"

opts="--kcore -e ntrace/htm=1,sync_period=1,ts=1/"
start=$SECONDS
guest_run "$tmp" "$config" --kernel "$variant" --add "$tmp/root/usr/bin/callsys=/usr/bin/callsys" \
	--model-args "gt=$tmp/gt" --export "$tmp/out" --timeout 600 --console "$tmp/console.log" \
	>"$tmp/guest.log" 2>&1 <<EOF
# scripts/perf-e2e-p550.sh
/usr/bin/perf record $opts -o /tmp/export/kern.data -- /usr/bin/callsys >/tmp/export/kern.out
/usr/bin/perf report -D -i /tmp/export/kern.data >/tmp/export/rep.report
/usr/bin/perf-ntrace info >/tmp/export/info.txt
EOF
st=$?
if [ $st = 0 ] && [ -e "$tmp/out/kern.data" ]; then
	ok "guest ($variant kernel, $config) recorded perf record $opts -- callsys ($((SECONDS - start)) s)"
else
	not_ok "guest run (exit $st): $(grep -E 'run end|error|No such' "$tmp/guest.log" | head -3 | tr '\n' ' ')"
	exit 0
fi
cp "$tmp/console.log" "$NTRACE_TOP/build/perf-e2e/$variant-$config.console" 2>/dev/null
clean=$(awk -v cfg=ntrace -f "$NTRACE_TOP/guest/console-to-tap.awk" "$tmp/console.log" |
	grep 'kernel log clean')
case $clean in
"ok "*) ok "$variant kernel log clean while recording" ;;
*) not_ok "$variant kernel log: ${clean#*: }" ;;
esac
if grep -q 'sifive,trace-\|1 CPU(s) with N-Trace' "$tmp/console.log" &&
   grep -Eq 'variant[^0-9]+1' "$tmp/out/info.txt"; then
	ok "the driver binds the v0 blocks: perf-ntrace info shows variant 1"
else
	not_ok "perf-ntrace info in the guest: $(grep -i variant "$tmp/out/info.txt" | head -2 | tr '\n' ' ')"
fi
if grep -q 'variant 1 (SiFive pre-ratified v0)' "$tmp/out/rep.report"; then
	ok "the guest's perf report -D shows the AUXTRACE_INFO variant (SiFive pre-ratified v0)"
else
	not_ok "perf report -D: $(grep -m1 'protocol' "$tmp/out/rep.report")"
fi

if ! hostperf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host 2>"$tmp/hp.err"); then
	not_ok "host perf builds: $(tail -2 "$tmp/hp.err" | tr '\n' ' ')"
	exit 0
fi
# The truth: every record of the hart's log (the event traced only callsys,
# in user and kernel mode).
gtlog=$tmp/gt.hart0.txt
mkdir -p "$tmp/gtseg"
if [ ! -s "$gtlog" ]; then
	not_ok "ground-truth log $gtlog missing"
	exit 0
fi
awk -v out="$tmp/gtseg/kern" '!/^#/ { print $1, $2, $3 >(out ".flow"); if ($2 != 0) print $1 >(out ".pc") }' "$gtlog"
ok "ground-truth log: $(wc -l <"$tmp/gtseg/kern.pc") instructions, $(awk '$2 == 0' "$tmp/gtseg/kern.flow" | wc -l) traps"
bash "$NTRACE_TOP/scripts/perf-e2e-itrace.sh" "$hostperf" "$tmp" "$tmp/root" "kern:k:$tmp/gtseg/kern:ts"
