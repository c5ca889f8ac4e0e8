# SPDX-License-Identifier: GPL-2.0-only
#
# Ground truth (gt-tool dump) -> the input of NexRv's encoder ("PC
# sequence": one "0xPC,TYPE" line per retired instruction) and of its
# decoder ("PC info": one line per instruction of the program, with the
# target of direct transfers).
#
#   awk -v info=OUT.pcinfo -v truth=OUT.truth -f pcseq.awk DECODED DUMP > OUT.pcseq
#
# DECODED: "gt-tool decode IMAGE" of every address in DUMP, ascending
# ("PC SIZE KIND ITYPE TARGET", hex without 0x). DUMP: "gt-tool dump PCS"
# ("pc A" / "trap A CAUSE").
#
# TYPE is a letter and the size in bytes: L plain, B taken / BN not taken
# conditional branch, J direct jump, C direct call, JI indirect jump, CI
# indirect call, R return. NexRv has no trap: it models an ECALL as an
# indirect call that retires (its objdump reader does so), so an ECALL
# trap mark (cause 8, 9 or 11) becomes "0xPC,CI4" and the ECALL counts as
# retired in truth (the PC list NexRv's encoder is given). Any other trap
# cannot be expressed: the script fails naming it.
# truth: the PCs of the PC sequence, one "0xpc" a line (lower case).

function info_type(k, t) {
	if (k == "branch")
		return "BD"
	if (k == "jump")
		return t == "dir_call" ? "CD" : "JD"
	if (k == "indirect") {
		if (t == "return")
			return "R"
		# co-routine swaps and linking jumps are neither a call nor a
		# return for the spec; NexRv has no such type: plain jumps
		return t == "ind_call" ? "CI" : "JI"
	}
	if (k == "trap")
		return "CI"
	return "L"
}

FNR == NR {
	kind[$1] = $3
	itype[$1] = $4
	size[$1] = $2
	tgt[$1] = $5
	ty = info_type($3, $4)
	if (ty ~ /D$/)
		printf "0x%s,%s%d,0x%s\n", toupper($1), ty, $2, toupper($5) > info
	else
		printf "0x%s,%s%d\n", toupper($1), ty, $2 > info
	next
}

$1 == "pc" || $1 == "trap" {
	if ($1 == "trap" && $3 != 8 && $3 != 9 && $3 != 11) {
		printf "pcseq.awk: trap at 0x%s, cause %s: NexRv can only model ECALL\n",
			$2, $3 > "/dev/stderr"
		bad = 1
		exit 1
	}
	n++
	pc[n] = $2
}

function emit(i, a, ty, nx) {
	a = pc[i]
	if (!(a in kind)) {
		printf "pcseq.awk: 0x%s was not decoded\n", a > "/dev/stderr"
		bad = 1
		exit 1
	}
	ty = info_type(kind[a], itype[a])
	if (ty == "BD") {
		# taken: the next instruction is the target (a branch to the
		# next instruction reads as taken; the flow is the same)
		nx = i < n ? pc[i + 1] : ""
		ty = nx != "" && nx == tgt[a] ? "B" : "BN"
	} else if (ty == "JD") {
		ty = "J"
	} else if (ty == "CD") {
		ty = "C"
	}
	printf "0x%s,%s%d\n", toupper(a), ty, size[a]
	printf "0x%s\n", a > truth
}

END {
	if (bad)
		exit 1
	for (i = 1; i <= n; i++)
		emit(i)
}
