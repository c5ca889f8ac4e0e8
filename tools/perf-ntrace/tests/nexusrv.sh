#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Interoperability with libnexus-rv (ganboing/libnexus-rv, Apache-2.0), the
# decoder of real HiFive Premier P550 traces, on SiFive's pre-ratified (v0)
# protocol: ground truth (tests/gt) encoded by our encoder in its two v0
# round-trip configurations, then
#  - libnexus-rv's trace decoder, with its own P550 model ("model=p550x4":
#    SRC 2 bits, 40-bit timestamps, quirk-sifive) walked over the program
#    by tests/nexusrv/nxr-flow.c, retires exactly the recorded instructions
#    (branch counts RCODE 8/9, a call counter deeper than 32, a co-routine
#    swap as a call);
#  - every target and sync address it reads comes with the same absolute
#    time as perf-ntrace dump --abs-ts gives (XOR timestamps);
#  - its message decoder and encoder turn every message back into the same
#    bytes.
# The programs built with compressed instructions (-gc, as distributions
# build) are used, half the suite, to keep the test short; those that
# return elsewhere than to their call site (longjmp) are left out: simple
# counting cannot trace them. libnexus-rv comes from
# scripts/libnexus-rv.sh (a pinned commit, built once; NTRACE_LIBNEXUSRV_GIT
# for a local mirror) or NTRACE_LIBNEXUSRV names a directory with include/
# and lib/libnexus-rv.a. Without one (offline) the test is skipped.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD GT=$NTRACE_TOP/build/gt

NXR=${NTRACE_LIBNEXUSRV:-}
if [ -z "$NXR" ]; then
	NXR=$(bash "$NTRACE_TOP/scripts/libnexus-rv.sh" 2>"${TMPDIR:-/tmp}/nxr.$$.err") ||
		{ skip "nexusrv" "no libnexus-rv: $(tail -1 "${TMPDIR:-/tmp}/nxr.$$.err")"
		  rm -f "${TMPDIR:-/tmp}/nxr.$$.err"; exit 0; }
	rm -f "${TMPDIR:-/tmp}/nxr.$$.err"
fi
[ -f "$NXR/lib/libnexus-rv.a" ] || { skip "nexusrv" "no $NXR/lib/libnexus-rv.a"; exit 0; }
[ -x "$BUILD/tools/rt-tool" ] || { skip "nexusrv" "rt-tool not built (make test-tools)"; exit 0; }
[ -s "$GT/manifest" ] || { skip "nexusrv" "no ground truth in $GT (tests/ground-truth.sh)"; exit 0; }
TAP_PREFIX="nexusrv: "
scratch WORK "$BUILD/nexusrv" || exit 1
cp "$PERF_NTRACE" "$BUILD/tools/rt-tool" "$WORK/"
T=$WORK/perf-ntrace RT=$WORK/rt-tool FLOW=$WORK/nxr-flow

if ! ${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -I"$SRC/include" -I"$NXR/include" \
	-o "$FLOW" "$SRC/tests/nexusrv/nxr-flow.c" "$BUILD/libntrace.a" \
	"$NXR/lib/libnexus-rv.a" -lstdc++ -pthread 2>"$WORK/cc.err"; then
	not_ok "build nxr-flow against libnexus-rv: $(head -c 300 "$WORK/cc.err")"
	exit 1
fi

# configuration -> libnexus-rv's hardware configuration and our codec options
declare -A HW=(
	[htm-v0-tstamp-src]="model=p550x4"
	[htm-v0-small]="addr=64,maxstack=1024,quirk-sifive"
)
declare -A OPT=(
	[htm-v0-tstamp-src]="--variant=sifive-v0 --ts --src-bits=2"
	[htm-v0-small]="--variant=sifive-v0"
)
declare -A SRCID=([htm-v0-tstamp-src]=1 [htm-v0-small]=-1)

while read -r n priv _; do
	[ -f "$GT/$n.pcs" ] || continue
	case $n in *-gc) ;; *) continue ;; esac	# half the suite: compressed code
	a=(--priv "$priv" "$GT/$n")
	"$RT" expect "$GT/$n.pcs" "$WORK/$n.truth" "${a[@]}" || { not_ok "$n: no truth"; continue; }
	for cfg in htm-v0-tstamp-src htm-v0-small; do
		if ! "$RT" count-ok "$cfg" "$GT/$n.pcs" "${a[@]}"; then
			skip "$n $cfg" "returns elsewhere than to the call site (simple counting)"
			continue
		fi
		bin=$WORK/$n.$cfg.bin
		"$RT" encode "$cfg" "$GT/$n.pcs" "$bin" "${a[@]}" ||
			{ not_ok "$n $cfg: encoding failed"; continue; }
		why=
		if ! "$FLOW" "${HW[$cfg]}" "${SRCID[$cfg]}" "$bin" "$WORK/$n.pc" "$WORK/$n.x" \
			"$GT/$n" 2>"$WORK/$n.err"; then
			why="libnexus-rv: $(head -c 300 "$WORK/$n.err")"
		elif ! cmp -s "$WORK/$n.pc" "$WORK/$n.truth"; then
			why="libnexus-rv's flow differs: $(cmp "$WORK/$n.pc" "$WORK/$n.truth" 2>&1 | head -1)"
		fi
		# shellcheck disable=SC2086	# options are words
		"$T" dump ${OPT[$cfg]} --addr --abs-ts "$bin" |
			sed -n 's/.* -> \(0x[0-9a-f]*\)  @\([0-9]*\).*/\1 \2/p' >"$WORK/$n.ours.x"
		if [ -z "$why" ] && [ "${OPT[$cfg]}" != "${OPT[$cfg]/--ts/}" ] &&
		   ! awk '{ print $2, $3 }' "$WORK/$n.x" | cmp -s - "$WORK/$n.ours.x"; then
			why="the targets and times differ from perf-ntrace dump --abs-ts"
		fi
		if [ -z "$why" ] && ! "$FLOW" reencode "${HW[$cfg]}" "$bin" >/dev/null 2>"$WORK/$n.err"; then
			why="$(head -c 300 "$WORK/$n.err")"
		fi
		if [ -z "$why" ]; then
			ok "$n $cfg: libnexus-rv decodes our v0 trace to the $(wc -l <"$WORK/$n.truth") recorded instructions$([ "${SRCID[$cfg]}" = -1 ] || echo ", $(wc -l <"$WORK/$n.x") targets at the same times"), its encoder writes the same bytes"
		else
			not_ok "$n $cfg: $why"
		fi
		rm -f "$bin" "$WORK/$n.pc" "$WORK/$n.x" "$WORK/$n.ours.x" "$WORK/$n.err"
	done
	rm -f "$WORK/$n.truth"
done <"$GT/manifest"
