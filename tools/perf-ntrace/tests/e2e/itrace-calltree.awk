# SPDX-License-Identifier: GPL-2.0-only
# perf script --itrace=cr -F flags,callindent,ip,addr -> the lines
# gt-calltree.awk prints in mode "trace": "c DEPTH FROM TO" per call and
# "r DEPTH FROM TO" per return; trace begin and end are left out. perf
# pads the flags to column 24, and callindent indents the name by four
# spaces per frame. Needs flow.awk and hex.awk.
$1 == "call" || $1 == "return" {
	name = substr($0, 25)
	match(name, /^ */)
	print substr($1, 1, 1), RLENGTH / 4, canon($(NF - 2)), canon($NF)
}
