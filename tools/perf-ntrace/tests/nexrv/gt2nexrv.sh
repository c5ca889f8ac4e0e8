#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# gt2nexrv.sh GT-TOOL PCS IMAGE OUT: a ground-truth PC list (tests/gt) as
# the files NexRv (the N-Trace task group's reference code) reads, next to
# the PC lists to compare decoders' output with:
#   OUT.pcseq    its encoder's input: "0xPC,TYPE" per retired instruction
#   OUT.pcinfo   its decoder's input: "0xPC,TYPE[,0xTARGET]" per instruction
#   OUT.truth    the PCs of OUT.pcseq (ECALLs count as retired, as NexRv
#                models them), "0xpc" per line
#   OUT.retired  the PCs QEMU retired (no ECALL), "0xpc" per line
# The formats and the ECALL mapping are described in pcseq.awk.
set -u -o pipefail
[ $# -eq 4 ] || { echo "usage: ${0##*/} GT-TOOL PCS IMAGE OUT" >&2; exit 2; }
gt=$1 pcs=$2 img=$3 out=$4

"$gt" dump "$pcs" >"$out.dump" || exit 1
# every address once, ascending (NexRv wants its info sorted)
awk '$1 == "pc" || $1 == "trap" {
	print substr("0000000000000000", 1, 16 - length($2)) $2 }' "$out.dump" |
	sort -u >"$out.addrs" || exit 1
"$gt" decode "$img" <"$out.addrs" >"$out.decoded" || exit 1
awk -v info="$out.pcinfo" -v truth="$out.truth" -f "$(dirname "$0")/pcseq.awk" \
	"$out.decoded" "$out.dump" >"$out.pcseq" || exit 1
awk '$1 == "pc" { print "0x" $2 }' "$out.dump" >"$out.retired" || exit 1
rm -f "$out.dump" "$out.addrs" "$out.decoded"
