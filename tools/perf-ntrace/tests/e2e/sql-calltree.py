# SPDX-License-Identifier: GPL-2.0-only
"""The call tree in an SQLite database that perf's export-to-sqlite.py wrote
with its call/return tables ("perf script --itrace=cr -s export-to-sqlite.py
DB branches calls"), as the lines gt-calltree.awk prints in mode "trace":
"c DEPTH FROM TO" per call, DEPTH counting the new frame, and "r DEPTH FROM
TO" per return, DEPTH the frame left, in the order the branches were taken.

Usage: sql-calltree.py DB

Only what the database says is used: a row of the calls table is a frame;
its call and its return are the branch samples call_id and return_id (from
ip, to to_ip); its depth is the number of frames from it to the root
through parent_id that a call opened (its call sample flagged
PERF_IP_FLAG_CALL). Other frames are perf's own: the bottom of a thread's
stack and frames popped by a return that had no call (CALL_RETURN_NO_CALL),
a jump to the start of a function (CALL_RETURN_NON_CALL, perf's guess at a
tail call), and the trace's end where it left for code not traced (a
system call, with the kernel excluded). A frame ended by the
return of an outer one (CALL_RETURN_NO_RETURN: a longjmp) has no return of
its own. A return no call matches is printed one level below the frame it
left the stack at, as gt-calltree.awk prints it (a signal handler returning
into the sigreturn trampoline: perf makes it a frame without a call).
"""
import sqlite3
import sys

NO_CALL = 1 << 0       # CALL_RETURN_NO_CALL in perf's util/thread-stack.h
NO_RETURN = 1 << 1     # CALL_RETURN_NO_RETURN
NON_CALL = 1 << 2      # CALL_RETURN_NON_CALL
IP_FLAG_CALL = 1 << 1  # PERF_IP_FLAG_CALL in perf's util/event.h


def main():
    db = sqlite3.connect(sys.argv[1])
    rows = {}
    for rid, parent, flags, call, ret in db.execute(
            "SELECT id, parent_id, flags, call_id, return_id FROM calls"):
        rows[rid] = (parent, flags, call, ret)
    ends, sflags = {}, {}
    for sid, ip, to, f in db.execute("SELECT id, ip, to_ip, flags FROM samples"):
        ends[sid] = (ip, to)
        sflags[sid] = f

    def is_call(rid):
        flags, call = rows[rid][1], rows[rid][2]
        return not flags & (NO_CALL | NON_CALL) and sflags.get(call, 0) & IP_FLAG_CALL

    depth = {}

    def frame_depth(rid):
        # iterative: recursion 100 deep and more
        chain = []
        while rid and rid in rows and rid not in depth:  # 0: no parent
            chain.append(rid)
            rid = rows[rid][0]
        d = depth.get(rid, 0)
        for r in reversed(chain):
            if is_call(r):
                d += 1
            depth[r] = d
        return d

    events = []
    for rid, (parent, flags, call, ret) in rows.items():
        if not rid:  # row 0 stands for none
            continue
        if is_call(rid):
            d = frame_depth(rid)
            if call in ends:
                events.append((call, 0, "c", d) + ends[call])
        elif flags & NO_CALL and parent:
            # a return no call matches (a signal handler's into the
            # sigreturn trampoline): at the depth below its parent
            d = frame_depth(parent) + 1
        else:
            continue
        if ret in ends and not flags & NO_RETURN:
            events.append((ret, 1, "r", d) + ends[ret])
    events.sort()
    for _, _, kind, d, ip, to in events:
        print(kind, d, "0x%x" % ip, "0x%x" % to)


if __name__ == "__main__":
    main()
