#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-ntrace disasm against objdump's own disassembly of whole RISC-V
# programs (static, so with their C library): every instruction given as
# perf script prints it ("ADDR insn: BYTES") gets the text objdump -d shows
# at its address, pc-relative targets relative to it; lines without insn
# pass through unchanged; no RISC-V objdump is an error that says so.
set -uo pipefail
. "$(dirname "$0")/../../../scripts/lib.sh"
PN=$PERF_NTRACE GT_DIR=$NTRACE_GT_DIR
scratch t
TAP_PREFIX="disasm: "
od=${CROSS_COMPILE}objdump
command -v "$od" >/dev/null || { skip all "no $od"; exit 0; }
[ -f "$GT_DIR/manifest" ] || bash "$NTRACE_SRC/tests/gt/build-suite.sh" >"$t/gt.log" 2>&1 ||
	{ not_ok "the ground-truth programs build"; exit 1; }

for p in loop-O2-g switch-O2-gc funcptr-Os-gc; do
	[ -f "$GT_DIR/$p" ] || { skip "$p" "no ground-truth program"; continue; }
	"$od" -d "$GT_DIR/$p" | awk -v IN="$t/$p.in" -v WANT="$t/$p.want" \
		-f "$NTRACE_TOP/tools/autofdo/hex.awk" -f "$NTRACE_SRC/tests/disasm/objdump-insn.awk"
	"$PN" disasm "$t/$p.in" >"$t/$p.out" 2>"$t/$p.err"
	rc=$?
	cut -f2- "$t/$p.out" >"$t/$p.got"
	bad=$(paste -d'|' "$t/$p.want" "$t/$p.got" | awk -F'|' '$1 != $2' | head -2 | tr '\n' ' ')
	check "$p: the $(wc -l <"$t/$p.in") instructions of the program have objdump's text at their addresses${bad:+ (differ: $bad)}" \
		eval '[ $rc = 0 ] && [ -s "$t/$p.in" ] && [ -z "$bad" ] &&
		      [ "$(wc -l <"$t/$p.got")" = "$(wc -l <"$t/$p.want")" ]'
done

printf '# a comment\n  perf 12/12 1.5: 10554 main insn: 13 01 01 ff\nno bytes here\n' >"$t/mixed"
"$PN" disasm <"$t/mixed" >"$t/mixed.out"
check "lines without insn bytes pass through; the others get their text" \
	eval 'sed -n 1p "$t/mixed.out" | grep -qx "# a comment" &&
	      sed -n 3p "$t/mixed.out" | grep -qx "no bytes here" &&
	      sed -n 2p "$t/mixed.out" | grep -q "insn: 13 01 01 ff	add	sp,sp,-16\$"'
"$PN" disasm --objdump /bin/false "$t/mixed" >/dev/null 2>"$t/err"
rc=$?
check "an objdump that fails: exit 2, said" \
	eval '[ $rc = 2 ] && grep -q "a RISC-V objdump is needed" "$t/err"'

[ "$TAP_FAILED" = 0 ]
