#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) static riscv64 libraries for a static riscv64 perf:
# libelf (from elfutils) and zlib, which libelf needs. bookworm has no
# riscv64 -dev packages (riscv64 is not a bookworm release architecture),
# so they are cross-built from the suite's Debian source packages
# ("apt-get source"; a deb-src entry is added when apt has none).
# Usage: scripts/cross-libs.sh
# Prints the install prefix on stdout: include/ (zlib.h, zconf.h, libelf.h,
# gelf.h, nlist.h, elfutils/) and lib/ (libz.a, libelf.a). Link with
# -I$PREFIX/include -L$PREFIX/lib -lelf -lz. The prefix lives under
# $NTRACE_CACHE/cross-libs/, keyed by the source package versions and the
# cross compiler, so a warm run builds nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/deb-src.sh"

[ $# = 0 ] || die "usage: ${0##*/}"
# Bump when the way the libraries are built changes.
BUILD_REV=1
suite=$DEB_SUITE
cc=${CROSS_COMPILE}gcc
host=${CROSS_COMPILE%-}
command -v dpkg-source >/dev/null || die "apt-get source needs dpkg-source (apt-get install dpkg-dev)"

dscs=$(deb_src_need 2 zlib elfutils)
key=$(cache_key "rev $BUILD_REV" "sources $dscs" "$($cc --version | head -1)")
out=$NTRACE_CACHE/cross-libs/$key

run() { run_logged "$out/build.log" "$@"; }	# DIR CMD...

build() {
	[ -f "$out/.ntrace-built" ] && return 0
	log "building riscv64 libz.a, libelf.a from $dscs in $out (a few minutes)"
	rm -rf "$out" && mkdir -p "$out/build" "$out/include/elfutils" "$out/lib"
	local b=$out/build start=$SECONDS jobs=-j"${NTRACE_JOBS:-2}" z e d
	run "$b" apt-get source -q "zlib/$suite" "elfutils/$suite"
	z=$(echo "$b"/zlib-*/) e=$(echo "$b"/elfutils-*/)
	for d in "$z" "$e"; do [ -d "$d" ] || die "no source package extracted as $d"; done

	# zlib: its own (non-autoconf) configure; static library only.
	run "$z" env CHOST="$host" CC="$cc" ./configure --static --prefix="$out"
	run "$z" make "$jobs" libz.a
	run "$z" install -m644 libz.a "$out/lib/"
	run "$z" install -m644 zlib.h zconf.h "$out/include/"

	# elfutils: only lib/ (libeu, helpers) and libelf.a; libdw, the tools,
	# debuginfod and the compression libraries other than zlib are not built.
	run "$e" ./configure --host="$host" CC="$cc" \
		CPPFLAGS="-I$out/include" LDFLAGS="-L$out/lib" --prefix="$out" \
		--without-bzlib --without-lzma --without-zstd --disable-debuginfod \
		--disable-libdebuginfod --disable-nls
	run "$e" make "$jobs" -C lib
	run "$e" make "$jobs" -C libelf libelf.a
	run "$e" install -m644 libelf/libelf.a "$out/lib/"
	run "$e" install -m644 libelf/libelf.h libelf/gelf.h libelf/nlist.h "$out/include/"
	run "$e" install -m644 libelf/elf-knowledge.h version.h "$out/include/elfutils/"

	echo "$((SECONDS - start))" >"$out/build-seconds"
	rm -rf "$b"
	touch "$out/.ntrace-built"
}
with_lock "$out.lock" build
echo "$out"
