# SPDX-License-Identifier: GPL-2.0
# System calls and their cost in steps, by caller: for every function that
# makes a system call (a libc wrapper, say) and each of its callers, the
# system calls made, the calls of the wrapper that made one, and their steps
# (Cum: the wrapper's own and its callees', kernel steps too when the trace
# has them).
#   post script syscall_cost.py
from collections import Counter

stack = {}              # tid -> function names by depth (1 at [0])
pending = {}            # (tid, depth) -> system calls made in that frame
syscalls = Counter()    # (caller, function) -> system calls
calls = Counter()       # (caller, function) -> its calls that made one
cost = Counter()        # (caller, function) -> their steps (Cum)


def call(c):
    frames = stack.setdefault(c.tid, [])
    del frames[c.depth - 1:]
    frames.append(c.callee)


def syscall(e):
    depth = len(stack.get(e.tid, ()))
    pending[e.tid, depth] = pending.get((e.tid, depth), 0) + 1


def ret(r):
    frames = stack.get(r.tid, [])
    del frames[r.depth - 1:]
    n = pending.pop((r.tid, r.depth), 0)
    if n:
        key = (r.caller, r.function)
        syscalls[key] += n
        calls[key] += 1
        cost[key] += r.arc_cum


def end():
    print(f"{'syscalls':>9} {'calls':>7} {'steps':>10} {'steps/call':>10}  caller -> function")
    for key, n in sorted(syscalls.items(), key=lambda kv: -cost[kv[0]]):
        print(f"{n:9d} {calls[key]:7d} {cost[key]:10d} {cost[key] / calls[key]:10.1f}"
              f"  {key[0]} -> {key[1]}")
    print(f"total: {sum(syscalls.values())} system calls")
