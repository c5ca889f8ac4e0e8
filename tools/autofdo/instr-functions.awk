# SPDX-License-Identifier: GPL-2.0-only
# Entry counts of an instrumented PGO profile, from "llvm-profdata show
# --all-functions --counts", as "NAME 0 HEAD" lines for agreement.awk (run
# with -v noscale=1: these are counts, not samples). A local function's
# "FILE:NAME" is shortened to NAME, as sample profiles name it.
/^  [^ ].*:$/ {
	name = substr($1, 1, length($1) - 1)
	sub(/^.*:/, "", name)
	next
}
/^    Function count: / && name != "" {
	print name, 0, $3
	name = ""
}
