# SPDX-License-Identifier: GPL-2.0-only
# Instruction-exact execution counts from a QEMU log written with
# "-d in_asm,exec,nochain": in_asm lists each translation block's
# instructions once ("IN: sym", then "0xADDR:  insn" lines), exec logs every
# block execution ("Trace N: host [flags/PC/...]"; nochain makes QEMU log
# each one instead of jumping between chained blocks).
# Output: "ADDR COUNT" per instruction (ADDR decimal), one line each.
/^IN:/ { intb = 1; start = ""; next }
intb && /^0x[0-9a-f]+:/ {
	a = substr($1, 1, length($1) - 1)
	if (start == "") {
		start = hex2num(a)
		if (start in insns)
			intb = 0	# a retranslation: keep the first listing
		else
			insns[start] = ""
	}
	if (intb)
		insns[start] = insns[start] " " hex2num(a)
	next
}
intb && !/^0x/ { intb = 0 }
/^Trace [0-9]+:/ {
	split($0, f, "[[/]")
	execs[hex2num(f[3])]++
}
END {
	for (s in insns) {
		n = split(insns[s], list, " ")
		for (i = 1; i <= n; i++)
			count[list[i]] += execs[s]
	}
	for (a in count)
		print a, count[a]
}
