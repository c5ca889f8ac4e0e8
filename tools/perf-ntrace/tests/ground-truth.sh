#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Ground-truth tests (TAP). Builds the test-program suite and records what
# QEMU retired (tests/gt/build-suite.sh, cached), then checks:
#  - the ingress builder turns every ground truth into records with no
#    unexplained discontinuity (QEMU's real control flow agrees with the
#    ISA classifier at every branch and jump),
#  - records -> tandem-verification trace -> records is the identity,
#  - the suite holds what it claims (call depth > 32, jump tables, indirect
#    calls, long straight-line runs, traps and interrupts),
#  - the classifier agrees with objdump on every instruction of a binary,
#  - every basic block of the image table runs exactly as QEMU ran it,
#  - the QEMU plugin retires exactly what QEMU's exec log shows.
# End-to-end tests of encoder + decoder reuse build/gt (see the manifest
# written by build-suite.sh) and gt-tool ("ingress --print" is the expected
# record stream).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../../scripts/lib.sh"
gt=$NTRACE_TOP/build/gt
tool=$gt/bin/gt-tool
scratch tmp
TAP_TAIL=5	# a check's output: its last lines, as comments

if ! out=$(bash "$here/gt/build-suite.sh" 2>&1); then
	printf '%s\n' "$out" | tail -20 | sed 's/^/# /'
	not_ok "gt: build the suite and record ground truth"
	exit 1
fi
ok "gt: build the suite and record ground truth ($(wc -l < "$gt/manifest") programs)"

while read -r name priv kind; do
	check "ingress: $name" "$tool" ingress "$gt/$name.pcs" --strict --priv "$priv" "$gt/$name"
	check "tv round trip: $name" "$tool" tv-roundtrip "$gt/$name.pcs" --priv "$priv" \
		"$tmp/$name.tv" "$gt/$name"
	rm -f "$tmp/$name.tv"
done < "$gt/manifest"

records() {	# records NAME PRIV: the record stream as text
	"$tool" ingress "$gt/$1.pcs" --print --priv "${2:-u}" "$gt/$1"
}

# Suite content: each program must exercise what it is there for.
max_depth() { awk -f "$here/gt/max-depth.awk"; }
count() { awk -v t="$1" '$3 == t { n++ } END { print n + 0 }'; }
longest_run() {
	awk '$3 == "none" { r++; if (r > m) m = r; next } { r = 0 } END { print m + 0 }'
}
for v in O0-gc O2-gc Os-g; do
	d=$(records deepcall-$v | max_depth)
	check "suite: deepcall-$v call depth $d > 32" test "$d" -gt 32
	n=$(records switch-$v | count ind_jump)
	check "suite: switch-$v has $n table jumps (>= 500)" test "$n" -ge 500
	n=$(records funcptr-$v | count ind_call)
	check "suite: funcptr-$v has $n indirect calls (>= 400)" test "$n" -ge 400
	n=$(records straight-$v | longest_run)
	check "suite: straight-$v runs $n instructions without a branch (> 2000)" test "$n" -gt 2000
	n=$(records loop-$v | count taken)
	check "suite: loop-$v has $n taken branches (> 20000)" test "$n" -gt 20000
	# 700 calls at -O0 become direct jumps when optimised
	t=dir_jump; [ "${v%-*}" = O0 ] && t=dir_call
	n=$(records tailcall-$v | count $t)
	check "suite: tailcall-$v has $n ${t/_/ }s (> 700)" test "$n" -gt 700
done
for v in gc g; do
	r=$(records traps-$v m)
	want_bp=1; [ $v = gc ] && want_bp=2
	check "suite: traps-$v has 3 ECALLs" test "$(grep -c 'exception.*cause=b$' <<<"$r")" -eq 3
	check "suite: traps-$v has $want_bp EBREAKs" test "$(grep -c 'exception.*cause=3$' <<<"$r")" -eq $want_bp
	check "suite: traps-$v has 2 illegal instructions" test "$(grep -c 'exception.*cause=2$' <<<"$r")" -eq 2
	check "suite: traps-$v has 3 timer interrupts" \
		test "$(grep -c 'interrupt.*cause=8000000000000007$' <<<"$r")" -eq 3
	check "suite: traps-$v has a trap with no instruction retired since the last" \
		grep -q '^[0-9a-f]* 0 exception' <<<"$r"
done

# The classifier against objdump, instruction by instruction.
objdump_check() {
	local elf=$1
	"${CROSS_COMPILE:-riscv64-linux-gnu-}objdump" -d "$elf" |
		awk -F'\t' -f "$here/gt/objdump-insns.awk" > "$tmp/objdump"
	awk '{ print $1 }' "$tmp/objdump" | "$tool" decode "$elf" > "$tmp/decode" || return 1
	paste -d' ' "$tmp/objdump" "$tmp/decode" | awk -f "$here/gt/isa-vs-objdump.awk"
}
for name in recursion-O2-gc switch-Os-g longjmp-O0-gc traps-gc; do
	check "isa: classifier agrees with objdump on all of $name" objdump_check "$gt/$name"
