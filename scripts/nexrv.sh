#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# nexrv.sh: prints the refcode/c directory of NexRv, the N-Trace task
# group's reference encoder and decoder, with NexRv.exe built. The source is
# the public repository riscv-non-isa/tg-nexus-trace at a pinned commit,
# built once with its own makefile into $NTRACE_CACHE/nexrv/COMMIT.
# NTRACE_NEXRV_GIT names another place to take that commit from: a clone
# URL, or a local git directory (a mirror; files whose objects it lacks are
# left out, with a note). Exits 1 with the reason on stderr when the source
# cannot be had, so tests can skip with it.
# usage: nexrv.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COMMIT=e0f02c6e4790097861111ac3679c6b43f0829463	# "Updated C reference code"
from=${NTRACE_NEXRV_GIT:-https://github.com/riscv-non-isa/tg-nexus-trace.git}
out=$NTRACE_CACHE/nexrv/$COMMIT
dir=$out/refcode/c

# extract GIT-DIR: refcode/c of COMMIT from a git directory into $out
extract() {
	local g=$1 mode type obj path missing=0
	while read -r mode type obj path; do
		[ "$type" = blob ] || continue
		mkdir -p "$out/$(dirname "$path")"
		if git --git-dir="$g" cat-file blob "$obj" >"$out/$path" 2>/dev/null; then
			[ "$mode" != 100755 ] || chmod +x "$out/$path"
		else
			rm -f "$out/$path"
			missing=$((missing + 1))
		fi
	done < <(git --git-dir="$g" ls-tree -r "$COMMIT" refcode/c)
	[ "$missing" -eq 0 ] || log "note: $missing files of refcode/c have no object in $from; left out"
}

fetch_build() {
	[ -x "$dir/NexRv.exe" ] && return 0
	local tmp g
	rm -rf "$out" && mkdir -p "$out"
	if [ -d "$from" ]; then
		g=$(git -C "$from" rev-parse --absolute-git-dir 2>/dev/null || echo "$from")
	else
		tmp=$(mktemp -d) g=$tmp/git
		git init -q --bare "$g"
		if ! timeout 300 git --git-dir="$g" fetch -q --depth 1 "$from" "$COMMIT" 2>"$tmp/err"; then
			log "cannot fetch NexRv $COMMIT from $from: $(head -c 200 "$tmp/err")"
			rm -rf "$tmp" "$out"
			return 1
		fi
	fi
	git --git-dir="$g" cat-file -e "$COMMIT^{commit}" 2>/dev/null ||
		{ log "$from has no commit $COMMIT"; rm -rf "$out"; return 1; }
	extract "$g"
	[ -z "${tmp:-}" ] || rm -rf "$tmp"
	if ! make -s -C "$dir" NexRv.exe >"$out/build.log" 2>&1; then
		log "NexRv does not build (log: $out/build.log)"
		return 1
	fi
}

command -v git >/dev/null || die "needs git (apt-get install git)"
with_lock "$out.lock" fetch_build || exit 1
echo "$dir"
