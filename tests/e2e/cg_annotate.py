# SPDX-License-Identifier: GPL-2.0
"""Read callgrind files through valgrind's callgrind_annotate (the reader users use).

annotate(path, *opts) runs it and fails on any warning; function_rows()
reads its file:function table, call_graph() and calls() its --tree=caller
view, source_lines() its --auto=yes annotation of one source file.
callgrind_annotate shows neither instructions nor jumps: instructions()
reads them from a callgrind file written with --dump-instr=yes
--collect-jumps=yes itself.  Names: callgrind_annotate shows file:function [object], the object
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



SOURCE_ROW = re.compile(r'^\s*([\d,]+|\.)(?: \(\s*[\d.]+%\))?  ')


def source_lines(lines, path):
    """line number -> count of --auto=yes --context=LARGE's annotation of path ('.': none)."""
    counts, on, n = {}, False, 0
    for i, line in enumerate(lines):
        if line.startswith('-- Auto-annotated source: '):
            on = line[len('-- Auto-annotated source: '):].strip() == path
            n = None
            continue
        if not on:
            continue
        if n is None:
            if line.startswith('Ir'):
                n = 0
            continue
        if line.startswith('-----') or line.startswith('-- line '):
            if line.startswith('-----'):
                on = False
            continue
        if not line.strip():
            continue
        m = SOURCE_ROW.match(line)
        if not m:
            sys.exit('callgrind_annotate: cannot read the annotation row %r' % line)
        if line[m.end():].startswith('=> '):
            continue        # a call's inclusive cost, not a line
        n += 1
        if m.group(1) != '.':
            counts[n] = int(m.group(1).replace(',', ''))
    return counts


POSITION = re.compile(r'^(0x[0-9a-fA-F]+|\d+|[+-]\d+|\*)\s')
NAMED = re.compile(r'^(\w+)=(?:\((\d+)\))?\s*(.*)$')


def instructions(path, obj):
    """Self Ir per instruction address of object obj, and its conditional jumps:
    ({addr: Ir}, {addr: [taken, executed]}); positions are "instr line"."""
    ir, jcnd = defaultdict(int), defaultdict(lambda: [0, 0])
    names, cur_ob = {}, None
    last = [0, 0]
    pending = None          # ('calls'|'jcnd', ...) for the next position line

    def sub(tok, prev):
        if tok == '*':
            return prev
        if tok[0] in '+-':
            return prev + int(tok)
        return int(tok, 0)

    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if POSITION.match(line + ' '):
                parts = line.split()
                pos = [sub(parts[0], last[0]), sub(parts[1], last[1]) if len(parts) > 1 else last[1]]
                last = pos
                if pending and pending[0] == 'jcnd':
                    if cur_ob == obj:
                        jcnd[pos[0]][0] += pending[1]
                        jcnd[pos[0]][1] += pending[2]
                elif not pending and cur_ob == obj and len(parts) > 2:
                    ir[pos[0]] += int(parts[2])
                pending = None
                continue
            m = NAMED.match(line)
            if not m:
                continue
            key, ref, val = m.groups()
            if key in ('ob', 'fl', 'fi', 'fe', 'fn', 'cob', 'cfi', 'cfl', 'cfn', 'jfi'):
                if ref and val:
                    names[(key[-2:], ref)] = val
                if key == 'ob':
                    cur_ob = val if val else names.get(('ob', ref))
            elif key == 'calls':
                pending = ('calls',)
            elif key == 'jcnd':
                t, e = val.split()[0].split('/')
                pending = ('jcnd', int(t), int(e))
            elif key == 'jump':
                pending = ('jump',)
    return dict(ir), {a: tuple(v) for a, v in jcnd.items()}


MODULE = re.compile(r' \[(\[[^\]]*\]|[^\]]*)\]( \(native\))?$')


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
