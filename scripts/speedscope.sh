#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# speedscope.sh: prints the offline page of speedscope (an MIT-licensed
# profile viewer that opens Chrome trace-event JSON, which perf-ntrace
# decode --format=timeline writes), installed once with the machine's npm
# into $NTRACE_CACHE/npm/speedscope-VERSION. Exits 1 with the reason on
# stderr when npm or the registry is not there.
# usage: speedscope.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VERSION=1.25.0
dir=$NTRACE_CACHE/npm/speedscope-$VERSION
page=$dir/node_modules/speedscope/dist/release/index.html

fetch() {
	[ -f "$page" ] && return 0
	command -v npm >/dev/null || { log "no npm"; return 1; }
	rm -rf "$dir" && mkdir -p "$dir"
	timeout 300 npm install --prefix "$dir" --no-audit --no-fund "speedscope@$VERSION" \
		>"$dir.log" 2>&1 || { log "npm install speedscope@$VERSION failed ($dir.log)"; return 1; }
	[ -f "$page" ] || { log "speedscope@$VERSION has no $page"; return 1; }
}
mkdir -p "$NTRACE_CACHE/npm"
with_lock "$NTRACE_CACHE/npm/speedscope.lock" fetch
echo "$page"
