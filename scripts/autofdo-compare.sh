#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# AutoFDO from every profile source, compared on real programs against the
# truth (make autofdo). For each program (tools/autofdo/fdo_bench.c, and
# lua and zstd built from their Debian source packages by
# scripts/fdo-programs.sh), built for riscv64 with -O2 -g by clang and by
# gcc:
#  1. the guest (ntrace-ctr: CTR and the N-Trace model on one hart) runs the
#     training input twice: "perf record -b" (CTR branch stacks, sampled)
#     and "perf record -e ntrace/htm=1/u" (the whole trace);
#  2. on the host, four profiles of that input:
#       ctr     llvm-profgen-19 from the branch stacks (perf script);
#       inject  perf inject --itrace=i100000il64 (a branch stack of 64 every
#               100000 instructions, synthesized from the trace), then
#               perf script and llvm-profgen-19, as CoreSight users do;
#       exact   perf-ntrace decode --format=autofdo: every range and branch
#               of the trace counted, llvm-profgen-19 --unsymbolized-profile;
#       instr   clang's instrumented PGO (-fprofile-instr-generate) run on
#               the same input in QEMU user mode, the usual reference
#               (clang only);
#  3. the truth: QEMU user mode running the same binary on the same input,
#     every executed range and branch counted from its log
#     (tools/autofdo/count-log.c), made into a sample profile the same way;
#  4. agreement with the truth: llvm-profdata-19 overlap's "whole program
#     profile similarity" (the block-count overlap), the overlap of the
#     functions' entry counts, and the error on the entry count of the
#     hottest function (sampled profiles scaled by their total);
#  5. effect: the program rebuilt with each profile (clang
#     -fprofile-sample-use, -fprofile-instr-use; gcc -fauto-profile) runs an
#     evaluation input that differs from the training one; QEMU's log counts
#     its retired instructions and taken branches, against the build
#     without profile.
# gcc's profiles come from create_gcov: ctr from the perf.data, exact from
# perf-ntrace decode --format=autofdo-text --max-count 65536 (create_gcov
# --profiler=text; GCC 12 optimizes worse with counts in the millions),
# inject from llvm-profgen --skip-symbolization's counts of the injected
# stacks in the same text format (create_gcov 0.19 cannot read perf
# inject's output: its branch stacks carry hw_idx, which quipper predates).
# Everything lands in build/autofdo-compare/.
# Usage: scripts/autofdo-compare.sh [--test|--bench] [--reuse] [PROGRAM...]
#   --test   flat TAP lines with the floors (test.sh suite autofdo); only
#            what they check: no instrumented build (instr), and the
#            evaluation input runs only the builds without profile and
#            with the ctr and exact ones
#   --reuse  analyse the guest's files of the last run again
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=report reuse=0 progs=()
while [ $# -gt 0 ]; do
	case $1 in
	--test) mode=test; shift ;;
	--bench) mode=bench; shift ;;
	--reuse) reuse=1; shift ;;
	-*) die "unknown option '$1' (see the header of $0)" ;;
	*) progs+=("$1"); shift ;;
	esac
