#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare post's numbers with valgrind's callgrind for a program's own functions.

usage: arc-oracle.py CALLGRIND_OUT POST_PROFILE FUNCTION...

CALLGRIND_OUT is valgrind --tool=callgrind --separate-recs=1 output, read
by valgrind's callgrind_annotate (cg_annotate.py); POST_PROFILE is
`post profile` of a trace of the same run.

FUNCTION is a name as both show it (C++ names demangled, "thrower(int)"),
optionally followed by :async=N for a signal handler: callgrind counts no
calls into a handler, post counts each of its N asynchronous entries as a
call.  "f+f.cold" compares the sums of both functions: after a jump from
f.cold back into f's body, callgrind charges f's instructions to f.cold
(the function it entered last by a call or a jump to a function's start,
until the return), post to f, whose code they are; "f.cold:calls" compares
only the calls.

For each FUNCTION, self instructions and calls must be equal.  callgrind
counts the instructions of a PLT stub (sym@plt) as its caller's own and a
call through one as a call of the function it reaches (--skip-plt); so does
post with --plt fold, its default, which these traces are read with.
"""
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cg_annotate import annotate, calls, function_rows, post_profile  # noqa: E402

def callgrind(path):
    """Self cost and calls per function, as callgrind_annotate reads the file."""
    self_cost, fn_calls = defaultdict(int), defaultdict(int)
    for fn, _, cost in function_rows(annotate(path)):
        self_cost[fn] += cost
    for (_, callee), n in calls(annotate(path, '--tree=caller')).items():
        fn_calls[callee] += n
    return self_cost, fn_calls


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    cg_self, cg_calls = callgrind(sys.argv[1])
    pt_calls, pt_self, _ = post_profile(sys.argv[2])
    bad = 0
    print('%-24s %12s %12s %8s %8s' % ('function', 'callgrind', 'post', 'cg calls', 'calls'))
    for spec in sys.argv[3:]:
        name, _, async_calls = spec.partition(':async=')
        calls_only = name.endswith(':calls')
        name = name[:-len(':calls')] if calls_only else name
        fns = name.split('+')
        cg = sum(cg_self.get(f, 0) for f in fns)
        pt = sum(pt_self.get(f, 0) for f in fns)
        cg_n = sum(cg_calls.get(f, 0) for f in fns)
        pt_n = sum(pt_calls.get(f, 0) for f in fns)
        ok = (calls_only or pt == cg) and pt_n == (int(async_calls) if async_calls else cg_n)
        if async_calls:
            ok = ok and cg_n == 0
        ok = ok and all(f in pt_self and f in cg_self for f in fns)
        print('%-24s %12d %12d %8d %8d %s' % (name, cg, pt, cg_n, pt_n, '' if ok else 'DIFFERS'))
        bad += not ok
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
