# SPDX-License-Identifier: GPL-2.0-only
# The words of a ground-truth .pcs file, read without the library
# (tests/cli_encode_inputs.sh): "od -tx8" lines of 16 hex digits, each a
# retired PC, or a trap mark (the EPC with bit 0 set) followed by the cause.
#   -v out=pcs     "0xPC" per retired instruction
#   -v out=text    a text PC list, traps as "trap EPC CAUSE"
#   -v out=traps   the number of trap marks followed by a retired instruction
#                  (a trap that ends the trace has no handler in it)
function trap_mark(w) { return substr(w, 16, 1) ~ /[13579bdf]/ }

BEGIN { h = "0123456789abcdef"; if (out == "text") print "# retired PCs" }
cause { cause = 0; if (out == "text") print "trap", epc, $1; next }
trap_mark($1) {
	# bit 0 cleared in the last hex digit
	d = substr($1, 16, 1)
	epc = substr($1, 1, 15) substr(h, index(h, d) - 1, 1)
	cause = 1
	pend++
	next
}
out == "pcs" { w = $1; sub(/^0+/, "", w); print "0x" (w == "" ? "0" : w) }
out == "text" { print $1 }
{ traps += pend; pend = 0 }
END { if (out == "traps") print traps + 0 }
