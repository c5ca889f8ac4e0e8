#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf under AddressSanitizer and UBSan (TAP):
#   scripts/perf-asan.sh [RUN-DIR...]
# The host perf built with ASan and UBSan (scripts/perf.sh --host
# --sanitize, or NTRACE_PERF_ASAN_PERF) reads
#  (a) every recording of the RUN-DIRs (RUN-DIR/out/*.data, with
#      RUN-DIR/root as --symfs: the work directories perf-e2e.sh and
#      perf-e2e-cpuwide.sh keep with NTRACE_E2E_KEEP=1 / NTRACE_KEEP=1), by
#      default the newest run of each build/perf-e2e/*/ directory, and the
#      demo's recordings (build/demo/export, root build/demo/root), with
#      perf script --itrace=i1i, b, cr and i100ig, --call-ret-trace,
#      perf report --stdio and perf inject --itrace (a CTR recording with
#      perf script -F +brstack, perf report and perf report -b): one TAP
#      line per recording and command. It fails on a sanitizer report, a
#      signal, a hang (NTRACE_PERF_ASAN_FULL_TIMEOUT s, default 900) or a
#      non-zero exit (these recordings are whole).
#  (b) NTRACE_PERF_ASAN_COUNT (default 1000) mutated copies of a few of
#      them (scripts/perf-mutate.py: bit flips, byte smashes, truncation,
#      smashed AUXTRACE_INFO, PERF_RECORD_AUX, AUXTRACE and AUXTRACE index
#      fields, trace bytes; seeded by NTRACE_PERF_ASAN_SEED, default 28),
#      each through perf script --itrace=bcr, every 8th through perf
#      report --stdio too, with a timeout of NTRACE_PERF_ASAN_TIMEOUT s
#      (default 20). Fails on a sanitizer report, a signal or a timeout;
#      perf exiting with an error message is a pass. The failing files
#      are kept under build/perf-asan/ (reproduce one with perf-mutate.py
#      --only I and the same seed).
# The sanitizers run with ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:
# abort_on_error=0 and UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1.
# NTRACE_PERF_ASAN_BUILD (default this checkout's build/) is where the
# default RUN-DIRs and the demo's recordings are looked for.
# perf-e2e.sh runs it on its own recordings when NTRACE_PERF_ASAN=1;
# "make perf-asan" runs it on what build/ holds.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TAP_PREFIX=${TAP_PREFIX:-"perf-asan: "}
SEED=${NTRACE_PERF_ASAN_SEED:-28}
COUNT=${NTRACE_PERF_ASAN_COUNT:-1000}
TMO=${NTRACE_PERF_ASAN_TIMEOUT:-20}
FULL_TMO=${NTRACE_PERF_ASAN_FULL_TIMEOUT:-900}
JOBS=${NTRACE_PERF_ASAN_JOBS:-${NTRACE_JOBS:-2}}
BUILD=${NTRACE_PERF_ASAN_BUILD:-$NTRACE_TOP/build}
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
SAN_RE='ERROR: AddressSanitizer|AddressSanitizer:DEADLYSIGNAL|runtime error:|UndefinedBehaviorSanitizer'

scratch W
keep=$NTRACE_TOP/build/perf-asan
if [ -n "${NTRACE_PERF_ASAN_PERF:-}" ]; then
	PERF=$NTRACE_PERF_ASAN_PERF
elif ! PERF=$(bash "$NTRACE_TOP/scripts/perf.sh" --host --sanitize 2>"$W/build.err"); then
	not_ok "sanitized host perf builds: $(tail -3 "$W/build.err" | tr '\n' ' ')"
	exit 0
fi
syms=$(nm "$PERF" 2>/dev/null | grep -Eo '__(asan_init|ubsan_handle)' | sort -u | tr '\n' ' ')
if "$PERF" version >/dev/null 2>"$W/v.err" && [ "$syms" = "__asan_init __ubsan_handle " ]; then
	ok "host perf with ASan and UBSan ($PERF) runs"
