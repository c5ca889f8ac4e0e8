#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) capstone 5 with RISC-V for the host perf (perf script
# -F +disasm, --insn-trace=disasm). bookworm's capstone is 4.0.2, which has
# no RISC-V; capstone 5 is built here from Debian trixie's source package,
# with its quilt patches applied (dpkg-source -x).
# Usage: scripts/capstone.sh
# Prints the install prefix on stdout: include/capstone/*.h and
# lib/libcapstone.a (static, position-independent; only the RISC-V
# disassembler), lib/pkgconfig/capstone.pc. The prefix lives under
# $NTRACE_CACHE/capstone/, keyed by the pinned source package, the build
# flags and the compiler, so a warm run downloads and builds nothing.
#
# The download is checked along Debian's own chain of trust: trixie's
# InRelease signed by a key of /usr/share/keyrings/debian-archive-keyring.gpg
# (bookworm's keyring holds trixie's keys), the SHA-256 of
# main/source/Sources.xz from the signed text, and the package's files'
# SHA-256 from Sources, which must be the ones pinned here. When trixie no
# longer lists the pinned version the files are taken from the pool if they
# are still there, checked against the pins only (a warning says so).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/deb-src.sh"

[ $# = 0 ] || die "usage: ${0##*/}"
# Bump when the way the library is built changes.
BUILD_REV=1
# The source package: trixie's capstone, its files and their SHA-256.
CS_SUITE=trixie
CS_VERSION=5.0.7-1~deb13u1
CS_POOL=pool/main/c/capstone
CS_FILES=(
	"22844f8817501adb232ebe3f28e09758b34e5a94214b8f8f3a92127f89e0084c capstone_5.0.7-1~deb13u1.dsc"
	"6427a724726d161d1e05fb49fff8cd0064f67836c04ffca3c11d6d859e719caa capstone_5.0.7.orig.tar.gz"
	"efe249701a9041028cc73d79bc5485f154f50082153eb59914d9c810d153faef capstone_5.0.7-1~deb13u1.debian.tar.xz"
)
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# Only the RISC-V disassembler: with x86 in the library, perf 6.12's
# annotate would disassemble x86 with capstone instead of objdump (and
# lose objdump's source lines), which is not what this library is for.
CMAKE_FLAGS=(
	-DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON
	-DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON
	-DCAPSTONE_ARCHITECTURE_DEFAULT=OFF -DCAPSTONE_RISCV_SUPPORT=ON
	-DCAPSTONE_BUILD_TESTS=OFF -DCAPSTONE_BUILD_CSTOOL=OFF -DCAPSTONE_INSTALL=ON
	-DCMAKE_INSTALL_LIBDIR=lib
)
command -v cmake >/dev/null || die "capstone builds with cmake (apt-get install cmake)"
command -v dpkg-source >/dev/null || die "dpkg-source unpacks the source package (apt-get install dpkg-dev)"
command -v gpgv >/dev/null || die "gpgv checks trixie's InRelease (apt-get install gpgv)"

key=$(cache_key "rev $BUILD_REV" "${CS_FILES[@]}" "${CMAKE_FLAGS[*]}" "$(cc --version | head -1)" \
	"$(cmake --version | head -1)")
out=$NTRACE_CACHE/capstone/$key

run() { run_logged "$out/build.log" "$@"; }	# DIR CMD...

# fetch URL FILE [SHA256]: download with apt's own client (apt's proxy
# settings apply), checking the hash when given.
fetch() {
	local hash=()
	[ -z "${3:-}" ] || hash=("SHA256:$3")
	/usr/lib/apt/apt-helper download-file "$1" "$2" "${hash[@]}" >>"$out/build.log" 2>&1 ||
		{ tail -3 "$out/build.log" >&2; die "cannot download $1"; }
}

# download DIR: the pinned files of the source package into DIR, checked.
download() {
	local dir=$1 uri dists sources h f pinned listed=1 line
	uri=$(deb_archive_uri) || exit 1
	dists=$uri/dists/$CS_SUITE
	fetch "$dists/InRelease" "$dir/InRelease"
	# the signed text only: what gpgv checked, not what surrounds it
	gpgv --keyring "$KEYRING" --output "$dir/Release" "$dir/InRelease" >>"$out/build.log" 2>&1 ||
		die "$dists/InRelease: no good signature from $KEYRING (log: $out/build.log)"
	h=$(awk '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 } s && $3 == "main/source/Sources.xz" { print $1 }' \
		"$dir/Release")
	[ -n "$h" ] || die "$dists/InRelease has no SHA-256 for main/source/Sources.xz"
	fetch "$dists/main/source/by-hash/SHA256/$h" "$dir/Sources.xz" "$h"
	xz -dc "$dir/Sources.xz" >"$dir/Sources"
	# capstone's stanza for the pinned version
	sources=$(awk -v v="$CS_VERSION" '
		/^Package: / { p = ($2 == "capstone") } p && $0 == "Version: " v { keep = 1 }
		/^$/ { if (keep) { print stanza; exit } stanza = ""; next }
		p { stanza = stanza $0 "\n" }' "$dir/Sources")
	for pinned in "${CS_FILES[@]}"; do
		f=${pinned#* }
		line=$(awk -v f="$f" '/^Checksums-Sha256:/ { s = 1; next } /^[^ ]/ { s = 0 }
			s && $3 == f { print $1 " " $3 }' <<<"$sources")
		if [ -z "$line" ]; then
			listed=0
		elif [ "$line" != "$pinned" ]; then
			die "trixie's Sources gives $f the SHA-256 ${line%% *}, not the pinned ${pinned%% *}"
		fi
	done
	if [ $listed = 0 ]; then
		log "warning: trixie's Sources no longer lists capstone $CS_VERSION" \
			"($(awk '/^Package: capstone$/ { p = 1 } p && /^Version:/ { print $2; exit }' "$dir/Sources")):" \
			"its files are checked against the SHA-256 pinned in ${0##*/} only"
	fi
	for pinned in "${CS_FILES[@]}"; do
		fetch "$uri/$CS_POOL/${pinned#* }" "$dir/${pinned#* }" "${pinned%% *}"
	done
	(cd "$dir" && sha256sum --quiet -c - <<<"$(printf '%s\n' "${CS_FILES[@]/ /  }")") >>"$out/build.log" 2>&1 ||
		die "capstone's files do not have their pinned SHA-256 (log: $out/build.log)"
}

build() {
	[ -f "$out/.ntrace-built" ] && return 0
	log "building capstone $CS_VERSION (RISC-V, static) from Debian $CS_SUITE's source package in $out"
	rm -rf "$out" && mkdir -p "$out/build"
	local b=$out/build start=$SECONDS
	download "$b"
	# dpkg-source checks the files against the .dsc and applies
	# debian/patches (none of them touches the RISC-V disassembler)
	run "$b" dpkg-source -x "${CS_FILES[0]#* }" src
	run "$b" cmake -S src -B obj "${CMAKE_FLAGS[@]}" -DCMAKE_INSTALL_PREFIX="$out"
	run "$b" cmake --build obj -j"${NTRACE_JOBS:-2}"
	run "$b" cmake --install obj
	[ -f "$out/lib/libcapstone.a" ] && [ -f "$out/include/capstone/capstone.h" ] ||
		die "capstone's install in $out lacks lib/libcapstone.a or include/capstone/capstone.h"
	echo "$((SECONDS - start))" >"$out/build-seconds"
	rm -rf "$b"
	touch "$out/.ntrace-built"
}
with_lock "$out.lock" build
echo "$out"