done
[ ${#progs[@]} -gt 0 ] || progs=(fdo_bench lua zstd)
compilers=(clang gcc)

AF=$NTRACE_TOP/tools/autofdo
out=$NTRACE_TOP/build/autofdo-compare
root=$out/root			# the guest's files, for perf --symfs
exp=$out/export
mkdir -p "$root/usr/bin"
CLANG=${CLANG:-clang}
period=40009			# CTR: one branch stack per this many cycles
haw() { awk -f "$AF/hex.awk" "$@"; }
TAP_PREFIX="autofdo-compare: "
tap() { # tap OK|FAIL "name" [why]
	[ "$mode" = test ] || return 0
	if [ "$1" = OK ]; then ok "$2"; else not_ok "$2${3:+ ($3)}"; fi
}
say() { if [ "$mode" = test ]; then echo "# $*"; else echo "$*"; fi; }

# ---- the programs -------------------------------------------------------

# the programs' builds and inputs: scripts/fdo-programs.sh
fdo() { bash "$NTRACE_TOP/scripts/fdo-programs.sh" "$@"; }
# args DIR WHICH PATH: DIR's training or evaluation arguments, its files
# named as PATH/FILE (the guest runs commands in /tmp and has no shell)
args() { fdo args "$@"; }

# ---- QEMU user mode: the truth and the instrumented run ---------------

# The host runs see the inputs at the guest's path: qemu-riscv64 -L ROOT
# finds absolute paths under ROOT first. The same file names make the same
# run (lua hashes its strings; a longer path is a different run).
# guest_in PROG: that path
guest_in() { echo "/usr/share/fdo/$1"; }

# count_run BIN DIR WHICH PROFILE SUM: run BIN on an input (DIR: the
# inputs, at their guest path) under QEMU's log; PROFILE gets the exact
# range and branch counts, SUM the totals. They are a function of the
# binary, its arguments and input files, QEMU and count-log only: kept
# under $NTRACE_CACHE/fdo-counts by a key of all of them, so a build that
# comes out the same (every plain build, the truth) is counted once.
count_run() {
	local bin=$1 d=$2 w=$3 fifo lo hi base st=0 c
	# shellcheck disable=SC2046	# the input files, one argument each
	c=$NTRACE_CACHE/fdo-counts/$(cache_key "$bin" "$(args "$root$d" "$w" "$d")" \
		"$(qemu-riscv64 --version | head -1)" "$AF/count-log.c" \
		$(find "$root$d" -type f | LC_ALL=C sort))
	if [ -s "$c/sum" ] && [ -f "$c/profile" ]; then
		cp "$c/profile" "$4" && cp "$c/sum" "$5"
		return
	fi
	read -r lo hi base < <("${CROSS_COMPILE}readelf" -lW "$bin" | haw -f "$AF/text-range.awk")
	fifo=$(mktemp -u "$out/log.XXXXXX")
	mkfifo "$fifo"
	"$out/count-log" "$lo" "$hi" "$base" "$4" "$5" <"$fifo" &
	# shellcheck disable=SC2046
	(cd "$root/tmp" && env -i qemu-riscv64 -L "$root" -d in_asm,exec,nochain -D "$fifo" \
		"$bin" $(args "$root$d" "$w" "$d") >/dev/null) || st=$?
	wait $! || st=1
	rm -f "$fifo"
	# a whole entry or none: runs in parallel may count the same build
	[ $st != 0 ] || ! mkdir -p "$c.$$" || ! cp "$4" "$c.$$/profile" || ! cp "$5" "$c.$$/sum" ||
		mv -T "$c.$$" "$c" 2>/dev/null
	rm -rf "$c.$$"
	return $st
}

profgen() { # OUT ARGS...: llvm-profgen-19 into a text profile
	local o=$1
	shift
	llvm-profgen-19 "$@" --format=text --output="$o" 2>>"$out/profgen.log"
}

# gcov_text UNSYM BIN OUT: gcc's profile from llvm-profgen's unsymbolized
# counts (AutoFDO's text format has an empty address section between)
gcov_text() {
	awk 'NR == 1 { n = $1 } { print } NR == n + 1 { print 0 }' "$1" >"$3.text" &&
		create_gcov --profiler=text --profile="$3.text" --binary="$2" --gcov="$3.v2" \
			--gcov_version=2 >"$3.log" 2>&1 &&
		"$NTRACE_TOP/build/autofdo/afdo_gcc12" "$3.v2" "$3" 2>>"$3.log"
}

# ---- 1. build and record --------------------------------------------------

record() {
	local p cmds=() adds=()
	make -s -C "$NTRACE_TOP" autofdo-tools
	for p in "${progs[@]}"; do
		mkdir -p "$out/$p"
		log "building $p (clang and gcc, and clang instrumented)"
		for c in "${compilers[@]}"; do
			fdo build "$p" "$c" plain "$out/$p/$p.$c"
			cp "$out/$p/$p.$c" "$root/usr/bin/$p.$c"
			adds+=(--add "$out/$p/$p.$c=/usr/bin/$p.$c")
		done
		[ "$mode" = test ] || fdo build "$p" clang instr-gen "$out/$p/$p.instr"
		rm -rf "$out/$p/in"
		fdo inputs "$p" "$out/$p/in"
		adds+=(--add "$out/$p/in=$(guest_in "$p")")
	done
	commands() {
		echo "# scripts/autofdo-compare.sh"
		echo "write /proc/sys/kernel/perf_event_max_sample_rate 100000"
		echo "write /proc/sys/kernel/perf_cpu_time_max_percent 0"
		for p in "${progs[@]}"; do
			a=$(args "$out/$p/in" train "$(guest_in "$p")")
			for c in "${compilers[@]}"; do
				x=$p.$c
				echo "/usr/bin/perf record -b -e cycles:u -c $period -o /tmp/export/$x.ctr.data -- /usr/bin/$x $a >/tmp/$x.ctr.out"
				echo "/usr/bin/perf record -e ntrace/htm=1/u -m,32M -o /tmp/export/$x.nt.data -- /usr/bin/$x $a >/tmp/$x.nt.out"
			done
		done
	}
	rm -rf "$exp"
	local st=0
	# 2G: the recordings live in /tmp, half the RAM: 220 to 560 MB (the
	# cycles that pace CTR's samples follow host time in QEMU, so a busy
	# host gives more samples); the export disk holds 1 GiB of them (512
	# MiB, the default, was once too small: 555 MB)
	guest_run "$out/guest" ntrace-ctr "${adds[@]}" --timeout 1800 --mem 2G \
		--console "$out/guest.console" --export "$exp" --export-size 1024 \
		>"$out/guest.log" < <(commands) || st=$?
	[ $st != 2 ] || die "cannot build the initramfs ($out/guest/initramfs.log)"
	if [ $st = 0 ]; then
		tap OK "the guest records every program with CTR and with N-Trace"
	else
		tap FAIL "the guest records every program with CTR and with N-Trace" \
			"console: $out/guest.console"
		[ "$mode" = test ] || die "the guest run failed (console: $out/guest.console)"
	fi
}

if [ $reuse = 0 ]; then
	record
else
	[ -d "$exp" ] || die "--reuse: no earlier run in $exp"
fi
cp "$NTRACE_TOP/build/autofdo/count-log" "$out/count-log"
perf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host) || die "no host perf"
make -s -C "$NTRACE_TOP/tools/perf-ntrace" all
pn=$NTRACE_TOP/build/perf-ntrace/perf-ntrace
: >"$out/profgen.log"
# the inputs where the guest had them, for qemu-riscv64 -L "$root"
mkdir -p "$root/tmp" "$root/usr/share/fdo"
for p in "${progs[@]}"; do
	rm -rf "$root$(guest_in "$p")" && cp -r "$out/$p/in" "$root$(guest_in "$p")"
done
# the guest kernel's vDSO: programs that read the clock run its code
vdso=$(bash "$NTRACE_TOP/scripts/kernel.sh" guest 2>/dev/null)/arch/riscv/kernel/vdso/vdso.so
[ -f "$vdso" ] || die "no guest kernel vdso.so ($vdso)"
perf_vdso_cache "$root" "$vdso" || die "cannot put the vdso.so into $root/.debug"

# ---- 2.-5. per program ----------------------------------------------------

# effect P C SOURCE: P's C build rebuilt with SOURCE's profile (none: the
# build without) runs the evaluation input; counts in SOURCE.eval.sum
effect() {
	local p=$1 c=$2 s=$3 d=$out/$1/$2 x=$1.$2 exe
	exe=$d/$x.$s
	case $c/$s in
	*/none) exe=$d/$x ;;
	clang/instr) [ -s "$d/instr.profdata" ] &&
		fdo build "$p" clang instr-use "$exe" "$d/instr.profdata" ;;
	clang/*) [ -s "$d/$s.prof" ] && fdo build "$p" clang sample "$exe" "$d/$s.prof" ;;
	gcc/*) [ -s "$d/$s.afdo" ] && fdo build "$p" gcc sample "$exe" "$d/$s.afdo" ;;
	esac >"$d/$s.build.log" 2>&1 || { tap FAIL "$x: rebuilt with the $s profile" "$d/$s.build.log"; return; }
	count_run "$exe" "$(guest_in "$p")" eval "$d/$s.eval.unsym" "$d/$s.eval.sum" ||
		tap FAIL "$x: QEMU counts the evaluation run of the $s build"
}

# analyse P C: the profiles, their agreement and their rebuilds of P's C
# build (files in build/autofdo-compare/P/C/)
analyse() {
	local p=$1 c=$2 in=$out/$1/in d=$out/$1/$2 x=$1.$2 bin s errs srcs
	bin=$d/$x
	rm -rf "$d"	# nothing of an earlier run's (a --test run makes less)
	mkdir -p "$d"
	cp "$out/$p/$x" "$bin"
	[ -s "$exp/$x.nt.data" ] || { tap FAIL "$x: recorded"; return 1; }

	# the truth, and the instrumented run, on the training input
	count_run "$bin" "$(guest_in "$p")" train "$d/truth.unsym" "$d/truth.sum" ||
		{ tap FAIL "$x: QEMU counts the training run"; return 1; }
	profgen "$d/truth.prof" --unsymbolized-profile="$d/truth.unsym" --binary="$bin"
	srcs=(ctr inject exact)
	if [ "$c" = clang ] && [ "$mode" != test ]; then
		srcs+=(instr)
		rm -f "$d"/*.profraw
		# shellcheck disable=SC2046
		(cd "$root/tmp" && env -i LLVM_PROFILE_FILE="$d/instr.profraw" qemu-riscv64 \
			-L "$root" "$out/$p/$p.instr" $(args "$in" train "$(guest_in "$p")") \
			>/dev/null) &&
			fdo merge "$d/instr.profdata" \
				"$d/instr.profraw" >/dev/null ||
			tap FAIL "$x: the instrumented build writes a profile"
	fi

	# the three profiles from the guest's recordings; their counts for gcc
	# the host's perf reads the guest's recording (the same text as the
	# guest's perf prints, in a fraction of the time emulation takes)
	"$perf" script -i "$exp/$x.ctr.data" -F ip,brstack --show-mmap-events 2>"$d/ctr.log" |
		awk '/^PERF_RECORD/ || / 0x[0-9a-f]+\/0x/' >"$d/ctr.script" &&
		profgen "$d/ctr.prof" --perfscript="$d/ctr.script" --binary="$bin" ||
		tap FAIL "$x: llvm-profgen reads the CTR branch stacks" "$d/ctr.log"
	"$perf" inject -i "$exp/$x.nt.data" --symfs "$root" --itrace=i100000il64 \
		-o "$d/inject.data" 2>"$d/inject.log" &&
		"$perf" script -i "$d/inject.data" --symfs "$root" -F ip,brstack \
			--show-mmap-events 2>>"$d/inject.log" |
		awk '/^PERF_RECORD/ || / 0x[0-9a-f]+\/0x/' >"$d/inject.script" &&
		profgen "$d/inject.prof" --perfscript="$d/inject.script" --binary="$bin" ||
		tap FAIL "$x: perf inject's branch stacks make a profile" "$d/inject.log"
	"$pn" decode --root "$root" --vdso "$vdso" --format=autofdo --dso "/usr/bin/$x" \
		-o "$d/exact.unsym" "$exp/$x.nt.data" 2>"$d/exact.log" &&
		"$pn" decode --root "$root" --vdso "$vdso" --format=stats "$exp/$x.nt.data" \
			>"$d/exact.stats" 2>>"$d/exact.log" &&
		profgen "$d/exact.prof" --unsymbolized-profile="$d/exact.unsym" --binary="$bin" ||
		tap FAIL "$x: perf-ntrace decode --format=autofdo makes a profile" "$d/exact.log"
	# A record the driver flagged (its sink filled before a late drain on a
	# loaded host) may end inside a message: one error each, reported loss.
	read -r errs flagged < <(awk '$1 == "errors:" { e = $2 }
		$1 == "aux_partial:" || $1 == "aux_truncated:" { f += $2 }
		END { print (e == "" ? -1 : e), f + 0 }' "$d/exact.stats" 2>/dev/null)
	tap "$([ "${errs:--1}" -ge 0 ] && [ "${errs:--1}" -le "${flagged:-0}" ] && echo OK || echo FAIL)" \
		"$x: the trace decodes without error, but for flagged loss" \
		"errors: ${errs:-?}, records flagged PARTIAL or TRUNCATED: ${flagged:-?}"
	if [ "$c" = gcc ]; then
		create_gcov --binary="$bin" --profile="$exp/$x.ctr.data" --gcov="$d/ctr.afdo.v2" \
			--gcov_version=2 >"$d/ctr.afdo.log" 2>&1 &&
			"$NTRACE_TOP/build/autofdo/afdo_gcc12" "$d/ctr.afdo.v2" "$d/ctr.afdo" ||
			tap FAIL "$x: create_gcov reads the CTR perf.data" "$d/ctr.afdo.log"
		llvm-profgen-19 --perfscript="$d/inject.script" --binary="$bin" --skip-symbolization \
			--output="$d/inject.unsym" 2>>"$out/profgen.log" &&
			gcov_text "$d/inject.unsym" "$bin" "$d/inject.afdo" ||
			tap FAIL "$x: create_gcov takes perf inject's branch stacks" "$d/inject.afdo.log"
		# exact counts scaled to a sample profile's size (--max-count):
		# GCC 12 optimizes worse with counts in the millions
		"$pn" decode --root "$root" --vdso "$vdso" --format=autofdo-text --max-count 65536 \
			--dso "/usr/bin/$x" -q -o "$d/exact.afdo.text" "$exp/$x.nt.data" &&
			create_gcov --profiler=text --profile="$d/exact.afdo.text" --binary="$bin" \
				--gcov="$d/exact.afdo.v2" --gcov_version=2 >"$d/exact.afdo.log" 2>&1 &&
			"$NTRACE_TOP/build/autofdo/afdo_gcc12" "$d/exact.afdo.v2" "$d/exact.afdo" ||
			tap FAIL "$x: create_gcov takes the exact counts" "$d/exact.afdo.log"
	fi

	# 4. agreement
	awk -f "$AF/functions.awk" "$d/truth.prof" >"$d/truth.fn"
	for s in "${srcs[@]}"; do
		if [ $s = instr ]; then
			[ -s "$d/instr.profdata" ] || continue
			"llvm-profdata-$("$CLANG" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p;q')" \
				show --all-functions --counts "$d/instr.profdata" |
				awk -f "$AF/instr-functions.awk" >"$d/$s.fn"
			# its entry counts are per source function, inlined ones
			# too: only the hottest (not inlined) compares
			awk -v noscale=1 -f "$AF/agreement.awk" "$d/truth.fn" "$d/$s.fn" |
				sed 's/^entry_overlap .*/entry_overlap -/' >"$d/$s.agree"
			echo "similarity -" >>"$d/$s.agree"
			continue
		fi
		[ -s "$d/$s.prof" ] || continue
		awk -f "$AF/functions.awk" "$d/$s.prof" >"$d/$s.fn"
		awk -f "$AF/agreement.awk" "$d/truth.fn" "$d/$s.fn" >"$d/$s.agree"
		llvm-profdata-19 overlap --sample "$d/truth.prof" "$d/$s.prof" 2>/dev/null |
			awk '/Whole program profile similarity/ { sub(/%/, "", $NF); print "similarity", $NF; exit }' \
			>>"$d/$s.agree"
	done

	# 5. effect on the evaluation input: the rebuilds and their runs, two
	# at a time (they are independent; QEMU's log takes a core each)
	local jobs=0 runs=(none "${srcs[@]}")
	[ "$mode" != test ] || runs=(none ctr exact)	# what the floors compare
	for s in "${runs[@]}"; do
		[ $jobs -lt 2 ] || { wait -n || :; jobs=$((jobs - 1)); }
		effect "$p" "$c" "$s" &
		jobs=$((jobs + 1))
	done
	wait
	rm -f "$d"/*.eval.unsym
}

table=()
for p in "${progs[@]}"; do
	for c in "${compilers[@]}"; do
		analyse "$p" "$c" && table+=("$p/$c")
	done
done

# ---- the table and the floors -------------------------------------------

# (nothing for a file a --test run does not make)
val() { [ ! -f "$1" ] || awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
field() { [ ! -f "$1" ] || awk -v k="$2" '$1 == "hottest" { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"; }
rel() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (a && b) printf "%+.2f%%", (a - b) * 100 / b; else print "-" }'; }
row() { printf '   %-8s %9s %9s %10s %14s %8s %13s %8s' "$@"; }
say "== AutoFDO profiles against the truth (training input), and the rebuilds (evaluation input)"
say "   truth: QEMU user mode's count of the same binary on the same input. overlap: llvm-profdata"
say "   overlap --sample's whole-program similarity; entries: overlap of the functions' entry"
say "   counts; entry-err: the hottest function's entry count; then the rebuild's retired"
say "   instructions and taken branches on the evaluation input, against no profile"
for pc in "${table[@]}"; do
	p=${pc%/*} c=${pc#*/} d=$out/$pc
	ni=$(val "$d/none.eval.sum" instructions)
	nt=$(val "$d/none.eval.sum" taken)
	say "-- $p ($c): training $(val "$d/truth.sum" instructions) instructions, hottest function $(awk '$1 == "hottest" { print $2 }' "$d/truth.fn" "$d/exact.agree" 2>/dev/null | tail -1)"
	say "$(row source overlap% entries% entry-err% instructions vs-none taken vs-none)"
	say "$(row none - - - "$ni" - "$nt" -)"
	for s in ctr inject exact instr; do
		[ -f "$d/$s.agree" ] || continue
		si=$(val "$d/$s.eval.sum" instructions)
		st=$(val "$d/$s.eval.sum" taken)
		say "$(row $s "$(val "$d/$s.agree" similarity)" \
			"$(val "$d/$s.agree" entry_overlap)" "$(field "$d/$s.agree" error_pct)" \
			"${si:--}" "$(rel "$si" "$ni")" "${st:--}" "$(rel "$st" "$nt")")"
	done
	# floors
	sim=$(val "$d/exact.agree" similarity)
	err=$(field "$d/exact.agree" error_pct)
	tap "$(awk -v v="${sim:-0}" 'BEGIN { print (v >= 99.9 ? "OK" : "FAIL") }')" \
		"$p $c: the exact N-Trace profile overlaps the truth by 99.9% or more (${sim:-?}%)"
	tap "$(awk -v v="${err:-100}" 'BEGIN { print (v <= 0.1 ? "OK" : "FAIL") }')" \
		"$p $c: the exact profile's hottest entry count is within 0.1% of the truth (${err:-?}%)"
	for s in ctr inject; do
		v=$(val "$d/$s.agree" similarity)
		tap "$(awk -v v="${v:-0}" -v e="${sim:-0}" 'BEGIN { print (e >= v ? "OK" : "FAIL") }')" \
			"$p $c: the exact profile agrees with the truth at least as well as $s (${sim:-?}% vs ${v:-?}%)"
	done
	# The rebuilds: the exact profile must not make the code worse than
	# none, and not clearly worse than CTR's. A sampled CTR profile's
	# rebuild moves by about 1% from one recording to the next (lua gcc,
	# 8 recordings: 134.6 to 137.2 M instructions, the exact one's 136.1 M
	# in between), so against one CTR recording only 2% is a finding.
	ei=$(val "$d/exact.eval.sum" instructions)
	ci=$(val "$d/ctr.eval.sum" instructions)
	tap "$(awk -v e="${ei:-0}" -v n="${ni:-0}" 'BEGIN { print (e && n && e <= n * 1.005 ? "OK" : "FAIL") }')" \
		"$p $c: the exact-profile build runs no more instructions than the build without a profile, within 0.5% ($ei vs $ni)"
	tap "$(awk -v e="${ei:-0}" -v c="${ci:-0}" 'BEGIN { print (e && c && e <= c * 1.02 ? "OK" : "FAIL") }')" \
		"$p $c: the exact-profile build runs no more instructions than the CTR one, within 2% ($ei vs $ci)"
done
exit 0