else
	not_ok "host perf with ASan and UBSan runs: $(head -c 300 "$W/v.err")"
	exit 0
fi

# the recordings: "DATA ROOT" per line
runs=("$@")
if [ ${#runs[@]} -eq 0 ]; then
	for d in "$BUILD"/perf-e2e/*/; do
		r=$(ls -td "$d"run.* 2>/dev/null | while read -r x; do
			ls "$x"/out/*.data >/dev/null 2>&1 && { echo "$x"; break; }; done)
		[ -z "$r" ] || runs+=("$r")
	done
fi
for r in "${runs[@]}"; do
	for f in "$r"/out/*.data; do
		[ -e "$f" ] && echo "$f $r/root"
	done
done >"$W/recs"
if [ $# -eq 0 ]; then
	for f in "$BUILD"/demo/export/ntrace.data "$BUILD"/demo/export/ctr.data; do
		[ ! -s "$f" ] || echo "$f $BUILD/demo/root"
	done >>"$W/recs"
fi
if [ ! -s "$W/recs" ]; then
	skip "perf under ASan on the recordings" "no recording under $BUILD/perf-e2e/*/run.*/out (NTRACE_E2E_KEEP=1 scripts/perf-e2e.sh)"
	exit 0
fi

# run NAME TIMEOUT CMD...: CMD's output to $W/NAME.out and .err; prints
# what went wrong (a sanitizer's first report line, the signal, "hung",
# "exit N") and returns 1, or returns 0.
run() {
	local name=$1 tmo=$2 st
	shift 2
	{ timeout -s KILL "$tmo" "$@" >"$W/$name.out" 2>"$W/$name.err"; } 2>/dev/null
	st=$?
	if grep -Eq "$SAN_RE" "$W/$name.err"; then
		grep -Em1 "$SAN_RE" "$W/$name.err"
		grep -m3 '^ *#[0-9]' "$W/$name.err" | tr -s ' ' | tr '\n' ' '
	elif [ $st -eq 137 ]; then
		echo "hung (killed after $tmo s)"
	elif [ $st -gt 128 ] && [ $st -le 192 ]; then
		echo "killed by signal $((st - 128))"
	elif [ $st -ne 0 ]; then
		echo "exit $st: $(grep -v '^$' "$W/$name.err" | tail -1 | head -c 200)"
	else
		return 0
	fi
	mkdir -p "$keep" && cp "$W/$name.err" "$keep/$name.err"
	return 1
}

# (a) every recording, every command
nrec=0
while read -r data root; do
	rel=${data#"$BUILD"/}
	rel=${rel%.data}
	tag=$(tr '/.' '__' <<<"$rel")
	nrec=$((nrec + 1))
	sym=(--symfs "$root")
	if "$PERF" evlist -i "$data" 2>/dev/null | grep -q '^ntrace/'; then
		cmds=(
			"script --itrace=i1i -F ip,sym"
			"script --itrace=b -F +flags"
			"script --itrace=cr -F +flags"
			"script --itrace=i100ig"
			"script --call-ret-trace"
			"report --stdio"
			"inject --itrace=i100il16"
		)
	else
		cmds=("script -F +brstack" "report --stdio" "report --stdio -b --sort symbol_from,symbol_to")
	fi
	for c in "${cmds[@]}"; do
		read -ra args <<<"$c"
		extra=()
		[ "${args[0]}" != inject ] || extra=(-o "$W/inj.data")
		start=$SECONDS
		if why=$(run "$tag" "$FULL_TMO" "$PERF" "${args[0]}" -i "$data" "${sym[@]}" \
			"${args[@]:1}" "${extra[@]}"); then
			ok "$rel: perf $c ($((SECONDS - start)) s, $(wc -l <"$W/$tag.out") lines)"
		else
			not_ok "$rel: perf $c: $why"
		fi
		rm -rf "$W/inj.data"
	done
done <"$W/recs"

# (b) the mutation run: the N-Trace recordings of the first run (a loop in
# BTM and HTM, a snapshot, timestamps and context, lost data), the first
# CPU-wide one, and the CTR recording's first 256 KiB (a cut file: perf
# reads it with a warning; the mutations of the whole 15 MB would be slow)
srcs=()
while read -r data root; do
	case ${data##*/} in
	btm.data | htm.data | snap.data | cs-all.data | lost.data | a.data)
		# one of each name
		printf '%s\n' "${srcs[@]}" | grep -q "/${data##*/}:" || srcs+=("$data:$root") ;;
	ctr.data)
		head -c 262144 "$data" >"$W/ctr-256k.data" && srcs+=("$W/ctr-256k.data:$root") ;;
	esac
done <"$W/recs"
if [ ${#srcs[@]} -eq 0 ]; then
	skip "mutated recordings" "none of btm, htm, snap, cs-all, lost, a, ctr.data among the recordings"
	tap_status
	exit
fi
# the damage that crashed perf before patches 0017, 0019 and 0020: an
# AUXTRACE index offset 4 GiB off, an AUXTRACE size that misaligns the
# next record, an AUXTRACE idx of UINT_MAX and a CPU past the recorded ones
sum=$(python3 "$NTRACE_TOP/scripts/perf-mutate.py" --perf "$PERF" --seed 0 --regress \
	--out "$W/reg" --timeout "$TMO" "${srcs[0]}" 2>&1)
read -r _ n _ _ _ _ _ _ _ nsan _ nsig _ ntmo _ <<<"$sum"
check "damage that crashed perf (index offset, misaligned AUXTRACE size, idx UINT_MAX, CPU 0x7fffffff; perf script and report): sanitizer reports ${nsan:-?}, signals ${nsig:-?}, timeouts ${ntmo:-?}" \
	eval "[ '${n:-0}' -gt 0 ] && [ '$nsan$nsig$ntmo' = 000 ]"
[ ! -s "$W/reg/failures" ] || cut -c1-300 "$W/reg/failures" | sed 's/^/# /'
start=$SECONDS
sum=$(python3 "$NTRACE_TOP/scripts/perf-mutate.py" --perf "$PERF" --seed "$SEED" \
	--count "$COUNT" --out "$W/mut" --jobs "$JOBS" --timeout "$TMO" "${srcs[@]}" 2>"$W/mut.err")
read -r _ n _ nread _ nref _ nsil _ nsan _ nsig _ ntmo _ nrep _ _ <<<"$sum"
if [ -z "${n:-}" ]; then
	not_ok "mutation run: $(tail -3 "$W/mut.err" | tr '\n' ' ')"
	exit 0
fi
nbad=$(grep -c . "$W/mut/failures" 2>/dev/null)
names=$(printf '%s\n' "${srcs[@]}" | sed 's/:.*//; s,.*/,,' | tr '\n' ' ')
echo "# mutation run: seed $SEED, $n mutations of ${names% } in $((SECONDS - start)) s"
check "mutation run (seed $SEED): $n mutated files, perf script --itrace=bcr read $nread, refused $nref with an error ($nsil with no message), perf report on $nrep: sanitizer reports $nsan, signals $nsig, timeouts ($TMO s) $ntmo" \
	eval "[ ${nbad:-0} -eq 0 ] && [ $n -ge $COUNT ]"
check "mutation run: every refusal says why ($nsil of $((nref + nsil)) with nothing on stderr)" \
	eval "[ $nsil -eq 0 ]"
if [ -s "$W/mut/failures" ]; then
	mkdir -p "$keep" && cp "$W/mut/failures" "$W/mut/results" "$keep/" &&
		cp -r "$W/mut/keep" "$keep/"
	head -5 "$W/mut/failures" | cut -c1-400 | sed 's/^/# /'
	echo "# failing files and results: $keep/ (perf-mutate.py --seed $SEED --only I ...)"
fi
tap_status
