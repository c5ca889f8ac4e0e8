# SPDX-License-Identifier: GPL-2.0-only
# The top-level functions of a text sample profile (llvm-profgen,
# create_llvm_prof --format=text: "NAME:TOTAL:HEAD" at the start of a line,
# its body indented), as "NAME TOTAL HEAD", one per line. HEAD is the
# function's entry count as the profile has it.
/^[^ \t]/ {
	n = split($0, f, ":")
	if (n >= 3)
		print f[1], f[n - 1], f[n]
}
