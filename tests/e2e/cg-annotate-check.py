#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read post's callgrind export with valgrind's callgrind_annotate and compare with post profile.

usage: cg-annotate-check.py EXPORT PROFILE

EXPORT is `post export --format callgrind`, PROFILE `post profile` of the
same trace with the same filters.  callgrind_annotate (valgrind's reader,
the oracle here) must read EXPORT without a warning, and for every
function:
  * its self cost (callgrind_annotate) equals post's Base;
  * its inclusive cost (callgrind_annotate --inclusive=yes) equals post's
    Cum, except for functions in a cycle of calls through other functions
    (mutual recursion), which the callgrind format cannot express: their
    inclusive cost is the sum of their calls' costs, and a call inside the
    cycle holds steps of an outer activation.
callgrind_annotate names a function file:function; one function whose code
comes from several files (inlined headers) is a row per file, so rows are
added up by function name, and so are post's functions of one name in
several modules.  The inclusive cost of a function is on its own file's row
(the one callgrind_annotate shows with its object); rows of its other files
hold parts.  With a filter (--module, --symbol) the export also holds the
callers of the functions shown, with no self cost.  Exit status 0 when all agree, 1 with the differences printed.
"""
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cg_annotate import annotate, call_graph, function_rows, in_cycles, post_profile  # noqa: E402

def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    export, prof = sys.argv[1:]
    _, base, cum = post_profile(prof)
    self_cost = defaultdict(int)
    for fn, _, cost in function_rows(annotate(export)):
        self_cost[fn] += cost
    incl = defaultdict(int)
    for fn, obj, cost in function_rows(annotate(export, '--inclusive=yes')):
        if obj is not None:
            incl[fn] += cost
    cycles = in_cycles(call_graph(annotate(export, '--tree=caller')))
    bad = 0
    # with --module/--symbol, functions not shown by post may call shown ones (0 self)
    for fn in sorted(f for f in set(self_cost) - set(base) if self_cost[f]):
        print('self %s: callgrind_annotate %d, not in post profile' % (fn, self_cost[fn]))
        bad += 1
    names = set(base) - {'(root)'}
    for fn in sorted(names):
        if self_cost.get(fn, 0) != base.get(fn, 0):
            print('self %s: callgrind_annotate %d, post Base %d' %
                  (fn, self_cost.get(fn, 0), base.get(fn, 0)))
            bad += 1
        if fn not in cycles and incl.get(fn, 0) != cum.get(fn, 0):
            print('inclusive %s: callgrind_annotate %d, post Cum %d' %
                  (fn, incl.get(fn, 0), cum.get(fn, 0)))
            bad += 1
    print('%d functions: self equal Base for %d, inclusive equal Cum for %d, %d in cycles' %
          (len(names), len(names) - sum(1 for f in names if self_cost.get(f, 0) != base.get(f, 0)),
           len(names) - len(cycles & names) -
           sum(1 for f in names - cycles if incl.get(f, 0) != cum.get(f, 0)),
           len(cycles & names)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
