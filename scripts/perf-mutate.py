#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Mutated perf.data files fed to a (sanitized) perf; scripts/perf-asan.sh
# runs it and turns its summary into TAP lines.
#
#   perf-mutate.py --perf PERF --seed S --count N --out DIR [--jobs J]
#                  [--timeout T] [--only I] SRC[:ROOT]...
#
# Mutation I (0 <= I < N) is made from SRC number I % (number of SRCs) by a
# random.Random seeded with "S:I" alone, so any one of them is made again,
# byte for byte, with --only I (the file is left in DIR/keep/). Kinds, in
# turn: bit flips, byte smashes, truncation at a random offset, and for an
# AUX area recording targeted smashes of the AUXTRACE_INFO record (its type
# and every private field), of PERF_RECORD_AUX (aux_offset, aux_size,
# flags), of PERF_RECORD_AUXTRACE (size, offset, reference, idx, tid, cpu),
# of the AUXTRACE index feature (HEADER_AUXTRACE) and of the trace bytes.
# Each file goes through perf script (--itrace=bcr for an AUX area
# recording) under ASan and UBSan and with a timeout; every 8th through
# perf report --stdio too. A run fails when a sanitizer reports, a signal
# kills perf or the timeout does; exit 0, or a non-zero exit with an error
# message, is a pass ("read" and "refused"). One line per failure in
# DIR/failures (the mutated file kept in DIR/keep/), and a summary line:
#   mutations N read R refused E silent Q sanitizer A signal G timeout T
#   reports P seed S
# where "silent" counts refusals with nothing on stderr.
import argparse
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

PERF_RECORD_AUX = 11
PERF_RECORD_AUXTRACE_INFO = 70
PERF_RECORD_AUXTRACE = 71
HEADER_AUXTRACE = 18

SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:abort_on_error=0",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}
SAN_MARKS = ("ERROR: AddressSanitizer", "AddressSanitizer:DEADLYSIGNAL",
             "runtime error:", "UndefinedBehaviorSanitizer", "ERROR: LeakSanitizer")


class Layout:
    """Where the fields worth smashing are in one perf.data file."""

    def __init__(self, data):
        self.fields = {"info": [], "aux": [], "auxtrace": [], "index": []}
        self.trace = []         # (start, end) of AUXTRACE payloads
        self.data_start = 0
        if len(data) < 104 or data[:8] != b"PERFILE2":
            return
        (dsec_off, dsec_size) = struct.unpack_from("<QQ", data, 40)
        self.data_start = dsec_off
        end = min(len(data), dsec_off + dsec_size)
        off = dsec_off
        while off + 8 <= end:
            rtype, _misc, rsize = struct.unpack_from("<IHH", data, off)
            if rsize < 8:
                break
            nxt = off + rsize
            if rtype == PERF_RECORD_AUXTRACE_INFO:
                self.fields["info"].append((off + 8, 4))
                for p in range(off + 16, nxt - 7, 8):
                    self.fields["info"].append((p, 8))
            elif rtype == PERF_RECORD_AUX:
                for p in (8, 16, 24):
                    self.fields["aux"].append((off + p, 8))
            elif rtype == PERF_RECORD_AUXTRACE and off + 48 <= len(data):
                for p, w in ((8, 8), (16, 8), (24, 8), (32, 4), (36, 4), (40, 4)):
                    self.fields["auxtrace"].append((off + p, w))
                size = struct.unpack_from("<Q", data, off + 8)[0]
                self.trace.append((nxt, min(nxt + size, len(data))))
                nxt += size
            off = nxt
        # the feature sections' table follows the data section; the
        # AUXTRACE index is a count and then (offset, size) pairs
        feats = int.from_bytes(data[72:104], "little")
        tab = dsec_off + dsec_size
        n = 0
        for bit in range(256):
            if not feats >> bit & 1:
                continue
            if bit == HEADER_AUXTRACE and tab + 16 * n + 16 <= len(data):
                foff, fsize = struct.unpack_from("<QQ", data, tab + 16 * n)
                for p in range(foff, min(foff + fsize, len(data)) - 7, 8):
                    self.fields["index"].append((p, 8))
            n += 1

    def is_aux(self):
        return bool(self.fields["info"])


