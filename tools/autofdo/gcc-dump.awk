# SPDX-License-Identifier: GPL-2.0-only
# What gcc -fauto-profile took from the profile: the branch probabilities in
# dispatch(), read from the -fdump-tree-optimized dump. Prints
# "branch dispatch P1 P2": the probability (0..1) of the then-edge of its
# first two conditions, "(i & 127) == 127" (the cold path) and
# "(i & 3) == 0" (warm_scale, among the other iterations).
/^;; Function / { infn = ($3 == "dispatch"); next }
infn && /^ *if \(/ { want = 1; next }
infn && want && /goto <bb [0-9]+>; \[[0-9.]+%\]/ {
	p = $0
	sub(/.*\[/, "", p)
	sub(/%\].*/, "", p)
	probs = probs " " p / 100
	want = 0
}
END { print "branch dispatch" probs }
