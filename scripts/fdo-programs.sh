#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The programs of the AutoFDO comparison (scripts/autofdo-compare.sh):
# our benchmark fdo_bench (tools/autofdo/fdo_bench.c), and two real ones,
# the "lua" interpreter and the "zstd" command line tool, built statically
# for riscv64 from the Debian source packages lua5.4 and zstd (source
# libzstd) of the machine's suite,
# "apt-get source" unpacking them with their Debian patches applied (a
# deb-src entry is added when apt has none, as scripts/cross-libs.sh does).
# The sources are compiled directly (no dpkg-buildpackage, no upstream
# Makefile: Debian's lua Makefile builds shared libraries through libtool),
# with the upstream Makefiles' definitions:
#   lua   src/*.c but luac.c; -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_POSIX,
#         and a fixed string-hash seed (luai_makeseed), for repeatable runs
#         (upstream's "posix" platform: no dlopen, no readline); -lm
#   zstd  lib/{common,compress,decompress,dictBuilder}/*.c, the legacy
#         decoders v0.5-v0.7 and programs/*.c; -DXXH_NAMESPACE=ZSTD_
#         -DZSTD_LEGACY_SUPPORT=5 -DBACKTRACE_ENABLE=0, single-threaded
#         (no ZSTD_MULTITHREAD, so a run is one thread and deterministic)
# Every file gets -O2 -g -gdwarf-4; clang also -fdebug-info-for-profiling.
#
# Usage:
#   scripts/fdo-programs.sh build PROG COMPILER VARIANT OUT [PROFILE]
#     PROG      fdo_bench | lua | zstd
#     COMPILER  clang  ($CLANG --target=riscv64-linux-gnu, linked by the
#                       cross gcc -static, as scripts/autofdo.sh does)
#               gcc    (${CROSS_COMPILE}gcc -static)
#     VARIANT   plain      no profile (cached: a warm call only copies)
#               sample     clang -fprofile-sample-use=PROFILE,
#                          gcc -fauto-profile=PROFILE
#               instr-gen  clang -fprofile-instr-generate (assembled by
#                          GNU as: scripts/profile-rt.sh says why), linked
#                          with the riscv64 runtime of scripts/profile-rt.sh;
#                          a run writes $LLVM_PROFILE_FILE, else PROFILE
#                          if given (a path in the machine that runs it,
#                          e.g. /tmp/export/lua.profraw in the guest, whose
#                          run list sets no environment), else
#                          default.profraw in the working directory
#               instr-use  clang -fprofile-instr-use=PROFILE (a .profdata of
#                          "merge" below)
#     Writes the static executable to OUT. The profile variants are compiled
#     anew on each call, in a scratch directory, from the same source tree
#     at the same path as the plain build (so its debug info and a profile
#     of it match).
#   scripts/fdo-programs.sh inputs PROG DIR
#     Writes PROG's workload into DIR: the input files, train.cmd and
#     eval.cmd: the arguments of the training and of the evaluation run,
#     one line, split on blanks, where "$DIR" stands for the directory the
#     inputs are in when the program runs (the host's DIR, or where the
#     guest's initramfs puts them; no blanks in it). The result of a run
#     is its standard output; nothing else is written. "args" below does
#     the substitution.
#     lua: the scripts of tools/autofdo/lua/ (train and eval differ in seed
#     and sizes; stdout is one checksum line a workload). zstd: train.tar
#     and eval.tar, tar archives of the unpacked lua5.4 and zstd sources
#     (different files, ~2.2 MB each), compressed to stdout with -3
#     (training) and -4 (evaluation): both levels use the same match
#     finder (dfast), with other parameters; a profile of -19 (btultra2)
#     would cover none of -3's hot code, and -19 costs ~5000 instructions
#     a byte, so only ~30 KB would fit the budget of a run. Each run is
#     about 130-160 million riscv64 instructions.
#   scripts/fdo-programs.sh args DIR train|eval [PATH]
#     Prints DIR's train.cmd or eval.cmd with $DIR replaced by PATH
#     (default: DIR), e.g. for the host:
#       read -ra a < <(scripts/fdo-programs.sh args DIR train)
#       qemu-riscv64 ./lua "${a[@]}" >train.out
#     or for the guest's run.list: "/usr/bin/lua $(... args DIR train /fdo/lua)"
#   scripts/fdo-programs.sh merge OUT.profdata PROFRAW...
#     llvm-profdata-NN merge, NN being $CLANG's version (the .profraw
#     format is the runtime's: a newer llvm-profdata may not read it).
#   scripts/fdo-programs.sh sources
#     Prints the directory holding the unpacked source trees.
# Environment: CLANG (default clang), CROSS_COMPILE, NTRACE_CACHE,
# NTRACE_JOBS (parallel compiles, default 2).
# Caches under $NTRACE_CACHE/fdo-programs/: src-KEY (keyed by the .dsc
# names and BUILD_REV) and plain-KEY (plus both compilers' versions).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$NTRACE_TOP/scripts/deb-src.sh"

