# SPDX-License-Identifier: GPL-2.0-only
# Assembly source of the -v grp=rv64|rv32 cases of tests/unit/isa_cases.txt
# ("GROUP KIND ITYPE TARGET INSN...", gen-isa-cases.sh): every case sits
# between its own back/fwd labels, case n at label cN, TARGET replaced by
# its label; far labels are 1200 bytes away (inside C.J range).
BEGIN { print "\t.text\n\t.globl _start\n_start:\nfarback:\n\tnop\n\t.skip 1200" }
/^#/ || NF == 0 { next }
{
	n++
	if ($1 != grp) next
	insn = ""
	for (i = 5; i <= NF; i++) insn = insn (i > 5 ? " " : "") $i
	t = $4
	lab = t == "fwd" ? "fw" n : t == "back" ? "bk" n : t
	sub(/TARGET/, lab, insn)
	printf "\t.option norvc\nbk%d:\n\tnop\n\t.option %s\nc%d:\n\t%s\n\t.option norvc\n\tnop\nfw%d:\n\tnop\n",
		n, (insn ~ /^c\./ ? "rvc" : "norvc"), n, insn, n
}
END { print "\t.skip 1200\nfarfwd:\n\tnop" }
