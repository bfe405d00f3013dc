#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare post's numbers with valgrind's callgrind for a program's own functions.

usage: arc-oracle.py CALLGRIND_OUT POST_EXPORT FUNCTION...

FUNCTION is a name as both show it (C++ names demangled, "thrower(int)"),
optionally followed by :async=N for a signal handler: callgrind counts no
calls into a handler, post counts each of its N asynchronous entries as a
call.

Both files are in callgrind format: CALLGRIND_OUT from valgrind
--tool=callgrind --separate-recs=1 --dump-instr=no, POST_EXPORT from
post export --format callgrind.  For each FUNCTION, self instructions and
calls must be equal, with one explained difference: callgrind counts the
instructions of a PLT stub (sym@plt, one jmp a call when bound at load
time, LD_BIND_NOW=1) as its caller's own; post shows the stub as a function
of its own.  So post's self of f plus the number of f's calls to *@plt must
equal callgrind's self of f.
"""
import re
import sys
from collections import defaultdict


def parse(path):
    """Self cost per function, calls per callee, calls per (caller, callee)."""
    names = {}
    self_cost = defaultdict(int)
    calls = defaultdict(int)
    arc_calls = defaultdict(int)
    fn = callee = None
    after_calls = False

    def name(value):
        m = re.match(r'\((\d+)\)(?: (.*))?$', value)
        if not m:
            return value
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names[m.group(1)]

    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('fn='):
                fn = name(line[3:])
            elif line.startswith('cfn='):
                callee = name(line[4:])
            elif line.startswith('calls='):
                calls[callee] += int(line[6:].split()[0])
                arc_calls[(fn, callee)] += int(line[6:].split()[0])
                after_calls = True
            elif line[:1] and (line[0].isdigit() or line[0] in '+-*'):
                cost = int(line.split()[-1]) if len(line.split()) > 1 else 0
                if after_calls:
                    after_calls = False    # the call's inclusive cost, not fn's own
                else:
                    self_cost[fn] += cost
    return self_cost, calls, arc_calls


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    cg_self, cg_calls, _ = parse(sys.argv[1])
    pt_self, pt_calls, pt_arc_calls = parse(sys.argv[2])
    bad = 0
    print('%-24s %12s %12s %12s %8s %8s' % ('function', 'callgrind', 'post', 'post+plt',
                                            'cg calls', 'calls'))
    for spec in sys.argv[3:]:
        f, _, async_calls = spec.partition(':async=')
        plt = sum(n for (caller, callee), n in pt_arc_calls.items()
                  if caller == f and callee.endswith('@plt'))
        adjusted = pt_self.get(f, 0) + plt
        want_calls = int(async_calls) if async_calls else cg_calls.get(f, 0)
        ok = adjusted == cg_self.get(f, 0) and pt_calls.get(f, 0) == want_calls
        if async_calls:
            ok = ok and cg_calls.get(f, 0) == 0
        print('%-24s %12d %12d %12d %8d %8d %s' % (f, cg_self.get(f, 0), pt_self.get(f, 0),
                                                  adjusted, cg_calls.get(f, 0),
                                                  pt_calls.get(f, 0), '' if ok else 'DIFFERS'))
        if f not in pt_self or f not in cg_self or not ok:
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