def smash_value(rng, old, width):
    bits = 8 * width
    top = (1 << bits) - 1
    choices = [0, 1, 2, top, top >> 1, 1 << (bits - 1), old + 1, old - 1,
               old ^ (1 << rng.randrange(bits)), old << rng.randrange(1, 8),
               old >> rng.randrange(1, 8), 4096, 0xffffffff, 0x7fffffff,
               rng.getrandbits(bits), old + rng.randrange(-64, 65) * 8]
    return rng.choice(choices) & top


def mutate(data, lay, rng, aux):
    """Return (new bytes, description)."""
    b = bytearray(data)
    kinds = ["bitflip", "smash", "truncate"]
    if aux:
        kinds += ["info", "aux", "auxtrace", "trace", "index", "info", "auxtrace"]
    kind = rng.choice(kinds)
    if kind in ("info", "aux", "auxtrace", "index") and not lay.fields[kind]:
        kind = "smash"
    if kind == "trace" and not lay.trace:
        kind = "smash"
    if kind == "bitflip":
        n = rng.choice([1, 1, 2, 4, 8])
        lo = lay.data_start if rng.random() < 0.8 else 0
        offs = sorted(rng.randrange(lo, len(b)) for _ in range(n))
        for o in offs:
            b[o] ^= 1 << rng.randrange(8)
        return bytes(b), "bitflip@" + ",".join(map(str, offs))
    if kind == "smash":
        lo = lay.data_start if rng.random() < 0.8 else 0
        o = rng.randrange(lo, len(b))
        n = min(rng.choice([1, 2, 4, 8, 16, 64]), len(b) - o)
        fill = rng.choice(["rand", "00", "ff"])
        for k in range(n):
            b[o + k] = rng.randrange(256) if fill == "rand" else int(fill, 16)
        return bytes(b), "smash@%d+%d:%s" % (o, n, fill)
    if kind == "truncate":
        o = rng.randrange(1, len(b))
        return bytes(b[:o]), "truncate@%d" % o
    if kind == "trace":
        s, e = rng.choice(lay.trace)
        if e <= s:
            return bytes(b), "trace:empty"
        o = rng.randrange(s, e)
        n = min(rng.choice([1, 2, 3, 8, 32]), e - o)
        for k in range(n):
            b[o + k] = rng.randrange(256)
        return bytes(b), "trace@%d+%d" % (o, n)
    # a field of a record or of the index
    picks = rng.choice([1, 1, 1, 2])
    desc = []
    for _ in range(picks):
        o, w = rng.choice(lay.fields[kind])
        old = int.from_bytes(b[o:o + w], "little")
        new = smash_value(rng, old, w)
        b[o:o + w] = new.to_bytes(w, "little")
        desc.append("%s@%d:%#x->%#x" % (kind, o, old, new))
    return bytes(b), " ".join(desc)


# --regress: one file per fixed crash, made from the first source
# (name, field kind, field number in Layout.fields[kind], new value or
# a function of the old one)
REGRESS = [
    ("index-offset-4g", "index", 1, lambda v: v + (1 << 32)),     # patch 0017
    ("auxtrace-size-misaligned", "auxtrace", 0, lambda v: v + 2),  # 0017, 0024
    ("auxtrace-idx-max", "auxtrace", 3, lambda v: 0xffffffff),     # 0019
    ("auxtrace-cpu-large", "auxtrace", 5, lambda v: 0x7fffffff),   # 0020
]


def regress(data, lay, name):
    b = bytearray(data)
    for n, kind, k, f in REGRESS:
        if n == name:
            o, w = lay.fields[kind][k]
            v = f(int.from_bytes(b[o:o + w], "little")) & ((1 << 8 * w) - 1)
            b[o:o + w] = v.to_bytes(w, "little")
            return bytes(b), "%s@%d:%#x" % (kind, o, v)
    raise ValueError(name)


