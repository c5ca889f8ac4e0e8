#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Decoding through code that has no image: the flow leaves the images
# (firmware, which SiFive's v0 encoders trace whatever the privilege; a
# library nobody gave), and the decoder, which cannot walk it, follows the
# addresses the indirect branch messages tell and resumes at the first
# target back in an image. The truth: QEMU's retired PCs of funcptr-O2-g
# (tests/gt), whose main calls four leaves through a table of pointers.
# The trace is encoded with the whole program; it is decoded with an image
# that lacks one leaf, sub() (two raw pieces of .text around it, --bin),
# with --resume-at-targets (the library's resume_at_targets, which the
# AUXTRACE_INFO of a SiFive v0 encoder turns on):
# the PCs must be QEMU's less sub's, one decode error per call of it, and
# as many resumptions, with one decoder and with the default (parallel).
# With implicit returns sub's return sends no message: decoding resumes at
# the next indirect call's target instead, and errs again at that leaf's
# return (the call that would have told the return address was not
# walked); what it gives must still be an ordered part of the truth.
set -u
. "$(dirname "$0")/../../../scripts/lib.sh"
BUILD=$NTRACE_BUILD
TAP_PREFIX="resume: "
n=funcptr-O2-g

[ -x "$BUILD/tools/rt-tool" ] || { skip resume "rt-tool not built (make test-tools)"; exit 0; }
scratch WORK "$BUILD/resume" "${NTRACE_KEEP:-}" || exit 1
cp "$PERF_NTRACE" "$BUILD/tools/rt-tool" "$WORK/" || { not_ok "resume: tools"; exit 1; }
gt_copy "$n" "$WORK/$n.pcs" "$WORK/$n" >/dev/null ||
	{ skip resume "no ground truth of $n in $NTRACE_GT_DIR (tests/gt/build-suite.sh)"; exit 0; }
elf=$WORK/$n

# sub's bytes: [lo, hi); .text's: from text at off in the file, size tsz
read -r lo size < <("${CROSS_COMPILE}readelf" -sW "$elf" |
	awk '$4 == "FUNC" && $8 == "sub" { print $2, $3 }')
read -r text off tsz < <("${CROSS_COMPILE}readelf" -SW "$elf" |
	awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 2), $(i + 3), $(i + 4) }')
if [ -z "${lo:-}" ] || [ -z "${text:-}" ]; then
	not_ok "$n: symbol sub and section .text"
	exit 1
fi
hi=$((0x$lo + size)) lo=$((0x$lo)) text=$((0x$text)) off=$((0x$off)) tsz=$((0x$tsz))
dd if="$elf" of="$WORK/a.bin" bs=1 skip=$off count=$((lo - text)) status=none &&
dd if="$elf" of="$WORK/b.bin" bs=1 skip=$((off + hi - text)) count=$((text + tsz - hi)) \
	status=none || { not_ok "$n: cut .text around sub"; exit 1; }
img=(--bin "$WORK/a.bin@$text" --bin "$WORK/b.bin@$hi")

"$WORK/rt-tool" expect "$WORK/$n.pcs" "$WORK/expect" --priv u "$elf" ||
	{ not_ok "$n: expected PCs"; exit 1; }
# QEMU's PCs less sub's, compared as fixed-width hex strings (mawk has no strtonum)
awk -v lo="$(printf '%016x' $lo)" -v hi="$(printf '%016x' $hi)" \
	'{ a = substr($1, 3); while (length(a) < 16) a = "0" a } a < lo || a >= hi' \
	"$WORK/expect" >"$WORK/want"
calls=$(awk -v lo="$(printf '0x%x' $lo)" '$1 == lo' "$WORK/expect" | wc -l)
[ "$calls" -gt 0 ] || { not_ok "$n: sub is never called"; exit 1; }

# subseq A B: A's lines are an ordered subsequence of B's
subseq() { awk 'BEGIN { j = 0 } NR == FNR { a[n++] = $0; next } j < n && $0 == a[j] { j++ } END { exit j != n }' "$1" "$2"; }
for cfg in btm htm htm-ret8-rh-sync; do
	"$WORK/rt-tool" encode $cfg "$WORK/$n.pcs" "$WORK/$cfg.bin" --priv u "$elf" ||
		{ not_ok "$n $cfg: encode"; continue; }
	opts=(--implicit-return=off)
	[ $cfg = htm-ret8-rh-sync ] && opts=()
	dec() { "$WORK/perf-ntrace" decode --resume-at-targets "${img[@]}" "${opts[@]}" "$@" \
		"$WORK/$cfg.bin"; }
	dec --jobs 1 -o "$WORK/$cfg.pc" 2>"$WORK/$cfg.err"
	dec --jobs 1 --format=stats -o "$WORK/$cfg.st" 2>/dev/null
	dec -q -o "$WORK/$cfg.par" 2>/dev/null
	errs=$(sed -n 's/^errors: //p' "$WORK/$cfg.st")
	# resumptions: the syncs that no sync message made
	res=$(awk '$1 == "syncs:" { n += $2 } /^tcode\..*Sync\(/ { n -= $2 } END { print n + 0 }' \
		"$WORK/$cfg.st")
	if ! cmp -s "$WORK/$cfg.pc" "$WORK/$cfg.par"; then
		not_ok "$n $cfg: the default decode differs from one decoder's: $(cmp "$WORK/$cfg.pc" "$WORK/$cfg.par" 2>&1 | head -1)"
	elif [ $cfg = htm-ret8-rh-sync ]; then
		# sub returns by prediction: no message, no target
		if [ "$res" -gt 0 ] && [ -s "$WORK/$cfg.pc" ] && subseq "$WORK/$cfg.pc" "$WORK/want"; then
			ok "$n $cfg: implicit returns tell no target: $res resumptions at calls, $errs errors, $(wc -l <"$WORK/$cfg.pc") of $(wc -l <"$WORK/want") PCs, an ordered part of QEMU's"
		else
			not_ok "$n $cfg: $res resumptions, $(wc -l <"$WORK/$cfg.pc") PCs: $(head -c 200 "$WORK/$cfg.err")"
		fi
	elif cmp -s "$WORK/$cfg.pc" "$WORK/want" && [ "$errs" = "$calls" ] && [ "$res" = "$calls" ]; then
		ok "$n $cfg: decoded without sub's image: QEMU's PCs less sub's ($(wc -l <"$WORK/want")), $errs errors and resumptions for $calls calls"
	else
		not_ok "$n $cfg: $(wc -l <"$WORK/$cfg.pc") PCs for $(wc -l <"$WORK/want") ($(cmp "$WORK/$cfg.pc" "$WORK/want" 2>&1 | head -1)), $errs errors and $res resumptions for $calls calls"
	fi
done
# the default: a source that left the images waits for a sync
"$WORK/perf-ntrace" decode "${img[@]}" --implicit-return=off --jobs 1 --format=stats \
	-o "$WORK/def.st" "$WORK/btm.bin" 2>/dev/null
got=$(sed -n 's/^instructions: //p' "$WORK/def.st")
if [ -n "$got" ] && [ "$got" -lt "$(wc -l <"$WORK/want")" ] && grep -q '^syncs: 1$' "$WORK/def.st"; then
	ok "$n btm: without --resume-at-targets decoding stops at the first call of sub (no sync after it): $got instructions"
else
	not_ok "$n btm: without --resume-at-targets: $got instructions, $(grep '^syncs' "$WORK/def.st")"
fi
tap_status
