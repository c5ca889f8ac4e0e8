#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Tests of scripts/fdo-programs.sh and scripts/profile-rt.sh (TAP lines,
# test.sh suite "fdo-programs"): the riscv64 lua and zstd of both compilers
# are static riscv64 executables; under qemu-riscv64 they give, on the
# training and evaluation inputs, the output of the host's own lua5.4 and
# zstd (Debian's packages of the same versions): the same checksums, the
# same compressed bytes, which decompress to the input; the instrumented
# build writes a .profraw that llvm-profdata merges and clang reads back;
# a sample profile goes into a clang and a gcc build.
# Usage: scripts/fdo-programs-test.sh [--keep]  (--keep: leave the work
# directory, its path printed)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

keep=
[ "${1:-}" = --keep ] && keep=1
TAP_PREFIX="fdo-programs: "
fp() { bash "$NTRACE_TOP/scripts/fdo-programs.sh" "$@"; }
scratch w "" "$keep"
cd "$w"

run_args() { # DIR train|eval: the run's arguments into the array a
	read -ra a < <(fp args "$1" "$2")
}
static_rv64() { # EXE: a static riscv64 executable (no program interpreter)
	LC_ALL=C "${CROSS_COMPILE}readelf" -hl "$1" >"$1.hdr" 2>&1 &&
		grep -q 'Machine:.*RISC-V' "$1.hdr" && ! grep -q INTERP "$1.hdr"
}

fp inputs lua "$w/in/lua"
fp inputs zstd "$w/in/zstd"
for p in lua zstd; do
	check "inputs $p: training and evaluation runs differ" \
		eval '! cmp -s "$w/in/$p/train.cmd" "$w/in/$p/eval.cmd"'
done
check "inputs: each file under 8 MB" \
	eval '[ -z "$(find "$w/in" -type f -size +8M)" ]'

for c in clang gcc; do
	for p in lua zstd; do
		if fp build $p $c plain "$w/$p.$c" 2>"$w/build.$p.$c.log"; then
			check "$p ($c) is a static riscv64 executable" static_rv64 "$w/$p.$c"
		else
			not_ok "$p ($c) builds (log: $w/build.$p.$c.log)"
		fi
	done
done
# A second build of a plain program comes from the cache.
fp build lua clang plain "$w/lua.again" 2>"$w/again.log"
check "a warm plain build compiles nothing" eval '! grep -q building "$w/again.log" && cmp -s "$w/lua.again" "$w/lua.clang"'

# lua: the checksums of the host's lua5.4 (Debian's build of the same 5.4.4).
for r in train eval; do
	run_args "$w/in/lua" $r
	if command -v lua5.4 >/dev/null; then
		lua5.4 "${a[@]}" >"$w/lua.$r.host"
	else
		: >"$w/lua.$r.host"
	fi
	for c in clang gcc; do
		if [ ! -s "$w/lua.$r.host" ]; then
			skip "lua ($c) $r run prints the host lua5.4's checksums" "no lua5.4 on the host"
			continue
		fi
		[ -x "$w/lua.$c" ] && qemu-riscv64 "$w/lua.$c" "${a[@]}" >"$w/lua.$r.$c" 2>&1
		check "lua ($c) $r run prints the host lua5.4's checksums" \
			eval 'grep -q "^total " "$w/lua.$r.$c" && cmp -s "$w/lua.$r.host" "$w/lua.$r.$c"'
	done
done

# zstd: the frames decompress to the input (host zstd and our own), and are
# the host zstd's bytes when it is the same version, run single-threaded as
# ours is built (Debian's multi-threaded zstd cuts larger inputs into jobs).
zv=$(grep -o 'libzstd_[0-9.]*[0-9]' "$(fp sources)/sources" | cut -d_ -f2)
host_same=no
zstd -V 2>/dev/null | grep -q "v$zv," && host_same=yes
for r in train eval; do
	run_args "$w/in/zstd" $r
	tar=$w/in/zstd/$r.tar
	for c in clang gcc; do
		[ -x "$w/zstd.$c" ] && qemu-riscv64 "$w/zstd.$c" "${a[@]}" >"$w/zstd.$r.$c.zst" 2>"$w/zstd.$r.$c.err"
		check "zstd ($c) $r run: the host zstd -d restores the input byte for byte" \
			eval 'zstd -q -d -c "$w/zstd.$r.$c.zst" | cmp -s - "$tar"'
		check "zstd ($c) $r run: its own zstd -d restores the input byte for byte" \
			eval 'qemu-riscv64 "$w/zstd.$c" -q -d -c "$w/zstd.$r.$c.zst" | cmp -s - "$tar"'
		if [ "$host_same" = yes ]; then
			check "zstd ($c) $r run: the host zstd's bytes" \
				eval 'zstd --single-thread "${a[@]}" 2>/dev/null | cmp -s - "$w/zstd.$r.$c.zst"'
		else
			skip "zstd ($c) $r run: the host zstd's bytes" "the host zstd is another version"
		fi
	done
