#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Split a raw N-Trace byte stream into whole messages and group them by SRC.

usage: demux-src.py TRACE.bin SRC-BITS PREFIX [--wrapped] [--cut]

A message ends with the byte whose MSEO bits (1:0) are 11; 0xFF bytes
between messages are idle. SRC is the fixed-size field right after the
6-bit TCODE, i.e. the low SRC-BITS bits of the second byte's MDO (bits
7:2), for SRC-BITS up to 6. Writes PREFIX.SRC.bin (that source's messages,
concatenated, in stream order) and PREFIX.SRC.msgs (one message per line,
hex) for every SRC seen, and prints a summary line of "key=value" pairs:
msgs, srcs (comma list), switches (consecutive messages of different
sources), lead (bytes skipped before the first message end, --wrapped: the
buffer starts mid-message), tail (bytes after the last message end: idle
padding, or with --cut a message cut short), tail_idle (1 when those are all
0xFF). Exit status 1 when a message is too short to hold its SRC.
"""
import sys


def main():
    path, bits, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    wrapped = '--wrapped' in sys.argv[4:]
    data = open(path, 'rb').read()
    i = 0
    lead = 0
    if wrapped:
        while i < len(data) and data[i] & 3 != 3:
            i += 1
        i += 1
        lead = min(i, len(data))
    msgs = []
    cur = bytearray()
    last_end = i
    while i < len(data):
        b = data[i]
        i += 1
        if not cur and b == 0xff:
            last_end = i
            continue
        cur.append(b)
        if b & 3 == 3:
            msgs.append(bytes(cur))
            cur = bytearray()
            last_end = i
    tail = data[last_end:]
    by_src = {}
    order = []
    for m in msgs:
        if len(m) < 2 and bits:
            print("demux-src: message %s has no SRC field" % m.hex())
            return 1
        s = (m[1] >> 2) & ((1 << bits) - 1) if bits else 0
        by_src.setdefault(s, []).append(m)
        order.append(s)
    for s, ms in by_src.items():
        with open('%s.%d.bin' % (prefix, s), 'wb') as f:
            f.write(b''.join(ms))
        with open('%s.%d.msgs' % (prefix, s), 'w') as f:
            f.write(''.join(m.hex() + '\n' for m in ms))
    switches = sum(1 for a, b in zip(order, order[1:]) if a != b)
    print("msgs=%d srcs=%s switches=%d lead=%d tail=%d tail_idle=%d" % (
        len(msgs), ','.join(str(s) for s in sorted(by_src)) or '-', switches, lead,
        len(tail), int(all(x == 0xff for x in tail))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
