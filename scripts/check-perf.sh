#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The perf patch series (tools/perf-patches/) as TAP:
#  - every patch is a git-format-patch mail with a subject, a body and a
#    Signed-off-by, and applies to the pristine linux-source-6.12 tools/
#    tree without offset or fuzz, in order;
#  - checkpatch.pl --strict finds no error in it;
#  - the tools/include copies of include/uapi/linux/ntrace.h and
#    ntrace_tci.h it adds are identical to the project's UAPI headers;
#  - the static riscv64 perf (scripts/perf.sh) and the x86_64 host perf
#    (scripts/perf.sh --host) build with the series (cached) and contain
#    the ntrace recorder and reader; the riscv64 one runs under qemu-riscv64;
#  - the host perf's distribution features work (scripts/check-perf-host.sh:
#    python scripting, export-to-sqlite, flamegraph and gecko reports, C++
#    demangling, the TUI in tmux, RISC-V annotate through the cross objdump).
#  - the host perf reads perf.data files cut short at many offsets with a
#    warning and the samples that are there (scripts/perf-truncated.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

patchdir=$NTRACE_TOP/tools/perf-patches
scratch tmp
TAP_PREFIX="perf: "

src=$(kernel_source)
mapfile -t patches < <(find "$patchdir" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
[ ${#patches[@]} -gt 0 ] || { not_ok "patches in $patchdir"; exit 0; }

mkdir -p "$tmp/tree/tools"
cp -a "$src/tools/perf" "$src/tools/include" "$src/tools/build" "$tmp/tree/tools/"
for p in "${patches[@]}"; do
	n=${p##*/}
	if grep -q '^Subject: \[PATCH' "$p" && grep -q '^Signed-off-by: ' "$p" &&
	   grep -q '^From: ' "$p" && [ "$(sed -n '/^Subject:/,/^---$/p' "$p" | wc -l)" -gt 5 ]; then
		ok "$n is a mail with subject, body and Signed-off-by"
	else
		not_ok "$n is a mail with subject, body and Signed-off-by"
	fi
	if out=$(patch -p1 -F0 -d "$tmp/tree" <"$p" 2>&1) && ! grep -qi 'offset\|fuzz' <<<"$out"; then
		ok "$n applies cleanly to linux-source-6.12"
	else
		not_ok "$n applies cleanly to linux-source-6.12: $(tr '\n' ' ' <<<"$out" | head -c 300)"
	fi
	out=$(cd "$tmp" && "$src/scripts/checkpatch.pl" --no-tree --strict -q - <"$p" 2>/dev/null)
	if ! grep -q '^ERROR:' <<<"$out"; then
		ok "$n: checkpatch --strict has no errors ($(grep -c '^WARNING:' <<<"$out") warnings, $(grep -c '^CHECK:' <<<"$out") checks)"
	else
		not_ok "$n: checkpatch --strict: $(grep '^ERROR:' <<<"$out" | head -3 | tr '\n' ' ')"
	fi
done
for h in ntrace.h ntrace_tci.h; do
	if cmp -s "$tmp/tree/tools/include/uapi/linux/$h" "$NTRACE_TOP/include/uapi/linux/$h"; then
		ok "tools/include/uapi/linux/$h is the project's UAPI header"
	else
		not_ok "tools/include/uapi/linux/$h differs from include/uapi/linux/$h (regenerate patch 0001)"
	fi
done

# "file" output, then strings the binary must contain.
check_perf() {	# NAME PERF FILE-PATTERN
	local name=$1 perf=$2 pat=$3 s
	if ! file "$perf" | grep -q "$pat"; then
		not_ok "$name perf is $pat: $(file -b "$perf")"
		return
	fi
	s=$(strings "$perf")
	if grep -q 'There may be only one ntrace event' <<<"$s" &&
	   grep -q 'RISC-V N-Trace version %u' <<<"$s"; then
		ok "$name perf ($(cat "${perf%/perf}/build-seconds" 2>/dev/null || echo '?') s to build) has the ntrace recorder and reader"
	else
		not_ok "$name perf lacks the ntrace recorder or reader"
	fi
}
if perf=$(bash "$NTRACE_TOP/scripts/perf.sh" 2>"$tmp/err"); then
	check_perf riscv64 "$perf" 'RISC-V.*statically linked'
	if ! command -v qemu-riscv64 >/dev/null; then
		skip "riscv64 perf runs" "no qemu-riscv64"
	elif v=$(qemu-riscv64 "$perf" version 2>&1) && grep -q '^perf version 6\.12' <<<"$v"; then
		ok "riscv64 perf runs under qemu-riscv64 ($v)"
	else
		not_ok "riscv64 perf runs under qemu-riscv64: $v"
	fi
else
	not_ok "riscv64 perf builds: $(tail -3 "$tmp/err" | tr '\n' ' ')"
fi
if perf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host 2>"$tmp/err"); then
	# the riscv recorder is arch code: the host perf only has the reader
	s=$(strings "$perf")
	if file "$perf" | grep -q 'x86-64' && grep -q 'RISC-V N-Trace version %u' <<<"$s" &&
	   "$perf" version >/dev/null 2>&1; then
		ok "host perf ($(cat "${perf%/perf}/build-seconds") s to build) runs and has the ntrace reader"
	else
		not_ok "host perf runs and has the ntrace reader"
	fi
	bash "$NTRACE_TOP/scripts/check-perf-host.sh" "$perf"
	bash "$NTRACE_TOP/scripts/perf-truncated.sh" "$perf"
else
	not_ok "host perf builds: $(tail -3 "$tmp/err" | tr '\n' ' ')"
fi
exit 0
