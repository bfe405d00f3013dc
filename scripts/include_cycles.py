#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the project's own includes: no cycles, no two headers with one name.

usage: scripts/include_cycles.py [-v] [ROOT]

Builds the graph of `#include "..."` lines of the tree's sources (ROOT,
default: this script's repository) between its modules (a module is a
source and its header: util/symbols.c and util/symbols.h), resolving each
name as the compiler does: the including file's directory first, then the -I
directories of the build that compiles it (every -I the Makefile names for
user space, driver/Kbuild's for the kernel module, $(ARCH) as each
architecture).  Prints each cycle of modules (every strongly connected
group, with one shortest cycle through it and the include lines that make
it; a cycle of headers is one of these too), each
header name that two headers share (the module build links driver/ and
arch/<arch>/driver/ files into one directory, the latter as arch_NAME), and
each header under pitrace/ that include/pitrace/, the public directory
searched first, would hide.  -v also prints the number of headers and
edges.  Exit 0 when there is none of these, 1 when there is, 2 on usage
errors.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Directories of build products and test data, not sources.
SKIP_DIRS = {'.git', 'build', 'bin', 'lib', 'debian', '__pycache__'}


def sources(root):
    """Every C source and header under root, as paths relative to it."""
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if s not in SKIP_DIRS)
        for f in sorted(files):
            if f.endswith(('.c', '.h', '.cc', '.S')):
                yield os.path.relpath(os.path.join(d, f), root)


def is_kernel(path):
    """True for the module's sources: driver/ and arch/<arch>/driver/."""
    parts = path.split(os.sep)
    return parts[0] == 'driver' or (parts[0] == 'arch' and len(parts) > 2 and
                                    parts[2] == 'driver')


def include_dirs(root, build_file, arches):
    """The -I directories a build file names, in order, $(ARCH) as each arch."""
    with open(os.path.join(root, build_file), encoding='utf-8') as f:
        text = f.read()
    dirs = []
    for d in re.findall(r'(?<!\S)-I(\S+)', text):
        d = d.replace('$(PITRACE_ROOT)/', '').replace('$(PITRACE_ROOT)', '.')
        for a in arches:
            d2 = os.path.normpath(d.replace('$(ARCH)', a).replace('$(PITRACE_ARCH)', a))
            if '$' not in d2 and d2 not in dirs:
                dirs.append(d2)
    return dirs


def search_path(path, dirs):
    """The -I directories the build of path uses: the module's or user space's."""
    return dirs['kernel' if is_kernel(path) else 'user']


def resolve(root, path, name, dirs):
    """The file a quoted include of name in path reads, or None."""
    for d in [os.path.dirname(path)] + search_path(path, dirs):
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def cycles(graph):
    """Strongly connected groups of more than one node (or a self edge)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in graph.get(v, ()):
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def one_cycle(graph, group):
    """The headers of one shortest cycle through the group's first one."""
    start, members = group[0], set(group)
    prev, queue = {start: None}, [start]
    for v in queue:
        for w in sorted(graph.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return group


def main(argv):
    verbose = '-v' in argv
    args = [a for a in argv if a != '-v']
    if len(args) > 1 or any(a.startswith('-') for a in args):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    if not os.path.isdir(os.path.join(root, 'include', 'pitrace')):
        print(f'include_cycles: {root}: not a pitrace source tree', file=sys.stderr)
        return 2
    arches = sorted(a for a in os.listdir(os.path.join(root, 'arch'))
                    if os.path.isdir(os.path.join(root, 'arch', a, 'driver')))
    dirs = {'user': include_dirs(root, 'Makefile', arches),
            'kernel': include_dirs(root, os.path.join('driver', 'Kbuild'), arches)}
    files = list(sources(root))
    headers = [f for f in files if f.endswith('.h')]
    # A module is a source and its header (util/symbols.c, util/symbols.h);
    # it depends on another when one of its files includes the other's header.
    graph, why, edges = {}, {}, 0
    for src in files:
        with open(os.path.join(root, src), encoding='utf-8', errors='replace') as f:
            text = f.read()
        mod = os.path.splitext(src)[0]
        for name in INCLUDE.findall(text):
            target = resolve(root, src, name, dirs)
            if target is None or not target.endswith('.h'):
                continue
            edges += 1
            dep = os.path.splitext(target)[0]
            if dep != mod:
                graph.setdefault(mod, set()).add(dep)
                why.setdefault((mod, dep), f'{src} includes {target}')
    problems = 0
    for group in cycles(graph):
        problems += 1
        path = one_cycle(graph, group)
        print('cycle: ' + ' -> '.join(path) + ' (' +
              '; '.join(why[(a, b)] for a, b in zip(path, path[1:])) + ')' +
              (f' [group of {len(group)}: {" ".join(group)}]' if len(group) > len(path) - 1
               else ''))
    # One name, one header; the module's build directory is flat.
    names = {}
    for h in headers:
        if h.startswith(os.path.join('include', 'pitrace') + os.sep):
            continue  # the public ABI, included as <pitrace/NAME.h>
        base = os.path.basename(h)
        names.setdefault(base, []).append(h)
        parts = h.split(os.sep)
        if is_kernel(h) and parts[0] == 'arch':
            names.setdefault('arch_' + base, []).append(h + ' (as arch_' + base + ')')
    for base, paths in sorted(names.items()):
        if len(paths) > 1:
            problems += 1
            print(f'same name: {base}: ' + ' '.join(paths))
    public = set(os.listdir(os.path.join(root, 'include', 'pitrace')))
    for h in headers:
        if os.path.dirname(h) == 'pitrace' and os.path.basename(h) in public:
            problems += 1
            print(f'hidden: {h}: "pitrace/{os.path.basename(h)}" reads include/{h}')
    if verbose:
        print(f'include_cycles: {len(files)} sources, {len(headers)} headers, {edges} includes of them, '
              f'{problems} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