def run(cmd, timeout):
    env = dict(os.environ, **SAN_ENV)
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    err = p.stderr.decode("utf-8", "replace")
    if any(m in err for m in SAN_MARKS):
        return "sanitizer", err
    if p.returncode < 0 or 128 < p.returncode <= 192:
        sig = -p.returncode if p.returncode < 0 else p.returncode - 128
        return "signal%d" % sig, err
    if p.returncode == 0:
        return "read", err
    return ("refused" if err.strip() else "silent"), err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perf", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--only", type=int)
    ap.add_argument("--regress", action="store_true",
                    help="the files of REGRESS (from the first SRC) instead")
    ap.add_argument("srcs", nargs="+")
    a = ap.parse_args()

    srcs = []
    for s in a.srcs:
        path, _, root = s.partition(":")
        with open(path, "rb") as f:
            data = f.read()
        lay = Layout(data)
        srcs.append((path, root, data, lay))
    os.makedirs(os.path.join(a.out, "keep"), exist_ok=True)
    work = tempfile.mkdtemp(dir=a.out)

    def one(i):
        path, root, data, lay = srcs[0 if a.regress else i % len(srcs)]
        if a.regress:
            mdata, desc = regress(data, lay, REGRESS[i][0])
            desc = REGRESS[i][0] + " " + desc
        else:
            rng = random.Random("%d:%d" % (a.seed, i))
            mdata, desc = mutate(data, lay, rng, lay.is_aux())
        f = os.path.join(work, "m%d.data" % i)
        with open(f, "wb") as fh:
            fh.write(mdata)
        sym = ["--symfs", root] if root else []
        cmds = [[a.perf, "script", "-i", f] + sym +
                (["--itrace=bcr"] if lay.is_aux() else [])]
        if i % 8 == 0 or a.regress:
            cmds.append([a.perf, "report", "--stdio", "-i", f] + sym)
        res = []
        for c in cmds:
            verdict, err = run(c, a.timeout)
            res.append((c[1], verdict, err))
        bad = [r for r in res if r[1] not in ("read", "refused", "silent")]
        if bad or a.only is not None:
            shutil.copy(f, os.path.join(a.out, "keep", "m%d.data" % i))
        os.unlink(f)
        return i, path, desc, res

    idx = [a.only] if a.only is not None else range(a.count)
    if a.regress:
        idx = range(len(REGRESS))
    counts = dict.fromkeys(("read", "refused", "silent", "sanitizer", "signal",
                            "timeout"), 0)
    nrep = 0
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex, \
            open(os.path.join(a.out, "failures"), "w") as fail, \
            open(os.path.join(a.out, "results"), "w") as log:
        for i, path, desc, res in ex.map(one, idx):
            for cmd, verdict, err in res:
                nrep += cmd == "report"
                # the perf script run counts a mutation; report's only if bad
                key = "signal" if verdict.startswith("signal") else verdict
                if cmd == "script" or key in ("sanitizer", "signal", "timeout"):
                    counts[key] += 1
                first = next((ln for ln in err.splitlines() if ln.strip()), "")
                log.write("%d %s %s %s [%s] %s\n" % (i, cmd, verdict,
                          os.path.basename(path), desc, first[:160]))
                if key in ("sanitizer", "signal", "timeout"):
                    san = [ln for ln in err.splitlines()
                           if any(m in ln for m in SAN_MARKS) or " in " in ln][:8]
                    fail.write("mutation %d (%s, %s) perf %s: %s: %s\n" % (
                        i, path, desc, cmd, verdict, " | ".join(san)[:2000]))
    shutil.rmtree(work, ignore_errors=True)
    print("mutations %d read %d refused %d silent %d sanitizer %d signal %d "
          "timeout %d reports %d seed %d" % (
              len(idx), counts["read"], counts["refused"], counts["silent"],
              counts["sanitizer"], counts["signal"], counts["timeout"], nrep, a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
