#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The "guest" test suite: build kernel (cached), modules, selftests, perf and
# the initramfs, then boot QEMU once per boot configuration and print the
# results as flat TAP lines "ok - <config>: ..." (see scripts/guest.sh).
# Environment:
#   NTRACE_KVARIANT=guest|debug   kernel variant (debug: KASAN + lockdep)
#   NTRACE_GUEST_CONFIGS="..."    boot configurations [smp1 smp2 ctr ctr-smp2 ntrace ntrace-smp2
#                                 ntrace-smp2-copy
#                                 ntrace-funnel-smp2 ntrace-funnel-smp4 ntrace-funnel2-smp4 ntrace-sram
#                                 ntrace-upstream-dt ntrace-upstream-dt-funnel-smp2
#                                 ntrace-upstream-dt-pertype (the other DT forms)
#                                 ntrace-p550-smp1 ntrace-p550-hartmap (SiFive v0 personality;
#                                 the 4 harts are CPUs 2, 0, 3, 1 as on the P550)]
#   NTRACE_GUEST_COPY=1           also boot each ntrace configuration whose
#                                 sinks can write the AUX area (no funnel, no
#                                 SRAM) as NAME-copy, with ntrace.direct=0
#   NTRACE_GUEST_TIMEOUT=SECONDS  wall-clock limit per boot
set -uo pipefail
. "$(dirname "$0")/lib.sh"

variant=${NTRACE_KVARIANT:-guest}
configs=${NTRACE_GUEST_CONFIGS:-smp1 smp2 ctr ctr-smp2 ntrace ntrace-smp2 ntrace-smp2-copy ntrace-funnel-smp2 ntrace-funnel-smp4 ntrace-funnel2-smp4 ntrace-sram ntrace-upstream-dt ntrace-upstream-dt-funnel-smp2 ntrace-upstream-dt-pertype ntrace-p550-smp1 ntrace-p550-hartmap}
if [ "${NTRACE_GUEST_COPY:-0}" = 1 ]; then
	for c in $configs; do
		case $c in
		ntrace*-copy | *funnel* | *sram* | ntrace-p550*) ;;
		ntrace*) [[ " $configs " == *" $c-copy "* ]] || configs+=" $c-copy" ;;
		esac
	done
fi
if [ "$variant" = debug ]; then limit=${NTRACE_GUEST_TIMEOUT:-2400}; else limit=${NTRACE_GUEST_TIMEOUT:-300}; fi

start=$SECONDS
# The console parser first, on recorded consoles with known results.
TAP_PREFIX="guest: "
for c in "$NTRACE_TOP"/guest/testdata/*.console; do
	check "console parser gives guest/testdata/$(basename "$c" .console).tap" eval \
		'awk -v cfg=cfg -f "$NTRACE_TOP/guest/console-to-tap.awk" "$c" |
		 diff -u "${c%.console}.tap" - >&2'
done
if ! initrd=$(bash "$NTRACE_TOP/scripts/initramfs.sh" --kernel "$variant"); then
	not_ok "build kernel, modules, selftests, perf and initramfs ($variant)"
	exit 1
fi
ok "build kernel, modules, selftests, perf and initramfs ($variant)"
log "build took $((SECONDS - start)) s"

status=0
for c in $configs; do
	# ntrace*: the recorded AUX bytes come out for decoding on the host
	extra=()
	[[ $c != ntrace* ]] || extra=(--export "$NTRACE_TOP/build/guest/$variant/$c-export" --export-size 64)
	bash "$NTRACE_TOP/scripts/guest.sh" --kernel "$variant" --config "$c" \
		--initrd "$initrd" --timeout "$limit" "${extra[@]}" || status=1
done
log "guest suite took $((SECONDS - start)) s"
exit $status
