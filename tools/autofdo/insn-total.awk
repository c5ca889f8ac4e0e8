# SPDX-License-Identifier: GPL-2.0-only
# Total retired instructions of a run, from a QEMU user-mode log written with
# "-d in_asm,exec,nochain": the in_asm listing gives each translation
# block's size (its "0xADDR:  insn" lines), every "Trace N: host [../PC/..]"
# line is one execution of the block at PC. A block left early (a fault)
# would be over-counted; user programs here do not fault. Prints
# "instructions N blocks N".
function key(h) { sub(/^0x0*/, "", h); sub(/^0+/, "", h); return h }
/^IN:/ { intb = 1; pc = ""; n = 0; next }
intb && /^0x[0-9a-f]+:/ {
	if (pc == "")
		pc = key(substr($1, 1, length($1) - 1))
	n++
	next
}
intb { if (pc != "") size[pc] = n; intb = 0 }
/^Trace [0-9]+:/ {
	split($0, f, "[[/]")
	execs[key(f[3])]++
}
END {
	if (intb && pc != "") size[pc] = n
	for (p in execs) {
		tot += execs[p] * size[p]
		blocks += execs[p]
		if (!(p in size)) missing++
	}
	printf "instructions %d blocks %d\n", tot, blocks
	if (missing) printf "insn-total: %d blocks executed without a listing\n", missing > "/dev/stderr"
}
