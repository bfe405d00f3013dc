# SPDX-License-Identifier: GPL-2.0
# The call paths that reach an address, and how often each did.
#   post script call_paths.py ADDRESS      0x401136, SYMBOL or SYMBOL+0xOFF
import sys
from collections import Counter

if len(sys.argv) != 2:
    sys.exit("usage: call_paths.py ADDRESS|SYMBOL[+0xOFF]")
where = sys.argv[1]
if where.startswith("0x"):
    address, symbol, offset = int(where, 16), None, None
else:
    symbol, _, off = where.partition("+")
    address, offset = None, int(off, 0) if off else 0
stack = {}              # tid -> function names by depth
paths = Counter()       # path (outermost first) -> times it reached the address


def call(c):
    frames = stack.setdefault(c.tid, [])
    del frames[c.depth - 1:]
    frames.append(c.callee)


def ret(r):
    del stack.get(r.tid, [])[r.depth - 1:]


def step(s):
    if address is not None:
        if s.pc != address:
            return
    elif s.function != symbol or s.offset != offset:    # the cheap test first
        return
    paths[tuple(stack.get(s.tid, ()))] += 1


def end():
    for path, n in paths.most_common():
        print(f"{n:10d}  {' > '.join(path)}")
    print(f"total: {sum(paths.values())} times on {len(paths)} paths")
