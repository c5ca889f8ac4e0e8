#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# record-bench.sh GT-PLUGIN GT-TOOL ELF OUT: the ground truth (tests/gt) of
# one of the bare-metal riscv-tests benchmarks that NexRv's compression
# figures use (refcode/c/examples/all/from_etrace/test_files/*.riscv of
# the N-Trace task group's repository), recorded on QEMU's "spike" machine:
#   OUT.elf   the program, with the sizes of its tohost/fromhost symbols set
#             to 8 (QEMU's HTIF wants 8-byte symbols; the linker left 0)
#   OUT.pcs   the instructions retired from the entry (0x80000000) up to
#             the first call of the HTIF output and exit helpers or the
#             first trap (NexRv cannot express a trap)
set -u -o pipefail
[ $# -eq 4 ] || { echo "usage: ${0##*/} GT-PLUGIN GT-TOOL ELF OUT" >&2; exit 2; }
plugin=$1 gt=$2 elf=$3 out=$4
RE=${CROSS_COMPILE:-riscv64-linux-gnu-}readelf
command -v "$RE" >/dev/null || { echo "${0##*/}: $RE not installed" >&2; exit 1; }

cp "$elf" "$out.elf" || exit 1
# .symtab's file offset, then each symbol's index: st_size is at 16 in
# an Elf64_Sym of 24 bytes
symoff=$("$RE" -S --wide "$out.elf" | awk '$2 == ".symtab" { print $5 }')
[ -n "$symoff" ] || { echo "${0##*/}: $elf has no symbol table" >&2; exit 1; }
for idx in $("$RE" -s --wide "$out.elf" |
	awk '$8 == "tohost" || $8 == "fromhost" { sub(":", "", $1); print $1 }'); do
	printf '\010\0\0\0\0\0\0\0' | dd of="$out.elf" bs=1 seek=$((0x$symoff + idx * 24 + 16)) \
		conv=notrunc status=none || exit 1
done

# the run ends at the first call of a helper (QEMU's HTIF answers no
# host system call, so they would wait forever), or at the first trap
stops=$("$RE" -s --wide "$out.elf" | awk '$4 == "FUNC" && ($8 == "printstr" ||
	$8 == "tohost_exit" || $8 == "exit" || $8 == "abort" || $8 == "handle_trap" ||
	$8 == "syscall") { printf ",stop=0x%s", $2 }')
timeout "${RECORD_TIMEOUT:-60}" qemu-system-riscv64 -M spike -bios none -display none -serial null -monitor none \
	-kernel "$out.elf" -plugin "$plugin,out=$out.full.pcs,start=0x80000000$stops" </dev/null \
	>/dev/null 2>&1
[ -s "$out.full.pcs" ] || { echo "${0##*/}: QEMU recorded nothing for $elf" >&2; exit 1; }
n=$("$gt" dump "$out.full.pcs" | awk '$1 == "trap" { print NR - 1; found = 1; exit }
	END { if (!found) print NR }')
# a .pcs is an 8-byte magic and 8 bytes a record (gt-tool.c)
head -c $((8 + 8 * n)) "$out.full.pcs" >"$out.pcs" && rm -f "$out.full.pcs"
