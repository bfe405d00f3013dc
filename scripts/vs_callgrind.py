#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare pitrace with valgrind's callgrind, function by function, on one command.

usage: scripts/vs_callgrind.py [--keep DIR] [--module NAME]... -- CMD [ARGS...]

Runs CMD twice, as the environment has it (lazy binding, unless
LD_BIND_NOW is set): under `pitrace record` and under `valgrind
--tool=callgrind`.  Then, for every function of the chosen modules (all
when none is given) that both name, it compares the self instructions:
post profile's Base, PLT stubs folded into their callers (post --plt fold,
the default, as callgrind counts them), against callgrind's self cost in
its output file.

Prints one line per function that differs, then a summary line:
"MODULE: N functions in both, E equal".  Exit 0 when it ran (differences
are findings, not failures), 1 when a tool failed, 2 on usage errors.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BIN = os.environ.get('PT_BIN', os.path.join(ROOT, 'bin'))


def run(args, **kw):
    """args' run; its stdout as text for post, thrown away for the command traced."""
    out = subprocess.PIPE if args[0].endswith('post') else subprocess.DEVNULL
    r = subprocess.run(args, stdout=out, stderr=subprocess.PIPE, text=True,
                       errors='replace', **kw)
    if r.returncode and args[0].endswith('post'):
        sys.exit('%s failed: %s' % (' '.join(args[:4]), r.stderr.strip()))
    return r


def post_self(trace):
    """(module, function) -> self instructions, from post profile (stubs folded)."""
    out = run([os.path.join(BIN, 'post'), '-i', trace, 'profile', '--wide']).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split(None, 5)
        m = re.match(r'(.*) \[([^]]*)\]$', parts[5]) if len(parts) == 6 else None
        if line.startswith('#') or not m:
            continue
        rows[(m.group(2), m.group(1))] = int(parts[1])
    return rows


def callgrind_self(path):
    """(object's base name, function) -> self Ir, from callgrind's own file.

    Read directly rather than through callgrind_annotate, whose rows name
    the object on one source file's row of a function only, so that two
    objects' functions of one name (ld.so's and a program's) stay apart.
    Format: ob=/fn= (with "(id) name" compression) set the function; a
    cost line "LINE COST" is self; the line after calls= is a call's
    inclusive cost, not self.
    """
    names = {}
    out = defaultdict(int)
    ob = fn = None
    skip = False

    def name(kind, text):
        m = re.match(r'\((\d+)\)(?: (.*))?$', text)
        if not m:
            return text
        if m.group(2) is not None:
            names[(kind, m.group(1))] = m.group(2)
        return names.get((kind, m.group(1)), text)

    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if skip:
                skip = False
                continue
            if line.startswith('ob='):
                ob = os.path.basename(name('ob', line[3:]))
            elif line.startswith('fn='):
                fn = name('fn', line[3:])
            elif line.startswith(('cob=', 'cfn=', 'cfi=', 'cfl=')):
                kind = line[1:3] if line.startswith('cfn') else line[1:line.index('=')]
                name('fn' if kind == 'fn' else kind, line[line.index('=') + 1:])
            elif line.startswith('calls='):
                skip = True
            elif line[:1].isdigit() or line[:1] in '+-*':
                parts = line.split()
                if len(parts) >= 2 and fn is not None:
                    # recursion levels (f'2) summed back into f
                    out[(ob, re.sub(r"'\d+$", '', fn))] += int(parts[1])
    return out


def compare(pt, cg, modules):
    by_module = defaultdict(lambda: [0, 0])
    cg_by_name = {(os.path.basename(o), f): c for (o, f), c in cg.items()}
    for (mod, fn), n in sorted(pt.items()):
        if fn.startswith('[') or (modules and mod not in modules):
            continue
        theirs = cg_by_name.get((mod, fn))
        if theirs is None:
            continue
        ours = n
        by_module[mod][0] += 1
        if ours == theirs:
            by_module[mod][1] += 1
        else:
            print('%-24s %-40s post %10d  callgrind %10d  (%+d)' % (mod, fn, ours, theirs,
                                                                   ours - theirs))
    for mod, (n, eq) in sorted(by_module.items()):
        print('%s: %d functions in both, %d equal' % (mod, n, eq))


def main():
    ap = argparse.ArgumentParser(usage=__doc__.splitlines()[2])
    ap.add_argument('--keep', help='keep the trace and callgrind file in DIR')
    ap.add_argument('--module', action='append', default=[])
    ap.add_argument('cmd', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ['--'] else a.cmd
    if not cmd:
        ap.print_usage(sys.stderr)
        return 2
    work = a.keep or tempfile.mkdtemp(prefix='vs-callgrind.')
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    trace, cgout = os.path.join(work, 'trace'), os.path.join(work, 'callgrind.out')
    r = run([os.path.join(BIN, 'pitrace'), 'record', '-o', trace, '--'] + cmd, env=env)
    if not os.path.isfile(os.path.join(trace, 'header')):
        sys.exit('pitrace record failed: ' + r.stderr.strip())
    r = run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + cgout] + cmd, env=env)
    if not os.path.isfile(cgout):
        sys.exit('valgrind failed: ' + r.stderr.strip())
    compare(post_self(trace), callgrind_self(cgout), set(a.module))
    return 0


if __name__ == '__main__':
    sys.exit(main())
