# SPDX-License-Identifier: GPL-2.0-only
# How far a decoded PC list (second file) follows a ground-truth PC list
# (first file) in order, allowing gaps in the decoded one (code it could
# not decode): "N instructions in ground-truth order, first wrong one X
# after ground-truth instruction M" or "all N in ground-truth order".
# Needs flow.awk and hex.awk.
NR == FNR { gt[++n] = canon($1); next }
{
	pc = canon($1)
	for (k = j + 1; k <= n && gt[k] != pc; k++)
		;
	if (k > n) {
		printf "%d instructions in ground-truth order, then %s, which does not follow ground-truth instruction %d (%s)\n", FNR - 1, pc, j, gt[j]
		done = 1
		exit
	}
	j = k
}
END { if (!done) printf "all %d in ground-truth order\n", FNR }
