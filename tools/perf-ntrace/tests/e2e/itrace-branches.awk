# SPDX-License-Identifier: GPL-2.0-only
# perf script --itrace=b -F ip,addr,flags output -> "FROM TO" of every
# branch sample that leaves the fall-through path, trace begin and end
# (a 0 address) left out. With kernel=1 a trace end and the next trace
# begin are one step, FROM where the trace ended TO where it began again,
# as the ground truth of a trace that the kernel switches off and on
# has it. Needs flow.awk and hex.awk.
{
	for (i = 2; i < NF; i++)
		if ($i == "=>")
			break
	if (i >= NF)
		next
	from = canon($(i - 1))
	to = canon($(i + 1))
	if (kernel && to == "0x0") {
		ended = from
		next
	}
	if (kernel && from == "0x0" && ended != "") {
		from = ended
		ended = ""
	}
	if (from != "0x0" && to != "0x0" && discontinuous(from, to))
		print from, to
}
