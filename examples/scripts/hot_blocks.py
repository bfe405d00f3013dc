# SPDX-License-Identifier: GPL-2.0
# The hottest basic blocks: runs of steps that end at a control transfer.
#   post script hot_blocks.py [N]     the N hottest (default 20), by steps
# A block is told by its first address and function; "executions" is how
# often it ran, "steps" its steps in all.  Last line: the steps of every block.
import sys
from collections import Counter

top = int(sys.argv[1]) if len(sys.argv) > 1 else 20
steps = Counter()       # (function, start pc) -> steps
runs = Counter()        # (function, start pc) -> executions
current = {}            # tid -> the block its next step continues, or None


def step(s):
    block = current.get(s.tid)
    if block is None:
        block = (s.function, s.pc)
        runs[block] += 1
    steps[block] += 1
    # a control transfer ends the block: the thread's next step starts one
    current[s.tid] = block if s.insn_class == "other" else None


def end():
    print(f"{'steps':>12} {'executions':>11}  {'address':>18}  function")
    for (func, pc), n in steps.most_common(top):
        print(f"{n:12d} {runs[func, pc]:11d}  {pc:#18x}  {func}")
    print(f"total: {sum(steps.values())} steps in {len(steps)} blocks")
