#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""import pitrace's tables checked against post's reports of the same traces.

Usage: tables.py --post POST --module-dir DIR TRACE...

For each trace, t.profile(), t.counts(by="symbol") and t.arcs() must have
the rows and numbers of POST profile, POST counts --by symbol and POST arc
(their --format csv): profile and counts in the report's order, arcs as a
set (post arc orders them by function).  The pitrace module must be
imported from DIR (tests/pkg/install.sh: the package's, against the
package's post).  Prints a line per table; exit status 1 on a difference.
"""
import argparse
import csv
import io
import os
import subprocess
import sys

import pitrace


def post(cmd, trace, *args):
    """The rows of `post -i TRACE ARGS --format csv`, as dicts."""
    out = subprocess.run([cmd, "-i", trace, *args, "--format", "csv"], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def text(v):
    """A cell as both sides print it: None and an empty field are '-'."""
    return "-" if v is None or v == "" else str(v)


def profile(cmd, t, trace):
    want = [(r["function"], r["module"], int(r["calls"]), int(r["base"]), int(r["cum"]))
            for r in post(cmd, trace, "profile")]
    got = [(r.function, r.module, r.calls, r.base, r.cum) for r in t.profile()]
    return want, got


def counts(cmd, t, trace):
    want = [(text(r["module"]), text(r["symbol"]), int(r["count"]))
            for r in post(cmd, trace, "counts", "--by", "symbol")]
    got = [(text(r.module), text(r.symbol), r.count) for r in t.counts(by="symbol")]
    return want, got


def arcs(cmd, t, trace):
    # post arc's caller lines: an arc into function entry from name (a root: none)
    want = sorted((text(r["name"]), text(r["module"]), r["entry"], r["entry_module"],
                   int(r["calls"]), int(r["base"]), int(r["cum"]))
                  for r in post(cmd, trace, "arc") if r["kind"] == "caller")
    got = sorted((text(a.caller), text(a.caller_module), a.callee, a.callee_module, a.calls,
                  a.base, a.cum) for a in t.arcs())
    return want, got


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--post", required=True, help="the post command to compare with")
    ap.add_argument("--module-dir", required=True, help="where pitrace must come from")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    where = os.path.dirname(os.path.realpath(pitrace.__file__))
    if where != os.path.realpath(a.module_dir):
        print("tables: pitrace imported from %s, not %s" % (where, a.module_dir))
        return 1
    bad = 0
    for trace in a.traces:
        t = pitrace.open(trace)
        for name, table in (("profile", profile), ("counts --by symbol", counts),
                            ("arcs", arcs)):
            want, got = table(a.post, t, trace)
            if want == got and want:
                print("%s: %s: %d rows, the same" % (trace, name, len(got)))
                continue
            bad += 1
            if not want:
                print("%s: %s: post has no rows: nothing to compare" % (trace, name))
                continue
            print("%s: %s differs: post has %d rows, pitrace %d" % (trace, name, len(want),
                                                                   len(got)))
            for w, g in zip(want + [None] * len(got), got + [None] * len(want)):
                if w != g:
                    print("  first difference: post %s, pitrace %s" % (w, g))
                    break
        t.close()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