done

# Zcmp/Zcmt executed by QEMU: CM.JALT, CM.POPRET and CM.JT must land where
# the classifier and the JVT table say (a wrong table base must be caught).
zc=$gt/extra/zcmp-zcmt
if [ -f "$zc.pcs" ]; then
	jvt=$(cat "$zc.jvt")
	check "isa: Zcmp/Zcmt run agrees with the classifier and the JVT table" \
		"$tool" ingress "$zc.pcs" --strict --priv m --zc --jvt "$jvt" "$zc"
	r=$("$tool" ingress "$zc.pcs" --print --priv m --zc --jvt "$jvt" "$zc")
	check "isa: Zcmp/Zcmt run has 5 table calls, 5 CM.POPRET returns, 1 table jump" \
		test "$(grep -c ' dir_call ' <<<"$r")/$(grep -c ' return ' <<<"$r")/$(grep -c ' dir_jump ' <<<"$r")" = 5/5/1
	check "isa: a wrong JVT base is detected" \
		eval '! "$tool" ingress "$zc.pcs" --strict --priv m --zc --jvt $((jvt + 8)) "$zc"'
	check "image: block table agrees with the ground truth of zcmp-zcmt" \
		"$tool" walk "$zc.pcs" --zc --jvt "$jvt" "$zc"
else
	skip "isa: Zcmp/Zcmt run" "no llvm-mc-19 to assemble it"
fi

# Traps into M- and S-mode, and every recorded trap against QEMU's own
# interrupt log (cause and epc), on the deterministic bare-metal runs.
traps_vs_intlog() {
	local name=$1
	timeout 20 qemu-system-riscv64 -M virt -bios none -display none -serial null \
		-monitor none -kernel "$gt/$name" -d int -D "$tmp/int.log" </dev/null || return 1
	sed -n 's/.*cause:\([0-9a-f]*\), epc:0x\([0-9a-f]*\),.*/\2 \1/p' "$tmp/int.log" |
		awk '{ for (i = 1; i <= 2; i++) { sub(/^0+/, "", $i); if ($i == "") $i = 0 } print }' \
		> "$tmp/want"
	"$tool" dump "$gt/$name.pcs" | awk '$1 == "trap" { print $2, $3 }' > "$tmp/got"
	[ -s "$tmp/want" ] && diff "$tmp/want" "$tmp/got"
}
check "gt: extra/smode-gc traps in M- and S-mode agree with the classifier" \
	"$tool" ingress "$gt/extra/smode-gc.pcs" --strict --priv m "$gt/extra/smode-gc"
for name in extra/smode-gc traps-notimer-gc traps-notimer-g; do
	check "plugin: $name trap marks match QEMU's interrupt log" traps_vs_intlog "$name"
done

# The committed classifier cases must be what the assemblers produce today.
if command -v "${LLVM_MC:-llvm-mc-19}" >/dev/null; then
	check "isa: tests/unit/isa_cases.h matches the cross assembler" \
		eval 'bash "$here/gt/gen-isa-cases.sh" "$tmp/isa_cases.h" &&
		      cmp "$tmp/isa_cases.h" "$here/unit/isa_cases.h"'
else
	skip "isa: tests/unit/isa_cases.h matches the cross assembler" "no llvm-mc-19"
fi

# The image block table (the flow decoder's fast path) against what ran.
for name in recursion-O2-gc switch-Os-g straight-O0-g longjmp-O2-gc traps-gc; do
	check "image: block table agrees with the ground truth of $name" \
		"$tool" walk "$gt/$name.pcs" "$gt/$name"
done

# The plugin against QEMU's exec log, on the deterministic bare-metal runs.
plugin_vs_execlog() {
	local name=$1 a b na nb
	timeout 20 qemu-system-riscv64 -M virt -bios none -display none -serial null \
		-monitor none -kernel "$gt/$name" -accel tcg,one-insn-per-tb=on -d exec,nochain \
		-D "$tmp/exec.log" </dev/null || return 1
	"$tool" execlog "$tmp/exec.log" "$tmp/exec.pcs" --start 0x80000000 "$gt/$name" || return 1
	"$tool" dump "$tmp/exec.pcs" | awk '{ print $1, $2 }' > "$tmp/a"
	"$tool" dump "$gt/$name.pcs" | awk '{ print $1, $2 }' > "$tmp/b"
	na=$(wc -l < "$tmp/a") nb=$(wc -l < "$tmp/b")
	# the final WFI loop may retire once more in one run than in the other
	[ $((na - nb)) -le 2 ] && [ $((nb - na)) -le 2 ] || { echo "# $na vs $nb words"; return 1; }
	n=$((na < nb ? na - 2 : nb - 2))
	cmp <(head -n "$n" "$tmp/a") <(head -n "$n" "$tmp/b")
}
for name in traps-notimer-gc traps-notimer-g; do
	check "plugin: $name retires what QEMU's exec log shows" plugin_vs_execlog "$name"
done
