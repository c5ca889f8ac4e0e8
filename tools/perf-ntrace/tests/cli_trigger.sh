#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace trigger's contract with perf, with a stand-in perf that logs
# its arguments and writes files as perf record does with
# --switch-output-event (the guest runs the real perf: scripts/perf-e2e.sh,
# "trig"): the uprobe is made on the program's file, its tracefs id is the
# side-band event, perf record gets snapshot mode, the ring and the event,
# the trigger files are renamed in time order and perf's last one (side
# band only) removed, the probe is removed whatever happened, and the exit
# status says whether the function was reached.
set -uo pipefail
. "$(dirname "$0")/../../../scripts/lib.sh"
PN=$PERF_NTRACE
scratch t
TAP_PREFIX="trigger: "

# The stand-in: "probe -a G:E=F" makes tracefs/events/G/E/id (343);
# "record ... -o OUT" writes OUT.<time> files named by $FAKE_FILES and
# exits $FAKE_RC; every call is logged.
cat >"$t/perf" <<'SH'
#!/bin/bash
echo "$*" >>"$FAKE_LOG"
case $1 in
probe)
	for a in "$@"; do
		case $a in
		*:*=*) e=${a%%=*}; mkdir -p "$FAKE_TRACEFS/events/${e%%:*}/${e#*:}"
		       echo 343 >"$FAKE_TRACEFS/events/${e%%:*}/${e#*:}/id" ;;
		esac
	done
	exit "${FAKE_PROBE_RC:-0}" ;;
record)
	while [ $# -gt 0 ] && [ "$1" != -o ]; do shift; done
	for s in $FAKE_FILES; do echo "$s" >"$2.$s"; done
	exit "${FAKE_RC:-0}" ;;
esac
SH
chmod +x "$t/perf"
export FAKE_LOG=$t/log FAKE_TRACEFS=$t/tracefs
cp /bin/true "$t/prog"
trig() { (cd "$t" && "$PN" trigger --perf "$t/perf" --tracefs "$t/tracefs" "$@"); }

FAKE_FILES="2026112900000001 2026112900000002 2026112900000003" trig -m 64K -o snap.data \
	fn -- "$t/prog" a b >"$t/out" 2>"$t/err"
rc=$?
rec=$(grep '^record' "$t/log")
check "reached twice: exit 0, the first trigger in snap.data, the second in snap.data.2, perf's last file removed" \
	eval '[ $rc = 0 ] && [ "$(cat "$t/snap.data")" = 2026112900000001 ] &&
	      [ "$(cat "$t/snap.data.2")" = 2026112900000002 ] &&
	      [ -z "$(ls "$t" | grep -E "^snap\.data\.(trigger|3)")" ]'
check "perf probe puts the uprobe on the program's file: $(grep '^probe -q -x' "$t/log" | head -1)" \
	grep -qx "probe -q -x $t/prog -a ntrace_trigger:f[0-9]*=fn" "$t/log"
check "perf record: snapshot mode, the ring, the ntrace event, the probe's tracefs id as side-band event, then the program: $rec" \
	grep -qx -- "record -S -m ,64K -e ntrace/htm=1,iret=1/u --switch-output-event tracepoint/config=343,period=1/ -o snap.data.trigger -- $t/prog a b" <<<"$rec"
check "the probe is removed at the end" \
	eval 'tail -1 "$t/log" | grep -qx "probe -q -d ntrace_trigger:f[0-9]*"'

: >"$t/log"
FAKE_FILES=2026112900000009 trig fn -- "$t/prog" >/dev/null 2>"$t/err"
rc=$?
check "not reached (perf wrote only its last file): exit 1, said, nothing left, the probe removed" \
	eval '[ $rc = 1 ] && grep -q "fn was not reached" "$t/err" &&
	      [ -z "$(ls "$t" | grep "^ntrace-trigger")" ] && tail -1 "$t/log" | grep -q "^probe -q -d"'

: >"$t/log"
FAKE_RC=3 FAKE_FILES="" trig fn -- "$t/prog" >/dev/null 2>"$t/err"
rc=$?
check "perf record fails: exit 2, its status said, the probe removed" \
	eval '[ $rc = 2 ] && grep -q "perf record exited with 3" "$t/err" && tail -1 "$t/log" | grep -q "^probe -q -d"'

: >"$t/log"
FAKE_PROBE_RC=1 trig fn -- "$t/prog" >/dev/null 2>"$t/err"
rc=$?
check "perf probe fails (no such function): exit 1, said, perf record not run" \
	eval '[ $rc = 1 ] && grep -q "could not put a uprobe on fn" "$t/err" && ! grep -q "^record" "$t/log"'

trig fn -- no-such-program-here >/dev/null 2>"$t/err"
rc=$?
check "a program that is not there: exit 2, said" \
	eval '[ $rc = 2 ] && grep -q "cannot find the program" "$t/err"'
trig fn "$t/prog" >/dev/null 2>"$t/err"
rc=$?
check "no -- between the function and the program: exit 2" eval '[ $rc = 2 ]'

[ "$TAP_FAILED" = 0 ]
