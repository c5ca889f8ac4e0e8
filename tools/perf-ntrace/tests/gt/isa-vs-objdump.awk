# SPDX-License-Identifier: GPL-2.0-only
# The ISA classifier against objdump (tests/ground-truth.sh): each line is
# objdump-insns.awk's "ADDR SIZE MNEMONIC OPERANDS..." followed by "gt-tool
# decode"'s "ADDR SIZE KIND ITYPE TARGET" for the same address. The kind
# must be what the mnemonic says, the size the same, and a direct branch or
# jump's target objdump's last operand. Prints the first mismatches and a
# count as comments; exit status 1 on any mismatch.
function want(m) {
	if (m ~ /^(beq|bne|blt|bge|bltu|bgeu|beqz|bnez|blez|bgez|bltz|bgtz|bgt|ble|bgtu|bleu)$/)
		return "branch"
	if (m == "j" || m == "jal") return "jump"
	if (m == "jr" || m == "jalr" || m == "ret") return "indirect"
	if (m == "ecall" || m == "ebreak") return "trap"
	if (m == "mret" || m == "sret") return "trap_return"
	if (m == "unimp" || m == "c.unimp") return "invalid"
	return "none"
}
{
	n = NF; tgt = $n; kind = $(n - 2); size = $(n - 3); m = $3
	k = want(m)
	bad = kind != k || size != $2
	if (!bad && (k == "branch" || k == "jump")) {
		c = split($4, f, ",")	# operands: the target comes last
		bad = f[c] != tgt
	}
	if (bad) { if (++errs <= 5) print "# mismatch: " $0; }
	n_ok += !bad
}
END { printf "# %d instructions agree\n", n_ok; exit errs > 0 }
