#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) clang's instrumented-PGO runtime for riscv64,
# libclang_rt.profile-riscv64.a, which bookworm does not ship for riscv64
# (libclang-rt-NN-dev has x86 archives only). It is compiled from
# compiler-rt/lib/profile of the Debian source package of the same LLVM
# version as the clang that uses it (clang-14: llvm-toolchain-14), fetched
# with "apt-get source --download-only" (a deb-src entry is added when apt
# has none, as scripts/cross-libs.sh does). Only compiler-rt/lib/profile and
# compiler-rt/include/profile are unpacked from the .orig tarball; the
# script stops if a Debian patch of the package touches them (none does in
# 14.0.6-12), as it does not apply patches to a partial tree.
# The C files are compiled by the cross gcc, the one C++ file (the static
# constructor that registers the runtime) by clang++ --target=riscv64-linux-gnu,
# there being no riscv64 g++ here.
# Usage: scripts/profile-rt.sh
#   CLANG=clang-NN   the clang whose runtime to build (default: clang)
# Prints the archive's path. Link a program compiled with
# -fprofile-instr-generate by the cross gcc with
#   ARCHIVE -Wl,-u,__llvm_profile_runtime
# (the undefined symbol clang's own driver adds, which pulls the runtime's
# constructor in). clang 14 must compile such objects with
# -fno-integrated-as: its riscv64 assembler rejects the profile data's
# differences of addresses in two sections ("Unsupported relocation
# type"), GNU as emits them. The profraw it writes is read by llvm-profdata-NN of the
# same version. Cached under $NTRACE_CACHE/profile-rt/, keyed by the .dsc,
# both compilers and BUILD_REV.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$NTRACE_TOP/scripts/deb-src.sh"

[ $# = 0 ] || die "usage: ${0##*/} (CLANG=clang-NN picks the clang)"
# Bump when the way the runtime is built changes.
BUILD_REV=1
suite=$DEB_SUITE
clang=${CLANG:-clang}
cc=${CROSS_COMPILE}gcc
command -v "$clang" >/dev/null || die "no $clang (scripts/deps.sh installs clang)"
command -v dpkg-source >/dev/null || die "apt-get source needs dpkg-source (apt-get install dpkg-dev)"
major=$("$clang" --version | sed -n '1s/.*clang version \([0-9]*\)\..*/\1/p')
[ -n "$major" ] || die "cannot read the LLVM version of $clang"
srcpkg=llvm-toolchain-$major

dsc=$(deb_src_need 1 "$srcpkg")
key=$(cache_key "rev $BUILD_REV" "source $dsc" "$("$clang" --version | head -1)" "$($cc --version | head -1)")
out=$NTRACE_CACHE/profile-rt/$key
lib=$out/libclang_rt.profile-riscv64.a

run() { run_logged "$out/build.log" "$@"; }	# DIR CMD...

build() {
	[ -f "$out/.ntrace-built" ] && return 0
	log "building $lib from $dsc (downloads the ${srcpkg} sources, ~130 MB)"
	rm -rf "$out" && mkdir -p "$out/build/obj"
	local b=$out/build start=$SECONDS orig deb p top prof f
	run "$b" apt-get source --download-only -q "$srcpkg/$suite"
	orig=$(ls "$b"/"${srcpkg}"_*.orig.tar.* | head -1)
	deb=$(ls "$b"/"${srcpkg}"_*.debian.tar.* | head -1)
	[ -f "$orig" ] && [ -f "$deb" ] || die "apt-get source fetched no .orig/.debian tarball of $srcpkg"

	# Debian's patches to the runtime would need the whole tree: refuse.
	run "$b" tar -xf "$deb" debian/patches
	p=$(cd "$b" && grep -rlE '^\+\+\+ [^ ]*compiler-rt/(lib|include)/profile/' debian/patches || :)
	[ -z "$p" ] || die "Debian patches change the profile runtime (${p//$'\n'/ }); not supported"

	run "$b" tar -xf "$orig" --wildcards --no-wildcards-match-slash \
		'*/compiler-rt/lib/profile/*' '*/compiler-rt/include/profile/*'
	top=$(ls -d "$b"/*/compiler-rt | head -1)
	prof=$top/lib/profile
	[ -f "$prof/InstrProfiling.c" ] || die "no compiler-rt/lib/profile in $orig"

	# The definitions compiler-rt's CMakeLists.txt gives a Linux target.
	local flags=(-O2 -g -fPIC -I"$top/lib" -I"$top/include"
		-DCOMPILER_RT_HAS_ATOMICS=1 -DCOMPILER_RT_HAS_FCNTL_LCK=1 -DCOMPILER_RT_HAS_UNAME=1)
	for f in "$prof"/*.c; do
		case ${f##*/} in WindowsMMap.c) continue ;; esac
		run "$b" "$cc" "${flags[@]}" -c -o "$b/obj/$(basename "$f" .c).o" "$f"
	done
	run "$b" "${clang/clang/clang++}" --target=riscv64-linux-gnu "${flags[@]}" -nostdinc++ \
		-fno-exceptions -fno-rtti -c -o "$b/obj/InstrProfilingRuntime.o" "$prof/InstrProfilingRuntime.cpp"
	run "$b" "${CROSS_COMPILE}ar" rcs "$lib" "$b"/obj/*.o
	echo "$dsc" >"$out/source"
	echo "$((SECONDS - start))" >"$out/build-seconds"
	rm -rf "$b"
	touch "$out/.ntrace-built"
}
with_lock "$out.lock" build
echo "$lib"
