# SPDX-License-Identifier: GPL-2.0-only
# perf script --itrace=iNig -F ip -> one line per sample, "PC RET...": the
# call chain perf prints one address per line, a blank line between
# samples; the lines gt-calltree.awk prints in mode "chain". Needs
# flow.awk and hex.awk.
NF {
	line = line (line == "" ? "" : " ") canon($1)
	next
}
line != "" {
	print line
	line = ""
}
END {
	if (line != "")
		print line
}
