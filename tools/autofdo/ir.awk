# SPDX-License-Identifier: GPL-2.0-only
# What the compiler took from a sample profile, read from its LLVM IR
# (clang -S -emit-llvm -fprofile-sample-use): prints "entry FUNC COUNT"
# for each function_entry_count, and "branch FUNC W1 W2 ..." for each
# conditional branch's branch_weights, in order of appearance.
/^define / {
	fn = $0
	sub(/^[^@]*@/, "", fn)
	sub(/\(.*/, "", fn)
	if (match($0, /!prof ![0-9]+/))
		fprof[substr($0, RSTART + 6, RLENGTH - 6)] = fn
	next
}
/^}/ { fn = "" }
fn != "" && /^ *br i1 .*!prof ![0-9]+/ {
	match($0, /!prof ![0-9]+/)
	brs[++nbr] = fn " " substr($0, RSTART + 6, RLENGTH - 6)
	next
}
/^![0-9]+ = !\{!"function_entry_count"/ {
	id = $1
	v = $0
	sub(/.*i64 /, "", v)
	sub(/\}.*/, "", v)
	entry[id] = v
	next
}
/^![0-9]+ = !\{!"branch_weights"/ {
	id = $1
	v = $0
	sub(/^[^,]*, /, "", v)
	gsub(/i32 |\}/, "", v)
	gsub(/, /, " ", v)
	weights[id] = v
}
END {
	for (id in fprof)
		if (id in entry)
			print "entry", fprof[id], entry[id]
	for (i = 1; i <= nbr; i++) {
		split(brs[i], b, " ")
		if (b[2] in weights)
			print "branch", b[1], weights[b[2]]
	}
}
