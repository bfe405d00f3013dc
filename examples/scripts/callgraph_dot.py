# SPDX-License-Identifier: GPL-2.0
# The call graph as Graphviz DOT: a node per function (its calls, Base and
# Cum, as post profile has them), an edge per caller and callee with its
# calls (as post arc has them).
#   post script callgraph_dot.py > graph.dot && dot -Tsvg graph.dot > graph.svg
from collections import Counter

edges = Counter()       # (caller, callee) -> calls
calls = Counter()       # function -> calls
base = Counter()        # function -> its own steps
cum = Counter()         # function -> its steps and its callees' (a recursion once)


def call(c):
    if c.counts:
        calls[c.callee] += 1
        if c.caller is not None:
            edges[c.caller, c.callee] += 1


def ret(r):
    base[r.function] += r.base
    cum[r.function] += r.fn_cum


def quote(name):
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def end():
    print("digraph calls {")
    print("\tnode [shape=box];")
    for f in sorted(base):
        print(f'\t{quote(f)} [label="{quote(f)[1:-1]}\\ncalls {calls[f]} base {base[f]} '
              f'cum {cum[f]}"];')
    for (a, b), n in sorted(edges.items()):
        print(f'\t{quote(a)} -> {quote(b)} [label="{n}"];')
    print("}")