# Bump when the way the programs are built changes.
BUILD_REV=2
suite=$DEB_SUITE
CLANG=${CLANG:-clang}
gcc=${CROSS_COMPILE}gcc
jobs=${NTRACE_JOBS:-2}
usage="usage: ${0##*/} build PROG COMPILER VARIANT OUT [PROFILE] | inputs PROG DIR | args DIR train|eval [PATH] | merge OUT PROFRAW... | sources"
cache=$NTRACE_CACHE/fdo-programs

# --- the source packages -----------------------------------------------
dscs=
need_dscs() {	# sets dscs (not in a subshell: the cache keys use it)
	[ -n "$dscs" ] || dscs=$(deb_src_need 2 lua5.4 zstd)
}
sources_dir() {	# prints the unpacked sources' directory, made if need be
	need_dscs
	local dir
	dir=$cache/src-$(cache_key "rev $BUILD_REV" "sources $dscs")
	[ -f "$dir/.ntrace-unpacked" ] || with_lock "$dir.lock" unpack "$dir" >&2
	echo "$dir"
}
unpack() {	# DIR
	[ -f "$1/.ntrace-unpacked" ] && return 0
	command -v dpkg-source >/dev/null || die "apt-get source needs dpkg-source (apt-get install dpkg-dev)"
	log "apt-get source lua5.4/$suite zstd/$suite ($dscs) into $1"
	rm -rf "$1" && mkdir -p "$1"
	(cd "$1" && apt-get source -q "lua5.4/$suite" "zstd/$suite") >"$1.log" 2>&1 ||
		{ tail -20 "$1.log" >&2; die "apt-get source failed (log: $1.log)"; }
	[ -f "$(echo "$1"/lua5.4-*/src/lvm.c)" ] || die "no lua5.4 tree in $1"
	[ -f "$(echo "$1"/libzstd-*/programs/zstdcli.c)" ] || die "no zstd tree in $1"
	# Debian's luaconf.h includes this header, which debian/rules writes.
	printf '#define DEB_HOST_MULTIARCH "%s"\n' "${CROSS_COMPILE%-}" \
		>"$(echo "$1"/lua5.4-*/src)/lua5.4-deb-multiarch.h"
	echo "$dscs" >"$1/sources"
	touch "$1/.ntrace-unpacked"
}

