# SPDX-License-Identifier: GPL-2.0
# Loops and their trip counts.  A loop is a taken backward branch (B to its
# head H, H <= B, in one function); a run of it starts when a frame's steps
# enter H..B from outside and ends when they leave it (its callees' steps
# are the frame's own business), and its trip count is how often its head
# ran in it.  Two passes: the first finds the loops, the second counts.
#   post script loops.py [MIN]     loops, and their runs of MIN trips or more
import sys
from collections import Counter, defaultdict

import pitrace

least = int(sys.argv[1]) if len(sys.argv) > 1 else 100
loops = defaultdict(set)        # function -> {(head, branch)}
last = {}                       # tid -> (pc, function) of its last branch step


def find_step(s):
    b = last.get(s.tid)
    if b and s.pc <= b[0] and s.function == b[1]:
        loops[s.function].add((s.pc, b[0]))
    last[s.tid] = (s.pc, s.function) if s.insn_class in ("jump", "cond") else None


def begin():
    pitrace.trace.run(step=find_step)


depth = {}                      # tid -> its frames
active = {}                     # (tid, depth) -> {loop: trips so far}
runs = defaultdict(Counter)     # (function, head, branch) -> trips -> runs


def close(tid, d, loop, trips):
    runs[loop][trips] += 1


def call(c):
    depth[c.tid] = c.depth


def ret(r):
    for loop, trips in active.pop((r.tid, r.depth), {}).items():
        close(r.tid, r.depth, loop, trips)
    depth[r.tid] = r.depth - 1


def step(s):
    mine = loops.get(s.function)
    if not mine and (s.tid, depth.get(s.tid, 0)) not in active:
        return
    frame = (s.tid, depth.get(s.tid, 0))
    now = active.setdefault(frame, {})
    for head, branch in mine or ():
        loop = (s.function, head, branch)
        if head <= s.pc <= branch:
            now[loop] = now.get(loop, 0) + (s.pc == head)
        elif loop in now:
            close(s.tid, frame[1], loop, now.pop(loop))
    for loop in [l for l in now if l[0] != s.function]:   # left by a jump elsewhere
        close(s.tid, frame[1], loop, now.pop(loop))
    if not now:
        del active[frame]


def end():
    print(f"{'runs':>8} {'trips':>10} {'max':>8} {f'>={least}':>8}  head (branch) function")
    for (func, head, branch), n in sorted(runs.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        total = sum(t * k for t, k in n.items())
        many = sum(k for t, k in n.items() if t >= least)
        print(f"{sum(n.values()):8d} {total:10d} {max(n):8d} {many:8d}  {head:#x} ({branch:#x}) "
              f"{func}")
        print("        trips:runs " + " ".join(f"{t}:{k}" for t, k in sorted(n.items())))
