# SPDX-License-Identifier: GPL-2.0
"""Read callgrind files through valgrind's callgrind_annotate (the reader users use).

annotate(path, *opts) runs it and fails on any warning; function_rows()
reads its file:function table, call_graph() and calls() its --tree=caller
view.  Names: callgrind_annotate shows file:function [object], the object
only on a function's own file's row.  post_profile() reads `post profile`,
what the tests compare it with.
"""
import re
import subprocess
import sys
from collections import defaultdict

ROW = re.compile(r'^\s*([\d,]+)(?:\s+\(\s*[\d.]+%\))?\s+(.*)$')
OBJ = re.compile(r'^(.*?) \[(/[^\]]*|\[[^\]]*\]|[^\]]*\.so[^\]]*)\]$')
TREE = re.compile(r'^\s*([\d,]+)(?:\s+\(\s*[\d.]+%\))?\s+([<>*])\s+(.*)$')
CALLS = re.compile(r' \(([\d,]+)x\)')


def annotate(path, *opts):
    r = subprocess.run(['callgrind_annotate', '--threshold=100', *opts, path],
                       capture_output=True, text=True)
    if r.returncode or r.stderr.strip():
        sys.exit('callgrind_annotate %s failed: %s' % (' '.join(opts), r.stderr.strip()))
    return r.stdout.splitlines()


def split_name(text):
    """'file:function [obj]' -> (function, obj or None)."""
    m = OBJ.match(text)
    obj = None
    if m:
        text, obj = m.group(1), m.group(2)
    _, _, fn = text.partition(':')
    return fn, obj


def function_rows(lines):
    """(function, obj or None, cost) of the file:function table."""
    rows = []
    started = False
    for line in lines:
        if line.strip().endswith('file:function'):
            started = True
            continue
        if not started or line.startswith('---'):
            continue
        if not line.strip():
            if rows:
                break
            continue
        m = ROW.match(line)
        if not m:
            break
        fn, obj = split_name(m.group(2))
        rows.append((fn, obj, int(m.group(1).replace(',', ''))))
    return rows


def calls(lines):
    """(caller, callee) -> calls, by function name, from --tree=caller."""
    arcs = defaultdict(int)
    callers = []
    for line in lines:
        m = TREE.match(line)
        if not m:
            callers = [] if not line.strip() else callers
            continue
        n = CALLS.search(m.group(3))
        fn, _ = split_name(CALLS.sub('', m.group(3), count=1))
        if m.group(2) == '<':
            callers.append((fn, int(n.group(1).replace(',', '')) if n else 0))
        elif m.group(2) == '*':
            for c, k in callers:
                arcs[(c, fn)] += k
            callers = []
    return arcs


def call_graph(lines):
    """caller -> callees, by function name, from --tree=caller."""
    graph = defaultdict(set)
    for caller, callee in calls(lines):
        graph[caller].add(callee)
    return graph


def in_cycles(graph):
    """Functions in a strongly connected component of more than one function (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], set()
    counter = [0]
    for root in list(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.update(comp)
    return out




MODULE = re.compile(r' \[(\[[^\]]*\]|[^\]]*)\]$')


def post_profile(path):
    """calls, Base and Cum by function name from `post profile` (names of several modules add up)."""
    calls_, base, cum = defaultdict(int), defaultdict(int), defaultdict(int)
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            parts = line.split(None, 5)
            name = MODULE.sub('', parts[5].rstrip('\n'))
            calls_[name] += int(parts[0])
            base[name] += int(parts[1])
            cum[name] += int(parts[3])
    return calls_, base, cum
