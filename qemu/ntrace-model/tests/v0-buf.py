#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Trace buffers of the model's SiFive v0 memory sinks (tests/p550.sh).

usage: v0-buf.py extract RAM BASE LIMIT WP WORD OUT
         the buffer from the guest RAM file (RAM at 0x80000000), oldest byte
         first: [BASE, WP) or, with WP's wrapped bit (bit 0), the words from
         WP to LIMIT (the last word) and then [BASE, WP); prints "wrapped=N
         bytes=N"
       v0-buf.py same BUF REF WORD
         BUF is REF followed by idle bytes (0xFF) up to a whole WORD
       v0-buf.py window wrap|stop BUF REF WORD
         wrap: BUF is the end of REF padded with idle bytes to a whole word;
         stop: BUF is the start of REF (and fills the buffer)
Exit status 0 when the comparison holds; a "#" line says what was compared.
"""
import sys


def padded(ref, word):
    return ref + b'\xff' * (-len(ref) % word)


def main():
    op = sys.argv[1]
    if op == 'extract':
        ram, base, limit, wp, word, out = sys.argv[2:8]
        base, limit, wp, word = int(base, 0), int(limit, 0), int(wp, 0), int(word)
        wrapped, wp = wp & 1, wp & ~(word - 1)
        f = open(ram, 'rb')

        def read(a, n):
            f.seek(a - 0x80000000)
            return f.read(n)
        data = read(wp, limit + word - wp) + read(base, wp - base) if wrapped else \
            read(base, wp - base)
        open(out, 'wb').write(data)
        print("wrapped=%d bytes=%d" % (wrapped, len(data)))
        return 0
    buf = open(sys.argv[-3], 'rb').read()
    ref = open(sys.argv[-2], 'rb').read()
    word = int(sys.argv[-1])
    if op == 'same':
        ok = len(ref) > 0 and buf == padded(ref, word)
        print("# buffer %d bytes, reference %d bytes (+ idle to a %d-byte word): %s"
              % (len(buf), len(ref), word, "equal" if ok else "DIFFERENT"))
    elif sys.argv[2] == 'wrap':
        want = padded(ref, word)
        ok = 0 < len(buf) < len(want) and want[-len(buf):] == buf
        print("# wrapped buffer %d bytes: the last of %d reference bytes: %s"
              % (len(buf), len(want), "equal" if ok else "DIFFERENT"))
    else:
        ok = 0 < len(buf) < len(ref) and ref[:len(buf)] == buf
        print("# stopped buffer %d bytes: the first of %d reference bytes: %s"
              % (len(buf), len(ref), "equal" if ok else "DIFFERENT"))
    return 0 if ok else 1


sys.exit(main())
