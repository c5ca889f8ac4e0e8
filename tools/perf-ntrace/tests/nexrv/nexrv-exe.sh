#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Print the path of a NexRv executable (the N-Trace task group's reference
# code, refcode/c of riscv-non-isa/tg-nexus-trace), the one tests/nexrv.sh
# and nexrv-size.sh use: $NTRACE_NEXRV, else NexRv.exe in
# $NTRACE_NEXRV_SRC. Failing both, NexRv is built from a bare git snapshot
# of that repository ($NTRACE_NEXRV_GIT, default the machine's mirror) with
# its own makefile, in $NTRACE_CACHE/nexrv-COMMIT/refcode/c (nothing of
# it enters our tree); callers may then set NTRACE_NEXRV_SRC to the
# directory of the printed path, which also holds NexRv's examples.
# Status 1, with the reason on stderr, when there is no NexRv to be had.
set -u
. "$(dirname "$0")/../../../../scripts/lib.sh"

if [ -n "${NTRACE_NEXRV:-}" ] && [ -x "$NTRACE_NEXRV" ]; then
	echo "$NTRACE_NEXRV"
	exit 0
fi
if [ -n "${NTRACE_NEXRV_SRC:-}" ] && [ -x "$NTRACE_NEXRV_SRC/NexRv.exe" ]; then
	echo "$NTRACE_NEXRV_SRC/NexRv.exe"
	exit 0
fi
git=${NTRACE_NEXRV_GIT:-/work/.mirror/riscv-non-isa+tg-nexus-trace/repo}
commit=$(git --git-dir="$git" rev-parse --verify -q 'HEAD^{commit}' 2>/dev/null) || {
	echo "nexrv-exe.sh: no NexRv: set NTRACE_NEXRV, NTRACE_NEXRV_SRC or NTRACE_NEXRV_GIT" \
		"(a git directory of tg-nexus-trace; $git is none)" >&2
	exit 1
}
dir=$NTRACE_CACHE/nexrv-$commit
# the files of refcode/c the snapshot holds (its largest may be absent;
# git archive still names them on stderr)
present() {
	git --git-dir="$git" ls-tree -r "$commit" refcode/c | while read -r _ _ obj path; do
		git --git-dir="$git" cat-file -e "$obj" 2>/dev/null && printf '%s\0' "$path"
	done
}
build() {
	[ -x "$dir/refcode/c/NexRv.exe" ] && return 0
	rm -rf "$dir" && mkdir -p "$dir" &&
		present | xargs -0 git --git-dir="$git" archive "$commit" -- 2>"$dir/archive.log" |
		tar -x -C "$dir" &&
		make -s -C "$dir/refcode/c" NexRv.exe >"$dir/build.log" 2>&1
}
if ! with_lock "$dir.lock" build || [ ! -x "$dir/refcode/c/NexRv.exe" ]; then
	echo "nexrv-exe.sh: building NexRv $commit failed: $(tail -3 "$dir/build.log" 2>/dev/null)" >&2
	exit 1
fi
echo "$dir/refcode/c/NexRv.exe"
