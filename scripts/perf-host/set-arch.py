# SPDX-License-Identifier: GPL-2.0-only
# set-arch.py FILE ARCH: add perf's HEADER_ARCH feature (the machine name,
# as "uname -m" gives it) to a perf.data file that has no feature sections,
# such as the ones tools/perf-ntrace/tests/unit/perfdata_test --write makes.
# perf picks the binutils for a recording from it: for "riscv64" on an
# x86_64 host, perf annotate runs riscv64-linux-gnu-objdump.
import struct
import sys

HEADER_ARCH = 6		# bit in perf_file_header.adds_features
NAME_ALIGN = 64		# perf pads header strings to this

path, arch = sys.argv[1], sys.argv[2].encode()
with open(path, "r+b") as f:
	hdr = f.read(104)
	if hdr[:8] != b"PERFILE2":
		sys.exit("%s: not a perf.data file" % path)
	data_off, data_size = struct.unpack_from("<QQ", hdr, 40)
	feats = bytearray(hdr[72:104])
	if any(feats):
		sys.exit("%s: already has feature sections" % path)
	end = data_off + data_size
	f.seek(0, 2)
	if f.tell() != end:
		sys.exit("%s: the data section is not at the end" % path)
	s = arch + b"\0"
	s += b"\0" * (-len(s) % NAME_ALIGN)
	body = struct.pack("<I", len(s)) + s
	# the section table (one entry), then the section
	f.write(struct.pack("<QQ", end + 16, len(body)) + body)
	feats[HEADER_ARCH // 8] |= 1 << (HEADER_ARCH % 8)
	f.seek(72)
	f.write(feats)