# --- what a program is made of -----------------------------------------
# prog_def PROG SRC: sets srcs (files), defs (preprocessor flags), libs.
prog_def() {
	local t
	case $1 in
	lua)
		t=$(echo "$2"/lua5.4-*/src)
		srcs=()
		for f in "$t"/*.c; do [ "${f##*/}" = luac.c ] || srcs+=("$f"); done
		# A fixed string-hash seed (luaconf's luai_makeseed hook): by
		# default it mixes the time and heap, stack and code addresses,
		# so no two runs are alike and a profile is of another run.
		defs=(-std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_POSIX "-Dluai_makeseed(L)=0x6e747263u")
		libs=(-lm) ;;
	zstd)
		t=$(echo "$2"/libzstd-*)
		srcs=("$t"/lib/{common,compress,decompress,dictBuilder}/*.c
			"$t"/lib/legacy/zstd_v0[5-7].c "$t"/programs/*.c)
		defs=(-I"$t/lib" -I"$t/lib/common" -I"$t/lib/compress" -I"$t/lib/dictBuilder"
			-I"$t/lib/legacy" -DXXH_NAMESPACE=ZSTD_ -DDEBUGLEVEL=0
			-DZSTD_LEGACY_SUPPORT=5 -DBACKTRACE_ENABLE=0)
		libs=() ;;
	fdo_bench)	# ours: tools/autofdo/fdo_bench.c, built anew each time
		srcs=("$NTRACE_TOP/tools/autofdo/fdo_bench.c")
		defs=()
		libs=() ;;
	*) die "unknown program '$1' (fdo_bench, lua or zstd)" ;;
	esac
	[ -f "${srcs[0]}" ] || die "no sources of $1 in $2"
}

cflags=(-O2 -g -gdwarf-4)
clang_flags=(--target=riscv64-linux-gnu -fdebug-info-for-profiling)
# compiler_cmd COMPILER VARIANT [PROFILE]: sets cc (compile command) and
# ldextra (link additions).
compiler_cmd() {
	ldextra=()
	case $1 in
	clang) cc=("$CLANG" "${clang_flags[@]}" "${cflags[@]}") ;;
	gcc) cc=("$gcc" "${cflags[@]}") ;;
	*) die "unknown compiler '$1' (clang or gcc)" ;;
	esac
	case $1/$2 in
	*/plain) ;;
	clang/sample) cc+=(-fprofile-sample-use="$3") ;;
	gcc/sample) cc+=(-fauto-profile="$3") ;;
	# clang 14's integrated assembler cannot emit the profile data's
	# cross-section differences for riscv64 ("Unsupported relocation
	# type"); GNU as can.
	clang/instr-gen) cc+=(-fprofile-instr-generate${3:+=$3} -fno-integrated-as)
		ldextra=("$(bash "$NTRACE_TOP/scripts/profile-rt.sh")" -Wl,-u,__llvm_profile_runtime) ;;
	clang/instr-use) cc+=(-fprofile-instr-use="$3") ;;
	gcc/instr-*) die "variant '$2' is clang only" ;;
	*) die "unknown variant '$2' (plain, sample, instr-gen, instr-use)" ;;
	esac
}

# compile_link OBJDIR EXE LOG: compiles srcs with cc into OBJDIR, at most
# $jobs at once, and links EXE.
compile_link() {
	local objdir=$1 exe=$2 logf=$3 f o objs=() fail=0 n=0
	mkdir -p "$objdir"
	for f in "${srcs[@]}"; do
		o=$objdir/$(basename "$(dirname "$f")")_$(basename "$f" .c).o
		objs+=("$o")
		if [ "$n" -ge "$jobs" ]; then wait -n || fail=1; n=$((n - 1)); fi
		"${cc[@]}" "${defs[@]}" -c -o "$o" "$f" >>"$logf" 2>&1 &
		n=$((n + 1))
	done
	while [ "$n" -gt 0 ]; do wait -n || fail=1; n=$((n - 1)); done
	[ $fail = 0 ] || { grep -m20 -i 'error' "$logf" >&2 || :; die "compiling failed (log: $logf)"; }
	"$gcc" -static -o "$exe" "${objs[@]}" "${ldextra[@]}" "${libs[@]}" >>"$logf" 2>&1 ||
		{ tail -20 "$logf" >&2; die "linking $exe failed (log: $logf)"; }
}

plain_build() {	# PROG COMPILER SRC DIR: the cached plain executable DIR/PROG.COMPILER
	local exe=$4/$1.$2 start=$SECONDS
	[ -f "$exe" ] && return 0
	log "building $1 with $2 in $4"
	mkdir -p "$4"
	rm -rf "$4/obj.$1.$2" "$4/$1.$2.log"
	compile_link "$4/obj.$1.$2" "$exe.tmp" "$4/$1.$2.log"
	rm -rf "$4/obj.$1.$2"
	echo "$((SECONDS - start))" >"$4/$1.$2.seconds"
	mv "$exe.tmp" "$exe"
}

