#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lists for mktrace --lists from a real recording of tests/progs/bench_calls.

Reads `post steps` of the recording (stdin), cuts each thread's steps at
iteration()'s entries (ENTRY, hex) into the prologue, one iteration and the
epilogue, checks that every whole iteration is the same steps, and prints
one list per line: "THREAD ADDR*N,...@K", the iteration repeated so that
the trace has about STEPS steps.  On stderr: "THREADS ITERATION-CALLS".
"""
import sys

entry, want = sys.argv[1], int(sys.argv[2])
by_tid = {}
order = []
for line in sys.stdin:
    if line.startswith("#"):
        continue
    f = line.split()
    if len(f) < 3:
        continue
    if f[1] not in by_tid:
        by_tid[f[1]] = []
        order.append(f[1])
    by_tid[f[1]].append(f[2])

def rle(pcs):
    out, i = [], 0
    while i < len(pcs):
        j = i
        while j < len(pcs) and pcs[j] == pcs[i]:
            j += 1
        out.append("0x" + pcs[i] + ("*%d" % (j - i) if j - i > 1 else ""))
        i = j
    return ",".join(out)

parts = []
for th, tid in enumerate(order):
    s = by_tid[tid]
    p = [i for i, a in enumerate(s) if a == entry]
    assert len(p) >= 3, "thread %s: %d iterations" % (tid, len(p))
    body = s[p[1]:p[2]]
    for a, b in zip(p[1:-1], p[2:]):
        assert s[a:b] == body, "thread %s: iterations differ" % tid
    parts.append((th, s[:p[1]], body, s[p[-1]:]))
fixed = sum(len(a) + len(c) for _, a, _, c in parts)
per = sum(len(b) for _, _, b, _ in parts)
k = max(1, (want - fixed) // per)
for th, a, b, c in parts:
    print("%d %s" % (th, rle(a)))
    print("%d %s@%d" % (th, rle(b), k))
    print("%d %s" % (th, rle(c)))
print("%d %d" % (len(parts), k + 2), file=sys.stderr)
