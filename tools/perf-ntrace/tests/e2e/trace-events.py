# SPDX-License-Identifier: GPL-2.0-only
"""Read a Trace Event Format JSON file (perf-ntrace decode --format=timeline)
and print what tests/timeline.sh compares, one line per event:
  slices:  "BEGIN END DEPTH NAME" per call slice (args.begin_insn/end_insn)
  times:   "BEGIN END TS END_TS EST" per call slice (EST: args.estimated or -)
  merged:  "DUR MERGED NESTED CAT DEPTH NAME" per call or merged slice
  cats:    "CAT COUNT" per category of instant events
  trigger: "INSN PC TEXT" per trigger marker (decode --until), then
           "end INSN": where the last call slice ends
  meta:    "KEY VALUE" per otherData entry
  names:   "PID TID NAME" per thread_name metadata event
  nesting: "NESTED BAD" call and merged slices that nest on their thread
           as a viewer needs them to (in ts/dur), and those that do not
Exits 1 if the file is not valid JSON or lacks the traceEvents array."""
import json
import signal
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # a reader that stops early

try:
    doc = json.load(open(sys.argv[2]))
    events = doc["traceEvents"]
except (ValueError, KeyError, OSError) as e:
    print("not a trace event file: %s" % e, file=sys.stderr)
    sys.exit(1)
what = sys.argv[1]
if what == "meta":
    for k, v in doc.get("otherData", {}).items():
        print(k, v)
    sys.exit(0)
cats = {}
slices_end = 0
for e in events:
    a = e.get("args", {})
    if what == "names" and e.get("ph") == "M" and e.get("name") == "thread_name":
        print(e["pid"], e["tid"], a["name"])
    if e.get("ph") == "i":
        cats[e["cat"]] = cats.get(e["cat"], 0) + 1
        if what == "trigger" and e["cat"] == "trigger":
            print(a["begin_insn"], a["pc"], a.get("text", "-"))
    if e.get("ph") != "X" or e.get("cat") not in ("call", "merged"):
        continue
    slices_end = max(slices_end, a["end_insn"])
    if what == "slices" and e["cat"] == "call":
        print(a["begin_insn"], a["end_insn"], a["depth"], e["name"])
    elif what == "times" and e["cat"] == "call":
        print(a["begin_insn"], a["end_insn"], e["ts"], e["ts"] + e["dur"],
              a.get("estimated", "-"))
    elif what == "merged":
        print(a["end_insn"] - a["begin_insn"], a.get("merged", 0),
              a.get("nested_merged", 0), e["cat"], a["depth"], e["name"])
if what == "nesting":
    tracks = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("call", "merged"):
            tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    good = bad = 0
    for evs in tracks.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"], e["args"].get("depth", 0)))
        ends = []
        for e in evs:
            while ends and ends[-1] <= e["ts"] + 1e-9:
                ends.pop()
            if ends and e["ts"] + e["dur"] > ends[-1] + 1e-9:
                bad += 1
            else:
                good += 1
            ends.append(e["ts"] + e["dur"])
    print(good, bad)
if what == "trigger":
    print("end", slices_end)
if what == "cats":
    for c in sorted(cats):
        print(c, cats[c])