cmd_build() {
	[ $# -ge 4 ] && [ $# -le 5 ] || die "$usage"
	local prog=$1 comp=$2 variant=$3 out=$4 profile=${5:-} src dir w
	case $variant in
	plain) [ -z "$profile" ] || die "variant plain takes no profile" ;;
	sample | instr-use) [ -f "$profile" ] || die "variant $variant needs a PROFILE file (got '${profile:-nothing}')"
		profile=$(realpath "$profile") ;;
	instr-gen) [[ $profile != *[[:space:]]* ]] || die "instr-gen: no blanks in the .profraw path, please" ;;
	esac
	need_dscs
	src=$(sources_dir)
	prog_def "$prog" "$src"
	compiler_cmd "$comp" "$variant" "$profile"
	mkdir -p "$(dirname "$out")"
	if [ "$variant" = plain ] && [ "$prog" != fdo_bench ]; then
		dir=$cache/plain-$(cache_key "rev $BUILD_REV" "sources $dscs" \
			"$("$CLANG" --version | head -1)" "$("$gcc" --version | head -1)" "${cflags[*]}" "${clang_flags[*]}")
		with_lock "$dir/$prog.$comp.lock" plain_build "$prog" "$comp" "$src" "$dir"
		cp "$dir/$prog.$comp" "$out"
	else
		scratch w
		compile_link "$w/obj" "$w/exe" "$w/build.log"
		cp "$w/exe" "$out"
	fi
}

cmd_inputs() {
	[ $# = 2 ] || die "$usage"
	local prog=$1 dir=$2 src
	mkdir -p "$dir" && dir=$(realpath "$dir")
	case $prog in
	fdo_bench)	# iterations: about 100 M instructions, then 75 M
		echo 1048576 >"$dir/train.cmd"
		echo 786432 >"$dir/eval.cmd" ;;
	lua)
		cp "$NTRACE_TOP"/tools/autofdo/lua/*.lua "$dir/"
		echo '$DIR/bench.lua train' >"$dir/train.cmd"
		echo '$DIR/bench.lua eval' >"$dir/eval.cmd" ;;
	zstd)
		src=$(sources_dir)
		# Deterministic archives: sorted names, fixed owner and time.
		local tarflags=(--sort=name --owner=0 --group=0 --numeric-owner
			--mtime=@0 --format=ustar)
		# training: zstd's compressor sources; evaluation: lua's sources
		# and documentation, plus zstd's decompressor and tool sources.
		(cd "$src" && tar -cf "$dir/train.tar" "${tarflags[@]}" \
			libzstd-*/lib/compress libzstd-*/lib/common libzstd-*/doc)
		(cd "$src" && tar -cf "$dir/eval.tar" "${tarflags[@]}" \
			lua5.4-*/src lua5.4-*/doc libzstd-*/lib/decompress libzstd-*/programs)
		echo '-3 -c $DIR/train.tar' >"$dir/train.cmd"
		echo '-4 -c $DIR/eval.tar' >"$dir/eval.cmd" ;;
	*) die "unknown program '$prog' (fdo_bench, lua or zstd)" ;;
	esac
}

cmd_args() {
	[ $# -ge 2 ] && [ $# -le 3 ] || die "$usage"
	local f=$1/$2.cmd path=${3:-$1}
	[ -f "$f" ] || die "no $f (run: ${0##*/} inputs PROG $1)"
	[[ $path != *[[:space:]\|\&]* ]] || die "a path with blanks or | or & cannot be substituted: '$path'"
	sed "s|\\\$DIR|$path|g" "$f"
}

cmd_merge() {
	[ $# -ge 2 ] || die "$usage"
	local major
	major=$("$CLANG" --version | sed -n '1s/.*clang version \([0-9]*\)\..*/\1/p')
	command -v "llvm-profdata-$major" >/dev/null || die "no llvm-profdata-$major for $CLANG"
	"llvm-profdata-$major" merge -o "$@"
}

[ $# -ge 1 ] || die "$usage"
case $1 in
build) shift; cmd_build "$@" ;;
inputs) shift; cmd_inputs "$@" ;;
args) shift; cmd_args "$@" ;;
merge) shift; cmd_merge "$@" ;;
sources) sources_dir ;;
*) die "$usage" ;;
esac
