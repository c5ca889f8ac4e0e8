#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# libnexus-rv.sh: prints a directory holding libnexus-rv (Bo Gan's N-Trace
# decoder library, Apache-2.0, which decodes the HiFive Premier P550's
# pre-ratified trace) built at a pinned commit: include/ and
# lib/libnexus-rv.a. The library alone is built (cmake -DUTIL=OFF: its
# utilities want capstone 5, Debian 12 has 4), once, into
# $NTRACE_CACHE/libnexus-rv/COMMIT. NTRACE_LIBNEXUSRV_GIT names another
# place to take the commit from: a clone URL or a local git directory (a
# mirror). Exits 1 with the reason on stderr when the source cannot be
# had or does not build, so tests can skip with it.
# usage: libnexus-rv.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COMMIT=3e125af84fd6dcab8864c9092e3ed245ddc1af36	# "contrib/p550: update README"
from=${NTRACE_LIBNEXUSRV_GIT:-https://github.com/ganboing/libnexus-rv.git}
out=$NTRACE_CACHE/libnexus-rv/$COMMIT

fetch_build() {
	[ -f "$out/lib/libnexus-rv.a" ] && return 0
	local tmp g
	tmp=$(mktemp -d)
	rm -rf "$out" && mkdir -p "$out/src"
	if [ -d "$from" ]; then
		g=$(git -C "$from" rev-parse --absolute-git-dir 2>/dev/null || echo "$from")
	else
		g=$tmp/git
		git init -q --bare "$g"
		if ! timeout 300 git --git-dir="$g" fetch -q --depth 1 "$from" "$COMMIT" 2>"$tmp/err"; then
			log "cannot fetch libnexus-rv $COMMIT from $from: $(head -c 200 "$tmp/err")"
			rm -rf "$tmp" "$out"
			return 1
		fi
	fi
	if ! git --git-dir="$g" archive "$COMMIT" CMakeLists.txt LICENSE lib include 2>"$tmp/err" |
	     tar -x -C "$out/src"; then
		log "$from has no commit $COMMIT: $(head -c 200 "$tmp/err")"
		rm -rf "$tmp" "$out"
		return 1
	fi
	rm -rf "$tmp"
	command -v cmake >/dev/null || { log "needs cmake (apt-get install cmake)"; return 1; }
	if ! { cmake -S "$out/src" -B "$out/build" -DUTIL=OFF -DBUILD_SHARED_LIBS=OFF \
		-DCMAKE_BUILD_TYPE=Release && cmake --build "$out/build" -j 2; } >"$out/build.log" 2>&1; then
		log "libnexus-rv does not build (log: $out/build.log)"
		return 1
	fi
	mkdir -p "$out/lib"
	cp "$out/build/lib/libnexus-rv.a" "$out/lib/"
	cp -r "$out/src/include" "$out/"
}

command -v git >/dev/null || die "needs git (apt-get install git)"
with_lock "$out.lock" fetch_build || exit 1
echo "$out"
