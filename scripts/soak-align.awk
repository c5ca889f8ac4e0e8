# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/soak.sh: one CPU's AUX records against its hart's ground truth.
# Input: the CPU's records in order, each a line "R KEY FLAGGED BYTES"
# (FLAGGED 1: TRUNCATED, PARTIAL or COLLISION; 2: a record whose decode
# errors are known and reported otherwise, checked as a flagged one but
# counted apart) followed by the
# instructions decoded from it, one "P PC" line each. -v gtlog=FILE: the
# hart's ground truth as one PC a line (its U-mode records), read as it
# goes (it may be large).
# A record not flagged must decode to exactly the next run of the log;
# only right after a flagged record (loss reported) may instructions of
# the log be skipped first. A flagged record must decode to an ordered
# part of the log (instructions lost, none invented). The log's end must
# be reached, unless the last record was flagged.
# Prints: "ok|bad records R flagged F bytes B decoded D exact E lost L
# log M gaps G other O OLOST OL [WHY]", with D + L = M when ok (O records
# of kind 2, OL of the instructions lost in or right after them).
function get(i) {	# the log's i-th line ("" past its end)
	while (hi < i) {
		if ((getline line < gtlog) <= 0)
			return ""
		if (line ~ /^#/)
			continue
		L[++hi] = line
	}
	return L[i]
}
function drop(i, j) {	# forget the log below line i
	for (j = lo; j < i; j++)
		delete L[j]
	if (i > lo)
		lo = i
}
function fail(why) {
	if (!bad)
		bad = why
}
# does R[1..n] equal the log from line k on?
function at(k,   i) {
	if (get(k) != R[1] || get(k + n - 1) != R[n])
		return 0
	for (i = 2; i <= n && get(k + i - 1) == R[i]; i++)
		;
	return i > n
}
# the previous record PR[1..pn] (placed after a gap at line pk) at line k?
function pat(k,   i) {
	if (get(k) != PR[1] || get(k + pn - 1) != PR[pn])
		return 0
	for (i = 2; i <= pn && get(k + i - 1) == PR[i]; i++)
		;
	return i > pn
}
# the record just read (n instructions in R[1..n]) against the log
function settle(   i, k, found, start, k2) {
	if (!inrec)
		return
	if (!rflag) {
		if (n == 0)
			return
		start = pos
		k = pos
		found = 0
		# the last instruction first (in at()): a run that starts in a
		# loop would otherwise be compared at every iteration
		while (get(k) != "") {
			if (at(k)) {
				found = 1
				break
			}
			if (!gapok)
				break
			k++
		}
		# Not next: if the previous record was placed after a gap, at
		# the first place it matched, that may have been too early (a
		# short run that recurs in what was lost): try it further on.
		if (!found && !gapok && placed) {
			for (k2 = pk + 1; get(k2) != ""; k2++) {
				if (!pat(k2) || !at(k2 + pn))
					continue
				lost += k2 - pk
				if (pkind == 2)
					olost += k2 - pk
				k = k2 + pn
				start = k
				found = 1
				break
			}
		}
		placed = 0
		if (!found) {
			fail(sprintf("record %s (%d instructions, not flagged) is not the next run of the log at line %d%s",
				     key, n, pos, gapok ? " or after it" : ""))
			return
		}
		if (k > start) {
			lost += k - start
			gaps++
			if (gapok == 2)
				olost += k - start
		}
		if (gapok) {
			# placed after a loss: remember where, to move it if
			# the next record does not follow
			placed = 1
			pk = k
			pkind = gapok
			pn = n
			delete PR
			for (i = 1; i <= n; i++)
				PR[i] = R[i]
		}
		pos = k + n
		exact += n
		gapok = 0
	} else {
		placed = 0
		l0 = lost
		for (i = 1; i <= n; i++) {
			while (get(pos) != "" && get(pos) != R[i]) {
				pos++
				lost++
			}
			if (get(pos) == "") {
				fail(sprintf("flagged record %s: instruction %d of %d (%s) not in the rest of the log",
					     key, i, n, R[i]))
				return
			}
			pos++
		}
		gapok = rflag
		if (rflag == 2)
			olost += lost - l0
	}
	drop(placed ? pk : pos)
	decoded += n
}
BEGIN { pos = 1; lo = 1; hi = 0 }
$1 == "R" {
	settle()
	inrec = 1
	key = $2
	rflag = $3 + 0
	records++
	flagged += rflag == 1
	other += rflag == 2
	bytes += $4
	n = 0
	delete R
	next
}
$1 == "P" { R[++n] = $2 }
END {
	settle()
	while (get(pos) != "") {
		tail++
		pos++
		drop(pos)
	}
	if (tail && !bad) {
		if (gapok)
			lost += tail
		if (gapok == 2)
			olost += tail
		else
			fail(sprintf("%d instructions of the log after the last record (not flagged)", tail))
	}
	m = hi
	printf "%s records %d flagged %d bytes %d decoded %d exact %d lost %d log %d gaps %d other %d olost %d%s\n",
		bad ? "bad" : "ok", records, flagged, bytes, decoded, exact, lost, m, gaps, other, olost + 0,
		bad ? " " bad : ""
}
