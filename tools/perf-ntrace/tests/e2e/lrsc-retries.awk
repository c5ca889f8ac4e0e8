# SPDX-License-Identifier: GPL-2.0-only
# A PC list without the failed LR/SC iterations (scripts/perf-e2e.sh): a
# trap between LR and SC makes the SC fail and the loop run again, and the
# guest takes page faults where QEMU user mode takes none. An iteration
# that comes back to the same LR within 8 instructions, an SC on the way,
# is dropped; their number goes to stderr. -v lrs="ADDR..." and
# -v scs="ADDR..." are the program's LR and SC addresses.
BEGIN {
	n = split(lrs, a, " "); for (i = 1; i <= n; i++) islr[a[i]] = 1
	n = split(scs, a, " "); for (i = 1; i <= n; i++) issc[a[i]] = 1
}
function flush(j) { for (j = 1; j <= np; j++) print pend[j]; np = 0 }
islr[$1] {
	if (np && pend[1] == $1 && sc) { np = 0; dropped++ } else flush()
	pend[++np] = $1; sc = 0; next
}
np { pend[++np] = $1; if (issc[$1]) sc = 1; if (np > 8) flush(); next }
{ print }
END { flush(); if (dropped) print dropped " failed LR/SC" >"/dev/stderr" }