done

# Instrumented PGO: runtime, profraw, merge, use.
major=$("${CLANG:-clang}" --version | sed -n '1s/.*clang version \([0-9]*\)\..*/\1/p')
if rt=$(bash "$NTRACE_TOP/scripts/profile-rt.sh" 2>"$w/profile-rt.log"); then
	check "profile runtime: a riscv64 libclang_rt.profile archive" \
		eval '[ "$(LC_ALL=C "${CROSS_COMPILE}readelf" -h "$rt" | grep -c "Machine:.*RISC-V")" -gt 0 ]'
else
	not_ok "profile runtime builds (log: $w/profile-rt.log)"
fi
for p in lua zstd; do
	run_args "$w/in/$p" train
	# lua names the .profraw in the environment, zstd at build time
	gen=() env=(LLVM_PROFILE_FILE="$w/$p.profraw")
	[ $p = lua ] || gen=("$w/$p.profraw") env=()
	if ! fp build $p clang instr-gen "$w/$p.gen" "${gen[@]}" 2>"$w/$p.gen.log"; then
		not_ok "$p: instrumented build (log: $w/$p.gen.log)"
		continue
	fi
	rm -f "$w/$p.profraw"
	env "${env[@]}" qemu-riscv64 "$w/$p.gen" "${a[@]}" >"$w/$p.gen.out"
	check "$p: the instrumented build's run writes a .profraw (named in the ${gen:+build}${env:+environment})" \
		test -s "$w/$p.profraw"
	if [ $p = lua ]; then
		check "lua: the instrumented build prints the same checksums" cmp -s "$w/lua.gen.out" "$w/lua.train.clang"
		hot=luaV_execute
	else
		check "zstd: the instrumented build compresses to the same bytes" cmp -s "$w/zstd.gen.out" "$w/zstd.train.clang.zst"
		hot=ZSTD_compressBlock_doubleFast
	fi
	fp merge "$w/$p.profdata" "$w/$p.profraw" 2>"$w/$p.merge.log"
	check "$p: llvm-profdata merges the .profraw" test -s "$w/$p.profdata"
	check "$p: the profile counts $hot" eval \
		'"llvm-profdata-$major" show --function="$hot" "$w/$p.profdata" 2>/dev/null | grep -q "Function count: [1-9]"'
	fp build $p clang instr-use "$w/$p.use" "$w/$p.profdata" 2>"$w/$p.use.log"
	check "$p: clang -fprofile-instr-use builds with the merged profile" static_rv64 "$w/$p.use"
done
check "lua: the build with the instrumented profile prints the same checksums" \
	eval 'qemu-riscv64 "$w/lua.use" $(fp args "$w/in/lua" train) | cmp -s - "$w/lua.train.clang"'

# A sample profile (a small hand-made text one) goes into clang. (gcc's
# -fauto-profile wants create_gcov's output of a perf.data: autofdo.sh.)
printf 'luaV_execute:100000:1000\n 1: 1000\n 2: 1000\n' >"$w/lua.sample.prof"
fp build lua clang sample "$w/lua.sample" "$w/lua.sample.prof" 2>"$w/lua.sample.log"
check "lua: clang -fprofile-sample-use builds with a sample profile" static_rv64 "$w/lua.sample"
check "lua: that build prints the same checksums" \
	eval 'qemu-riscv64 "$w/lua.sample" $(fp args "$w/in/lua" train) | cmp -s - "$w/lua.train.clang"'
tap_status
