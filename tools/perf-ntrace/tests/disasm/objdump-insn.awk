# SPDX-License-Identifier: GPL-2.0-only
# From "objdump -d" of a RISC-V ELF (the truth), for tests/cli_disasm.sh:
# IN gets "ADDR insn: BYTES" lines as perf script -F ip,insn prints them
# (bytes in memory order), WANT the text perf-ntrace disasm must append,
# "MNEMONIC<TAB>OPERANDS" with objdump's comment dropped and a pc-relative
# target "ADDR <sym>" made relative to the instruction (".+0x1c").
# Needs hex.awk (hex2num).
BEGIN { FS = "\t" }
/^ *[0-9a-f]+:\t[0-9a-f]+ *\t/ {
	a = $1
	sub(/^ */, "", a)
	sub(/:$/, "", a)
	w = $2
	gsub(/ /, "", w)
	if (length(w) != 4 && length(w) != 8)
		next
	b = ""
	for (i = length(w) - 1; i >= 1; i -= 2)
		b = b (b == "" ? "" : " ") substr(w, i, 2)
	m = $3
	o = $4
	sub(/ #.*/, "", o)
	if (o ~ /[0-9a-f]+ <[^>]*>$/) {
		t = o
		sub(/ <[^>]*>$/, "", t)
		n = split(t, parts, ",")
		rel = hex2num(parts[n]) - hex2num(a)
		o = substr(t, 1, length(t) - length(parts[n])) "." (rel < 0 ? "-" : "+") \
		    sprintf("0x%x", rel < 0 ? -rel : rel)
	}
	print a " insn: " b >IN
	print m (o == "" ? "" : "\t" o) >WANT
}
