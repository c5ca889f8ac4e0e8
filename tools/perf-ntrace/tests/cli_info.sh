#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace info on a made-up sysfs tree (the guest's real one is checked
# by selftests/ntrace/ntrace_info_test.c): values are shown as sysfs has
# them, E-Trace attributes follow seed 000's "minus one" encodings, an
# encoder's output names the sink whose endpoint it points at, a caps file
# this perf-ntrace does not know is still shown, and no PMU gives status 1.
set -uo pipefail
. "$(dirname "$0")/../../../scripts/lib.sh"
PN=$PERF_NTRACE
scratch t
TAP_PREFIX="info: "

pmu=$t/sys/bus/event_source/devices/ntrace
mkdir -p "$pmu/caps" "$pmu/format"
echo 9 >"$pmu/type"
echo 0-1 >"$pmu/cpumask"
echo 2 >"$pmu/nr_addr_filters"
echo config:0 >"$pmu/format/htm"
for kv in nr_comparators=4 nr_filters=3 itype_bits=4 ts_width=48 seqjump=0 ctx=1 \
	  priv_filter=1 protocol=1.0 iret_modes=0x2 return_depth=31 future_cap=7; do
	echo "${kv#*=}" >"$pmu/caps/${kv%%=*}"
done
# DT: hart 1 (phandle 0x11), one encoder feeding one sink (endpoint 0x22)
dt=$t/sys/firmware/devicetree/base
mkdir -p "$dt/cpus/cpu@1" "$dt/soc/te/out-ports/port/endpoint" "$dt/soc/rs/in-ports/port/endpoint"
printf '\x00\x00\x00\x11' >"$dt/cpus/cpu@1/phandle"
printf '\x00\x00\x00\x01' >"$dt/cpus/cpu@1/reg"
printf 'qemu,ntrace-encoder\0riscv,trace-component\0' >"$dt/soc/te/compatible"
printf '\x00\x00\x00\x00\x9f\xff\x20\x00\x00\x00\x00\x00\x00\x00\x10\x00' >"$dt/soc/te/reg"
printf '\x00\x00\x00\x11' >"$dt/soc/te/cpus"
printf '\x00\x00\x00\x22' >"$dt/soc/te/out-ports/port/endpoint/remote-endpoint"
printf '\x00\x00\x00\x22' >"$dt/soc/rs/in-ports/port/endpoint/phandle"
drv=$t/sys/bus/platform/drivers
mkdir -p "$drv/ntrace-encoder/9fff2000.trace-encoder" "$drv/ntrace-ramsink/9fff3000.trace-ramsink"
ln -s "$dt/soc/te" "$drv/ntrace-encoder/9fff2000.trace-encoder/of_node"
ln -s "$dt/soc/rs" "$drv/ntrace-ramsink/9fff3000.trace-ramsink/of_node"

"$PN" info --sysfs "$t/sys" >"$t/out" 2>"$t/err"
check "exit status 0 with a PMU" test $? -eq 0
v() { awk -v n="$1" '$1 == n { print $2; exit }' "$t/out"; }
check "PMU files and caps shown with their sysfs values" \
	eval '[ "$(v cpumask)" = 0-1 ] && [ "$(v nr_addr_filters)" = 2 ] && [ "$(v nr_comparators)" = 4 ]'
check "E-Trace width and count attributes are the parameter minus one" \
	eval '[ "$(v comparators)" = 3 ] && [ "$(v filters)" = 2 ] && [ "$(v itype_width)" = 3 ] && [ "$(v time_width)" = 47 ]'
check "E-Trace flags: sijump, nocontext, notime; call counter only (2^3 >= 5 bits for 31 levels)" \
	eval '[ "$(v sijump)" = 0 ] && [ "$(v nocontext)" = 0 ] && [ "$(v notime)" = 0 ] && [ "$(v return_stack_size)" = 0 ] && [ "$(v call_counter_size)" = 3 ]'
check "encoder register block and hart from its device-tree node" \
	eval 'grep -q "registers   0x9fff2000, 4096 bytes" "$t/out" && grep -q "hart        1" "$t/out"'
check "encoder output resolved to the sink with that endpoint" \
	grep -q "output      9fff3000.trace-ramsink" "$t/out"
check "an unknown caps file is still shown" grep -q "future_cap  *7  *(not known" "$t/out"
"$PN" info --sysfs "$t/none" >"$t/out2" 2>&1
st=$?
check "no PMU: status 1 and a message" eval '[ $st -eq 1 ] && grep -q "no ntrace PMU" "$t/out2"'
"$PN" info --bogus >"$t/out3" 2>&1
check "bad option: status 2" test $? -eq 2
